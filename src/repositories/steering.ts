/**
 * Steering's SQL (docs/steering.md): a zone's health checks with their state (`steering_checks`), claimed by the
 * prober FOR UPDATE SKIP LOCKED so each runs once per interval across processes, and its steered RRsets
 * (`steered_rrsets`) with their pools and what was last served.
 */
import type { Sql } from '../db/pool';
import type { StoredRow } from './zone-writes';
import type { ProbeTarget } from '../outbound/probes';

/** why a check's state is held (services/steering/decision.ts) */
export type Held = 'panic' | 'no-sound-vantage';

/** a check's damped status: `unknown` until fall or rise first decides it, served as up (see memberHealthy) */
export type CheckStatus = 'unknown' | 'up' | 'down';
export type AdminStatus = 'up' | 'down' | 'obey';
export type AllDown = 'backup' | 'empty';
export const STEERED_TYPES = ['A', 'AAAA', 'CNAME'] as const;
export type SteeredType = (typeof STEERED_TYPES)[number];

export interface CheckState {
  status: CheckStatus;
  /** when `status` last changed (its creation for `unknown`) */
  since: Date;
  /** passes and failures in a row (one of them is 0 once a probe ran) */
  passes: number;
  failures: number;
  /** when the current run of equal raw results began */
  stableSince: Date | null;
  /** the status changes within the flap window, oldest first */
  transitions: Date[];
  /** flapping: held down until the probes have agreed for STABLE_MS */
  pinned: boolean;
}

export interface SteeringMember {
  value: string;
  /** the check whose status the member follows; null: no check (up unless its admin status says down) */
  checkId: number | null;
  admin: AdminStatus;
  /** taken and stored; a standard secondary cannot weigh, so every healthy member of the active pool is served */
  weight: number;
}

export interface SteeringPool {
  minHealthy: number;
  members: SteeringMember[];
}

/**
 * A rule by client network or country (docs/steering.md, «Rules by network and country»): the askers in its
 * networks are served its pools (in fallback order, health-filtered as the RRset's own) through a view of
 * steering's own; the RRset's own pools are the catch-all's.
 */
export interface SteeringRule {
  /** CIDR blocks, canonical (host bits dropped), sorted */
  subnets: string[];
  /** octoDNS's geos: a continent (`EU`) or a continent and a country (`EU-DE`), sorted */
  geos: string[];
  pools: SteeringPool[];
}

export interface SteeringDefinition {
  pools: SteeringPool[];
  maxAnswers: number;
  backup: string[];
  allDown: AllDown;
}

/**
 * how a check learns its endpoint's health: probed (http, https, tcp: outbound/probes.ts), or `external`: reported
 * through the API, each report holding for a lease (as PowerDNS's `ifurlextup`)
 */
export type CheckProtocol = ProbeTarget['protocol'] | 'external';

/**
 * a check as defined: what the prober connects to and expects (outbound/probes.ts), its name and own interval; an
 * external check has no address or port (stored as null, read as '' and 0)
 */
export interface CheckDefinition extends Omit<ProbeTarget, 'protocol'> {
  protocol: CheckProtocol;
  name: string;
  intervalSeconds: number | null;
}

/** the check is probed (not external): its definition is a probe's target */
export function isProbed(check: CheckDefinition): check is CheckDefinition & ProbeTarget {
  return check.protocol !== 'external';
}

/**
 * A zone's defaults for the checks the service makes for new members (octoDNS's dynamic records): each null where
 * not set, the service's own default then applying. Not applied to a check that exists: what an operator set
 * stays.
 */
export interface SteeringDefaults {
  protocol: Exclude<CheckProtocol, 'external'> | null;
  port: number | null;
  host: string | null;
  path: string | null;
  statusMin: number | null;
  statusMax: number | null;
  bodyContains: string | null;
  verifyTls: boolean | null;
  intervalSeconds: number | null;
}

export const NO_STEERING_DEFAULTS: SteeringDefaults = {
  protocol: null,
  port: null,
  host: null,
  path: null,
  statusMin: null,
  statusMax: null,
  bodyContains: null,
  verifyTls: null,
  intervalSeconds: null,
};

export interface CheckRow extends CheckDefinition, CheckState {
  id: number;
  domainId: number;
  zone: string;
  lastOk: boolean | null;
  lastError: string | null;
  latencyMs: number | null;
  checkedAt: Date | null;
  /** an external check: until when its last report holds (null: none yet, or a probed check) */
  leaseUntil: Date | null;
  /**
   * why its state is held where it is although its votes would move it (services/steering/decision.ts):
   * `panic` (the panic freeze), `no-sound-vantage` (every vantage that probed it is isolated); null: not held
   */
  held: Held | null;
  heldSince: Date | null;
}

export interface RrsetDefinition {
  owner: string;
  type: SteeredType;
  ttl: number;
  pools: SteeringPool[];
  maxAnswers: number;
  backup: string[];
  allDown: AllDown;
  /** answers by client network or country, first match first (none: one answer for every asker) */
  rules?: SteeringRule[];
  /**
   * the `LUA` record's content of an octoDNS dynamic record written through the PowerDNS API, kept as written
   * (read back byte for byte); null for a steered RRset written any other way
   */
  luaContent?: string | null;
}

/** every pool of a steered RRset: its own, then its rules' (whose members follow the zone's checks too) */
export function everyPool(rrset: Pick<RrsetDefinition, 'pools' | 'rules'>): SteeringPool[] {
  return [...rrset.pools, ...(rrset.rules ?? []).flatMap((rule) => rule.pools)];
}

export interface RrsetRow extends RrsetDefinition {
  id: number;
  domainId: number;
  zone: string;
  served: string[];
}

export const CHECK_COLUMNS = `c.id, c.domain_id, d.name as zone, c.name, c.protocol, c.address, c.port, c.host, c.path, c.status_min,
  c.status_max, c.body_contains, c.verify_tls, c.interval_seconds, c.status, c.since, c.pinned, c.last_ok, c.last_error,
  c.latency_ms, c.checked_at, c.passes, c.failures, c.stable_since, c.transitions, c.lease_until, c.held, c.held_since`;

export const toCheck = (r: any): CheckRow => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  zone: r.zone,
  name: r.name,
  protocol: r.protocol,
  address: r.address ?? '',
  port: r.port ?? 0,
  host: r.host,
  path: r.path,
  statusMin: r.status_min,
  statusMax: r.status_max,
  bodyContains: r.body_contains,
  verifyTls: r.verify_tls,
  intervalSeconds: r.interval_seconds,
  status: r.status as CheckStatus,
  since: r.since,
  pinned: r.pinned,
  lastOk: r.last_ok,
  lastError: r.last_error,
  latencyMs: r.latency_ms,
  checkedAt: r.checked_at,
  passes: r.passes,
  failures: r.failures,
  stableSince: r.stable_since,
  transitions: r.transitions ?? [],
  leaseUntil: r.lease_until ?? null,
  held: r.held ?? null,
  heldSince: r.held_since ?? null,
});

const RRSET_COLUMNS = `s.id, s.domain_id, d.name as zone, s.owner, s.type, s.ttl, s.pools, s.max_answers, s.backup, s.all_down, s.served, s.lua_content, s.rules`;

const toRrset = (r: any): RrsetRow => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  zone: r.zone,
  owner: r.owner,
  type: r.type,
  ttl: r.ttl,
  pools: r.pools,
  maxAnswers: r.max_answers,
  backup: r.backup,
  allDown: r.all_down,
  served: r.served,
  luaContent: r.lua_content ?? null,
  rules: r.rules ?? [],
});

const checkParams = (c: CheckDefinition) => [
  c.name,
  c.protocol,
  isProbed(c) ? c.address : null,
  isProbed(c) ? c.port : null,
  c.host,
  c.path,
  c.statusMin,
  c.statusMax,
  c.bodyContains,
  c.verifyTls,
  c.intervalSeconds,
];

/**
 * `externalLease`: an external check is first looked at once that many seconds have gone by: its reporter has one
 * lease's time to report before the check counts as failing (until then it is unknown, and its members are served)
 */
export async function insertCheck(sql: Sql, domainId: number, check: CheckDefinition, externalLease: number): Promise<number> {
  const [row] = await sql.rows(
    `insert into steering_checks (domain_id, name, protocol, address, port, host, path, status_min, status_max, body_contains,
       verify_tls, interval_seconds, next_check_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
             now() + make_interval(secs => case when $3 = 'external' then $13::int else 0 end)) returning id`,
    [domainId, ...checkParams(check), externalLease],
  );
  const id = Number(row.id);
  await addVotes(sql, id);
  return id;
}

/** how long a vantage not seen is still given a probed check's new vote row (its processes may be restarting) */
export const VANTAGE_KEPT = `interval '1 day'`;

/**
 * a probed check's vote rows, one for each vantage seen lately, due now: every vantage probes a new (or changed)
 * check at once, not at its next registration
 */
async function addVotes(sql: Sql, checkId: number): Promise<void> {
  await sql.affected(
    `insert into steering_votes (check_id, vantage)
     select c.id, g.name from steering_checks c, steering_vantages g
      where c.id = $1 and c.protocol <> 'external' and g.seen_at > now() - ${VANTAGE_KEPT}
     on conflict do nothing`,
    [checkId],
  );
}

/** a changed target starts again from unknown: what was learned of the old one says nothing of the new */
/**
 * A check's votes locked before the check itself: a prober saves its votes and then locks the checks they decide
 * (steering-vantages.ts, lockChecks), so a write of the check that took the check first and its votes after would
 * deadlock with it
 */
async function lockVotesOfCheck(sql: Sql, id: number): Promise<void> {
  await sql.rows(`select 1 from steering_votes where check_id = $1 order by vantage for update`, [id]);
}

export async function updateCheck(sql: Sql, id: number, check: CheckDefinition, externalLease: number): Promise<void> {
  await lockVotesOfCheck(sql, id);
  await sql.affected(
    `update steering_checks set name = $2, protocol = $3, address = $4, port = $5, host = $6, path = $7, status_min = $8,
       status_max = $9, body_contains = $10, verify_tls = $11, interval_seconds = $12,
       next_check_at = now() + make_interval(secs => case when $3 = 'external' then $13::int else 0 end),
       status = 'unknown', since = now(), pinned = false, passes = 0, failures = 0, stable_since = null, transitions = '{}',
       lease_until = null, last_ok = null, last_error = null, latency_ms = null, checked_at = null, held = null, held_since = null
     where id = $1`,
    [id, ...checkParams(check), externalLease],
  );
  // every vantage starts again from nothing learned, at once
  await sql.affected(
    `update steering_votes set passes = 0, failures = 0, last_ok = null, last_error = null, latency_ms = null, checked_at = null,
       next_check_at = now() where check_id = $1`,
    [id],
  );
  await addVotes(sql, id);
}

export async function deleteCheck(sql: Sql, id: number): Promise<void> {
  // the votes go with the check (on delete cascade): locked first, as a prober takes them
  await lockVotesOfCheck(sql, id);
  await sql.affected(`delete from steering_checks where id = $1`, [id]);
}

export async function checksOfZone(sql: Sql, domainId: number): Promise<CheckRow[]> {
  const rows = await sql.rows(
    `select ${CHECK_COLUMNS} from steering_checks c join domains d on d.id = c.domain_id where c.domain_id = $1 order by c.id`,
    [domainId],
  );
  return rows.map(toCheck);
}

export async function checkById(sql: Sql, id: number): Promise<CheckRow | undefined> {
  const rows = await sql.rows(`select ${CHECK_COLUMNS} from steering_checks c join domains d on d.id = c.domain_id where c.id = $1`, [id]);
  return rows.map(toCheck)[0];
}

/** a claimed check, and in how many ms its probe is due (0: due already) */
export interface ClaimedCheck extends CheckRow {
  dueInMs: number;
}

/**
 * Claims up to `limit` external checks due now or within `aheadMs` (probed checks are claimed per vantage:
 * claimDueVotes), and moves each one interval on (its own, or
 * `defaultInterval` seconds) in the same statement: the schedule is the lease. Another process skips the locked
 * rows and finds them not due. The schedule keeps its beat: the next probe is due one interval after this one was
 * due, not after it was claimed, so that the claim's own lateness does not add up probe after probe; a check found
 * more than half an interval late (no prober ran for a while) is due again half an interval from now, so that two
 * probes of a check are never closer than that. Each check says in how many ms it is due, by
 * the database's clock, so that the prober starts its probe on time whatever its own clock says. An external
 * check whose report's lease runs out sooner is due again when it does, so that its end is seen in time.
 */
export async function claimDueExternalChecks(sql: Sql, limit: number, defaultInterval: number, aheadMs = 0): Promise<ClaimedCheck[]> {
  const rows = await sql.rows(
    `with due as (select id, next_check_at as due_at from steering_checks
                   where protocol = 'external' and next_check_at <= now() + make_interval(secs => $3::double precision / 1000)
                   order by next_check_at limit $1 for update skip locked),
          claimed as (update steering_checks c
                         set next_check_at = case
                               when c.protocol = 'external' and c.lease_until > now()
                                 then least(c.lease_until, now() + make_interval(secs => coalesce(c.interval_seconds, $2)))
                               else greatest(due.due_at + make_interval(secs => coalesce(c.interval_seconds, $2)),
                                             now() + make_interval(secs => coalesce(c.interval_seconds, $2)) / 2) end
                        from due where c.id = due.id returning c.*, due.due_at)
     select ${CHECK_COLUMNS}, greatest(0, extract(epoch from c.due_at - now()) * 1000)::int as due_in_ms
       from claimed c join domains d on d.id = c.domain_id`,
    [limit, defaultInterval, aheadMs],
  );
  return rows.map((r) => ({ ...toCheck(r), dueInMs: Number(r.due_in_ms) }));
}

export interface ProbeOutcome {
  ok: boolean;
  error: string | null;
  latencyMs: number | null;
}

/** one probe's outcome and the state it led to, to be stored */
export interface ProbeToSave {
  id: number;
  state: CheckState;
  probe: ProbeOutcome;
  at: Date;
  /** why the state is held (null: it is not) */
  held?: Held | null;
}

/**
 * stores the outcomes of a batch of probes and the states they led to, in one statement: the prober stores every
 * probe of a tick at once, not one round trip a probe (at 1,000 checks at 10 s, 100 a second)
 */
export async function saveProbes(sql: Sql, probes: ProbeToSave[]): Promise<void> {
  if (!probes.length) return;
  const rows = probes.map(({ id, state, probe, at, held }) => ({
    id,
    held: held ?? null,
    status: state.status,
    since: state.since,
    pinned: state.pinned,
    passes: state.passes,
    failures: state.failures,
    stable_since: state.stableSince,
    transitions: state.transitions,
    last_ok: probe.ok,
    last_error: probe.error,
    latency_ms: probe.latencyMs,
    checked_at: at,
  }));
  await sql.affected(
    `update steering_checks c set status = n.status, since = n.since, pinned = n.pinned, passes = n.passes, failures = n.failures,
       stable_since = n.stable_since, transitions = n.transitions, last_ok = n.last_ok, last_error = n.last_error,
       latency_ms = n.latency_ms, checked_at = n.checked_at, held = n.held,
       held_since = case when n.held is null then null when c.held is not distinct from n.held then c.held_since else n.checked_at end
     from jsonb_to_recordset($1::jsonb) as n(id bigint, status text, since timestamptz, pinned boolean, passes integer,
       failures integer, stable_since timestamptz, transitions timestamptz[], last_ok boolean, last_error text,
       latency_ms integer, checked_at timestamptz, held text)
     where c.id = n.id`,
    [JSON.stringify(rows)],
  );
}

/**
 * stores an external check's report: the state it led to, the report as its last probe, and until when it holds;
 * the check is looked at again when the lease runs out (or its interval is up, if sooner)
 */
export async function saveReport(
  sql: Sql,
  id: number,
  state: CheckState,
  report: ProbeOutcome,
  at: Date,
  leaseUntil: Date,
  defaultInterval: number,
): Promise<void> {
  await saveProbes(sql, [{ id, state, probe: report, at }]);
  await sql.affected(
    `update steering_checks
        set lease_until = $2, next_check_at = least($2, now() + make_interval(secs => coalesce(interval_seconds, $3))) where id = $1`,
    [id, leaseUntil, defaultInterval],
  );
}

/** a change of what a steered RRset serves, as its `steering.changed` event told it */
export interface ServedChangeRow {
  at: Date;
  served: string[];
  previous: string[];
  source: string;
}

/** the RRset's last `limit` changes of what it serves, newest first (its events, kept as long as the event feed keeps them) */
export async function recentServedChanges(sql: Sql, domainId: number, rrsetId: number, limit: number): Promise<ServedChangeRow[]> {
  const rows = await sql.rows(
    `select created_at, data from events
      where domain_id = $1 and type = 'steering.changed' and data->>'steeredRrsetId' = $2::text
      order by id desc limit $3`,
    [domainId, String(rrsetId), limit],
  );
  return rows.map((r) => ({ at: r.created_at, served: r.data.served ?? [], previous: r.data.previous ?? [], source: r.data.source ?? '' }));
}

/** the names of the RRsets whose pools, or their rules' pools, name the check (a check in use is not deleted) */
export async function rrsetsUsingCheck(sql: Sql, domainId: number, checkId: number): Promise<string[]> {
  const rows = await sql.rows(
    `select s.owner || ' ' || s.type as name from steered_rrsets s
      where s.domain_id = $1
        and (jsonb_path_exists(s.pools, '$[*].members[*] ? (@.checkId == $id)', jsonb_build_object('id', $2::bigint))
          or jsonb_path_exists(s.rules, '$[*].pools[*].members[*] ? (@.checkId == $id)', jsonb_build_object('id', $2::bigint)))
      order by s.id`,
    [domainId, checkId],
  );
  return rows.map((r) => r.name);
}

export async function insertRrset(sql: Sql, domainId: number, rrset: RrsetDefinition): Promise<number> {
  const [row] = await sql.rows(
    `insert into steered_rrsets (domain_id, owner, type, ttl, pools, max_answers, backup, all_down, lua_content, rules)
     values ($1, $2, $3, $4, $5::jsonb, $6, $7::jsonb, $8, $9, $10::jsonb) returning id`,
    [
      domainId,
      rrset.owner,
      rrset.type,
      rrset.ttl,
      JSON.stringify(rrset.pools),
      rrset.maxAnswers,
      JSON.stringify(rrset.backup),
      rrset.allDown,
      rrset.luaContent ?? null,
      JSON.stringify(rrset.rules ?? []),
    ],
  );
  return Number(row.id);
}

export async function updateRrset(sql: Sql, id: number, rrset: Omit<RrsetDefinition, 'owner' | 'type'>): Promise<void> {
  await sql.affected(
    `update steered_rrsets set ttl = $2, pools = $3::jsonb, max_answers = $4, backup = $5::jsonb, all_down = $6, lua_content = $7,
            rules = $8::jsonb
      where id = $1`,
    [
      id,
      rrset.ttl,
      JSON.stringify(rrset.pools),
      rrset.maxAnswers,
      JSON.stringify(rrset.backup),
      rrset.allDown,
      rrset.luaContent ?? null,
      JSON.stringify(rrset.rules ?? []),
    ],
  );
}

export async function deleteRrset(sql: Sql, id: number): Promise<void> {
  await sql.affected(`delete from steered_rrsets where id = $1`, [id]);
}

export async function setServed(sql: Sql, id: number, served: string[]): Promise<void> {
  await sql.affected(`update steered_rrsets set served = $2::jsonb where id = $1`, [id, JSON.stringify(served)]);
}

export async function rrsetsOfZone(sql: Sql, domainId: number): Promise<RrsetRow[]> {
  const rows = await sql.rows(
    `select ${RRSET_COLUMNS} from steered_rrsets s join domains d on d.id = s.domain_id where s.domain_id = $1 order by s.id`,
    [domainId],
  );
  return rows.map(toRrset);
}

export async function rrsetById(sql: Sql, id: number): Promise<RrsetRow | undefined> {
  const rows = await sql.rows(`select ${RRSET_COLUMNS} from steered_rrsets s join domains d on d.id = s.domain_id where s.id = $1`, [id]);
  return rows.map(toRrset)[0];
}

export async function steeringDefaultsOf(sql: Sql, domainId: number): Promise<SteeringDefaults> {
  const [row] = await sql.rows(
    `select protocol, port, host, path, status_min, status_max, body_contains, verify_tls, interval_seconds
       from steering_defaults where domain_id = $1`,
    [domainId],
  );
  if (!row) return NO_STEERING_DEFAULTS;
  return {
    protocol: row.protocol,
    port: row.port,
    host: row.host,
    path: row.path,
    statusMin: row.status_min,
    statusMax: row.status_max,
    bodyContains: row.body_contains,
    verifyTls: row.verify_tls,
    intervalSeconds: row.interval_seconds,
  };
}

/** the zone's defaults replaced as a whole; none set at all: the row goes */
export async function saveSteeringDefaults(sql: Sql, domainId: number, defaults: SteeringDefaults): Promise<void> {
  if (Object.values(defaults).every((value) => value === null)) {
    await sql.affected(`delete from steering_defaults where domain_id = $1`, [domainId]);
    return;
  }
  await sql.affected(
    `insert into steering_defaults (domain_id, protocol, port, host, path, status_min, status_max, body_contains, verify_tls,
       interval_seconds, updated_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, now())
     on conflict (domain_id) do update set protocol = excluded.protocol, port = excluded.port, host = excluded.host,
       path = excluded.path, status_min = excluded.status_min, status_max = excluded.status_max,
       body_contains = excluded.body_contains, verify_tls = excluded.verify_tls, interval_seconds = excluded.interval_seconds,
       updated_at = now()`,
    [
      domainId,
      defaults.protocol,
      defaults.port,
      defaults.host,
      defaults.path,
      defaults.statusMin,
      defaults.statusMax,
      defaults.bodyContains,
      defaults.verifyTls,
      defaults.intervalSeconds,
    ],
  );
}

/** the zone of a check or of a steered RRset, for the write engine to read it by (undefined: none such) */
export async function zoneOfCheck(sql: Sql, id: number): Promise<number | undefined> {
  const [row] = await sql.rows(`select domain_id from steering_checks where id = $1`, [id]);
  return row ? Number(row.domain_id) : undefined;
}

export async function zoneOfRrset(sql: Sql, id: number): Promise<number | undefined> {
  const [row] = await sql.rows(`select domain_id from steered_rrsets where id = $1`, [id]);
  return row ? Number(row.domain_id) : undefined;
}

/** the status of each of the zone's checks, by id */
export async function statusesOfZone(sql: Sql, domainId: number): Promise<Map<number, CheckStatus>> {
  const rows = await sql.rows(`select id, status from steering_checks where domain_id = $1`, [domainId]);
  return new Map(rows.map((r) => [Number(r.id), r.status as CheckStatus]));
}

/** the zone's records at the owner and type (the RRset a steered RRset holds) */
export async function rowsAt(sql: Sql, domainId: number, owner: string, type: string): Promise<StoredRow[]> {
  const rows = await sql.rows(
    `select id, owner, type, rdata, ttl from records where domain_id = $1 and owner = $2 and type = $3 order by id`,
    [domainId, owner, type],
  );
  return rows.map((r) => ({ id: Number(r.id), owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) }));
}

/** the zones that have steered RRsets (the prober decides them all again when it starts) */
export async function steeredZones(sql: Sql): Promise<number[]> {
  const rows = await sql.rows(`select distinct domain_id from steered_rrsets order by domain_id`);
  return rows.map((r) => Number(r.domain_id));
}
