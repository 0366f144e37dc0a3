/**
 * A primary of one zone written with the wire module (src/dns/wire), for the tests of our secondary zones that
 * need a primary misbehaving on purpose (holding a transfer open, trickling it, answering garbage), which no
 * real server does. No TSIG. On one loopback port, UDP and TCP:
 *
 * - UDP: any query is answered with the zone's SOA at `soaSerial`
 * - TCP: a transfer's request (the first message of a connection) is noted in `asked`, then answered by the
 *   mode: `serve` (the default) sends the whole zone at `zoneSerial` in one message (an IXFR too, in AXFR form:
 *   RFC 1995 §4) and closes the connection; any other mode is the test's own `answer` handler
 *
 * The zone holds its SOA (ns1.<zone>. hostmaster.<zone>. <serial> and the timers given) and `records(serial)`:
 * by default @ NS ns1, ns1 A 192.0.2.53, www A 192.0.2.<serial>.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import {
  encodeMessage,
  FLAG,
  OPCODE,
  OutgoingRecord,
  outgoingRecord,
  readWireMessage,
  typeMnemonic,
  WireMessage,
} from '../../src/dns/wire';
import { waitFor } from './wait-for';

const SOA = 6;

/** a record as a zone file has it: owner relative to the zone ('@' the apex), presentation RDATA */
export interface ZoneRecord {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}

/** a transfer asked of the primary, for the test's `answer` handler to answer */
export interface Transfer {
  request: WireMessage;
  /** the question's type: 'AXFR', 'IXFR' */
  type: string;
  /** `zoneSerial` when the request came */
  serial: number;
  socket: net.Socket;
  /** the SOA of `zone` (ours unless given) at `serial` (the transfer's unless given) */
  soa(serial?: number, zone?: string): OutgoingRecord;
  /** the records of `zone` (ours unless given) but its SOA, at the transfer's serial */
  records(zone?: string): OutgoingRecord[];
  /** the whole of `zone` (ours unless given) at the transfer's serial, as a transfer sends it: SOA, records, SOA */
  whole(zone?: string): OutgoingRecord[];
  /** an answer to the request with these records; `id` and `question` (a zone name) those of the request unless given */
  answer(records: OutgoingRecord[], options?: { id?: number; question?: string }): Buffer;
  /** sends each message with its TCP length prefix, then closes the connection */
  send(...messages: Buffer[]): void;
  /** the `serve` mode's answer: the whole zone in one message */
  serve(): void;
  /** keeps the connection open, answering nothing here: it is in `stalled` until it closes */
  stall(): void;
}

export interface FakePrimary<Mode extends string = never> {
  zone: string;
  port: number;
  /** what the SOA answers (UDP) and NOTIFYs say */
  soaSerial: number;
  /** what the transfers hold */
  zoneSerial: number;
  /** how the next transfers are answered */
  mode: 'serve' | Mode;
  /** the transfers asked, in order, with the mode they were answered in */
  asked: { type: string; mode: 'serve' | Mode }[];
  /** the connections held open (`Transfer.stall`) */
  stalled: Set<net.Socket>;
  /** sends a NOTIFY for the zone (its SOA at `soaSerial`) from 127.0.0.1 to `port`; answers the RCODE of its answer */
  notify(port: number): Promise<number>;
  close(): Promise<void>;
}

export interface FakePrimaryOptions<Mode extends string> {
  zone: string;
  /** the SOA's timers, in seconds (its MINIMUM is 300) */
  timers: { refresh: number; retry: number; expire: number };
  /** the zone's records but its SOA at `serial`, `zone` the zone's name (another zone's, for a wrong answer) */
  records?: (serial: number, zone: string) => ZoneRecord[];
  /** how a transfer is answered in a mode other than `serve` */
  answer?: (transfer: Transfer, mode: Mode) => void;
}

/** the records of a zone but its SOA unless `records` says otherwise: @ NS ns1, ns1 A 192.0.2.53, www A 192.0.2.<serial> */
export const defaultRecords = (serial: number, zone: string): ZoneRecord[] => [
  { owner: '@', type: 'NS', ttl: 300, rdata: `ns1.${zone}.` },
  { owner: 'ns1', type: 'A', ttl: 300, rdata: '192.0.2.53' },
  { owner: 'www', type: 'A', ttl: 300, rdata: `192.0.2.${serial}` },
];

/** a DNS message with its TCP length prefix (RFC 1035 §4.2.2) */
export function frame(message: Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(message.length);
  return Buffer.concat([length, message]);
}

/** listens on a loopback port free for both TCP and UDP (the TCP one the system's choice, UDP then bound to it) */
async function listen(tcp: net.Server, udp: () => dgram.Socket): Promise<{ port: number; socket: dgram.Socket }> {
  for (let attempt = 0; ; attempt++) {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    const { port } = tcp.address() as net.AddressInfo;
    const socket = udp();
    const bound = await new Promise<boolean>((resolve) => {
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) return { port, socket };
    socket.close();
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (attempt >= 20) throw new Error('no loopback port free for both TCP and UDP');
  }
}

export async function startFakePrimary<Mode extends string = never>(options: FakePrimaryOptions<Mode>): Promise<FakePrimary<Mode>> {
  const { zone, timers } = options;
  const records = options.records ?? defaultRecords;
  const soa = (serial: number, name: string): OutgoingRecord =>
    outgoingRecord(name, {
      owner: '@',
      type: 'SOA',
      ttl: 300,
      rdata: `ns1.${name}. hostmaster.${name}. ${serial} ${timers.refresh} ${timers.retry} ${timers.expire} 300`,
    });
  const answer = (id: number, type: number, question: string, answers: OutgoingRecord[]) =>
    encodeMessage({ id, flags: FLAG.QR | FLAG.AA, questions: [{ name: question, type, klass: 1 }], answers });

  const connections = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    connections.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      connections.delete(socket);
      primary.stalled.delete(socket);
    });
    let buffered = Buffer.alloc(0);
    let asked = false;
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (asked || buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      asked = true;
      const request = readWireMessage(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      const code = request.questions[0].type;
      const mode = primary.mode;
      const serial = primary.zoneSerial;
      const transfer: Transfer = {
        request,
        type: typeMnemonic(code),
        serial,
        socket,
        soa: (at = serial, name = zone) => soa(at, name),
        records: (name = zone) => records(serial, name).map((r) => outgoingRecord(name, r)),
        whole: (name = zone) => [soa(serial, name), ...transfer.records(name), soa(serial, name)],
        answer: (answers, { id = request.id, question = zone } = {}) => answer(id, code, question, answers),
        send: (...messages) => socket.end(Buffer.concat(messages.map(frame))),
        serve: () => transfer.send(transfer.answer(transfer.whole())),
        stall: () => void primary.stalled.add(socket),
      };
      primary.asked.push({ type: transfer.type, mode });
      if (mode === 'serve') transfer.serve();
      else if (options.answer) options.answer(transfer, mode);
      else throw new Error(`no answer handler for the mode ${mode}`);
    });
  });
  const { port, socket: udp } = await listen(tcp, () => dgram.createSocket('udp4'));
  udp.on('message', (message, peer) => {
    const request = readWireMessage(message);
    if (request.flags & FLAG.QR) return; // an answer: not ours to answer
    udp.send(answer(request.id, SOA, zone, [soa(primary.soaSerial, zone)]), peer.port, peer.address);
  });

  const primary: FakePrimary<Mode> = {
    zone,
    port,
    soaSerial: 1,
    zoneSerial: 1,
    mode: 'serve',
    asked: [],
    stalled: new Set(),
    async notify(to) {
      const socket = dgram.createSocket('udp4');
      try {
        await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
        const id = Math.floor(Math.random() * 65536);
        const message = encodeMessage({
          id,
          flags: (OPCODE.NOTIFY << 11) | FLAG.AA,
          questions: [{ name: zone, type: SOA, klass: 1 }],
          answers: [soa(primary.soaSerial, zone)],
        });
        let rcode: number | undefined;
        socket.on('message', (raw) => {
          const reply = readWireMessage(raw);
          if (reply.id === id) rcode = reply.flags & 0xf;
        });
        socket.send(message, to, '127.0.0.1');
        return await waitFor(`the answer to the NOTIFY for ${zone}`, () => rcode, 5000);
      } finally {
        socket.close();
      }
    },
    async close() {
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
  return primary;
}
