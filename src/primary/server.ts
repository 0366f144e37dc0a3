/**
 * The hidden primary: a DNS server on DNS_LISTEN (UDP and TCP) that answers from PostgreSQL.
 *
 * - ordinary queries for zone data, authoritative (AA), NXDOMAIN / NODATA with the SOA (see lookup.ts);
 *   REFUSED for names in no zone of ours
 * - AXFR (RFC 5936) over TCP, in several messages for big zones, first message with the question (§2.2.1)
 * - IXFR (RFC 1995) from the journal (`changes`), falling back to a full transfer in IXFR form (§4) when the
 *   journal cannot lead from the client's serial to the current one; over UDP only the SOA (§2, "use TCP")
 * - the catalog zone (RFC 9432) like any zone
 * - transfers only to TRANSFER_ALLOW addresses and, when TSIG_KEY is set, only when signed with it (RFC 8945);
 *   every answer to a signed request is signed, each message of a multi-message transfer too (§5.3.1)
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';
import type { Pool } from 'pg';
import { createRolePool, noteDatabaseFailure } from '../db/availability';
import type { Settings, TsigKey } from '../config/settings';
import { toPacketName } from '../dns/name';
import { packetAnswer } from '../dns/packet';
import { serialGreaterThan } from '../dns/serial';
import type { Logger } from '../logger';
import { lookup } from './lookup';
import { badTimeOther, findTsig, isTsigAlgorithm, RCODE_FORMERR, RCODE_NOTAUTH, signMessage, TSIG_ERROR, verifyMessage } from './tsig';
import type { Principal } from '../auth/principal';
import type { DnsUpdateRequest, TtlAdjustment } from '../services/dns-updates.service';
import { readUpdate, updateRcodeOf, UPDATE_RCODE } from './update';
import { dnsUpdates } from '../metrics';
import { ListenError } from '../listen-error';
import { allRecords, findZone, inSnapshot, journalFrom, Rr, soaOf, ZoneRef } from '../repositories/dns-zone-data';

export const RCODE = { NOERROR: 0, FORMERR: RCODE_FORMERR, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5, NOTAUTH: RCODE_NOTAUTH } as const;
const OPCODE_QUERY = 0;
/** RFC 2136 §1 */
const OPCODE_UPDATE = 5;
const FLAG_QR = 0x8000;
const FLAG_AA = 0x0400;
const FLAG_TC = 0x0200;
const FLAG_RD = 0x0100;
/** transfer messages are cut at about this many octets (a TCP message may hold 65535) */
const TRANSFER_MESSAGE_OCTETS = 32000;
const UDP_DEFAULT = 512;
const UDP_MAX = 1232;

/**
 * What the primary needs for DNS UPDATE (RFC 2136) and for requests signed with a user's TSIG key: the key of
 * a name and the principal it acts as (TsigKeysService.findActive: cached 5 s, a revocation is at once in the
 * process that made it), and the service that applies an update. Absent: the primary answers UPDATE with NOTIMP.
 */
export interface UpdateDesk {
  findKey(name: string): Promise<{ key: TsigKey; principal: Principal } | undefined>;
  apply(principal: Principal, request: DnsUpdateRequest): Promise<{ changed: boolean; serial: number; ttlAdjustments: TtlAdjustment[] }>;
}

export interface PrimaryServer {
  port: number;
  address: string;
  stop(): Promise<void>;
}

interface Reply {
  rcode: number;
  flags?: number;
  answers?: any[];
  authorities?: any[];
  /** TSIG error to report (NOTAUTH answers) */
  tsigError?: number;
}

/** Signs a sequence of messages: the first with the request MAC, the next ones chained (RFC 8945 §5.3.1) */
class Signer {
  private prior: Buffer | undefined;
  constructor(private readonly key: TsigKey | undefined, private readonly requestMac: Buffer | undefined) {}
  get active(): boolean {
    return Boolean(this.key && this.requestMac);
  }
  sign(message: Buffer): Buffer {
    if (!this.key || !this.requestMac) return message;
    const signed = this.prior
      ? signMessage(message, this.key, { priorMac: this.prior })
      : signMessage(message, this.key, { requestMac: this.requestMac });
    this.prior = signed.mac;
    return signed.message;
  }
}

export function toAnswer(zone: string, rr: Rr): any {
  if (rr.owner.endsWith('.')) {
    const answer = packetAnswer(zone, { ...rr, owner: '@' });
    answer.name = toPacketName(rr.owner);
    return answer;
  }
  return packetAnswer(zone, rr);
}

function allowList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = address.includes(':') ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

export function isAllowed(list: net.BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1] : address;
  return net.isIPv4(v4) ? list.check(v4, 'ipv4') : list.check(address, 'ipv6');
}

export class PrimaryHandler {
  private readonly allow: net.BlockList;
  private readonly updateAllow: net.BlockList;

  constructor(
    private readonly settings: Settings,
    private readonly pool: Pool,
    private readonly log: Logger,
    private readonly updates?: UpdateDesk,
  ) {
    this.allow = allowList(settings.transferAllow);
    this.updateAllow = allowList(settings.updateAllow);
  }

  /**
   * Handles one request message; `send` is called once per response message (several for transfers over
   * TCP). Nothing is sent for messages that are responses or too short to answer.
   */
  async handle(raw: Buffer, remote: string, transport: 'udp' | 'tcp', send: (message: Buffer) => Promise<void>): Promise<void> {
    if (raw.length < 12) return;
    const id = raw.readUInt16BE(0);
    const flags = raw.readUInt16BE(2);
    if (flags & FLAG_QR) return;
    const opcode = (flags >> 11) & 0xf;
    const headerOnly = (rcode: number) => send(encodeHeader(id, flags, rcode));
    let request: any;
    let question: any;
    let hasOpt: boolean;
    let update: ReturnType<typeof readUpdate> | undefined;
    if (opcode === OPCODE_UPDATE) {
      // dns-packet cannot read UPDATE's empty-RDATA records (RFC 2136 §2.5.2): the edge frames it itself
      update = readUpdate(raw);
      const zone = update.ok ? update.message.questions[0] : undefined;
      question = zone && { name: toPacketName(zone.name), type: 'SOA', class: 'IN' };
      hasOpt = update.ok && update.message.additionals.some((r) => r.type === 41);
    } else {
      try {
        request = dnsPacket.decode(raw);
      } catch {
        return headerOnly(RCODE.FORMERR);
      }
      question = request.questions?.[0];
      hasOpt = (request.additionals ?? []).some((a: any) => a.type === 'OPT');
    }
    const udpLimit = (() => {
      const opt = (request?.additionals ?? []).find((a: any) => a.type === 'OPT');
      return opt ? Math.min(Math.max(opt.udpPayloadSize ?? UDP_DEFAULT, UDP_DEFAULT), UDP_MAX) : UDP_DEFAULT;
    })();
    // RFC 2136 §3.8 leaves who may update to policy: an address outside UPDATE_ALLOW is refused before anything
    if (opcode === OPCODE_UPDATE && this.updates && !isAllowed(this.updateAllow, remote)) {
      dnsUpdates.inc({ rcode: 'REFUSED' });
      this.log.info({ remote }, 'DNS UPDATE refused: address not in UPDATE_ALLOW');
      return headerOnly(RCODE.REFUSED);
    }
    const transferKey = this.settings.tsigKey;
    let found: ReturnType<typeof findTsig>;
    try {
      found = findTsig(raw);
    } catch {
      return headerOnly(RCODE.FORMERR);
    }
    // a name other than the transfer key's is a user's TSIG key (RFC 2136 updates; certbot signs its SOA query
    // too), looked up only for UPDATE_ALLOW addresses: elsewhere a made-up key name costs no database read
    let key = transferKey;
    let keyPrincipal: Principal | undefined;
    if (found && found.tsig.keyName !== transferKey?.name && this.updates && isAllowed(this.updateAllow, remote)) {
      try {
        const userKey = await this.updates.findKey(found.tsig.keyName);
        key = userKey?.key;
        keyPrincipal = userKey?.principal;
      } catch (error) {
        if (!noteDatabaseFailure(error, 'DNS primary')) this.log.error({ err: error }, 'TSIG key look-up failed');
        return headerOnly(RCODE.SERVFAIL);
      }
    }
    const verified = verifyMessage(raw, key, { found });
    const signer = new Signer(key, verified.status === 'ok' ? verified.tsig.mac : undefined);

    const build = (reply: Reply, withQuestion = true): Buffer => {
      const packet = {
        id,
        type: 'response' as const,
        flags: (opcode << 11) | (reply.flags ?? 0) | (flags & FLAG_RD) | (reply.rcode & 0xf),
        questions: withQuestion && question ? [question] : [],
        answers: reply.answers ?? [],
        authorities: reply.authorities ?? [],
        additionals: hasOpt ? [{ type: 'OPT', name: '.', udpPayloadSize: UDP_MAX, flags: 0, options: [] }] : [],
      };
      return dnsPacket.encode(packet as any);
    };
    const reply = async (r: Reply) => {
      let message = signer.sign(build(r));
      if (transport === 'udp' && message.length > udpLimit) {
        message = signer.sign(build({ rcode: r.rcode, flags: (r.flags ?? 0) | FLAG_TC }));
      }
      await send(message);
    };

    if (verified.status === 'formerr') return headerOnly(RCODE.FORMERR);
    if (verified.status === 'error') {
      // RFC 8945 §5.2: NOTAUTH with the TSIG error; BADSIG/BADKEY unsigned (MAC size 0), BADTIME signed
      const message = build({ rcode: RCODE.NOTAUTH });
      if (opcode === OPCODE_UPDATE) dnsUpdates.inc({ rcode: 'NOTAUTH' });
      const algorithm = isTsigAlgorithm(verified.tsig.algorithm) ? verified.tsig.algorithm : 'hmac-sha256';
      const tsigKey = key ?? { name: verified.tsig.keyName, algorithm, secret: Buffer.alloc(32) };
      const badTime = verified.error === TSIG_ERROR.BADTIME;
      const signed = signMessage(message, { ...tsigKey, name: verified.tsig.keyName }, {
        requestMac: badTime ? verified.tsig.mac : undefined,
        error: verified.error,
        noMac: !badTime,
        time: badTime ? undefined : verified.tsig.timeSigned,
        other: badTime ? badTimeOther() : undefined,
      });
      return send(signed.message);
    }
    if (opcode === OPCODE_UPDATE && update) return this.update(update, remote, verified.status === 'ok' ? keyPrincipal : undefined, reply);
    if (opcode !== OPCODE_QUERY) return reply({ rcode: RCODE.NOTIMP });
    if (request.questions.length !== 1 || !question) return reply({ rcode: RCODE.FORMERR });
    if (question.class !== 'IN' && question.class !== 'ANY') return reply({ rcode: RCODE.REFUSED });
    const qname = String(question.name).toLowerCase().replace(/\.$/, '');
    const qtype = String(question.type).toUpperCase();

    try {
      await inSnapshot(this.pool, async (client) => {
        const zone = await findZone(client, this.settings.catalogZone, qname);
        if (!zone) return reply({ rcode: RCODE.REFUSED });
        if (qtype === 'AXFR' || qtype === 'IXFR') {
          if (qname !== zone.name) return reply({ rcode: RCODE.NOTAUTH });
          if (!isAllowed(this.allow, remote)) {
            this.log.warn({ remote, zone: zone.name, qtype }, 'transfer refused: address not in TRANSFER_ALLOW');
            return reply({ rcode: RCODE.REFUSED });
          }
          if (transferKey && (verified.status !== 'ok' || keyPrincipal)) {
            this.log.warn({ remote, zone: zone.name, qtype }, 'transfer refused: request not signed with TSIG_KEY');
            return reply({ rcode: RCODE.REFUSED });
          }
          const soa = await soaOf(client, zone);
          if (qtype === 'AXFR' && transport === 'udp') return reply({ rcode: RCODE.FORMERR });
          if (qtype === 'IXFR') {
            const clientSoa = (request.authorities ?? []).find((a: any) => a.type === 'SOA');
            if (!clientSoa) return reply({ rcode: RCODE.FORMERR });
            const clientSerial = Number(clientSoa.data.serial);
            // RFC 1995 §2: a client as new as we are (or newer) gets just the SOA; over UDP, SOA = "use TCP"
            if (transport === 'udp' || !serialGreaterThan(zone.serial, clientSerial)) {
              return reply({ rcode: RCODE.NOERROR, flags: FLAG_AA, answers: [toAnswer(zone.name, soa)] });
            }
            const journal = await journalFrom(client, zone, clientSerial);
            if (journal) return this.streamIxfr(zone, soa, journal, build, signer, send);
          }
          return this.streamAxfr(client, zone, soa, build, signer, send);
        }
        const result = await lookup(client, zone, qname, qtype);
        return reply({
          rcode: result.rcode,
          flags: result.authoritative ? FLAG_AA : 0,
          answers: result.answers.map((r) => toAnswer(zone.name, r)),
          authorities: result.authorities.map((r) => toAnswer(zone.name, r)),
        });
      });
    } catch (error) {
      // an outage is logged once (availability.ts), not per query; SERVFAIL tells the resolver to try later
      if (!noteDatabaseFailure(error, 'DNS primary')) this.log.error({ err: error, qname, qtype, remote }, 'DNS query failed');
      await reply({ rcode: RCODE.SERVFAIL }).catch(() => undefined);
    }
  }

  /**
   * RFC 2136 §3: from an UPDATE_ALLOW address, signed with a user's (or an admin's) TSIG key, never unsigned
   * (REFUSED); the message read into a request (FORMERR when malformed) and applied as one change set.
   */
  private async update(update: ReturnType<typeof readUpdate>, remote: string, principal: Principal | undefined, reply: (r: Reply) => Promise<void>): Promise<void> {
    const answer = async (rcode: number, reason?: string) => {
      const name = Object.entries(UPDATE_RCODE).find(([, value]) => value === rcode)?.[0] ?? String(rcode);
      dnsUpdates.inc({ rcode: name });
      if (reason) this.log.info({ remote, rcode: name, reason, key: principal?.keyName }, 'DNS UPDATE refused');
      await reply({ rcode });
    };
    if (!this.updates) return answer(UPDATE_RCODE.NOTIMP, 'this process serves no updates');
    if (!principal) return answer(UPDATE_RCODE.REFUSED, 'not signed with a TSIG key made for updates');
    if (!update.ok) return answer(update.rcode, update.reason);
    try {
      const applied = await this.updates.apply(principal, update.request);
      for (const adjusted of applied.ttlAdjustments) {
        this.log.info({ remote, key: principal.keyName, ...adjusted }, 'DNS UPDATE: TTL not in ALLOWED_TTLS, the nearest allowed TTL applied');
      }
      return answer(UPDATE_RCODE.NOERROR);
    } catch (error) {
      const rcode = updateRcodeOf(error);
      if (rcode !== undefined) return answer(rcode, (error as Error).message);
      // an outage is logged once (availability.ts); SERVFAIL: the client may try again
      if (!noteDatabaseFailure(error, 'DNS primary')) this.log.error({ err: error, remote }, 'DNS UPDATE failed');
      return answer(UPDATE_RCODE.SERVFAIL);
    }
  }

  private async sendChunked(answers: AsyncIterable<any[]> | Iterable<any[]>, build: (r: Reply, q?: boolean) => Buffer, signer: Signer, send: (m: Buffer) => Promise<void>) {
    let batch: any[] = [];
    let octets = 0;
    let first = true;
    const flush = async () => {
      await send(signer.sign(build({ rcode: 0, flags: FLAG_AA, answers: batch }, first)));
      first = false;
      batch = [];
      octets = 0;
    };
    for await (const group of answers) {
      for (const answer of group) {
        const size = (dnsPacket as any).answer.encodingLength(answer) as number;
        if (batch.length && octets + size > TRANSFER_MESSAGE_OCTETS) await flush();
        batch.push(answer);
        octets += size;
      }
    }
    if (batch.length || first) await flush();
  }

  /** RFC 5936 §2.2: SOA, every other record, SOA again */
  private streamAxfr(client: any, zone: ZoneRef, soa: Rr, build: (r: Reply, q?: boolean) => Buffer, signer: Signer, send: (m: Buffer) => Promise<void>) {
    const soaAnswer = toAnswer(zone.name, soa);
    async function* answers() {
      yield [soaAnswer];
      for await (const page of allRecords(client, zone)) yield page.map((r) => toAnswer(zone.name, r));
      yield [soaAnswer];
    }
    return this.sendChunked(answers(), build, signer, send);
  }

  /** RFC 1995 §4: current SOA, then per change (old SOA, deleted RRs, new SOA, added RRs), current SOA */
  private streamIxfr(zone: ZoneRef, soa: Rr, journal: Awaited<ReturnType<typeof journalFrom>> & object, build: (r: Reply, q?: boolean) => Buffer, signer: Signer, send: (m: Buffer) => Promise<void>) {
    const isApexSoa = (r: Rr) => r.type === 'SOA' && r.owner === '@';
    const soaWith = (serial: number, from?: Rr): Rr => {
      const fields = (from ?? soa).rdata.trim().split(/\s+/);
      fields[2] = String(serial);
      return { ...(from ?? soa), rdata: fields.join(' ') };
    };
    const soaAnswer = toAnswer(zone.name, soa);
    function* answers() {
      yield [soaAnswer];
      for (const change of journal) {
        yield [toAnswer(zone.name, soaWith(change.serialBefore!, change.removed.find(isApexSoa)))];
        yield change.removed.filter((r) => !isApexSoa(r)).map((r) => toAnswer(zone.name, r));
        yield [toAnswer(zone.name, soaWith(change.serialAfter, change.added.find(isApexSoa)))];
        yield change.added.filter((r) => !isApexSoa(r)).map((r) => toAnswer(zone.name, r));
      }
      yield [soaAnswer];
    }
    return this.sendChunked(answers(), build, signer, send);
  }
}

function encodeHeader(id: number, requestFlags: number, rcode: number): Buffer {
  const b = Buffer.alloc(12);
  b.writeUInt16BE(id, 0);
  b.writeUInt16BE(FLAG_QR | (requestFlags & 0x7900) | (rcode & 0xf), 2);
  return b;
}

/** Starts the primary on settings.dnsListen (UDP and TCP on the same port; port 0 picks a free one). */
export async function startPrimary(settings: Settings, pool: Pool, log: Logger, updates?: UpdateDesk): Promise<PrimaryServer> {
  if (!settings.dnsListen) throw new Error('DNS_LISTEN is empty: the dns role needs an address');
  const { host } = settings.dnsListen;
  const handler = new PrimaryHandler(settings, pool, log, updates);
  const sockets = new Set<net.Socket>();

  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    socket.setTimeout(30_000, () => socket.destroy());
    let buffered = Buffer.alloc(0);
    let queue = Promise.resolve();
    const send = (message: Buffer) =>
      new Promise<void>((resolve) => {
        if (socket.destroyed) return resolve();
        const frame = Buffer.alloc(2);
        frame.writeUInt16BE(message.length, 0);
        // resolve on drain: a big transfer does not pile up in memory
        if (socket.write(Buffer.concat([frame, message]))) resolve();
        else socket.once('drain', () => resolve());
      });
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < length + 2) break;
        const message = buffered.subarray(2, length + 2);
        buffered = buffered.subarray(length + 2);
        queue = queue.then(() => handler.handle(message, socket.remoteAddress ?? '', 'tcp', send)).catch((error) => {
          log.error({ err: error }, 'DNS TCP request failed');
        });
      }
    });
  });
  const where = `${host}:${settings.dnsListen!.port}`;
  await new Promise<void>((resolve, reject) => {
    tcp.once('error', reject);
    tcp.listen(settings.dnsListen!.port, host, () => resolve());
  }).catch((error) => {
    throw new ListenError('DNS primary (TCP)', where, error);
  });
  const port = (tcp.address() as net.AddressInfo).port;
  const udp = dgram.createSocket(net.isIPv6(host) ? 'udp6' : 'udp4');
  udp.on('message', (message, rinfo) => {
    handler
      .handle(message, rinfo.address, 'udp', (response) => new Promise<void>((resolve) => udp.send(response, rinfo.port, rinfo.address, () => resolve())))
      .catch((error) => log.error({ err: error }, 'DNS UDP request failed'));
  });
  udp.on('error', (error) => log.error({ err: error }, 'DNS UDP socket error'));
  await new Promise<void>((resolve, reject) => {
    udp.once('error', reject);
    udp.bind(port, host, () => resolve());
  }).catch((error) => {
    // the TCP side is bound already: let it go, so a failed start holds no port
    tcp.close();
    throw new ListenError('DNS primary (UDP)', `${host}:${port}`, error);
  });
  log.info(`DNS primary listening on ${host}:${port} (UDP and TCP)`);
  return {
    port,
    address: host,
    async stop() {
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** The `dns` role: the primary with a pool of its own on the service's database. */
export async function startDnsRole(settings: Settings, connectionString: string, log: Logger, updates?: UpdateDesk): Promise<PrimaryServer> {
  const pool = createRolePool(connectionString, 'DNS primary', 8);
  try {
    const server = await startPrimary(settings, pool, log, updates);
    return {
      ...server,
      async stop() {
        await server.stop();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
