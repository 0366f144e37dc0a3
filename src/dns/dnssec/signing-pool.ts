/**
 * Signing a zone whole on a pool of threads (node:worker_threads), one per core, as Knot's `signing-threads`
 * does: the records the signer adds besides RRSIGs (DNSKEY RRset, denial chain) are planned on the calling
 * thread (`planZone`), which also writes each RRset's signing input (RFC 4034 §3.1.8.1: the RRSIG RDATA
 * without its signature, then the RRs in canonical form and order) into one shared buffer per chunk; the
 * threads only sign them. The result is the same records, in the same order, as `signZone`'s
 * (docs/dnssec.md).
 *
 * Why the calling thread writes the canonical wire forms: it has them already or makes them once (the chain's
 * NSEC and NSEC3 from the values it just formatted, an address from its text), where a thread given the
 * presentation text would parse it again; and a chunk is one buffer crossing the threads instead of thousands
 * of objects and strings to clone. The threads answer with the signatures alone, one buffer per chunk.
 *
 * Every thread gets every chunk, and the first to take it (an atomic claim in memory the threads share) signs
 * it: a thread never waits for this thread to hand it work, which matters while this thread is busy building
 * the chain and cannot answer messages, and no thread sits idle while the other still has chunks queued.
 *
 * The threads are started on the first large zone and kept; between signings they hold no reference on the
 * event loop, so an idle pool never keeps the process alive, and `close` stops them on shutdown.
 */
import type { KeyObject } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { ownerToFqdn } from '../name';
import type { CanonicalRecord } from '../record';
import { canonicalNameWire, canonicalRRsetOrder } from '../wire';
import type { DnssecAlgorithmName } from './algorithms';
import { canonicalRdata } from './canonical-rdata';
import { CLASS_IN, RRSIG_HEAD_FIXED_OCTETS } from './rrsig';
import {
  Denial,
  labelCount,
  planZone,
  rdataWireOf,
  Rrset,
  rrsigHeadOf,
  SignatureWindow,
  signatures,
  signerNameOf,
  signersOf,
  SigningKey,
  ZoneKey,
} from './zone-signer';

/** a signing key as a thread gets it: the algorithm by name, the private key as a KeyObject (cloned by postMessage) */
export interface PooledKey {
  role: SigningKey['role'];
  algorithm: DnssecAlgorithmName;
  privateKey: KeyObject;
  tag: number;
  signing: boolean;
}

/**
 * A chunk as the threads get it. `data` holds, for each RRset to sign: the number of its signing keys (one
 * octet) and their indexes in `keys` (one octet each), the length of its signing input (4 octets), then the
 * signing input: the RRSIG RDATA head (RFC 4034 §3.1) with Algorithm and Key Tag left for the thread to write
 * for each key, followed by the RRs in canonical form and order (RFC 4034 §6.2, §6.3).
 *
 * `claim`: 0 until a thread takes the chunk, then that thread's number. The answer is each signature, in
 * the chunk's order, as its length (2 octets) and its octets.
 */
export interface SigningChunk {
  id: number;
  keys: PooledKey[];
  data: SharedArrayBuffer;
  claim: Int32Array;
}

/**
 * Below this many RRsets a zone is signed on the calling thread: the signatures take a few tens of
 * milliseconds, about what starting a thread and the round trips cost.
 */
export const SIGN_IN_THREAD_BELOW_RRSETS = 2000;
/**
 * RRsets per chunk: a chunk's messages cost little against its signatures (about 30 ms of work), and chunks
 * small enough that the threads finish within one of each other
 */
const CHUNK_RRSETS = 1000;

interface Pending {
  chunk: SigningChunk;
  resolve(signatures: Buffer): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  /** what the thread writes in a chunk's claim: never 0 */
  number: number;
}

/** one chunk of a signing: its RRsets, their signing keys and fields, and, once answered, their RRSIGs */
interface Sent {
  rrsets: Rrset[];
  signers: number[][];
  labels: number[];
  expirations: number[];
  /** the chunk's RRSIGs in its order, and where each RRset's start (one more entry: the end) */
  records?: CanonicalRecord[];
  starts?: Int32Array;
  done: Promise<void>;
}

export class SigningPool {
  private threads: Thread[] = [];
  private readonly pending = new Map<number, Pending>();
  private lastId = 0;
  private lastThread = 0;
  private closed = false;

  /** `size`: threads; one per core by default (os.availableParallelism) */
  constructor(readonly size = Math.max(1, os.availableParallelism())) {}

  /**
   * `signZone` (zone-signer.ts) with the signatures made on the pool's threads. The zone's own RRsets go to the
   * threads as soon as they are grouped, so the threads start (and sign) while this thread builds the denial
   * chain; the chain's RRsets follow. The records come back in `signZone`'s order whatever the threads' order.
   */
  async signZone(
    zone: string,
    records: readonly CanonicalRecord[],
    keys: readonly ZoneKey[],
    denial: Denial,
    window: SignatureWindow,
  ): Promise<CanonicalRecord[]> {
    const pooledKeys: PooledKey[] = keys
      .filter((key): key is ZoneKey & { privateKey: KeyObject } => key.signing && !!key.privateKey)
      .map((key) => ({ role: key.role, algorithm: key.algorithm.name, privateKey: key.privateKey, tag: key.tag, signing: true }));
    const algorithmNumbers = keys.filter((key) => key.signing).map((key) => key.algorithm.number);
    const signer = signerNameOf(zone);
    /** the indexes in `pooledKeys` of the keys that sign a type, by type */
    const signersByType = new Map<string, number[]>();
    const signersOfType = (type: string, owner: string) => {
      // the apex's key RRsets are the KSK's, the same types below it the ZSK's (signersOf)
      const cacheKey = owner === '@' ? `@${type}` : type;
      let found = signersByType.get(cacheKey);
      if (!found) signersByType.set(cacheKey, (found = signersOf(type, pooledKeys, owner).map((key) => pooledKeys.indexOf(key))));
      return found;
    };
    /** each RRset sent: its chunk and its index there */
    const sentAt = new Map<Rrset, { chunk: number; index: number }>();
    const chunks: Sent[] = [];
    /** the RRSIG text up to the signature, kept for the last fields seen by type and key (a zone's RRsets share them) */
    const heads = new Map<number, { labels: number; ttl: number; expiration: number; head: string }>();
    const headOf = (code: number, k: number, labels: number, ttl: number, expiration: number): string => {
      const slot = code * 256 + k;
      const last = heads.get(slot);
      if (last && last.labels === labels && last.ttl === ttl && last.expiration === expiration) return last.head;
      const key = pooledKeys[k];
      const head = rrsigHeadOf(
        {
          typeCovered: code,
          algorithm: algorithmNumbers[k],
          labels,
          originalTtl: ttl,
          expiration,
          inception: window.inception,
          keyTag: key.tag,
          signer: signer.wire,
        },
        signer.name,
      );
      heads.set(slot, { labels, ttl, expiration, head });
      return head;
    };
    const send = (rrsets: readonly Rrset[]) => {
      for (let from = 0; from < rrsets.length; from += CHUNK_RRSETS) {
        const part = rrsets.slice(from, from + CHUNK_RRSETS);
        const packed = packChunk(zone, part, window, signersOfType, signer.wire);
        const number = chunks.length;
        part.forEach((rrset, index) => sentAt.set(rrset, { chunk: number, index }));
        const sent: Sent = { rrsets: part, ...packed, done: Promise.resolve() };
        // each answer is read as it comes, while the threads sign the next chunks
        sent.done = this.run(packed.data, pooledKeys).then((answer) => {
          const out: CanonicalRecord[] = [];
          const starts = new Int32Array(part.length + 1);
          let at = 0;
          part.forEach((rrset, i) => {
            starts[i] = out.length;
            for (const k of sent.signers[i]) {
              if (at + 2 > answer.length) throw new Error('signing thread: fewer signatures than RRsets to sign');
              const length = answer.readUInt16BE(at);
              const head = headOf(rrset.code, k, sent.labels[i], rrset.ttl, sent.expirations[i]);
              out.push({
                owner: rrset.owner,
                type: 'RRSIG',
                ttl: rrset.ttl,
                rdata: head + answer.toString('base64', at + 2, at + 2 + length),
              });
              at += 2 + length;
            }
          });
          starts[part.length] = out.length;
          if (at !== answer.length) throw new Error('signing thread: more signatures than RRsets to sign');
          sent.records = out;
          sent.starts = starts;
        });
        // awaited below; a chunk that fails while this thread is still planning is not an unhandled rejection
        sent.done.catch(() => undefined);
        chunks.push(sent);
      }
    };
    // a thread takes a while to start: the threads start now, while this thread groups the zone
    if (records.length >= SIGN_IN_THREAD_BELOW_RRSETS && !this.closed) this.startAll();
    const early = (rrsets: Rrset[]) => {
      if (rrsets.length >= SIGN_IN_THREAD_BELOW_RRSETS && !this.closed) send(rrsets);
    };
    const { added, toSign } = planZone(zone, records, keys, denial, early);
    if (chunks.length === 0 && (toSign.length < SIGN_IN_THREAD_BELOW_RRSETS || this.closed)) {
      for (const rrset of toSign) for (const signature of signatures(zone, rrset, keys, window, canonicalRdata)) added.push(signature);
      return added;
    }
    send(toSign.filter((rrset) => !sentAt.has(rrset)));
    await Promise.all(chunks.map((chunk) => chunk.done));
    for (const rrset of toSign) {
      const { chunk, index } = sentAt.get(rrset)!;
      const { records: out, starts } = chunks[chunk];
      for (let i = starts![index]; i < starts![index + 1]; i++) added.push(out![i]);
    }
    return added;
  }

  /** stops the threads; signings still waiting fail */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads;
    this.threads = [];
    const error = new Error('the signing pool is closed');
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private startAll(): void {
    while (this.threads.length < this.size) this.threads.push(this.start());
  }

  /** offers a chunk to every thread; the first free one takes it */
  private run(data: SharedArrayBuffer, keys: PooledKey[]): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (this.closed) return reject(new Error('the signing pool is closed'));
      const chunk: SigningChunk = { id: ++this.lastId, keys, data, claim: new Int32Array(new SharedArrayBuffer(4)) };
      this.pending.set(chunk.id, { chunk, resolve, reject });
      this.startAll();
      for (const thread of this.threads) this.offer(thread, chunk);
    });
  }

  private offer(thread: Thread, chunk: SigningChunk): void {
    // a thread with work offered keeps the process alive until it is done; an idle one does not (unref below)
    thread.worker.ref();
    thread.worker.postMessage(chunk);
  }

  private settled(id: number): Pending | undefined {
    const pending = this.pending.get(id);
    this.pending.delete(id);
    if (this.pending.size === 0) for (const thread of this.threads) thread.worker.unref();
    return pending;
  }

  private start(): Thread {
    const extension = path.extname(__filename);
    const number = ++this.lastThread;
    const worker = new Worker(path.join(__dirname, `signing.worker${extension}`), {
      workerData: { number },
      // under the tests the sources run as TypeScript (jest's swc transform); the thread loads them through
      // swc's require hook, the same compiler (as zone-file-parser.ts does)
      execArgv: extension === '.ts' ? ['--require', '@swc-node/register'] : [],
    });
    worker.unref();
    const thread: Thread = { worker, number };
    worker.on('message', ({ id, signatures, error }: { id: number; signatures?: ArrayBuffer; error?: string }) => {
      const pending = this.settled(id);
      if (error !== undefined) pending?.reject(new Error(`signing thread: ${error}`));
      else pending?.resolve(Buffer.from(signatures!));
    });
    // a thread that dies fails the chunks it had taken; the others are still offered to the live threads, and
    // when none is left, to a new one
    const fail = (error: Error) => {
      if (!this.threads.includes(thread)) return;
      this.threads = this.threads.filter((t) => t !== thread);
      for (const { chunk } of [...this.pending.values()])
        if (Atomics.load(chunk.claim, 0) === number) this.settled(chunk.id)?.reject(error);
      if (this.threads.length === 0 && this.pending.size > 0 && !this.closed) {
        const next = this.start();
        this.threads.push(next);
        for (const { chunk } of this.pending.values()) this.offer(next, chunk);
      }
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`signing thread stopped (exit code ${code})`)));
    return thread;
  }
}

/**
 * Writes a chunk's signing inputs (`SigningChunk`): the head's fields but the key's (Algorithm, Key Tag), the
 * RRs as `signingInputOf` (rrsig.ts) writes them. RRsets no key signs take no room.
 */
function packChunk(
  zone: string,
  rrsets: readonly Rrset[],
  window: SignatureWindow,
  signersOfType: (type: string, owner: string) => number[],
  signerWire: Buffer,
): { data: SharedArrayBuffer; signers: number[][]; labels: number[]; expirations: number[] } {
  const signers: number[][] = [];
  const labels: number[] = [];
  const expirations: number[] = [];
  const owners: Buffer[] = [];
  const rdatas: Buffer[][] = [];
  let size = 0;
  for (const rrset of rrsets) {
    const keys = signersOfType(rrset.type, rrset.owner);
    signers.push(keys);
    if (!keys.length) {
      labels.push(0);
      expirations.push(0);
      owners.push(signerWire);
      rdatas.push([]);
      continue;
    }
    // RFC 4034 §6.2: the owner in canonical form, lower-cased and uncompressed
    const owner = canonicalNameWire(ownerToFqdn(rrset.owner, zone));
    const wires = rrset.records.map((record) => rdataWireOf(zone, record, canonicalRdata));
    const ordered = wires.length === 1 ? wires : canonicalRRsetOrder(wires);
    owners.push(owner);
    rdatas.push(ordered);
    labels.push(labelCount(owner));
    expirations.push(window.expiration(rrset.owner, rrset.type));
    size += 1 + keys.length + 4 + RRSIG_HEAD_FIXED_OCTETS + signerWire.length;
    for (const rdata of ordered) size += owner.length + 10 + rdata.length;
  }
  const data = new SharedArrayBuffer(size);
  const out = Buffer.from(data);
  let at = 0;
  rrsets.forEach((rrset, i) => {
    const keys = signers[i];
    if (!keys.length) return;
    out[at++] = keys.length;
    for (const k of keys) out[at++] = k;
    const lengthAt = at;
    at += 4;
    const start = at;
    // RFC 4034 §3.1: Type Covered, Algorithm (the thread's), Labels, Original TTL, Expiration, Inception, Key
    // Tag (the thread's), Signer's Name
    at = out.writeUInt16BE(rrset.code, at);
    out[at++] = 0;
    out[at++] = labels[i];
    at = out.writeUInt32BE(rrset.ttl >>> 0, at);
    at = out.writeUInt32BE(expirations[i] >>> 0, at);
    at = out.writeUInt32BE(window.inception >>> 0, at);
    at = out.writeUInt16BE(0, at);
    at += signerWire.copy(out, at);
    const owner = owners[i];
    for (const rdata of rdatas[i]) {
      at += owner.copy(out, at);
      at = out.writeUInt16BE(rrset.code, at);
      at = out.writeUInt16BE(CLASS_IN, at);
      at = out.writeUInt32BE(rrset.ttl >>> 0, at);
      at = out.writeUInt16BE(rdata.length, at);
      at += rdata.copy(out, at);
    }
    out.writeUInt32BE(at - start, lengthAt);
  });
  return { data, signers, labels, expirations };
}

let shared: SigningPool | undefined;

/** the process's signing pool, started on first use */
export function signingPool(): SigningPool {
  if (!shared) shared = new SigningPool();
  return shared;
}

/** stops the process's signing pool, if it was started (the service's shutdown) */
export async function closeSigningPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  await pool?.close();
}
