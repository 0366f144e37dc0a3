/**
 * Transfers in: the SOA of a zone at one of its primaries, and the whole zone by AXFR (RFC 5936) over TCP, for
 * secondary zones (src/worker/secondary-zones.ts) and one-shot imports (docs/transfers.md). Every message is read by the DNS
 * model's wire code (src/dns/wire) and every RDATA by its record type's reader; a request signed with a TSIG key
 * needs every answer signed with it, the messages of a transfer chained (RFC 8945 §5.3.1).
 *
 * Bounded: a transfer stops with an error past `maxRecords` records, `maxOctets` octets on the wire or `maxText`
 * characters of text held (the records' owners, types and RDATA in presentation form, which can be several times
 * their wire size), after `idleMs` without data and after `timeoutMs` in all; what it read is then dropped, and
 * nothing is written.
 */
import { randomInt } from 'node:crypto';
import net from 'node:net';
import type { HostPort } from '../config/settings';
import type { TsigKey } from '../dns/wire/tsig';
import { SOA, SOAValue } from '../dns/record-types/soa';
import { ownerOf } from '../dns/name';
import { recordIdentity } from '../dns/record';
import { serialGreaterThan } from '../dns/serial';
import { soaSerial } from '../dns/zone-rules';
import {
  CLASS,
  encodeMessage,
  findTsig,
  OPCODE,
  OutgoingRecord,
  outgoingRecord,
  presentedRdata,
  readRdata,
  readWireMessage,
  signMessage,
  typeMnemonic,
  verifyMessage,
  WireFormatError,
  WireMessage,
} from '../dns/wire';
import { readExtendedError } from '../dns/extended-error';
import { exchange, RCODE_NAMES } from './dns-client';

/** a server a zone is taken from, with the key that signs the requests (none: unsigned) */
export interface TransferSource extends HostPort {
  key?: TsigKey;
}

/** a record as stored: owner relative to the zone ('@' the apex), RDATA in the model's presentation form */
export interface TransferredRecord {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}

/** why a transfer or an SOA query failed, in words for the zone's status */
export class TransferError extends Error {}

/** a whole zone past the bounds (records, text held): taking it again whole, by AXFR after an IXFR, stops the same way */
export class ZoneTooLarge extends TransferError {}

/** RFC 1035 §3.2.3, RFC 1995 §3 */
const AXFR_CODE = 252;
const IXFR_CODE = 251;
const TSIG_CODE = 250;
const OPT_CODE = 41;

const where = (source: HostPort) => (source.host.includes(':') ? `[${source.host}]:${source.port}` : `${source.host}:${source.port}`);

/** an error answer's RCODE and, when it gives one, its Extended DNS Error text (RFC 8914) */
function refusal(raw: Buffer, message: WireMessage): string {
  const rcode = raw.readUInt16BE(2) & 0xf;
  const opt = message.additionals.find((r) => r.type === OPT_CODE);
  let text = '';
  if (opt) {
    // the OPT's RDATA: options of code, length, data; code 15 is an Extended DNS Error
    for (let at = opt.rdataStart; at + 4 <= opt.rdataStart + opt.rdataLength;) {
      const code = raw.readUInt16BE(at);
      const length = raw.readUInt16BE(at + 2);
      if (code === 15) text = readExtendedError(raw.subarray(at + 4, at + 4 + length))?.text ?? '';
      at += 4 + length;
    }
  }
  return `${RCODE_NAMES[rcode] ?? `RCODE ${rcode}`}${text ? ` (${text})` : ''}`;
}

/** the zone's SOA as its primary serves it (over UDP, signed when the source has a key) */
export async function primarySoa(source: TransferSource, zone: string, timeoutMs = 2000): Promise<SOAValue & { ttl: number }> {
  let answer;
  try {
    answer = await exchange(
      source,
      { flags: OPCODE.QUERY << 11, questions: [{ name: zone, type: SOA.code, klass: CLASS.IN }] },
      {
        key: source.key,
        timeoutMs,
      },
    );
  } catch (error) {
    throw new TransferError(`SOA query to ${where(source)}: ${(error as Error).message}`);
  }
  if (answer.rcode !== 0) throw new TransferError(`${where(source)} answered ${refusal(answer.raw, answer.message)} to SOA ${zone}`);
  if (source.key && answer.tsig !== 'ok')
    throw new TransferError(`${where(source)}: the SOA answer is not signed with key ${source.key.name}`);
  const soa = answer.message.answers.find((r) => r.type === SOA.code && sameName(r.name, zone));
  if (!soa) throw new TransferError(`${where(source)} gave no SOA for ${zone} (not authoritative for it?)`);
  try {
    return { ...readRdata(answer.raw, soa, SOA), ttl: soa.ttl };
  } catch (error) {
    throw new TransferError(`${where(source)}: malformed SOA: ${(error as Error).message}`);
  }
}

const sameName = (name: string, zone: string) => name.toLowerCase().replace(/\.$/, '') === zone;

export interface TransferLimits {
  maxRecords: number;
  maxOctets: number;
  /**
   * the most characters of text a transfer holds: each record's owner, type and RDATA as presented. The wire
   * bound alone does not bound memory: a TXT string of octets outside printable ASCII is presented as 4
   * characters an octet (\DDD), base64 as 4 per 3, and each record's text is held twice (the record, and the key
   * that drops duplicates). Measured in docs/transfers.md «Bounds»
   */
  maxText: number;
  idleMs: number;
  timeoutMs: number;
}

export const DEFAULT_TRANSFER_LIMITS: TransferLimits = {
  maxRecords: 200_000,
  maxOctets: 256 * 1024 * 1024,
  maxText: 32 * 1024 * 1024,
  idleMs: 10_000,
  timeoutMs: 120_000,
};

/**
 * How many transfers in a process runs at once, secondary zones' refreshes and one-shot imports alike: a
 * transfer and the write of what it took hold the zone's records in memory (one is bounded by
 * DEFAULT_TRANSFER_LIMITS; ten of the worst accepted at once ran a 512 MB heap out of memory, docs/transfers.md
 * «Bounds»). The others wait their turn; asking a primary's SOA takes none.
 */
export const TRANSFERS_AT_ONCE = 2;

/** turns of a fixed number, taken in order of asking */
export class Turns {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(readonly size: number) {}

  /** runs `task` when a turn is free, and frees it when the task settles */
  async take<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await task();
    } finally {
      // the turn passes straight to the next in line, or is freed
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}

const transferTurns = new Turns(TRANSFERS_AT_ONCE);

/** runs a transfer in and the write of what it took in one of the process's turns (TRANSFERS_AT_ONCE) */
export const inTransferTurn = <T>(task: () => Promise<T>): Promise<T> => transferTurns.take(task);

/** a record of a transfer as read: the SOA's fields too when it is the zone's SOA */
type StreamRecord = TransferredRecord & { soa?: SOAValue };

/**
 * Asks a transfer (AXFR, or IXFR with our SOA in the authority section) over TCP and hands each record of the
 * answer to `take`, which says when the answer is complete; `messageEnd` after each message may say so too (a
 * single-SOA IXFR answer). Framing, message IDs, RCODEs, TSIG (every message verified, chained, §5.3.1), the
 * zone's bounds and the limits are kept here.
 */
function transferStream(
  source: TransferSource,
  zone: string,
  ask: { type: number; authorities?: OutgoingRecord[] },
  limits: TransferLimits,
  reader: { take(record: StreamRecord): boolean; messageEnd(): boolean },
): Promise<void> {
  const kind = ask.type === AXFR_CODE ? 'AXFR' : 'IXFR';
  const id = randomInt(0, 65536);
  let request = encodeMessage({
    id,
    flags: OPCODE.QUERY << 11,
    questions: [{ name: zone, type: ask.type, klass: CLASS.IN }],
    authorities: ask.authorities,
  });
  let lastMac: Buffer | undefined;
  let requestMac: Buffer | undefined;
  if (source.key) {
    const signed = signMessage(request, source.key);
    request = signed.message;
    requestMac = signed.mac;
  }
  const from = where(source);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: source.host, port: source.port });
    let buffered = Buffer.alloc(0);
    let octets = 0;
    const unsignedSince: Buffer[] = [];
    let done = false;
    const overall = setTimeout(() => fail(`the transfer from ${from} took longer than ${limits.timeoutMs / 1000} s`), limits.timeoutMs);
    const finish = (error?: TransferError) => {
      if (done) return;
      done = true;
      clearTimeout(overall);
      socket.destroy();
      if (error) reject(error);
      else resolve();
    };
    const fail = (reason: string) => finish(new TransferError(reason));
    socket.setTimeout(limits.idleMs, () => fail(`${from} sent nothing for ${limits.idleMs / 1000} s during the transfer`));
    socket.on('error', (error) => fail(`${kind} from ${from}: ${error.message}`));
    socket.on('close', () => fail(`${from} closed the connection before the transfer's last SOA`));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(request.length);
      socket.write(Buffer.concat([length, request]));
    });
    /** one message of the answer; true once the answer is complete */
    const message = (raw: Buffer): boolean => {
      let framed: WireMessage;
      try {
        framed = readWireMessage(raw);
      } catch (error) {
        throw new TransferError(`${from} sent a malformed message: ${(error as Error).message}`);
      }
      if (framed.id !== id) throw new TransferError(`${from} answered with another message ID`);
      // RFC 5936 §2.2.1: the first message copies the query's question, later ones may leave it out; one that names
      // another zone is the answer to another query
      const asked = framed.questions.find((q) => q.name.toLowerCase().replace(/\.$/, '') !== zone.toLowerCase().replace(/\.$/, ''));
      if (asked) throw new TransferError(`${from} answered a question for ${asked.name}, not ${zone}`);
      if ((raw.readUInt16BE(2) & 0xf) !== 0) throw new TransferError(`${from} answered ${refusal(raw, framed)} to ${kind} ${zone}`);
      if (source.key) {
        const found = findTsig(raw, framed);
        if (!found) {
          // §5.3.1: messages between signed ones may be unsigned; the next signed one covers them, the last must be signed
          if (!lastMac) throw new TransferError(`${from}: the transfer's first message is not signed with key ${source.key.name}`);
          unsignedSince.push(raw);
        } else {
          const verified = verifyMessage(raw, source.key, lastMac ? { priorMac: lastMac, unsignedSince, found } : { requestMac, found });
          if (verified.status !== 'ok') throw new TransferError(`${from}: the transfer's TSIG with key ${source.key.name} does not verify`);
          lastMac = verified.tsig.mac;
          unsignedSince.length = 0;
        }
      }
      const complete = () => {
        if (source.key && unsignedSince.length) throw new TransferError(`${from}: the transfer's last message is not signed`);
        return true;
      };
      for (const record of framed.answers) {
        if (record.type === TSIG_CODE || record.type === OPT_CODE) continue;
        if (record.klass !== CLASS.IN) throw new TransferError(`${from} sent a record of class ${record.klass} (only IN is taken)`);
        const owner = ownerOf(record.name, zone);
        if (owner === undefined) throw new TransferError(`${from} sent ${record.name}, outside ${zone}`);
        let taken: StreamRecord;
        try {
          if (record.type === SOA.code && owner === '@') {
            const value = readRdata(raw, record, SOA);
            taken = { owner, type: 'SOA', ttl: record.ttl, rdata: SOA.format(value), soa: value };
          } else {
            const presented = presentedRdata(raw, record);
            if ('unsupported' in presented)
              throw new TransferError(`${from} sent ${presented.unsupported} at ${record.name}: a type not taken here`);
            taken = { owner, type: typeMnemonic(record.type), ttl: record.ttl, rdata: presented.rdata };
          }
        } catch (error) {
          if (!(error instanceof WireFormatError)) throw error;
          throw new TransferError(`${from}: malformed RDATA at ${record.name}: ${error.message}`);
        }
        if (reader.take(taken)) return complete();
      }
      return reader.messageEnd() ? complete() : false;
    };
    socket.on('data', (chunk) => {
      if (done) return;
      octets += chunk.length;
      if (octets > limits.maxOctets) return fail(`the transfer from ${from} passed ${limits.maxOctets} octets`);
      buffered = buffered.length ? Buffer.concat([buffered, chunk]) : chunk;
      try {
        while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
          const raw = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
          buffered = buffered.subarray(2 + raw.length);
          if (message(Buffer.from(raw))) return finish();
        }
      } catch (error) {
        if (error instanceof TransferError) return finish(error);
        return fail(`${from}: ${(error as Error).message}`);
      }
    });
  });
}

export type TransferredSoa = TransferredRecord & { value: SOAValue };

/** the characters of text a record holds (TransferLimits.maxText) */
const textOf = (record: TransferredRecord) => record.owner.length + record.type.length + record.rdata.length;

const textBound = (from: string, limits: TransferLimits, what: string) =>
  new TransferError(
    `${what} at ${from} has more than ${limits.maxText} characters of records as text (the most a transfer in holds in memory)`,
  );

/** collects a whole zone's records (the SOA aside), each once (RFC 5936 §3.2: a duplicate RR is dropped), bounded */
class ZoneCollector {
  readonly records = new Map<string, TransferredRecord>();
  private text = 0;
  constructor(
    private readonly limits: TransferLimits,
    private readonly from: string,
  ) {}
  add(record: StreamRecord): void {
    const { soa: _soa, ...plain } = record;
    const before = this.records.size;
    this.records.set(recordIdentity(plain), plain);
    if (this.records.size > this.limits.maxRecords)
      throw new ZoneTooLarge(`the zone at ${this.from} has more than ${this.limits.maxRecords} records (the most a transfer in takes)`);
    if (this.records.size > before && (this.text += textOf(plain)) > this.limits.maxText)
      throw new ZoneTooLarge(textBound(this.from, this.limits, 'the zone').message);
  }
}

const soaOf = (record: StreamRecord): TransferredSoa => ({
  owner: '@',
  type: 'SOA',
  ttl: record.ttl,
  rdata: record.rdata,
  value: record.soa!,
});

/**
 * The whole zone by AXFR (RFC 5936 §2.2: the SOA, the other records, the SOA again), over TCP. The records come
 * without the SOA, each once, owners relative to the zone.
 */
export async function axfr(
  source: TransferSource,
  zone: string,
  limits: TransferLimits = DEFAULT_TRANSFER_LIMITS,
): Promise<{ soa: TransferredSoa; records: TransferredRecord[] }> {
  const from = where(source);
  let soa: TransferredSoa | undefined;
  const collected = new ZoneCollector(limits, from);
  await transferStream(source, zone, { type: AXFR_CODE }, limits, {
    take(record) {
      if (record.soa) {
        if (soa) return true;
        soa = soaOf(record);
        return false;
      }
      if (!soa) throw new TransferError(`${from}: the transfer does not begin with the SOA of ${zone} (RFC 5936 §2.2)`);
      collected.add(record);
      return false;
    },
    messageEnd: () => false,
  });
  return { soa: soa!, records: [...collected.records.values()] };
}

/** one difference sequence of an IXFR (RFC 1995 §4): from one serial to the next */
export interface IxfrStep {
  serialBefore: number;
  serialAfter: number;
  removed: TransferredRecord[];
  added: TransferredRecord[];
}

export type IxfrResult =
  | { kind: 'up-to-date'; soa: TransferredSoa }
  | { kind: 'incremental'; soa: TransferredSoa; steps: IxfrStep[] }
  /** the server answered in AXFR form (RFC 1995 §4: it may always do so) */
  | { kind: 'whole'; soa: TransferredSoa; records: TransferredRecord[] };

/**
 * IXFR (RFC 1995) from our serial, over TCP: our SOA in the authority section; the answer is the single SOA (we
 * are current), difference sequences (old SOA, deletions, new SOA, additions; the current SOA to end), or the
 * whole zone in AXFR form. The differences' records count against `maxRecords` and `maxText` as a zone's would.
 */
export async function ixfr(
  source: TransferSource,
  zone: string,
  ours: { rdata: string; ttl: number },
  limits: TransferLimits = DEFAULT_TRANSFER_LIMITS,
): Promise<IxfrResult> {
  const from = where(source);
  const ourSerial = soaSerial(ours.rdata);
  let first: TransferredSoa | undefined;
  let form: 'unknown' | 'incremental' | 'whole' = 'unknown';
  let count = 0;
  let text = 0;
  const whole = new ZoneCollector(limits, from);
  const steps: IxfrStep[] = [];
  /** in a difference sequence: deleting (after its old SOA) or adding (after its new SOA) */
  let phase: 'deleting' | 'adding' = 'adding';
  const counted = () => {
    if (++count > limits.maxRecords) throw new TransferError(`the IXFR from ${from} has more than ${limits.maxRecords} records`);
  };
  await transferStream(
    source,
    zone,
    { type: IXFR_CODE, authorities: [outgoingRecord(zone, { owner: '@', type: 'SOA', rdata: ours.rdata, ttl: ours.ttl })] },
    limits,
    {
      take(record) {
        if (!first) {
          if (!record.soa) throw new TransferError(`${from}: the IXFR does not begin with the SOA of ${zone} (RFC 1995 §4)`);
          first = soaOf(record);
          return false;
        }
        if (form === 'unknown') form = record.soa ? 'incremental' : 'whole';
        if (form === 'whole') {
          if (record.soa) return true;
          whole.add(record);
          return false;
        }
        counted();
        if (record.soa) {
          if (phase === 'adding') {
            // the start of a sequence (its old SOA), or the current SOA that ends the answer
            if (record.soa.serial === first.value.serial && steps.length) return true;
            steps.push({ serialBefore: record.soa.serial, serialAfter: record.soa.serial, removed: [], added: [] });
            phase = 'deleting';
          } else {
            steps[steps.length - 1].serialAfter = record.soa.serial;
            phase = 'adding';
          }
          return false;
        }
        const { soa: _soa, ...plain } = record;
        if ((text += textOf(plain)) > limits.maxText) throw textBound(from, limits, 'the IXFR');
        const step = steps[steps.length - 1];
        (phase === 'deleting' ? step.removed : step.added).push(plain);
        return false;
      },
      // a single SOA in the whole answer: we are current (§4). A message of the SOA alone is the whole answer
      // only if the SOA is not newer than ours: a server falling back to AXFR form may send the SOA in a message
      // of its own first (PowerDNS does), and then the zone follows (RFC 5936 §2.2 puts no record count on a message)
      messageEnd: () => form === 'unknown' && first !== undefined && !serialGreaterThan(first.value.serial, ourSerial),
    },
  );
  if (form === 'unknown') return { kind: 'up-to-date', soa: first! };
  if (form === 'whole') return { kind: 'whole', soa: first!, records: [...whole.records.values()] };
  return { kind: 'incremental', soa: first!, steps };
}
