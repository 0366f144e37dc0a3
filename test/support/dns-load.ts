/**
 * Test support: a known mix of DNS queries sent to a server over TCP, pipelined (RFC 7766 §6.2.1.1), and what it
 * answered, counted per (name, type, RCODE). Over TCP each query is answered once however slow the host (no UDP
 * retry answered twice, no datagram lost), so the answers counted here are exactly the answers the server sent:
 * the truth a server's dnstap is compared with. Several connections, each with a window of queries in flight.
 */
import net from 'node:net';
import { prng } from './prng';

export interface Question {
  /** the absolute name, lower case, without its final dot */
  name: string;
  type: string;
}

const TYPE_CODES: Record<string, number> = { A: 1, NS: 2, SOA: 6, MX: 15, TXT: 16, AAAA: 28 };
const TYPE_NAMES = new Map(Object.entries(TYPE_CODES).map(([name, code]) => [code, name]));
export const RCODE_NAMES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED'];

/** one question as a DNS query message (RFC 1035 §4.1), RD clear, its id given */
function encodeQuery(id: number, question: Question): Buffer {
  const labels = question.name.split('.').map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, 'ascii')]));
  const message = Buffer.concat([Buffer.alloc(12), ...labels, Buffer.alloc(5)]);
  message.writeUInt16BE(id, 0);
  message.writeUInt16BE(1, 4);
  const type = TYPE_CODES[question.type];
  if (type === undefined) throw new Error(`no type code for ${question.type}`);
  message.writeUInt16BE(type, message.length - 4);
  message.writeUInt16BE(1, message.length - 2);
  const framed = Buffer.alloc(2 + message.length);
  framed.writeUInt16BE(message.length, 0);
  message.copy(framed, 2);
  return framed;
}

/** the question and RCODE of a response (its question uncompressed, as it is the message's first name) */
function readResponse(message: Buffer): { id: number; key: string } {
  const labels: string[] = [];
  let position = 12;
  while (message[position] !== 0) {
    labels.push(message.toString('ascii', position + 1, position + 1 + message[position]).toLowerCase());
    position += 1 + message[position];
  }
  const type = message.readUInt16BE(position + 1);
  const rcode = message.readUInt16BE(2) & 0xf;
  return { id: message.readUInt16BE(0), key: `${labels.join('.')} ${TYPE_NAMES.get(type) ?? type} ${RCODE_NAMES[rcode] ?? rcode}` };
}

/** sends the questions over one connection, `window` in flight; resolves with the answers' keys */
function sendOver(port: number, questions: readonly Question[], window: number, answered: Map<string, number>): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let next = 0;
    let received = 0;
    let pending: Buffer = Buffer.alloc(0);
    const inFlight = new Set<number>();
    const sendMore = () => {
      const batch: Buffer[] = [];
      while (next < questions.length && inFlight.size < window) {
        const id = next & 0xffff;
        inFlight.add(id);
        batch.push(encodeQuery(id, questions[next++]));
      }
      if (batch.length) socket.write(Buffer.concat(batch));
    };
    socket.on('connect', sendMore);
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const { id, key } = readResponse(pending.subarray(2, 2 + pending.readUInt16BE(0)));
        pending = pending.subarray(2 + pending.readUInt16BE(0));
        if (!inFlight.delete(id)) return reject(new Error(`an answer to no query in flight (id ${id})`));
        answered.set(key, (answered.get(key) ?? 0) + 1);
        received++;
      }
      if (received === questions.length) socket.end();
      else sendMore();
    });
    socket.on('error', reject);
    socket.on('close', () =>
      received === questions.length ? resolve() : reject(new Error(`the server closed after ${received} of ${questions.length} answers`)),
    );
  });
}

/**
 * Sends the questions to the server at 127.0.0.1:`port` over `connections` TCP connections (dealt round robin),
 * `window` queries in flight on each. Resolves with the answers, counted per `name type RCODE`.
 */
export async function sendQueries(
  port: number,
  questions: readonly Question[],
  options: { connections?: number; window?: number } = {},
): Promise<Map<string, number>> {
  const connections = options.connections ?? 4;
  const answered = new Map<string, number>();
  const shares = Array.from({ length: connections }, (_, i) => questions.filter((_, j) => j % connections === i));
  await Promise.all(shares.map((share) => (share.length ? sendOver(port, share, options.window ?? 32, answered) : Promise.resolve())));
  return answered;
}

/**
 * A known mix of `total` questions in `zone`, shuffled from `seed`: names that exist asked for their type and for
 * one they lack (NODATA), the apex, and names that do not exist (NXDOMAIN, `nx-<n>`, a few hundred of them).
 */
export function knownMix(zone: string, total: number, seed: number): Question[] {
  const random = prng(seed);
  const kinds: { weight: number; make: () => Question }[] = [
    { weight: 30, make: () => ({ name: `web.${zone}`, type: 'A' }) },
    { weight: 10, make: () => ({ name: `web.${zone}`, type: 'AAAA' }) },
    { weight: 10, make: () => ({ name: `mail.${zone}`, type: 'MX' }) },
    { weight: 10, make: () => ({ name: `mail.${zone}`, type: 'A' }) },
    { weight: 5, make: () => ({ name: zone, type: 'SOA' }) },
    { weight: 5, make: () => ({ name: zone, type: 'NS' }) },
    { weight: 20, make: () => ({ name: `nx-${Math.floor(random() * 300)}.${zone}`, type: 'A' }) },
    { weight: 10, make: () => ({ name: `gone.deep.${zone}`, type: 'TXT' }) },
  ];
  const sum = kinds.reduce((total, kind) => total + kind.weight, 0);
  return Array.from({ length: total }, () => {
    let pick = random() * sum;
    for (const kind of kinds) if ((pick -= kind.weight) < 0) return kind.make();
    return kinds[0].make();
  });
}
