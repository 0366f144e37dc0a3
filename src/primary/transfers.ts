/**
 * Zone transfers out: AXFR (RFC 5936) and IXFR (RFC 1995) of a zone to one who may transfer it, held until the
 * database's synchronous standby has what they would send, in several messages for big zones (each signed when
 * the request was, RFC 8945 §5.3.1). The primary's handler (server.ts) reads the request and hands it here.
 */
import type net from 'node:net';
import type { Database, Sql } from '../db/pool';
import { parseHostPort, type Settings } from '../config/settings';
import { serialGreaterThan } from '../dns/serial';
import { withSerial } from '../dns/zone-rules';
import type { Logger } from '../logger';
import { FLAG, OutgoingRecord, outgoingRecord, readRdata, WireFormatError } from '../dns/wire';
import { SOA } from '../dns/record-types/soa';
import type { Principal } from '../auth/principal';
import { decide, forbidden } from '../auth/policy';
import { plainAddress } from '../dns/ip';
import { dnsTransfers } from '../metrics';
import { EDE } from '../dns/extended-error';
import type { RefusalLog } from './refusal-log';
import { Exchange, RCODE, Reply } from './exchange';
import type { DomainError } from '../errors/catalogue';
import { allRecords, FirstRead, journalFrom, Rr, soaOf, ZoneRef } from '../repositories/dns-zone-data';
import { isZoneSecondary } from '../repositories/zone-secondaries';
import { listNameserverSets, zoneSetState } from '../repositories/nameserver-sets';
import { confirmOnSynchronousStandby } from '../repositories/standby-confirmation';
import { isAllowed } from './allow-list';
import type { UpdateDesk } from './update-desk';

/**
 * the most a zone transfer waits for the database's synchronous standby to have what it would send
 * (`notYetOnStandby`): the standby has it when its commit was acknowledged, so a wait is a commit's flush at the
 * standby in the usual case; a second means the standby is gone or far behind, and the secondary asks again
 */
const STANDBY_CONFIRMATION_WAIT_MS = 1000;

/** transfer messages are cut at about this many octets (a TCP message may hold 65535) */
const TRANSFER_MESSAGE_OCTETS = 32000;

/** a stored record as the primary sends it; an owner ending in '.' is absolute already (a synthesised CNAME) */
export function toAnswer(zone: string, rr: Rr): OutgoingRecord {
  return outgoingRecord(zone, rr);
}

/**
 * why a transfer asked with a user's key is refused, or undefined: the key may read the whole zone. `policy`: the
 * key's rules refused it (a zone of another user is not the policy's refusal: it is no zone of the key's, as the
 * API's ZONE_NOT_FOUND)
 */
function transferRefusal(
  principal: Principal,
  zone: { kind: string; name: string; userId?: number },
): { text: string; policy?: DomainError } | undefined {
  if (principal.kind === 'admin') return undefined;
  if (zone.kind !== 'zone' || zone.userId !== principal.userId) return { text: `key ${principal.keyName} may not transfer ${zone.name}` };
  const decision = decide(principal.policy, { zone: zone.name, access: 'read' });
  return decision.allowed
    ? undefined
    : { text: `key ${principal.keyName}: ${decision.missing}`, policy: forbidden(decision.missing, 'zone') };
}

const { AA: FLAG_AA } = FLAG;

/** the transfers of one primary handler: its TRANSFER_ALLOW and UPDATE_ALLOW lists, refusal log and update desk */
export class ZoneTransfers {
  private standbyUnreadableLogged = false;

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    private readonly refusals: RefusalLog,
    private readonly allow: net.BlockList,
    private readonly updateAllow: net.BlockList,
    private readonly updates?: UpdateDesk,
  ) {}

  /**
   * AXFR (RFC 5936) or IXFR (RFC 1995), asked at a zone's apex by one who may transfer it (`transferRefused`):
   * an AXFR over TCP only; an IXFR the journal can answer as such, else the whole zone in IXFR form (RFC 1995 §4).
   */
  async transfer(
    client: Sql,
    exchange: Exchange,
    tsig: { principal?: Principal; verified: boolean },
    zone: ZoneRef,
    qname: string,
    qtype: 'AXFR' | 'IXFR',
    /** the records read with the zone (its apex's among them), in this snapshot */
    first?: FirstRead,
  ): Promise<void> {
    const { remote } = exchange;
    if (qname !== zone.name)
      return exchange.reply({
        rcode: RCODE.NOTAUTH,
        ede: { code: EDE.NOT_AUTHORITATIVE, text: `${qtype} is asked at a zone's apex: ${qname} is inside ${zone.name}` },
      });
    const refused = await this.transferRefused(client, zone, remote, qtype, tsig.principal, tsig.verified);
    if (refused) return exchange.reply(refused);
    const soa = await soaOf(client, zone, first);
    const notOnStandby = await this.notYetOnStandby(client, zone, remote, qtype);
    if (notOnStandby) return exchange.reply(notOnStandby);
    if (qtype === 'AXFR' && exchange.transport === 'udp')
      return exchange.reply({ rcode: RCODE.FORMERR, ede: { code: EDE.OTHER, text: 'AXFR is served over TCP only (RFC 5936 §4.2)' } });
    if (qtype === 'IXFR' && (await this.incrementalTransfer(client, exchange, zone, soa)) === 'answered') return;
    dnsTransfers.inc({ kind: 'AXFR', client: remote });
    return this.streamAxfr(client, zone, soa, exchange);
  }

  /**
   * A transfer hands a secondary what it keeps until the next serial, so it waits until a synchronous standby
   * has what the snapshot shows (repositories/standby-confirmation.ts): a commit the primary shows but its
   * standby lacks is lost at a failover, and a secondary that took it would keep that serial's records for good.
   * SERVFAIL when none has it within STANDBY_CONFIRMATION_WAIT_MS: the secondary asks again on its own timer.
   * Look-ups are not held back: a resolver keeps an answer for its TTL, not for ever.
   */
  private async notYetOnStandby(client: Sql, zone: ZoneRef, remote: string, qtype: string): Promise<Reply | undefined> {
    const confirmation = await confirmOnSynchronousStandby(client, STANDBY_CONFIRMATION_WAIT_MS);
    if (confirmation === 'unreadable' && !this.standbyUnreadableLogged) {
      this.standbyUnreadableLogged = true;
      this.log.warn(
        "zone transfers are not held until the synchronous standby has their data: the database role may not read pg_stat_replication's positions (grant it pg_read_all_stats; docs/deployment.md)",
      );
    }
    if (confirmation !== 'unconfirmed') return undefined;
    this.refusals.warn(
      `transfer-standby ${zone.name}`,
      { remote, zone: zone.name, qtype, serial: zone.serial },
      'transfer answered SERVFAIL: its serial is not yet on the synchronous standby',
    );
    return {
      rcode: RCODE.SERVFAIL,
      ede: {
        code: EDE.NOT_READY,
        text: `serial ${zone.serial} of ${zone.name} is not yet on the database's synchronous standby; try again`,
      },
    };
  }

  /**
   * An IXFR (RFC 1995) from the client's serial (its SOA in the authority section): just the SOA when the
   * client is as new as we are, or over UDP (§2: "use TCP"); the journal's changes from that serial when it
   * holds them all; 'whole' otherwise, for the whole zone in IXFR form (§4).
   */
  private async incrementalTransfer(client: Sql, exchange: Exchange, zone: ZoneRef, soa: Rr): Promise<'answered' | 'whole'> {
    const { raw, request, remote } = exchange;
    const clientSoa = request.framed!.authorities.find((r) => r.type === SOA.code);
    if (!clientSoa) {
      await exchange.reply({
        rcode: RCODE.FORMERR,
        ede: { code: EDE.OTHER, text: "IXFR needs the client's SOA in the authority section (RFC 1995 §3)" },
      });
      return 'answered';
    }
    let clientSerial: number;
    try {
      clientSerial = readRdata(raw, clientSoa, SOA).serial;
    } catch (error) {
      if (!(error instanceof WireFormatError)) throw error;
      await exchange.reply({ rcode: RCODE.FORMERR, ede: { code: EDE.OTHER, text: `the client's SOA is malformed: ${error.message}` } });
      return 'answered';
    }
    if (exchange.transport === 'udp' || !serialGreaterThan(zone.serial, clientSerial)) {
      dnsTransfers.inc({ kind: 'IXFR_UPTODATE', client: remote });
      await exchange.reply({ rcode: RCODE.NOERROR, flags: FLAG_AA, answers: [toAnswer(zone.name, soa)] });
      return 'answered';
    }
    // a view's zone keeps no journal of its own: the whole zone in IXFR form, as RFC 1995 §4 allows
    if (zone.view) return 'whole';
    const journal = await journalFrom(client, zone, clientSerial);
    if (!journal) return 'whole';
    dnsTransfers.inc({ kind: 'IXFR', client: remote });
    await this.streamIxfr(zone, soa, journal, exchange);
    return 'answered';
  }

  /**
   * Who may transfer a zone (RFC 5936 §6 leaves it to policy), or the refusal:
   * - a request signed with a user's TSIG key (or an admin's) is judged by that key whatever TSIG_KEY is: only a
   *   zone of the key's user, only one its rules let it read whole (docs/least-privilege.md), and only from
   *   TRANSFER_ALLOW, UPDATE_ALLOW or an address the zone lists as an extra secondary with that key
   *   (docs/transfers.md: a customer's own secondary, external-dns reading its zone before an UPDATE);
   * - anything else from TRANSFER_ALLOW only, and when TSIG_KEY is set signed with it: the fleet's key reads
   *   every zone.
   */
  private async transferRefused(
    client: Sql,
    zone: ZoneRef,
    remote: string,
    qtype: string,
    keyPrincipal: Principal | undefined,
    verified: boolean,
  ): Promise<Reply | undefined> {
    if (verified && keyPrincipal) {
      const refusal = transferRefusal(keyPrincipal, zone);
      if (refusal) {
        this.refusals.warn(`transfer-policy ${remote}`, { remote, zone: zone.name, qtype, key: keyPrincipal.keyName }, refusal.text);
        // a note for the audit log's summary, not part of the answer: on the process's database as it is
        if (refusal.policy) this.updates?.transferRefused?.(this.db, keyPrincipal, refusal.policy, remote);
        return { rcode: RCODE.REFUSED, ede: { code: EDE.PROHIBITED, text: refusal.text } };
      }
      const fromAllowed =
        isAllowed(this.allow, remote) ||
        isAllowed(this.updateAllow, remote) ||
        (keyPrincipal.kind === 'user' && (await isZoneSecondary(client, zone.id, plainAddress(remote), keyPrincipal.keyId)));
      if (fromAllowed) return undefined;
      this.refusals.warn(
        `transfer-address ${remote}`,
        { remote, zone: zone.name, qtype, key: keyPrincipal.keyName },
        'transfer refused: address not allowed for the key',
      );
      return {
        rcode: RCODE.REFUSED,
        ede: {
          code: EDE.PROHIBITED,
          text: `transfers of ${zone.name} to ${remote} with key ${keyPrincipal.keyName} are not allowed (not an extra secondary of the zone with that key)`,
        },
      };
    }
    if (!isAllowed(this.allow, remote)) {
      this.refusals.warn(
        `transfer-address ${remote}`,
        { remote, zone: zone.name, qtype },
        'transfer refused: address not in TRANSFER_ALLOW',
      );
      return { rcode: RCODE.REFUSED, ede: { code: EDE.PROHIBITED, text: `transfers to ${remote} are not allowed (TRANSFER_ALLOW)` } };
    }
    if (this.settings.tsigKey && !verified) {
      this.refusals.warn(
        `transfer-unsigned ${remote}`,
        { remote, zone: zone.name, qtype },
        'transfer refused: request not signed with TSIG_KEY',
      );
      return { rcode: RCODE.REFUSED, ede: { code: EDE.PROHIBITED, text: 'transfers must be signed with the transfer key (TSIG_KEY)' } };
    }
    return this.otherSetRefusal(client, zone, remote, qtype);
  }

  /**
   * Nameserver sets (docs/transfers.md): an address that is a secondary of some set transfers only its sets'
   * catalogs and zones (and a zone its set is leaving, until the move completes), so each fleet sees its own
   * catalog alone. Addresses of no set (an operator's tools in TRANSFER_ALLOW) read every zone, as before.
   */
  private async otherSetRefusal(client: Sql, zone: ZoneRef, remote: string, qtype: string): Promise<Reply | undefined> {
    const address = plainAddress(remote);
    const sets = (await listNameserverSets(client)).filter((set) =>
      (set.secondaries?.map(parseHostPort) ?? this.settings.secondaries).some((server) => server?.host === address),
    );
    if (!sets.length || sets.some((set) => set.id === zone.setId)) return undefined;
    // a zone its set is leaving is read by the old set's secondaries too, until the move completes: asked only
    // when the zone's own set is not theirs, so that a secondary's every refresh is a statement shorter
    const leaving = zone.kind === 'zone' ? (await zoneSetState(client, zone.id))?.leaving : undefined;
    if (leaving && sets.some((set) => set.id === leaving)) return undefined;
    const names = sets.map((set) => set.name).join(', ');
    this.refusals.warn(
      `transfer-set ${remote}`,
      { remote, zone: zone.name, qtype },
      'transfer refused: a secondary of another nameserver set',
    );
    return {
      rcode: RCODE.REFUSED,
      ede: {
        code: EDE.PROHIBITED,
        text: `transfers of ${zone.name} to ${remote} are not allowed (a secondary of nameserver set ${names})`,
      },
    };
  }

  /**
   * A transfer's records in messages of about TRANSFER_MESSAGE_OCTETS: a record that takes a message over it
   * is taken back and starts the next one (a message holds at least one record).
   */
  private async sendChunked(answers: AsyncIterable<OutgoingRecord[]> | Iterable<OutgoingRecord[]>, exchange: Exchange) {
    const reply: Reply = { rcode: 0, flags: FLAG_AA };
    let writer = exchange.start(reply, true);
    let inMessage = 0;
    const flush = async () => {
      await exchange.sendSigned(exchange.end(writer, reply));
      writer = exchange.start(reply, false);
      inMessage = 0;
    };
    for await (const group of answers) {
      for (const answer of group) {
        const mark = writer.mark();
        writer.record('answer', answer);
        if (inMessage > 0 && writer.length > TRANSFER_MESSAGE_OCTETS) {
          writer.rollback(mark);
          await flush();
          writer.record('answer', answer);
        }
        inMessage++;
      }
    }
    await exchange.sendSigned(exchange.end(writer, reply));
  }

  /** RFC 5936 §2.2: SOA, every other record, SOA again */
  private streamAxfr(client: Sql, zone: ZoneRef, soa: Rr, exchange: Exchange) {
    const soaAnswer = toAnswer(zone.name, soa);
    async function* answers() {
      yield [soaAnswer];
      for await (const page of allRecords(client, zone)) yield page.map((r) => toAnswer(zone.name, r));
      yield [soaAnswer];
    }
    return this.sendChunked(answers(), exchange);
  }

  /** RFC 1995 §4: current SOA, then per change (old SOA, deleted RRs, new SOA, added RRs), current SOA */
  private streamIxfr(zone: ZoneRef, soa: Rr, journal: Awaited<ReturnType<typeof journalFrom>> & object, exchange: Exchange) {
    const isApexSoa = (r: Rr) => r.type === 'SOA' && r.owner === '@';
    // the SOA of each step at its serial: the journal's own SOA if the row has one, else the current one's fields
    const soaWith = (serial: number, from?: Rr): Rr => ({ ...(from ?? soa), rdata: withSerial((from ?? soa).rdata, serial) });
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
    return this.sendChunked(answers(), exchange);
  }
}
