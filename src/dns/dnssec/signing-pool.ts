/**
 * Signing a zone whole on a pool of threads (node:worker_threads), one per core, as Knot's `signing-threads`
 * does: the records the signer adds besides RRSIGs (DNSKEY RRset, denial chain) are planned on the calling
 * thread (`planZone`), the RRsets to sign go to the threads in chunks, and each thread makes their canonical
 * wire form and their RRSIGs with the same `signatures` the in-thread signer uses (docs/dnssec.md). The
 * result is the same records, in the same order, as `signZone`'s.
 *
 * The threads are started on the first large zone and kept; between signings they hold no reference on the
 * event loop, so an idle pool never keeps the process alive, and `close` stops them on shutdown.
 */
import type { KeyObject } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { CanonicalRecord } from '../record';
import type { DnssecAlgorithmName } from './algorithms';
import { canonicalRdata } from './canonical-rdata';
import { Denial, planZone, Rrset, SignatureWindow, signatures, signersOf, SigningKey, ZoneKey } from './zone-signer';

/** an RRset as a thread gets it: plain data, its expiration already drawn (the window's jitter is the caller's) */
export interface PooledRrset {
  owner: string;
  type: string;
  code: number;
  ttl: number;
  expiration: number;
  rdata: string[];
}

/** a signing key as a thread gets it: the algorithm by name, the private key as a KeyObject (cloned by postMessage) */
export interface PooledKey {
  role: SigningKey['role'];
  algorithm: DnssecAlgorithmName;
  privateKey: KeyObject;
  tag: number;
  signing: boolean;
}

export interface SigningChunk {
  zone: string;
  inception: number;
  keys: PooledKey[];
  rrsets: PooledRrset[];
}

/**
 * Below this many RRsets a zone is signed on the calling thread: the signatures take a few tens of
 * milliseconds, about what starting a thread and the round trips cost.
 */
export const SIGN_IN_THREAD_BELOW_RRSETS = 2000;
/** RRsets per message: large enough that a message's cost is small against its signatures (about 50 ms of work) */
const CHUNK_RRSETS = 2000;
/**
 * A thread answers a chunk with its RRSIGs' RDATA as one string, one RDATA per line: one string crosses the
 * threads instead of thousands, and the RDATAs split from it here are slices of it, small objects for this
 * thread's collector. An RRSIG's text has no line break (type, numbers, times, the apex's name, base64).
 */
export const ANSWER_SEPARATOR = '\n';
/** chunks in flight per thread: one being signed, one waiting, so that a thread never waits on the calling one */
const IN_FLIGHT_PER_THREAD = 2;

interface Pending {
  chunk: SigningChunk;
  resolve(rdata: string[]): void;
  reject(error: Error): void;
}

interface Thread {
  worker: Worker;
  inFlight: Map<number, Pending>;
}

export class SigningPool {
  private threads: Thread[] = [];
  private readonly queue: Pending[] = [];
  private lastId = 0;
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
      .filter((key) => key.signing)
      .map((key) => ({ role: key.role, algorithm: key.algorithm.name, privateKey: key.privateKey, tag: key.tag, signing: true }));
    /** each RRset sent: its chunk, and where its RRSIGs start in the chunk's answer */
    const sent = new Map<Rrset, { chunk: number; at: number }>();
    const chunks: { rrsets: Rrset[]; signatures: number; answer: Promise<string[]> }[] = [];
    const send = (rrsets: readonly Rrset[]) => {
      for (let from = 0; from < rrsets.length; from += CHUNK_RRSETS) {
        const part = rrsets.slice(from, from + CHUNK_RRSETS);
        let at = 0;
        for (const rrset of part) {
          sent.set(rrset, { chunk: chunks.length, at });
          at += signersOf(rrset.type, pooledKeys).length;
        }
        const answer = this.run({
          zone,
          inception: window.inception,
          keys: pooledKeys,
          rrsets: part.map((rrset) => ({
            owner: rrset.owner,
            type: rrset.type,
            code: rrset.code,
            ttl: rrset.ttl,
            expiration: window.expiration(rrset.owner, rrset.type),
            rdata: rrset.records.map((record) => record.rdata),
          })),
        });
        // awaited below; a chunk that fails while this thread is still planning is not an unhandled rejection
        answer.catch(() => undefined);
        chunks.push({ rrsets: part, signatures: at, answer });
      }
    };
    // a thread takes a while to load the signer: the threads start now, while this thread groups the zone
    if (records.length >= SIGN_IN_THREAD_BELOW_RRSETS && !this.closed)
      while (this.threads.length < this.size) this.threads.push(this.start());
    const early = (rrsets: Rrset[]) => {
      if (rrsets.length >= SIGN_IN_THREAD_BELOW_RRSETS && !this.closed) send(rrsets);
    };
    const { added, toSign } = planZone(zone, records, keys, denial, early);
    if (chunks.length === 0 && (toSign.length < SIGN_IN_THREAD_BELOW_RRSETS || this.closed)) {
      for (const rrset of toSign) for (const signature of signatures(zone, rrset, keys, window, canonicalRdata)) added.push(signature);
      return added;
    }
    send(toSign.filter((rrset) => !sent.has(rrset)));
    const answers = await Promise.all(chunks.map((chunk) => chunk.answer));
    // the threads answer with the RRSIG RDATA in the chunk's order, one per signing key of each RRset
    chunks.forEach((chunk, i) => {
      if (answers[i].length !== chunk.signatures)
        throw new Error(`signing thread: ${answers[i].length} signatures for ${chunk.signatures} expected`);
    });
    for (const rrset of toSign) {
      const { chunk, at } = sent.get(rrset)!;
      const rdata = answers[chunk];
      const count = signersOf(rrset.type, pooledKeys).length;
      for (let k = 0; k < count; k++) added.push({ owner: rrset.owner, type: 'RRSIG', ttl: rrset.ttl, rdata: rdata[at + k] });
    }
    return added;
  }

  /** stops the threads; signings still waiting fail */
  async close(): Promise<void> {
    this.closed = true;
    const threads = this.threads;
    this.threads = [];
    for (const pending of this.queue.splice(0)) pending.reject(new Error('the signing pool is closed'));
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  private run(chunk: SigningChunk): Promise<string[]> {
    return new Promise<string[]>((resolve, reject) => {
      if (this.closed) return reject(new Error('the signing pool is closed'));
      this.queue.push({ chunk, resolve, reject });
      this.pump();
    });
  }

  /** hands waiting chunks to the threads with room, least loaded first, starting threads up to `size` */
  private pump(): void {
    while (this.queue.length) {
      if (this.threads.length < this.size && this.threads.every((t) => t.inFlight.size > 0)) this.threads.push(this.start());
      const thread = this.threads.reduce<Thread | undefined>(
        (best, t) => (t.inFlight.size < IN_FLIGHT_PER_THREAD && (!best || t.inFlight.size < best.inFlight.size) ? t : best),
        undefined,
      );
      if (!thread) return;
      const pending = this.queue.shift()!;
      const id = ++this.lastId;
      thread.inFlight.set(id, pending);
      // a thread at work keeps the process alive until it answers; an idle one does not (unref below)
      thread.worker.ref();
      thread.worker.postMessage({ id, chunk: pending.chunk });
    }
  }

  private start(): Thread {
    const extension = path.extname(__filename);
    const worker = new Worker(path.join(__dirname, `signing.worker${extension}`), {
      // under the tests the sources run as TypeScript (jest's swc transform); the thread loads them through
      // swc's require hook, the same compiler (as zone-file-parser.ts does)
      execArgv: extension === '.ts' ? ['--require', '@swc-node/register'] : [],
    });
    worker.unref();
    const thread: Thread = { worker, inFlight: new Map() };
    worker.on('message', ({ id, rdata, error }: { id: number; rdata?: string; error?: string }) => {
      const pending = thread.inFlight.get(id);
      thread.inFlight.delete(id);
      if (thread.inFlight.size === 0) worker.unref();
      if (error !== undefined) pending?.reject(new Error(`signing thread: ${error}`));
      else pending?.resolve(rdata === '' ? [] : rdata!.split(ANSWER_SEPARATOR));
      this.pump();
    });
    // a thread that dies fails the chunks it held; the next chunk starts another
    const fail = (error: Error) => {
      this.threads = this.threads.filter((t) => t !== thread);
      for (const pending of thread.inFlight.values()) pending.reject(error);
      thread.inFlight.clear();
      this.pump();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`signing thread stopped (exit code ${code})`)));
    return thread;
  }
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
