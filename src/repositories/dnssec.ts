/**
 * DNSSEC's tables (docs/dnssec.md): a zone's signing policy (`dnssec_zones`), its keys (`dnssec_keys`, the
 * private part sealed) and the signer's records (`dnssec_records`, beside `records`). The signed-zone view
 * the incremental signer reads is here: each question one index look-up in the caller's connection.
 */
import type { Database, Sql } from '../db/pool';
import type { JournalRecord } from '../entities/change.entity';
import { KeyEventReason, KeyState, KeyStepEventType, recordKeyEvent, recordRemovalOfAllKeys, StoredKeyRole } from './dnssec-key-events';
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';

export type DenialKind = 'nsec' | 'nsec3';

/** a signed zone's policy as `readZone` returns it (undefined: the zone is not signed) */
export interface DnssecPolicy {
  state: 'signed' | 'disabling';
  denial: DenialKind;
  nsec3Iterations: number;
  nsec3Salt: Buffer;
  nsec3OptOut: boolean;
}

export interface StoredDnssecKey {
  id: number;
  domainId: number;
  role: StoredKeyRole;
  algorithm: number;
  keyTag: number;
  /** the DNSKEY RDATA in presentation form */
  dnskey: string;
  sealedPrivateKey: Buffer;
  state: KeyState;
  createdAt: Date;
  publishedAt: Date | null;
  readyAt: Date | null;
  activeAt: Date | null;
  retiredAt: Date | null;
  removedAt: Date | null;
  nextEvent: string | null;
  nextEventAt: Date | null;
  /**
   * why the planned event may run, its key event's reason when it does (a KSK swap after the new DS was seen at
   * the parent's servers, `ds-seen`, or confirmed by the operator, `ds-confirmed`); null: the step's own reason
   */
  nextEventReason: PlannedEventReason | null;
}

/** the reasons a planned step carries from the moment it became possible (Migration20261125004000) */
export type PlannedEventReason = Extract<KeyEventReason, 'ds-seen' | 'ds-confirmed'>;
/** a key's next planned event */
export interface KeyPlan {
  event: string;
  at: Date;
  reason?: PlannedEventReason;
}

/** a key as the signing step uses it: what signs and what the DNSKEY, CDS and CDNSKEY RRsets hold, not its timeline */
export type SigningKeyRow = Pick<StoredDnssecKey, 'id' | 'role' | 'algorithm' | 'keyTag' | 'dnskey' | 'sealedPrivateKey' | 'state'>;

/** a signer record as written: the chain's sort key (hex) for NSEC/NSEC3, the expiration (epoch s) for RRSIG */
export interface SignerRow extends JournalRecord {
  chainKey?: string;
  expiresAt?: number;
  /** the stored row's id, when the record was read from `dnssec_records` (a removal then deletes by id) */
  id?: number;
}

/** a signer record as read, with its row id: what the signer removes is deleted by primary key */
export type StoredSignerRecord = JournalRecord & { id: number };
const toStoredSigner = (r: any): StoredSignerRecord => ({
  id: Number(r.id),
  owner: r.owner,
  type: r.type,
  rdata: r.rdata,
  ttl: Number(r.ttl),
});

/** the SQL expression of a zone's policy as JSON, for the zone read of a change (zone-writes.ts readZone) */
export const DNSSEC_POLICY_JSON = `(select json_build_object('state', z.state, 'denial', z.denial, 'iterations', z.nsec3_iterations,
    'salt', encode(z.nsec3_salt, 'hex'), 'optOut', z.nsec3_opt_out) from dnssec_zones z where z.domain_id = d.id)`;

export function policyFromJson(value: any): DnssecPolicy | undefined {
  if (!value) return undefined;
  return {
    state: value.state,
    denial: value.denial,
    nsec3Iterations: Number(value.iterations),
    nsec3Salt: Buffer.from(value.salt ?? '', 'hex'),
    nsec3OptOut: !!value.optOut,
  };
}

const KEY_COLUMNS = `id, domain_id, role, algorithm, key_tag, dnskey, sealed_private_key, state, created_at, published_at, ready_at, active_at,
  retired_at, removed_at, next_event, next_event_at, next_event_reason`;

const toKey = (r: any): StoredDnssecKey => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  role: r.role,
  algorithm: Number(r.algorithm),
  keyTag: Number(r.key_tag),
  dnskey: r.dnskey,
  sealedPrivateKey: r.sealed_private_key,
  state: r.state,
  createdAt: r.created_at,
  publishedAt: r.published_at,
  readyAt: r.ready_at,
  activeAt: r.active_at,
  retiredAt: r.retired_at,
  removedAt: r.removed_at,
  nextEvent: r.next_event,
  nextEventAt: r.next_event_at,
  nextEventReason: r.next_event_reason,
});

/** a zone's keys; `withRemoved`: also those removed (the key list shows their history) */
export async function keysOfZone(sql: Sql | Database, domainId: number, withRemoved = false): Promise<StoredDnssecKey[]> {
  const rows = await sql.rows(
    `select ${KEY_COLUMNS} from dnssec_keys where domain_id = $1 and ($2::boolean or state <> 'removed') order by id`,
    [domainId, withRemoved],
  );
  return rows.map(toKey);
}

export async function insertKey(
  sql: Sql,
  key: {
    domainId: number;
    role: StoredKeyRole;
    algorithm: number;
    keyTag: number;
    dnskey: string;
    sealed: Buffer;
    state: KeyState;
    at: Date;
    /** why the key is made (its first key event, written here) */
    reason: KeyEventReason;
  },
  /** the event out its making gives (key-step-events.ts) */
  event: KeyStepEventType | null,
): Promise<StoredDnssecKey> {
  const [row] = await sql.rows(
    `insert into dnssec_keys (domain_id, role, algorithm, key_tag, dnskey, sealed_private_key, state, published_at, ready_at, active_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, case when $7 in ('ready', 'active') then $8::timestamptz end, case when $7 = 'active' then $8::timestamptz end)
     returning ${KEY_COLUMNS}`,
    [key.domainId, key.role, key.algorithm, key.keyTag, key.dnskey, key.sealed, key.state, key.at],
  );
  const stored = toKey(row);
  await recordKeyEvent(sql, key.domainId, stored, { from: null, to: key.state, reason: key.reason, at: key.at }, event);
  return stored;
}

export async function insertPolicy(
  sql: Sql,
  policy: { domainId: number; denial: DenialKind; iterations: number; salt: Buffer; optOut: boolean; refreshDueAt: Date },
): Promise<boolean> {
  const rows = await sql.rows(
    `insert into dnssec_zones (domain_id, denial, nsec3_iterations, nsec3_salt, nsec3_opt_out, refresh_due_at)
     values ($1, $2, $3, $4, $5, $6) on conflict (domain_id) do nothing returning domain_id`,
    [policy.domainId, policy.denial, policy.iterations, policy.salt, policy.optOut, policy.refreshDueAt],
  );
  return rows.length > 0;
}

/** which of these zones are signed (or still disabling): one statement for a page of zones */
export async function signedDomainIds(sql: Pick<Sql, 'rows'>, domainIds: readonly number[]): Promise<Set<number>> {
  if (!domainIds.length) return new Set();
  const rows = await sql.rows<{ domain_id: string }>('select domain_id from dnssec_zones where domain_id = any($1::bigint[])', [domainIds]);
  return new Set(rows.map((row) => Number(row.domain_id)));
}

export async function setPolicyState(sql: Sql, domainId: number, state: 'signed' | 'disabling'): Promise<void> {
  await sql.rows('update dnssec_zones set state = $2 where domain_id = $1', [domainId, state]);
}

/**
 * a zone stops being signed: its policy, keys and signer records go (the journal row of the step keeps them for
 * IXFR); each key's removal is a key event (`disabled`), which outlives the key, with the event out of `events`
 * (key-step-events.ts `removeAllKeys`)
 */
export async function deleteSigning(
  sql: Sql,
  domainId: number,
  at: Date,
  events: ReadonlyMap<number, KeyStepEventType | null>,
): Promise<void> {
  await recordRemovalOfAllKeys(sql, domainId, 'disabled', at, events);
  await sql.rows('delete from dnssec_records where domain_id = $1', [domainId]);
  await sql.rows('delete from dnssec_keys where domain_id = $1', [domainId]);
  await sql.rows('delete from dnssec_zones where domain_id = $1', [domainId]);
}

export async function setRefreshDue(sql: Sql | Database, domainId: number, dueAt: Date): Promise<void> {
  await sql.rows('update dnssec_zones set refresh_due_at = $2, refreshed_at = now() where domain_id = $1', [domainId, dueAt]);
}

/** the earliest expiration among a zone's signatures, or undefined when it has none */
export async function earliestExpiration(sql: Sql | Database, domainId: number): Promise<Date | undefined> {
  const [row] = await sql.rows('select min(expires_at) as at from dnssec_records where domain_id = $1 and expires_at is not null', [
    domainId,
  ]);
  return row?.at ?? undefined;
}

/** signed zones whose refresh is due, claimed for this worker's transaction (others skip them) */
export async function claimZonesDueForRefresh(sql: Sql, limit: number): Promise<number[]> {
  const rows = await sql.rows(
    `select domain_id from dnssec_zones where refresh_due_at <= now() order by refresh_due_at limit $1 for update skip locked`,
    [limit],
  );
  return rows.map((r) => Number(r.domain_id));
}

/** the owners and covered types of the signatures expiring before `before`, at most `limit` */
export async function signaturesExpiringBefore(sql: Sql, domainId: number, before: Date, limit: number): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and expires_at is not null and expires_at < $2
      order by expires_at limit $3`,
    [domainId, before, limit],
  );
}

/** the signer's records that are zone data, signed like the user's; the rest (RRSIG, NSEC, NSEC3, NSEC3PARAM) are its chain and signatures */
const ZONE_DATA_TYPES = `('DNSKEY', 'CDS', 'CDNSKEY')`;

/** the records at some owners: the user's, plus the DNSKEY, CDS and CDNSKEY the signer keeps at the apex */
export async function zoneRecordsAt(sql: Sql, domainId: number, owners: string[]): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and owner = any($2::text[])
     union all
     select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = any($2::text[]) and type in ${ZONE_DATA_TYPES}`,
    [domainId, owners],
  );
}

/** the signer's DNSKEY, CDS and CDNSKEY records at the apex, as stored (what a key step replaces) */
export async function apexKeyRecords(sql: Sql, domainId: number): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows(
    `select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = '@' and type in ${ZONE_DATA_TYPES}`,
    [domainId],
  );
  return rows.map(toStoredSigner);
}

/** the signer's RRSIG, NSEC and NSEC3 at an owner (an NSEC3 at its hashed owner) */
export async function signerRecordsAt(sql: Sql, domainId: number, owner: string): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows(
    `select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = $2 and type in ('RRSIG', 'NSEC', 'NSEC3')`,
    [domainId, owner],
  );
  return rows.map(toStoredSigner);
}

/**
 * records that exist in the served zone: ALIAS and ANAME are never served (repositories/dns-zone-data.ts), so a
 * name with nothing else below an owner does not make that owner an empty non-terminal (RFC 5155 §7.1)
 */
const SERVED_DATA = `type not in (${[...FLATTENED_TYPE_NAMES].map((t) => `'${t}'`).join(', ')})`;

/**
 * Up to `limit` records strictly below `owner` (relative; not '@'): the owners ending with `.<owner>` are,
 * reversed, one range of `records_domain_reverse_owner_index`, not a scan of the zone.
 */
export async function recordsBelow(sql: Sql, domainId: number, owner: string, limit: number): Promise<JournalRecord[]> {
  const { from, to } = belowRange(owner);
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and reverse(owner) collate "C" >= $2 and reverse(owner) collate "C" < $3
       and ${SERVED_DATA} limit $4`,
    [domainId, from, to, limit],
  );
}

/** the bounds of the owners strictly below `owner` (relative; not '@') on `reverse(owner)`: one index range */
function belowRange(owner: string): { from: string; to: string } {
  const from = [...`.${owner}`].reverse().join('');
  return { from, to: `${from.slice(0, -1)}/` };
}

/** what the incremental signer will ask of a change, asked at once (services/dnssec/zone-signing.ts) */
export interface SignerQuestions {
  /** the records at these owners (the user's, and the DNSKEY, CDS and CDNSKEY at the apex) */
  owners: string[];
  /** the RRSIG, NSEC and NSEC3 at these owners */
  signerOwners: string[];
  /** the chain members stored around these keys, and the signer records at the members before them */
  chainKeys: Buffer[];
  /** up to `limit` records strictly below each of these owners */
  below: { owner: string; limit: number }[];
}

export interface ChainNeighbours {
  key: Buffer;
  /** the owner of the member stored at `key` itself, if there is one */
  self?: string;
  predecessor?: { key: Buffer; owner: string };
  successor?: { key: Buffer; owner: string };
}

export interface SignerAnswers {
  records: JournalRecord[];
  /** the signer records at `signerOwners` and at the predecessors of `chainKeys` */
  signer: StoredSignerRecord[];
  /** the owners whose signer records are all in `signer` */
  signerOwners: string[];
  neighbours: ChainNeighbours[];
  below: Map<string, JournalRecord[]>;
  /** the zone's keys but those removed (as `keysOfZone` reads them), without their timeline */
  keys: SigningKeyRow[];
}

/**
 * The answers to `questions` as one JSON value, a scalar subquery on the zone `domain` (an SQL expression: a
 * parameter, or the zone row of the statement it is part of); `add` binds a parameter. `signerAnswers` runs
 * it alone; `readZone` (zone-writes.ts) runs it with the zone's read, when the change's questions can be told
 * before its decision.
 */
export function signerAnswersSql(domain: string, add: (value: unknown) => string, questions: SignerQuestions): string {
  const owners = valuesOf(
    add,
    questions.owners.map((owner) => [owner]),
    ['text'],
    'o(owner)',
  );
  const keys = valuesOf(
    add,
    questions.chainKeys.map((key, i) => [key, i + 1]),
    ['bytea', 'int'],
    'k(key, i)',
  );
  const signerOwners = valuesOf(
    add,
    questions.signerOwners.map((owner) => [owner]),
    ['text'],
    'v(owner)',
  );
  const below = valuesOf(
    add,
    questions.below.map((b) => [b.owner, belowRange(b.owner).from, belowRange(b.owner).to, b.limit]),
    ['text', 'text', 'text', 'int'],
    'q(owner, lo, hi, lim)',
  );
  // each key's nearest stored members by index; the chain's first and last close the circle (in JS). The
  // records and signer records are read per owner (a lateral probe of the (domain, owner) index each; `offset
  // 0` keeps the planner from folding the probe into a join): with `owner = any(…)` or `in (select …)` the
  // planner, misjudging a zone's size, scanned the whole zone's rows and filtered them. The questions are rows of VALUES, one parameter each, not arrays: the planner knows
  // how many there are, so the plan it keeps for the statement's text (generic, planned once per connection)
  // is as cheap by its estimates as one planned for the values, and it stops re-planning the statement on
  // every write (docs/dnssec.md, «Speed»)
  return `(with nb as (
      select k.i, k.key,
        (select s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key = k.key limit 1) as self,
        p.chain_key as p_key, p.owner as p_owner, n.chain_key as n_key, n.owner as n_owner
      from ${keys}
      left join lateral (select s.chain_key, s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key < k.key
          order by s.chain_key desc limit 1) p on true
      left join lateral (select s.chain_key, s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key > k.key
          order by s.chain_key limit 1) n on true
    ),
    first_member as (select chain_key, owner from dnssec_records where domain_id = ${domain} and chain_key is not null order by chain_key limit 1),
    last_member as (select chain_key, owner from dnssec_records where domain_id = ${domain} and chain_key is not null order by chain_key desc limit 1),
    sig_owners as (select owner from ${signerOwners} union select p_owner from nb where p_owner is not null
      union select owner from last_member where exists (select 1 from nb where p_key is null))
    select json_build_object(
      'records', (select coalesce(json_agg(json_build_object('owner', r.owner, 'type', r.type, 'rdata', r.rdata, 'ttl', r.ttl)), '[]'::json)
        from ${owners} cross join lateral (
          select owner, type, rdata, ttl from records where domain_id = ${domain} and owner = o.owner
          union all
          select owner, type, rdata, ttl from dnssec_records where domain_id = ${domain} and owner = o.owner and type in ${ZONE_DATA_TYPES}
          offset 0
        ) r),
      'signer', (select coalesce(json_agg(json_build_object('id', s.id, 'owner', s.owner, 'type', s.type, 'rdata', s.rdata, 'ttl', s.ttl)), '[]'::json)
        from sig_owners o cross join lateral (select s.id, s.owner, s.type, s.rdata, s.ttl from dnssec_records s
          where s.domain_id = ${domain} and s.owner = o.owner and s.type in ('RRSIG', 'NSEC', 'NSEC3') offset 0) s),
      'signerOwners', (select coalesce(json_agg(owner), '[]'::json) from sig_owners),
      'neighbours', (select coalesce(json_agg(json_build_object('key', encode(nb.key, 'hex'), 'self', nb.self, 'pKey', encode(nb.p_key, 'hex'),
          'pOwner', nb.p_owner, 'nKey', encode(nb.n_key, 'hex'), 'nOwner', nb.n_owner) order by nb.i), '[]'::json) from nb),
      'first', (select json_build_object('key', encode(chain_key, 'hex'), 'owner', owner) from first_member),
      'last', (select json_build_object('key', encode(chain_key, 'hex'), 'owner', owner) from last_member),
      'below', (select coalesce(json_agg(json_build_object('below', q.owner, 'owner', b.owner, 'type', b.type, 'rdata', b.rdata, 'ttl', b.ttl)), '[]'::json)
        from ${below}
        cross join lateral (select r.owner, r.type, r.rdata, r.ttl from records r where r.domain_id = ${domain}
            and reverse(r.owner) collate "C" >= q.lo and reverse(r.owner) collate "C" < q.hi and ${SERVED_DATA} limit q.lim) b),
      'keys', ${signingKeysJson(domain)}
    ))`;
}

/** the zone's keys but those removed, as `SigningKeyRow`s in JSON (`signingKeysFromJson`): an SQL expression on `domain` */
const signingKeysJson = (domain: string): string =>
  `(select coalesce(json_agg(json_build_object('id', k.id, 'role', k.role, 'algorithm', k.algorithm, 'keyTag', k.key_tag, 'dnskey', k.dnskey,
          'sealed', encode(k.sealed_private_key, 'base64'), 'state', k.state) order by k.id), '[]'::json)
        from dnssec_keys k where k.domain_id = ${domain} and k.state <> 'removed')`;

// PostgreSQL's base64 breaks lines every 76 characters; Node's decoder skips the line breaks
const signingKeysFromJson = (keys: AnswersJson['keys']): SigningKeyRow[] =>
  keys.map(({ sealed, ...k }) => ({
    ...k,
    id: Number(k.id),
    algorithm: Number(k.algorithm),
    keyTag: Number(k.keyTag),
    sealedPrivateKey: Buffer.from(sealed, 'base64'),
  }));

/** a signer record as a zone's head holds it (write-engine/zone-heads.ts): its row id, and its chain key (hex) if it has one */
export type HeldSignerRow = StoredSignerRecord & { chainKey?: string };

/** a signed zone's signing state whole: every signer record and the keys (a zone's head holds them) */
export interface WholeSigner {
  rows: HeldSignerRow[];
  keys: SigningKeyRow[];
}

/** `WholeSigner` as one JSON value, a scalar subquery on the zone `domain` (an SQL expression), for `readZone` */
export const wholeSignerSql = (domain: string): string =>
  `json_build_object('rows', (select coalesce(json_agg(json_build_object('id', s.id, 'owner', s.owner, 'type', s.type, 'rdata', s.rdata,
      'ttl', s.ttl, 'chainKey', encode(s.chain_key, 'hex'))), '[]'::json) from dnssec_records s where s.domain_id = ${domain}),
    'keys', ${signingKeysJson(domain)})`;

/**
 * a signer record as a head holds it, always built in this one shape (the same properties in the same order):
 * the head's rows go through the same functions as the signer's (their types read, their identities made), and
 * rows of several shapes made those property reads megamorphic
 */
export const heldSignerRow = (id: number, owner: string, type: string, rdata: string, ttl: number, chainKey?: string): HeldSignerRow => ({
  id,
  owner,
  type,
  rdata,
  ttl,
  chainKey,
});

export function wholeSignerFromJson(json: { rows: any[]; keys: AnswersJson['keys'] }): WholeSigner {
  return {
    rows: json.rows.map((r) => heldSignerRow(Number(r.id), r.owner, r.type, r.rdata, Number(r.ttl), r.chainKey || undefined)),
    keys: signingKeysFromJson(json.keys),
  };
}

/**
 * What a signed change decided on its zone's head assumed of the signing state beyond the serial
 * (write-engine/zone-heads.ts), checked by its write (`signedProofSql`): the zone's policy, its keys (ids and
 * states), the signer records at the owners the signer read (by count and by id), and the chain's members around
 * the keys it moved (`ranges`: how many members lie strictly between each `lo` and `hi`).
 */
export interface SignedProof {
  policy: DnssecPolicy;
  /** `id:state` of each key but those removed, by id, comma-separated */
  keys: string;
  signerOwners: string[];
  signerIds: number[];
  ranges: { lo: Buffer; hi: Buffer; members: number }[];
}

/** `SignedProof.keys` of some keys */
export const keysProofOf = (keys: readonly Pick<SigningKeyRow, 'id' | 'state'>[]): string =>
  [...keys]
    .sort((a, b) => a.id - b.id)
    .map((k) => `${k.id}:${k.state}`)
    .join(',');

/**
 * The conditions of `proof` on the zone `domain` (an SQL expression), for the serial's update of a change decided
 * on its zone's head (zone-writes.ts `expectedSql`): each an index probe (the policy's and keys' rows by zone,
 * the signer records by (domain, owner), their ids compared with those held as one sorted array, the chain by
 * (domain, chain_key)).
 */
export function signedProofSql(domain: string, add: (value: unknown) => string, proof: SignedProof): string {
  const p = proof.policy;
  return `
        and exists (select 1 from dnssec_zones z where z.domain_id = ${domain} and z.state = ${add(p.state)} and z.denial = ${add(p.denial)}
          and z.nsec3_iterations = ${add(p.nsec3Iterations)} and z.nsec3_salt = ${add(p.nsec3Salt)}::bytea and z.nsec3_opt_out = ${add(p.nsec3OptOut)})
        and (select coalesce(string_agg(k.id || ':' || k.state, ',' order by k.id), '') from dnssec_keys k
          where k.domain_id = ${domain} and k.state <> 'removed') = ${add(proof.keys)}
        and (select coalesce(array_agg(t.id order by t.id), '{}') from unnest(${add(proof.signerOwners)}::text[]) as o(owner)
          cross join lateral (select s.id from dnssec_records s
            where s.domain_id = ${domain} and s.owner = o.owner and s.type in ('RRSIG', 'NSEC', 'NSEC3') offset 0) t) = ${add(ascending(proof.signerIds))}::bigint[]
        and not exists (select 1 from unnest(${add(proof.ranges.map((r) => r.lo))}::bytea[], ${add(proof.ranges.map((r) => r.hi))}::bytea[],
            ${add(proof.ranges.map((r) => r.members))}::int[]) as g(lo, hi, members)
          where (select count(*) from (select 1 from dnssec_records s where s.domain_id = ${domain} and s.chain_key > g.lo and s.chain_key < g.hi
            limit 2) m) <> g.members)`;
}

const ascending = (ids: readonly number[]): number[] => [...ids].sort((a, b) => a - b);

/**
 * `rows` as a relation `alias` (`name(columns)`) of VALUES, each value a parameter cast to its column's type;
 * no rows: an empty relation of those columns.
 */
function valuesOf(add: (value: unknown) => string, rows: unknown[][], types: string[], alias: string): string {
  if (rows.length === 0) return `(select ${types.map((t) => `null::${t}`).join(', ')} where false) as ${alias}`;
  return `(values ${rows.map((row) => `(${row.map((value, i) => `${add(value)}::${types[i]}`).join(', ')})`).join(', ')}) as ${alias}`;
}

/** the answers as the JSON of `signerAnswersSql` carries them */
export interface AnswersJson {
  records: { owner: string; type: string; rdata: string; ttl: number }[];
  signer: { id: number; owner: string; type: string; rdata: string; ttl: number }[];
  signerOwners: string[];
  neighbours: {
    key: string;
    self: string | null;
    pKey: string | null;
    pOwner: string | null;
    nKey: string | null;
    nOwner: string | null;
  }[];
  first: { key: string; owner: string } | null;
  last: { key: string; owner: string } | null;
  below: { below: string; owner: string; type: string; rdata: string; ttl: number }[];
  keys: (Omit<SigningKeyRow, 'sealedPrivateKey'> & { sealed: string })[];
}

export function signerAnswersFromJson(json: AnswersJson, questions: SignerQuestions): SignerAnswers {
  const below = new Map<string, JournalRecord[]>(questions.below.map((b) => [b.owner, []]));
  for (const r of json.below) below.get(r.below)!.push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) });
  const member = (key: string | null, owner: string | null) =>
    key === null || owner === null ? undefined : { key: Buffer.from(key, 'hex'), owner };
  return {
    records: json.records.map((r) => ({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) })),
    signer: json.signer.map(toStoredSigner),
    signerOwners: json.signerOwners,
    neighbours: json.neighbours.map((n) => {
      // none before (after) the key: the circle closes on the chain's last (first) member, unless that is the key itself
      const around = (end: { key: string; owner: string } | null) => (end && end.key !== n.key ? member(end.key, end.owner) : undefined);
      return {
        key: Buffer.from(n.key, 'hex'),
        self: n.self ?? undefined,
        predecessor: member(n.pKey, n.pOwner) ?? around(json.last),
        successor: member(n.nKey, n.nOwner) ?? around(json.first),
      };
    }),
    below,
    keys: signingKeysFromJson(json.keys),
  };
}

/**
 * Everything the incremental signer asks of one change, and the zone's keys, in one statement: the records
 * and signer records at the owners it reads, the chain around the keys it moves (each neighbour by index,
 * as `chainNeighbour`), the records below the owners whose existence it checks (as `recordsBelow`). One
 * round trip instead of one per question (docs/dnssec.md, «Speed»).
 */
export async function signerAnswers(sql: Sql, domainId: number, questions: SignerQuestions): Promise<SignerAnswers> {
  const params: unknown[] = [domainId];
  const add = (value: unknown) => `$${params.push(value)}`;
  const [row] = await sql.rows<{ answers: AnswersJson }>(`select ${signerAnswersSql('$1', add, questions)} as answers`, params);
  return signerAnswersFromJson(row.answers, questions);
}

/** the chain member stored right before (`-1`) or after (`1`) `key`, circularly, `key` itself excluded */
export async function chainNeighbour(
  sql: Sql,
  domainId: number,
  key: Buffer,
  step: 1 | -1,
): Promise<{ key: Buffer; owner: string } | undefined> {
  const [comparison, order] = step === 1 ? ['>', 'asc'] : ['<', 'desc'];
  const rows = await sql.rows<{ chain_key: Buffer; owner: string }>(
    `(select 0 as wrap, chain_key, owner from dnssec_records where domain_id = $1 and chain_key is not null and chain_key ${comparison} $2
        order by chain_key ${order} limit 1)
     union all
     (select 1 as wrap, chain_key, owner from dnssec_records where domain_id = $1 and chain_key is not null and chain_key <> $2
        order by chain_key ${order} limit 1)
     order by wrap limit 1`,
    [domainId, key],
  );
  return rows[0] ? { key: rows[0].chain_key, owner: rows[0].owner } : undefined;
}

/** every signer record of a zone (a whole-zone signing compares against them; AXFR sends them) */
export async function allSignerRecords(sql: Sql, domainId: number): Promise<StoredSignerRecord[]> {
  const rows = await sql.rows('select id, owner, type, rdata, ttl from dnssec_records where domain_id = $1 order by id', [domainId]);
  return rows.map(toStoredSigner);
}

/** every user record of a zone, for a whole-zone signing */
export async function allZoneRecords(sql: Sql, domainId: number): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>('select owner, type, rdata, ttl from records where domain_id = $1 order by id', [domainId]);
}

/** the most row ids bound one parameter each (`idRows`); a longer list is one array parameter */
const ID_PARAMS = 32;

/** what decides `idRows`' text: one array parameter, or the rows' count padded to a power of two */
export function idRowsShape(ids: readonly number[]): number | 'array' {
  if (ids.length > ID_PARAMS) return 'array';
  let size = 1;
  while (size < ids.length) size *= 2;
  return size;
}

/**
 * Row ids as a relation `x(id)` to delete by, joined on the primary key: a short list as rows of VALUES, one
 * parameter each, padded with nulls (which match nothing) to a power of two so that a few statement texts
 * are prepared, once each. The plan PostgreSQL keeps for a prepared statement is made without the values:
 * given `id = any(<one array parameter>)` beside `domain_id = …`, it guessed ten ids and found it cheaper to
 * intersect them with all the zone's rows on `(domain_id, owner)` (a BitmapAnd), which reads every index
 * entry of the zone's signer records on every write: a cost that grows with the zone (0.46 ms of PostgreSQL
 * CPU per write at 30,000 signer records), for the three rows a new name removes. Joined with rows it can
 * count, it probes the primary key once per id. A long list (a zone signed whole) is one array, unnested.
 */
export function idRows(add: (value: unknown) => string, ids: readonly number[]): string {
  const size = idRowsShape(ids);
  if (size === 'array') return `unnest(${add(ids)}::bigint[]) as x(id)`;
  const rows = Array.from({ length: size }, (_, i) => `(${add(ids[i] ?? null)}::bigint)`);
  return `(values ${rows.join(', ')}) as x(id)`;
}

/**
 * The CTE parts that write a change's signer records, hung on the serial update `dom` (zone-writes.ts
 * writeZoneChange): the journal's `signer_added` as an SQL expression of them (null: none added), and the ids of
 * the records added, in the order given (`inserted`, an SQL expression of the statement, read by `idsOf`).
 *
 * A record added in place of a removed one read with its row id, at the same owner and of the same type (an
 * RRSIG: over the same type), is written over that row (`supd`): the SOA's RRSIG on every change, and the NSEC or
 * NSEC3 whose next name moved and its RRSIG. The table ends as a delete and an insert would leave it, but the
 * row keeps its id and PostgreSQL moves one tuple instead of two; an NSEC's new next name touches no indexed
 * column, so its row is rewritten beside the old one without a new index entry (a heap-only tuple). Written as
 * an insert of that id that updates on its conflict: a row gone (it cannot be while the serial holds) is
 * inserted again, never lost.
 */
export function signerWriteCtes(
  add: (value: unknown) => string,
  removed: readonly SignerRow[],
  added: readonly SignerRow[],
): { parts: string[]; journalAdded: string; inserted: string; idsOf: (returned: readonly number[]) => number[] } {
  const parts: string[] = [];
  const { reused, freed } = rowsReused(removed, added);
  // a removal read from the table carries its row id: deleted by primary key (a join on the record's text
  // would read every signer row of the zone)
  const byId = removed.filter((r) => r.id !== undefined && !freed.has(r)).map((r) => r.id!);
  const byIdentity = removed.filter((r) => r.id === undefined);
  if (byId.length) {
    parts.push(
      `sdelid as (delete from dnssec_records s using ${idRows(add, byId)} where s.id = x.id and s.domain_id = (select id from dom))`,
    );
  }
  if (byIdentity.length) {
    const rows = byIdentity.map(({ owner, type, rdata }) => ({ owner, type, rdata }));
    parts.push(`sdel as (delete from dnssec_records s using json_to_recordset(${add(JSON.stringify(rows))}::json)
        as x(owner text, type text, rdata text)
      where s.domain_id = (select id from dom) and s.owner = any(${add([...new Set(rows.map((r) => r.owner))])}::text[])
        and s.owner = x.owner and s.type = x.type and s.rdata = x.rdata)`);
  }
  if (!added.length) return { parts, journalAdded: 'null::jsonb', inserted: `'[]'::json`, idsOf: () => [] };
  // sent once: the rows to insert and the journal's additions (owner, type, TTL and RDATA of each, in order) are
  // both read from this one parameter, where they were two JSON texts of the same records
  parts.push(`sadd as (select x.owner, x.type, x.rdata, x.ttl, x."chainKey", x."expiresAt", x.n
      from rows from (jsonb_to_recordset(${add(JSON.stringify(added))}::jsonb) as (owner text, type text, rdata text, ttl int, "chainKey" text, "expiresAt" bigint))
        with ordinality as x(owner, type, rdata, ttl, "chainKey", "expiresAt", n))`);
  const reusedAt = [...reused.keys()];
  // positions in `added` (from 1, as `with ordinality` counts) written over a removed row, and those rows' ids
  // (a parameter only when used: an unused one has no type PostgreSQL can determine)
  const positions = reusedAt.length ? add(reusedAt.map((i) => i + 1)) : '';
  if (reusedAt.length) {
    parts.push(`supd as (insert into dnssec_records (id, domain_id, owner, type, rdata, ttl, chain_key, expires_at)
      select u.id, dom.id, x.owner, x.type, x.rdata, x.ttl, decode(x."chainKey", 'hex'), to_timestamp(x."expiresAt")
        from dom, unnest(${add(reusedAt.map((i) => reused.get(i)))}::bigint[], ${positions}::bigint[]) as u(id, n) join sadd x on x.n = u.n
      on conflict (id) do update set rdata = excluded.rdata, ttl = excluded.ttl, chain_key = excluded.chain_key, expires_at = excluded.expires_at
        where dnssec_records.domain_id = excluded.domain_id)`);
  }
  const fresh = added.length - reusedAt.length;
  // in the order given, their ids returned: a zone's head keeps them (write-engine/zone-heads.ts)
  if (fresh) {
    parts.push(`sins as (insert into dnssec_records (domain_id, owner, type, rdata, ttl, chain_key, expires_at)
      select dom.id, x.owner, x.type, x.rdata, x.ttl, decode(x."chainKey", 'hex'), to_timestamp(x."expiresAt")
        from dom, sadd x${reusedAt.length ? ` where x.n <> all(${positions}::bigint[])` : ''}
      order by x.n returning id)`);
  }
  return {
    parts,
    journalAdded: `(select jsonb_agg(jsonb_build_object('owner', x.owner, 'type', x.type, 'ttl', x.ttl, 'rdata', x.rdata) order by x.n) from sadd x)`,
    // the new rows' ids rise in the order they were inserted (order by x.n)
    inserted: fresh ? `(select coalesce(json_agg(id order by id), '[]'::json) from sins)` : `'[]'::json`,
    idsOf: (returned) => {
      let next = 0;
      return added.map((_, i) => reused.get(i) ?? returned[next++]);
    },
  };
}

/**
 * Which added records are written over which removed rows (`signerWriteCtes`): by position in `added`, the id of
 * a removed row at the same owner, of the same type and, an RRSIG, over the same type (its RDATA's first field,
 * RFC 4034 §3.2), each row once; and the removed records so reused.
 */
function rowsReused(removed: readonly SignerRow[], added: readonly SignerRow[]): { reused: Map<number, number>; freed: Set<SignerRow> } {
  const reused = new Map<number, number>();
  const freed = new Set<SignerRow>();
  if (!added.length) return { reused, freed };
  const slotOf = (r: SignerRow) =>
    `${r.owner}\u0000${r.type}${r.type === 'RRSIG' ? `\u0000${r.rdata.slice(0, r.rdata.indexOf(' '))}` : ''}`;
  const free = new Map<string, SignerRow[]>();
  for (const r of removed) {
    if (r.id === undefined) continue;
    const slot = slotOf(r);
    const rows = free.get(slot);
    if (rows) rows.push(r);
    else free.set(slot, [r]);
  }
  if (!free.size) return { reused, freed };
  added.forEach((r, i) => {
    const row = free.get(slotOf(r))?.pop();
    if (!row) return;
    reused.set(i, row.id!);
    freed.add(row);
  });
  return { reused, freed };
}

/** a zone's own records of some types (at most a few: enabling DNSSEC refuses when there is one) */
export async function userRecordsOfTypes(sql: Sql, domainId: number, types: string[]): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>('select owner, type, rdata, ttl from records where domain_id = $1 and type = any($2::text[]) limit 3', [
    domainId,
    types,
  ]);
}

/**
 * Signed zones whose refresh is due, leased to the caller for `leaseSeconds` (their due time moves to the end
 * of the lease), so that any number of workers share them and a zone whose refresh failed is tried again.
 */
export async function leaseZonesDueForRefresh(db: Database, limit: number, leaseSeconds: number): Promise<number[]> {
  const rows = await db.rows(
    `update dnssec_zones set refresh_due_at = now() + make_interval(secs => $2)
      where domain_id in (select domain_id from dnssec_zones where refresh_due_at <= now() order by refresh_due_at limit $1 for update skip locked)
      returning domain_id`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => Number(r.domain_id));
}

/** the RRset at an owner of one type, wherever it is kept (a user's records, or the signer's: DNSKEY, NSEC…) */
export async function rrsetAt(sql: Sql, domainId: number, owner: string, type: string): Promise<JournalRecord[]> {
  return sql.rows<JournalRecord>(
    `select owner, type, rdata, ttl from records where domain_id = $1 and owner = $2 and type = $3
     union all
     select owner, type, rdata, ttl from dnssec_records where domain_id = $1 and owner = $2 and type = $3`,
    [domainId, owner, type],
  );
}

/**
 * Moves a key to a state, stamping the time of the step, and sets (or clears) its next planned event. The step
 * is a key event (`reason`: why), recorded in the same transaction with `event`. The services call
 * key-step-events.ts `stepKey`, which says what the step means.
 */
export async function moveKey(
  sql: Sql,
  key: StoredDnssecKey,
  state: KeyState,
  at: Date,
  reason: KeyEventReason,
  /** the event out the step gives (key-step-events.ts) */
  event: KeyStepEventType | null,
  next?: KeyPlan,
): Promise<void> {
  if (state === key.state) throw new Error(`key ${key.keyTag} is ${state} already: a new plan is planKey's`);
  await setKeyState(sql, key.id, state, at, next);
  await recordKeyEvent(sql, key.domainId, key, { from: key.state, to: state, reason, at }, event);
}

/** A key's next planned event set (or cleared), its state unchanged: no key event. */
export async function planKey(sql: Sql, key: StoredDnssecKey, next?: KeyPlan): Promise<void> {
  await sql.rows('update dnssec_keys set next_event = $2, next_event_at = $3, next_event_reason = $4 where id = $1', [
    key.id,
    next?.event ?? null,
    next?.at ?? null,
    next?.reason ?? null,
  ]);
}

async function setKeyState(sql: Sql, keyId: number, state: KeyState, at: Date, next?: KeyPlan): Promise<void> {
  const stamp = {
    published: 'published_at',
    ready: 'ready_at',
    active: 'active_at',
    retired: 'retired_at',
    removed: 'removed_at',
  } as Record<string, string>;
  const column = stamp[state];
  const params: unknown[] = [keyId, state, next?.event ?? null, next?.at ?? null, next?.reason ?? null];
  if (column) params.push(at);
  await sql.rows(
    `update dnssec_keys set state = $2, next_event = $3, next_event_at = $4, next_event_reason = $5${column ? `, ${column} = $6` : ''} where id = $1`,
    params,
  );
}

/**
 * The worker's due-zone query: signed zones with a key event due, a key past its lifetime (`lifetimes`:
 * seconds per role, 0 = never) or a disable due. One branch per reason, each answered by its partial index
 * (Migration20261125000000_dnssec_parent_ds): a branch of an OR over the whole table would read every key.
 */
export function zonesWithKeyWorkQuery(lifetimes: { zsk: number; ksk: number }, limit: number): { text: string; params: unknown[] } {
  const params: unknown[] = [limit];
  const branches = [`select domain_id from dnssec_keys where next_event_at <= now()`];
  // a key's lifetime is over when it became active before now less the lifetime (sargable on active_at)
  const lifetime = (roles: string, seconds: number) => {
    params.push(seconds);
    branches.push(`select k.domain_id from dnssec_keys k join dnssec_zones z on z.domain_id = k.domain_id and z.state = 'signed'
      where k.state = 'active' and k.next_event is null and k.role ${roles}
        and k.active_at <= now() - make_interval(secs => $${params.length}::int)`);
  };
  if (lifetimes.zsk > 0) lifetime(`= 'ZSK'`, lifetimes.zsk);
  // a zone that withdrew its DS (multi-signer, moving out) puts its KSK's roll off until the DS is restored
  if (lifetimes.ksk > 0) lifetime(`<> 'ZSK' and z.ds_withdrawn_at is null`, lifetimes.ksk);
  branches.push(`select domain_id from dnssec_zones where disable_at <= now()`);
  return { text: `${branches.map((b) => `(${b})`).join('\n union\n')}\n limit $1`, params };
}

export async function zonesWithKeyWork(db: Database, lifetimes: { zsk: number; ksk: number }, limit: number): Promise<number[]> {
  const query = zonesWithKeyWorkQuery(lifetimes, limit);
  const rows = await db.rows(query.text, query.params);
  return rows.map((r) => Number(r.domain_id));
}

/** what a signed zone waits for of its parent, and the last look at the parent's servers */
export interface ParentDsRow {
  state: 'signed' | 'disabling';
  dsSeenAt: Date | null;
  dsCheckDueAt: Date | null;
  dsCheckedAt: Date | null;
  dsCheck: unknown;
  disableAt: Date | null;
  /** multi-signer: the zone withdrew its own DS (withdrawDnssecDs); its CDS and a parent here name the other signer's KSKs alone */
  dsWithdrawnAt: Date | null;
}

/** a zone's policy and parent-DS state as the status shows them (undefined: not signed) */
export async function policyOf(
  sql: Pick<Sql, 'rows'>,
  domainId: number,
): Promise<(ParentDsRow & { denial: DenialKind; nsec3Iterations: number; nsec3OptOut: boolean }) | undefined> {
  const [row] = await sql.rows(
    `select state, denial, nsec3_iterations, nsec3_opt_out, ds_seen_at, ds_check_due_at, ds_checked_at, ds_check, disable_at,
            ds_withdrawn_at
       from dnssec_zones where domain_id = $1`,
    [domainId],
  );
  if (!row) return undefined;
  return {
    state: row.state,
    denial: row.denial,
    nsec3Iterations: Number(row.nsec3_iterations),
    nsec3OptOut: !!row.nsec3_opt_out,
    dsSeenAt: row.ds_seen_at,
    dsCheckDueAt: row.ds_check_due_at,
    dsCheckedAt: row.ds_checked_at,
    dsCheck: row.ds_check,
    disableAt: row.disable_at,
    dsWithdrawnAt: row.ds_withdrawn_at ?? null,
  };
}

/**
 * Multi-signer (RFC 8901): the zone withdrew its own DS from the parent at `at` (null: its DS is wanted there),
 * while it still signs (docs/dnssec.md «Moving a signed zone in / out»)
 */
export async function setDsWithdrawn(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_withdrawn_at = $2 where domain_id = $1', [domainId, at]);
}

/** the zone withdrew its own DS (setDsWithdrawn); false for a zone not signed */
export async function dsWithdrawnOf(sql: Pick<Sql, 'rows'>, domainId: number): Promise<boolean> {
  const [row] = await sql.rows('select ds_withdrawn_at is not null as withdrawn from dnssec_zones where domain_id = $1', [domainId]);
  return !!row?.withdrawn;
}

/** the parent was seen (or said) to serve the zone's DS at `at`; null: the zone waits for it */
export async function setDsSeen(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_seen_at = $2 where domain_id = $1', [domainId, at]);
}

/** when the worker next asks the parent's servers about the zone's DS (null: nothing to ask) */
export async function scheduleDsCheck(sql: Sql | Database, domainId: number, at: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_check_due_at = $2 where domain_id = $1', [domainId, at]);
}

/** a zone starts disabling (RFC 8078): its state, and when it goes unsigned (null: once the parent's DS is gone) */
export async function setDisabling(sql: Sql, domainId: number, disableAt: Date | null): Promise<void> {
  await sql.rows(`update dnssec_zones set state = 'disabling', disable_at = $2 where domain_id = $1`, [domainId, disableAt]);
}

/**
 * Zones whose parent-DS check is due, leased to the caller for `leaseSeconds` (their due time moves to the end
 * of the lease): workers share them, and a check that failed midway runs again.
 */
export async function leaseZonesDueForDsCheck(db: Database, limit: number, leaseSeconds: number): Promise<{ id: number; name: string }[]> {
  const rows = await db.rows(
    `update dnssec_zones z set ds_check_due_at = now() + make_interval(secs => $2)
       from domains d
      where d.id = z.domain_id and z.domain_id in (select domain_id from dnssec_zones where ds_check_due_at <= now()
        order by ds_check_due_at limit $1 for update skip locked)
      returning z.domain_id, d.name`,
    [limit, leaseSeconds],
  );
  return rows.map((r) => ({ id: Number(r.domain_id), name: r.name }));
}

/** the last check of the parent's DS: its answer (shown in the status) and the next check (null: none) */
export async function recordDsCheck(sql: Sql | Database, domainId: number, result: unknown, nextDue: Date | null): Promise<void> {
  await sql.rows('update dnssec_zones set ds_checked_at = now(), ds_check = $2::jsonb, ds_check_due_at = $3 where domain_id = $1', [
    domainId,
    JSON.stringify(result),
    nextDue,
  ]);
}

/** the longest zone stored that is a proper parent of `zone` (its DS RRset lives there), if any */
export async function parentZoneOf(sql: Sql | Database, zone: string): Promise<{ id: number; name: string } | undefined> {
  const labels = zone.split('.');
  const candidates = labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
  if (!candidates.length) return undefined;
  const [row] = await sql.rows('select id, name from domains where name = any($1::text[]) order by length(name) desc limit 1', [
    candidates,
  ]);
  return row ? { id: Number(row.id), name: row.name } : undefined;
}

/** the largest TTL in a zone (RFC 7583 §3.2: a ZSK retires once every signature it made has left the caches) */
export async function maxTtlOfZone(sql: Sql | Database, domainId: number): Promise<number> {
  const [row] = await sql.rows('select coalesce(max(ttl), 0) as ttl from records where domain_id = $1', [domainId]);
  return Number(row.ttl);
}

/**
 * How long resolvers may cache a child's DS RRset at its parent: the RRset's TTL, or for a new one the parent's
 * SOA TTL, which is what the signer gives a DS it writes there (writeParentDs in key-rollover.ts)
 */
export async function dsTtlAtParent(sql: Sql | Database, parentId: number, owner: string): Promise<number> {
  const [row] = await sql.rows<{ ttl: number | string }>(
    `select coalesce((select max(ttl) from records where domain_id = $1 and owner = $2 and type = 'DS'),
                     (select ttl from records where domain_id = $1 and owner = '@' and type = 'SOA' limit 1), 0) as ttl`,
    [parentId, owner],
  );
  return Number(row.ttl);
}

/** the DS RDATA a zone holds at an owner (a child's delegation) */
export async function dsAtParent(sql: Sql | Database, parentId: number, owner: string): Promise<string[]> {
  const rows = await sql.rows<{ rdata: string }>(`select rdata from records where domain_id = $1 and owner = $2 and type = 'DS'`, [
    parentId,
    owner,
  ]);
  return rows.map((r) => r.rdata);
}
