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
import type { Database, Sql } from '../db/pool';
import { noteDatabaseFailure } from '../db/availability';
import type { Settings } from '../config/settings';
import type { TsigKey } from '../dns/wire/tsig';
import type { Logger } from '../logger';
import { lookup, withSignatures } from './lookup';
import {
  badTimeOther,
  CLASS,
  classMnemonic,
  FLAG,
  findTsig,
  isTsigAlgorithm,
  signMessage,
  TSIG_ERROR,
  typeMnemonic,
  verifyMessage,
  WireQuestion,
} from '../dns/wire';
import { SOA } from '../dns/record-types/soa';
import type { Principal } from '../auth/principal';
import { plainAddress } from '../dns/ip';
import { readUpdate, updateRcodeOf, UPDATE_RCODE } from './update';
import { dnsUpdates, tsigFailures } from '../metrics';
import { EDE } from '../dns/extended-error';
import { RefusalLog } from './refusal-log';
import {
  Exchange,
  formerrHeader,
  OPCODE_NOTIFY,
  OPCODE_QUERY,
  OPCODE_UPDATE,
  RCODE,
  rcodeName,
  readRequest,
  Reply,
  Signer,
} from './exchange';
import { DomainError } from '../errors/catalogue';
import { ListenError } from '../listen-error';
import { FirstRead, findZone, inSnapshot, inViewOfKey, ZoneRef } from '../repositories/dns-zone-data';
import { noteNotify, NotifyOutcome } from '../repositories/secondary-zones';
import { allowList, isAllowed } from './allow-list';
import { toAnswer, ZoneTransfers } from './transfers';
import type { UpdateDesk } from './update-desk';
import type { SecondaryRequests } from '../services/transfers/secondary-requests';
import { drainedOrClosed } from '../drained-or-closed';

export { RCODE } from './exchange';
export { isAllowed } from './allow-list';
export { toAnswer } from './transfers';
export type { UpdateDesk } from './update-desk';
/**
 * the most a DNS UPDATE waits for a writable primary (DATABASE_FAILOVER_WAIT_MS, db/pool.ts): its client
 * resends over UDP after 2–3 s (nsupdate: 3 s), and an answer after that is lost on it
 */
const UPDATE_FAILOVER_WAIT_MS = 1000;
const { QR: FLAG_QR, AA: FLAG_AA } = FLAG;
/** RFC 1035 §3.2.3 (AXFR), RFC 1995 §2 (IXFR) */
const AXFR_CODE = 252;
const IXFR_CODE = 251;

export interface PrimaryServer {
  port: number;
  address: string;
  stop(): Promise<void>;
}

/** a request's TSIG as verified (`verifyTsig`): its answers' signer, and the user's key that signed it */
interface VerifiedTsig {
  signer: Signer;
  /** signed, and the MAC matched a key (the transfer key or a user's) */
  verified: boolean;
  keyName?: string;
  /** the principal a user's (or an admin's) TSIG key acts as */
  principal?: Principal;
  userKey?: { principal: Principal; lastUsedAt?: Date };
}

const TSIG_ERROR_NAMES: Record<number, string> = { 16: 'BADSIG', 17: 'BADKEY', 18: 'BADTIME', 22: 'BADTRUNC' };

/** why a TSIG failed, in words for the client (EDE) and the log; never the secret */
function tsigFailure(error: number, keyName: string, algorithm: string, known: boolean): string {
  switch (error) {
    case TSIG_ERROR.BADKEY:
      return known
        ? `TSIG BADKEY: key ${keyName} is not for ${algorithm} here (use the key's own algorithm)`
        : `TSIG BADKEY: no key named ${keyName} here (or not one that may be used from this address)`;
    case TSIG_ERROR.BADSIG:
      return `TSIG BADSIG: the MAC does not match key ${keyName} (a wrong secret?)`;
    case TSIG_ERROR.BADTIME:
      return `TSIG BADTIME: the time signed is further than the fudge from this server's clock (key ${keyName})`;
    case TSIG_ERROR.BADTRUNC:
      return `TSIG BADTRUNC: truncated MACs are not accepted (key ${keyName})`;
    default:
      return `TSIG error ${error} (key ${keyName})`;
  }
}

/** why an UPDATE was answered as it was: a fixed set, for the metric's label */
type UpdateOutcome =
  | 'applied'
  | 'address'
  | 'unsigned'
  | 'tsig'
  | 'not_authoritative'
  | 'not_in_zone'
  | 'prerequisite'
  | 'refused_by_rules'
  | 'policy'
  | 'protected'
  | 'steered'
  | 'malformed'
  | 'not_served'
  | 'database'
  | 'rate_limited'
  | 'over_quota';

const UPDATE_EDE: Record<UpdateOutcome, number> = {
  applied: EDE.OTHER,
  address: EDE.PROHIBITED,
  unsigned: EDE.PROHIBITED,
  tsig: EDE.PROHIBITED,
  not_authoritative: EDE.NOT_AUTHORITATIVE,
  not_in_zone: EDE.OTHER,
  prerequisite: EDE.OTHER,
  refused_by_rules: EDE.OTHER,
  policy: EDE.PROHIBITED,
  // a protected RRset (RRSET_PROTECTED): refused by its zone's owners until they unlock it (RFC 8914 §4.19)
  protected: EDE.PROHIBITED,
  // a steered RRset (RRSET_STEERED): its records are steering's, changed through its definition (docs/steering.md)
  steered: EDE.PROHIBITED,
  malformed: EDE.OTHER,
  not_served: EDE.NOT_SUPPORTED,
  database: EDE.NETWORK_ERROR,
  // RFC 8914 has no code for a rate or a quota: OTHER, and the text says which and when to come back
  rate_limited: EDE.OTHER,
  over_quota: EDE.OTHER,
};

function updateOutcomeOf(rcode: number, error: DomainError): UpdateOutcome {
  if (error.code === 'RATE_LIMITED') return 'rate_limited';
  if (error.code === 'QUOTA_EXCEEDED') return 'over_quota';
  if (error.code === 'RRSET_PROTECTED') return 'protected';
  if (error.code === 'RRSET_STEERED') return 'steered';
  if (rcode === UPDATE_RCODE.NOTAUTH) return 'not_authoritative';
  if (rcode === UPDATE_RCODE.NOTZONE) return 'not_in_zone';
  if (rcode === UPDATE_RCODE.REFUSED) return 'refused_by_rules';
  return 'prerequisite';
}

/** a refused update's reason for the client: the service's message and every problem it named */
function refusalText(error: DomainError, keyName: string, zone: string): string {
  if (error.code === 'ZONE_NOT_FOUND' || error.code === 'INVALID_ZONE_NAME') return `no zone ${zone} that key ${keyName} may update`;
  const problems = error.details.map((d) => d.message).filter((m) => m && m !== error.message);
  return problems.length ? `${error.message}: ${problems.join('; ')}` : error.message;
}

export class PrimaryHandler {
  private readonly allow: net.BlockList;
  private readonly updateAllow: net.BlockList;
  private readonly refusals: RefusalLog;
  /**
   * The database as a message's work uses it (db/pool.ts, withFailoverWaitAtMost): an UPDATE waits a little for
   * a primary during a switchover, within its client's patience; a query or a transfer not at all
   */
  private readonly updateDb: Database;
  private readonly queryDb: Database;
  private readonly transfers: ZoneTransfers;

  constructor(
    private readonly settings: Settings,
    db: Database,
    private readonly log: Logger,
    private readonly updates?: UpdateDesk,
    /** told of every SOA, IXFR and AXFR asked, by address: the notifier paces NOTIFYs by them (notify-pacing.ts) */
    private readonly requests?: SecondaryRequests,
  ) {
    this.allow = allowList(settings.transferAllow);
    this.updateAllow = allowList(settings.updateAllow);
    this.refusals = new RefusalLog(log);
    this.transfers = new ZoneTransfers(settings, db, log, this.refusals, this.allow, this.updateAllow, updates);
    this.updateDb = db.withFailoverWaitAtMost(UPDATE_FAILOVER_WAIT_MS);
    this.queryDb = db.withFailoverWaitAtMost(0);
  }

  /**
   * Handles one request message; `send` is called once per response message (several for transfers over
   * TCP). Nothing is sent for messages that are responses or too short to answer.
   */
  async handle(raw: Buffer, remote: string, transport: 'udp' | 'tcp', send: (message: Buffer) => Promise<void>): Promise<void> {
    if (raw.length < 12) return;
    // how long the message's database work may wait for a primary during a switchover (db/pool.ts): an
    // UPDATE a little, within its client's patience; a query or a transfer not at all (SERVFAIL at once)
    const opcode = (raw.readUInt16BE(2) >> 11) & 0xf;
    return this.handleMessage(raw, remote, transport, send, opcode === OPCODE_UPDATE ? this.updateDb : this.queryDb);
  }

  /**
   * One request: read (exchange.ts), its TSIG verified, then answered by its kind: an UPDATE (`update`), a
   * NOTIFY (`notify`), a QUERY (`query`: a look-up, or a transfer); any other opcode NOTIMP.
   */
  private async handleMessage(
    raw: Buffer,
    remote: string,
    transport: 'udp' | 'tcp',
    send: (message: Buffer) => Promise<void>,
    db: Database,
  ): Promise<void> {
    if (raw.readUInt16BE(2) & FLAG_QR) return;
    const request = readRequest(raw);
    if (!request) return send(formerrHeader(raw));
    const exchange = new Exchange(raw, request, remote, transport, send);
    // RFC 2136 §3.8 leaves who may update to policy: an address outside UPDATE_ALLOW is refused before anything
    if (request.opcode === OPCODE_UPDATE && this.updates && !isAllowed(this.updateAllow, remote)) return this.refuseUpdateAddress(exchange);
    const tsig = await this.verifyTsig(exchange, db);
    if (!tsig) return;
    exchange.signWith(tsig.signer);
    if (!(await this.admitKeyUse(exchange, tsig, db))) return;
    if (request.update) return this.update(db, request.update, remote, tsig.verified ? tsig.principal : undefined, exchange.reply);
    if (request.opcode === OPCODE_NOTIFY) return this.notify(db, request.question, remote, exchange.reply);
    if (request.opcode !== OPCODE_QUERY)
      return exchange.reply({
        rcode: RCODE.NOTIMP,
        ede: { code: EDE.NOT_SUPPORTED, text: `opcode ${request.opcode} is not supported (QUERY and UPDATE are)` },
      });
    return this.query(exchange, tsig, db);
  }

  /** an UPDATE from an address outside UPDATE_ALLOW: REFUSED, unsigned (its key is not even looked at) */
  private refuseUpdateAddress(exchange: Exchange): Promise<void> {
    const { remote } = exchange;
    dnsUpdates.inc({ rcode: 'REFUSED', reason: 'address' });
    this.refusals.warn(`update-address ${remote}`, { remote }, 'DNS UPDATE refused: address not in UPDATE_ALLOW');
    return exchange.unsigned({
      rcode: RCODE.REFUSED,
      ede: { code: EDE.PROHIBITED, text: `updates from ${remote} are not allowed (UPDATE_ALLOW)` },
    });
  }

  /**
   * The request's TSIG (RFC 8945), verified against the transfer key or a user's key of that name: the signer
   * of its answers and whose key it was; undefined when the TSIG failed, and that was answered (FORMERR for a
   * malformed one, NOTAUTH with the TSIG error, SERVFAIL when the key could not be looked up). A request without
   * TSIG verifies as unsigned.
   */
  private async verifyTsig(exchange: Exchange, db: Database): Promise<VerifiedTsig | undefined> {
    const { raw, request, remote } = exchange;
    const { opcode, question } = request;
    const transferKey = this.settings.tsigKey;
    let found: ReturnType<typeof findTsig>;
    try {
      found = findTsig(raw, request.framed);
    } catch (error) {
      tsigFailures.inc({ error: 'FORMERR' });
      this.refusals.warn(`tsig-formerr ${remote}`, { remote, reason: (error as Error).message }, 'TSIG record malformed: FORMERR');
      await exchange.unsigned({
        rcode: RCODE.FORMERR,
        ede: { code: EDE.OTHER, text: `malformed TSIG record: ${(error as Error).message}` },
      });
      return undefined;
    }
    // a name other than the transfer key's is a user's TSIG key (RFC 2136 updates; certbot signs its SOA query
    // too), looked up for UPDATE_ALLOW addresses and for transfers (a customer's own secondary may be anywhere:
    // docs/transfers.md); elsewhere a made-up key name costs no database read
    // a NOTIFY too: a customer's primary signs its NOTIFYs of a secondary zone with the customer's key
    // an SOA query too: a view's secondary signs its refresh queries with the view's key (docs/views.md)
    const asksTransfer =
      (opcode === OPCODE_QUERY && (question?.type === AXFR_CODE || question?.type === IXFR_CODE || question?.type === SOA.code)) ||
      opcode === OPCODE_NOTIFY;
    let key = transferKey;
    let principal: Principal | undefined;
    let userKey: { principal: Principal; lastUsedAt?: Date } | undefined;
    if (found && found.tsig.keyName !== transferKey?.name && this.updates && (asksTransfer || isAllowed(this.updateAllow, remote))) {
      try {
        const stored = await this.updates.findKey(db, found.tsig.keyName);
        key = stored?.key;
        principal = stored?.principal;
        userKey = stored;
      } catch (error) {
        const outage = noteDatabaseFailure(error, 'DNS primary');
        if (!outage) this.log.error({ err: error }, 'TSIG key look-up failed');
        await exchange.unsigned({
          rcode: RCODE.SERVFAIL,
          ede: outage
            ? { code: EDE.NETWORK_ERROR, text: 'the database is unreachable; try again' }
            : { code: EDE.OTHER, text: 'internal error (logged)' },
        });
        return undefined;
      }
    }
    const verified = verifyMessage(raw, key, { found });
    if (verified.status === 'formerr') {
      tsigFailures.inc({ error: 'FORMERR' });
      this.refusals.warn(
        `tsig-formerr ${remote}`,
        { remote, key: found?.tsig.keyName, reason: verified.reason },
        'TSIG record malformed: FORMERR',
      );
      await exchange.unsigned({ rcode: RCODE.FORMERR, ede: { code: EDE.OTHER, text: `malformed TSIG record: ${verified.reason}` } });
      return undefined;
    }
    if (verified.status === 'error') {
      await this.answerTsigError(exchange, db, verified, key);
      return undefined;
    }
    return {
      signer: new Signer(key, verified.status === 'ok' ? verified.tsig.mac : undefined),
      verified: verified.status === 'ok',
      keyName: found?.tsig.keyName,
      principal,
      userKey,
    };
  }

  /** RFC 8945 §5.2: NOTAUTH with the TSIG error; BADSIG/BADKEY unsigned (MAC size 0), BADTIME signed */
  private async answerTsigError(
    exchange: Exchange,
    db: Database,
    verified: Extract<ReturnType<typeof verifyMessage>, { status: 'error' }>,
    key: TsigKey | undefined,
  ): Promise<void> {
    const { remote } = exchange;
    const errorName = TSIG_ERROR_NAMES[verified.error] ?? String(verified.error);
    const reason = tsigFailure(
      verified.error,
      verified.tsig.keyName,
      verified.tsig.algorithm,
      Boolean(key && key.name === verified.tsig.keyName),
    );
    tsigFailures.inc({ error: errorName });
    this.updates?.authenticationFailed?.(db, remote);
    this.refusals.warn(
      `tsig ${errorName} ${verified.tsig.keyName} ${remote}`,
      { remote, key: verified.tsig.keyName, algorithm: verified.tsig.algorithm, error: errorName },
      reason,
    );
    const message = exchange.build({ rcode: RCODE.NOTAUTH, ede: { code: EDE.PROHIBITED, text: reason } });
    if (exchange.request.opcode === OPCODE_UPDATE) dnsUpdates.inc({ rcode: 'NOTAUTH', reason: 'tsig' });
    const algorithm = key?.algorithm ?? (isTsigAlgorithm(verified.tsig.algorithm) ? verified.tsig.algorithm : 'hmac-sha256');
    const badTime = verified.error === TSIG_ERROR.BADTIME;
    const signed = signMessage(
      message,
      { name: verified.tsig.keyName, algorithm, secret: key?.secret ?? Buffer.alloc(32) },
      {
        requestMac: badTime ? verified.tsig.mac : undefined,
        error: verified.error,
        noMac: !badTime,
        time: badTime ? undefined : verified.tsig.timeSigned,
        other: badTime ? badTimeOther() : undefined,
        // the TSIG of the answer names the request's algorithm (RFC 8945 §5.3.2), whatever the key's is:
        // a client told another algorithm reports "tsig verify failure" instead of the error
        algorithmName: verified.tsig.algorithm,
      },
    );
    return exchange.sendAsIs(signed.message);
  }

  /**
   * A user's key that verified but may not be used now (expired, idle, outside its networks): refused (and
   * false) for updates and transfers, which are what such keys are for (a signed plain query is answered as any
   * query); a key that may is noted as used (the audit log's first use).
   */
  private async admitKeyUse(exchange: Exchange, tsig: VerifiedTsig, db: Database): Promise<boolean> {
    const { request, remote } = exchange;
    const keyRefusal =
      tsig.verified &&
      tsig.userKey &&
      this.updates?.admitUse &&
      (request.opcode === OPCODE_UPDATE || request.question?.type === AXFR_CODE || request.question?.type === IXFR_CODE)
        ? await this.updates.admitUse(db, tsig.userKey, remote)
        : undefined;
    if (keyRefusal) {
      if (request.opcode === OPCODE_UPDATE) dnsUpdates.inc({ rcode: 'REFUSED', reason: 'policy' });
      this.refusals.warn(`key-unusable ${tsig.keyName} ${remote}`, { remote, key: tsig.keyName }, `TSIG key refused: ${keyRefusal}`);
      await exchange.reply({ rcode: RCODE.REFUSED, ede: { code: EDE.PROHIBITED, text: `key ${tsig.keyName}: ${keyRefusal}` } });
      return false;
    }
    if (tsig.verified && tsig.principal && this.updates?.keyUsed) {
      // the audit log's record of a first use must not fail the request it was seen in
      await this.updates
        .keyUsed(db, tsig.principal, remote)
        .catch((error: unknown) => this.log.warn({ err: error }, 'audit: a TSIG key use could not be recorded'));
    }
    return true;
  }

  /**
   * A QUERY (RFC 1035 §4.1.2): one question, of class IN (or ANY), about a zone served here; a transfer (AXFR,
   * IXFR) or a look-up, read in one snapshot. REFUSED for a name in no zone of ours; SERVFAIL when the database
   * fails.
   */
  private async query(exchange: Exchange, tsig: VerifiedTsig, db: Database): Promise<void> {
    const { request, remote } = exchange;
    const question = request.question;
    if (request.framed!.questions.length !== 1 || !question)
      return exchange.reply({ rcode: RCODE.FORMERR, ede: { code: EDE.OTHER, text: 'a query must hold exactly one question' } });
    if (question.klass !== CLASS.IN && question.klass !== CLASS.ANY)
      return exchange.reply({
        rcode: RCODE.REFUSED,
        ede: { code: EDE.NOT_AUTHORITATIVE, text: `class ${classMnemonic(question.klass)} is not served (only IN)` },
      });
    const qname = question.name.toLowerCase().replace(/\.$/, '');
    const qtype = typeMnemonic(question.type);
    // a secondary's refresh (RFC 1996 §4.7: an SOA query, then a transfer): the NOTIFYs' pace follows them
    if (qtype === 'SOA' || qtype === 'IXFR' || qtype === 'AXFR')
      this.requests?.note(remote, qname, tsig.verified ? tsig.keyName : undefined);

    try {
      await inSnapshot(db, async (client) => {
        const { zone: found, first } = await findZone(client, this.settings.catalogZone, qname);
        // a request signed with a view's key reads that view's zone (docs/views.md); unsigned, the base zone
        const viewed =
          found && tsig.verified && tsig.keyName && tsig.keyName !== this.settings.tsigKey?.name
            ? await inViewOfKey(client, found, tsig.keyName)
            : { zone: found, ofView: false };
        const zone = viewed.zone;
        if (!zone)
          return exchange.reply({
            rcode: RCODE.REFUSED,
            ede: { code: EDE.NOT_AUTHORITATIVE, text: `${qname || '.'} is in no zone served here` },
          });
        // a secondary's refresh and transfers of a zone with views, without a view's key: refused when the operator
        // says so, rather than answered with the base zone, which is one view's answer too many (RFC 8914 §4.19)
        if (
          this.settings.viewsUnsignedTransfers === 'refuse' &&
          zone.viewZones &&
          !viewed.ofView &&
          (qtype === 'AXFR' || qtype === 'IXFR' || (qtype === 'SOA' && qname === zone.name))
        )
          return exchange.reply({
            rcode: RCODE.REFUSED,
            ede: {
              code: EDE.PROHIBITED,
              text: `${zone.name} has views: its ${qtype} needs a view's TSIG key (VIEWS_UNSIGNED_TRANSFERS=refuse)`,
            },
          });
        // the records read with the zone are the base zone's: a view's zone reads its own
        const firstOfZone = zone === found ? first : undefined;
        if (qtype === 'AXFR' || qtype === 'IXFR') return this.transfers.transfer(client, exchange, tsig, zone, qname, qtype, firstOfZone);
        return this.lookUp(client, exchange, zone, qname, qtype, firstOfZone);
      });
    } catch (error) {
      // an outage is logged once (availability.ts), not per query; SERVFAIL tells the resolver to try later
      const outage = noteDatabaseFailure(error, 'DNS primary');
      if (!outage) this.log.error({ err: error, qname, qtype, remote }, 'DNS query failed');
      const ede = outage
        ? { code: EDE.NETWORK_ERROR, text: 'the database is unreachable; try again' }
        : { code: EDE.OTHER, text: 'internal error (logged)' };
      await exchange.reply({ rcode: RCODE.SERVFAIL, ede }).catch(() => undefined);
    }
  }

  /** an ordinary query's answer from the zone's data (lookup.ts), with RRSIGs when the requestor set DO */
  private async lookUp(client: Sql, exchange: Exchange, zone: ZoneRef, qname: string, qtype: string, first?: FirstRead): Promise<void> {
    const found = await lookup(client, zone, qname, qtype, first);
    const result = exchange.request.dnssecOk ? await withSignatures(client, zone, found) : found;
    return exchange.reply({
      rcode: result.rcode,
      flags: result.authoritative ? FLAG_AA : 0,
      answers: result.answers.map((r) => toAnswer(zone.name, r)),
      authorities: result.authorities.map((r) => toAnswer(zone.name, r)),
      additionals: result.additionals.map((r) => toAnswer(zone.name, r)),
      glueRequired: result.referral,
    });
  }

  /**
   * NOTIFY (RFC 1996) for a secondary zone (docs/transfers.md): taken only from one of the zone's primaries
   * (§3.10: a NOTIFY from elsewhere is refused, and logged); the zone's refresh is then due at once, the workers
   * woken. Answered as §4.7 asks: the question echoed, AA.
   */
  private async notify(
    db: Database,
    question: WireQuestion | undefined,
    remote: string,
    reply: (r: Reply) => Promise<void>,
  ): Promise<void> {
    if (!question || question.type !== SOA.code)
      return reply({ rcode: RCODE.FORMERR, ede: { code: EDE.OTHER, text: 'a NOTIFY names its zone in an SOA question (RFC 1996 §3.7)' } });
    const zone = question.name.toLowerCase().replace(/\.$/, '');
    let outcome: NotifyOutcome;
    try {
      outcome = await noteNotify(db, zone, plainAddress(remote));
    } catch (error) {
      const outage = noteDatabaseFailure(error, 'DNS primary');
      if (!outage) this.log.error({ err: error, zone, remote }, 'NOTIFY failed');
      return reply({ rcode: RCODE.SERVFAIL, ede: { code: EDE.NETWORK_ERROR, text: 'the NOTIFY could not be noted; send it again' } });
    }
    switch (outcome) {
      case 'refreshing':
        this.log.debug({ zone, remote }, 'NOTIFY taken: the secondary zone is refreshed now');
        return reply({ rcode: RCODE.NOERROR, flags: FLAG_AA });
      case 'no-zone':
        return reply({ rcode: RCODE.NOTAUTH, ede: { code: EDE.NOT_AUTHORITATIVE, text: `${zone} is no zone here` } });
      case 'not-secondary':
        return reply({
          rcode: RCODE.REFUSED,
          ede: { code: EDE.NOT_SUPPORTED, text: `${zone} is a primary zone here: it takes no NOTIFY` },
        });
      case 'not-a-primary':
        this.refusals.warn(`notify ${zone} ${remote}`, { remote, zone }, 'NOTIFY refused: not from one of the zone’s primaries');
        return reply({
          rcode: RCODE.REFUSED,
          ede: { code: EDE.PROHIBITED, text: `NOTIFY for ${zone} from ${remote} refused: not one of the zone's primaries` },
        });
    }
  }

  /**
   * RFC 2136 §3: from an UPDATE_ALLOW address, signed with a user's (or an admin's) TSIG key, never unsigned
   * (REFUSED); the message read into a request (FORMERR when malformed) and applied as one change set.
   */
  private async update(
    db: Database,
    update: ReturnType<typeof readUpdate>,
    remote: string,
    principal: Principal | undefined,
    reply: (r: Reply) => Promise<void>,
  ): Promise<void> {
    const answer = async (rcode: number, outcome: UpdateOutcome, reason?: string) => {
      const name = rcodeName(rcode);
      dnsUpdates.inc({ rcode: name, reason: outcome });
      if (reason) this.log.info({ remote, rcode: name, reason, key: principal?.keyName }, 'DNS UPDATE refused');
      await reply({ rcode, ede: reason === undefined ? undefined : { code: UPDATE_EDE[outcome], text: reason } });
    };
    if (!this.updates) return answer(UPDATE_RCODE.NOTIMP, 'not_served', 'this server takes no updates (its ROLES has no api)');
    if (!principal)
      return answer(
        UPDATE_RCODE.REFUSED,
        'unsigned',
        'an update must be signed with a TSIG key made for updates (unsigned, or signed with the transfer key)',
      );
    if (!update.ok) return answer(update.rcode, update.rcode === UPDATE_RCODE.FORMERR ? 'malformed' : 'refused_by_rules', update.reason);
    try {
      await this.updates.apply(db, principal, update.request);
      return answer(UPDATE_RCODE.NOERROR, 'applied');
    } catch (error) {
      const rcode = updateRcodeOf(error);
      if (rcode !== undefined)
        return answer(
          rcode,
          // a zone under review is a policy too (RFC 8914 §4.19, Prohibited): the text names it
          ['FORBIDDEN_BY_POLICY', 'ZONE_UNDER_REVIEW'].includes((error as DomainError).code)
            ? 'policy'
            : updateOutcomeOf(rcode, error as DomainError),
          refusalText(error as DomainError, principal.keyName ?? 'this', update.request.zone),
        );
      // an outage is logged once (availability.ts); SERVFAIL: the client may try again
      const outage = noteDatabaseFailure(error, 'DNS primary');
      if (!outage) this.log.error({ err: error, remote }, 'DNS UPDATE failed');
      return answer(
        UPDATE_RCODE.SERVFAIL,
        'database',
        outage ? 'the database is unreachable; nothing was written, try again' : 'internal error (logged); nothing was written',
      );
    }
  }
}

/** Starts the primary on settings.dnsListen (UDP and TCP on the same port; port 0 picks a free one). */
export async function startPrimary(
  settings: Settings,
  db: Database,
  log: Logger,
  updates?: UpdateDesk,
  requests?: SecondaryRequests,
): Promise<PrimaryServer> {
  if (!settings.dnsListen) throw new Error('DNS_LISTEN is empty: the dns role needs an address');
  const { host } = settings.dnsListen;
  const handler = new PrimaryHandler(settings, db, log, updates, requests);
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
        // resolve on drain: a big transfer does not pile up in memory; or on close: a client gone while the
        // transfer waited for it to read never drains, and the transfer would hold its transaction for good
        if (socket.write(Buffer.concat([frame, message]))) resolve();
        else void drainedOrClosed(socket).then(resolve);
      });
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const length = buffered.readUInt16BE(0);
        if (buffered.length < length + 2) break;
        const message = buffered.subarray(2, length + 2);
        buffered = buffered.subarray(length + 2);
        queue = queue
          .then(() => handler.handle(message, socket.remoteAddress ?? '', 'tcp', send))
          .catch((error) => {
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
      .handle(
        message,
        rinfo.address,
        'udp',
        (response) => new Promise<void>((resolve) => udp.send(response, rinfo.port, rinfo.address, () => resolve())),
      )
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
  const told = requests?.primaryStarted();
  return {
    port,
    address: host,
    async stop() {
      told?.();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** The `dns` role: the primary, reading through the process's Database (its one pool). */
export function startDnsRole(
  settings: Settings,
  db: Database,
  log: Logger,
  updates?: UpdateDesk,
  requests?: SecondaryRequests,
): Promise<PrimaryServer> {
  return startPrimary(settings, db, log, updates, requests);
}
