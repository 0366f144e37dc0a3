import type { ZoneKind } from '../entities/domain.entity';
import type { ChangeKind, JournalCommentChange, JournalFinding, JournalRecord } from '../entities/change.entity';
import type { Sql } from '../db/pool';
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';
import { insertEventsSql } from './events';
import { stepEveryViewSerialSql, stepViewSerialsSql, type ViewStep } from './views';
import { dueOnDeleteSql, scheduleInsertedSql, scheduleUpdatedSql } from './alias-schedule';
import {
  DNSSEC_POLICY_JSON,
  DnssecPolicy,
  policyFromJson,
  SignerAnswers,
  signerAnswersFromJson,
  signerAnswersSql,
  SignerQuestions,
  SignerRow,
  idRows,
  idRowsShape,
  signerWriteCtes,
  SignedProof,
  signedProofSql,
  WholeSigner,
  wholeSignerFromJson,
  wholeSignerSql,
} from './dnssec';

/**
 * The write queries of a zone change, in one place: one statement reads everything the zone rules need, one
 * statement writes the change with its journal row on the condition that the serial read is still current.
 * The hot path of the API (a record added, edited or deleted) is those two statements, with no entity
 * hydration (docs/performance.md, «Writing zones»); under contention, the locked path is BEGIN, lock, read, write,
 * COMMIT.
 */
export interface StoredRow {
  id: number;
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
  /** an A/AAAA the worker derived from an ALIAS/ANAME (records.derived_from): read-only to people */
  derived?: boolean;
}

export interface LockedZone {
  id: number;
  name: string;
  /** the zone's owner */
  userId: number;
  /** a secondary zone changes only by transfer (docs/transfers.md) */
  kind: ZoneKind;
  serial: number;
  soa: StoredRow;
  /** the zone's records at the owner asked for */
  sameOwner: StoredRow[];
  /** the record asked for by id, if it is in this zone */
  target?: StoredRow;
  /** whether the zone keeps any disabled record (repositories/disabled-records.ts): read with the zone, so that a
   * change set of a zone without any asks no more */
  hasDisabled: boolean;
  /** the approvals a change of the zone needs (0: none; docs/changes.md, «Review»): read with the zone, so that a
   * write asks nothing more to know whether it must be a change request */
  requiredApprovals: number;
  /** whether some RRset of the zone is locked (repositories/protected-rrsets.ts): read with the zone, so that a write
   * of a zone without locks asks nothing more */
  hasLocks: boolean;
  /** whether warnings refuse a change set of the zone too (docs/changes.md), and whether some RRset of it is
   * steered (a plan warns when it empties one): read with the zone, so that a change set of a zone with neither,
   * nor locks, asks nothing more (services/zones/zone-changes.service.ts) */
  strictChecks: boolean;
  hasSteered: boolean;
  /**
   * the version of the zone's rules the read found (`domains.rules_version`: an RRset locked or unlocked,
   * strictChecks, the approvals a change needs): the change writes only if it is still this one (`ZoneWrite`)
   */
  rulesVersion: number;
  /** the zone's DNSSEC policy when it is signed (repositories/dnssec.ts) */
  dnssec?: DnssecPolicy;
  /** whether some view overlaid the zone (`has_view_zones`): a signed zone's change signs the views' zones too */
  viewZones: boolean;
  /** the signer's questions asked with the read, and their answers, from the same snapshot (`readZone`'s `signer`) */
  signer?: { questions: SignerQuestions; answers: SignerAnswers };
  /** a signed zone's signer records and keys whole, read with it (`readZone`'s `signer` 'whole': a zone's head) */
  wholeSigner?: WholeSigner;
}

export interface LockRequest {
  /** the zone by name, by id, or as the zone of a record */
  zone: { name: string } | { id: number } | { recordId: number };
  /** only a zone of this user (a user key) */
  scopeUserId?: number;
  /** the owner whose records the rules need; without it, the owner of `targetId` */
  owner?: string;
  targetId?: number;
  /** all the zone's records (zone-file import), in sameOwner */
  allRecords?: boolean;
  /**
   * the records at these owners and these records by id, in sameOwner (a change set: the zone rules are per
   * owner plus the apex's SOA and NS, so what a set touches and the apex is all they need)
   */
  touching?: { owners: string[]; recordIds: number[]; ownersOfIds?: boolean };
}

const RECORD_JSON = `json_build_object('id', r.id, 'owner', r.owner, 'type', r.type, 'rdata', r.rdata, 'ttl', r.ttl, 'derived', r.derived_from is not null)`;

const toRow = (value: any): StoredRow => ({
  id: Number(value.id),
  owner: value.owner,
  type: value.type,
  rdata: value.rdata,
  ttl: Number(value.ttl),
  ...(value.derived ? { derived: true } : {}),
});

/** Collects the parameters of one statement and answers their placeholders (`$1`, `$2`…). */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** the condition on `domains d` that picks the requested zone, within the caller's scope */
function zoneCondition(p: Params, request: LockRequest): string {
  let where: string;
  if ('name' in request.zone) where = `d.name = ${p.add(request.zone.name)}`;
  else if ('id' in request.zone) where = `d.id = ${p.add(request.zone.id)}`;
  else where = `d.id = (select domain_id from records where id = ${p.add(request.zone.recordId)})`;
  if (request.scopeUserId !== undefined) where += ` and d.user_id = ${p.add(request.scopeUserId)}`;
  return where;
}

/** the columns of a record that `RECORD_JSON` and the zone filter read */
const PROBED_COLUMNS = 'r.id, r.domain_id, r.owner, r.type, r.rdata, r.ttl, r.derived_from';

/**
 * The records at a change set's owners and its records by id, as a relation `r` of the zone row `d`: one
 * probe of the zone's (domain_id, owner) index per owner and of (domain_id, id) per id, each a lateral
 * subquery (`offset 0` keeps the planner from folding it into a join), and the two lists as one array
 * parameter each, so the statement's text is the same whatever the set's size. With `r.owner = any($1) or
 * r.id = any($2)` instead, the plan PostgreSQL keeps for the prepared statement (generic, made at its sixth
 * run on a connection, without the values) was, when the zone looked small to the planner (a new zone, or
 * a table without statistics), a scan of the zone's rows filtered by the arrays: each row compared with
 * every element of a parameter array, one by one (only a constant array is hashed), so a 1,000-owner set
 * cost 1,000 comparisons per record of the zone. As the zone grew by 1,000 records a set, that read went
 * from milliseconds to more than a second, on the connections that had kept that plan and not on the others:
 * the bimodal latency of bench/RESULTS-powerdns-api.md (bench/FINDINGS.md, «The PowerDNS API: the 1,000-rrset
 * stall»). A record found both by owner and by id is one row (`union`).
 */
function touchedRows(p: Params, touching: { owners: string[]; recordIds: number[]; ownersOfIds?: boolean }): string {
  const ids = p.add(touching.recordIds);
  // `ownersOfIds`: the whole owner of each record named by id (a person's edit or deletion of one record: what is
  // left of its RRset tells whether the RRset goes, as the "in use" guard asks)
  const ownersOfIds = touching.ownersOfIds
    ? `union
        select t.* from (select distinct x.owner from records x where x.domain_id = d.id and x.id = any(${ids}::bigint[])) as o
          cross join lateral (select ${PROBED_COLUMNS} from records r where r.domain_id = d.id and r.owner = o.owner offset 0) t`
    : '';
  return `(select t.* from unnest(${p.add(touching.owners)}::text[]) as o(owner)
          cross join lateral (select ${PROBED_COLUMNS} from records r where r.domain_id = d.id and r.owner = o.owner offset 0) t
        union
        select t.* from unnest(${ids}::bigint[]) as k(id)
          cross join lateral (select ${PROBED_COLUMNS} from records r where r.domain_id = d.id and r.id = k.id offset 0) t
        ${ownersOfIds}) as r`;
}

/**
 * Reads one zone row with the records the rules need, in one statement; `lock` also locks the zone row
 * (FOR UPDATE) until the caller's transaction ends. `signer`: the signer's questions, answered from the same
 * snapshot; 'whole': a signed zone's signer records and keys all (with `allRecords`, the zone's head).
 */
export async function readZone(
  sql: Sql,
  request: LockRequest,
  lock: boolean,
  signer?: SignerQuestions | 'whole',
): Promise<LockedZone | undefined> {
  if (lock) {
    // lock first, read after, in two statements: READ COMMITTED takes one snapshot per statement, so a
    // statement that waited for the lock would still see the records as they were before the holder's commit
    // (a CNAME and an A at one owner, each decided on a zone without the other)
    const lp = new Params();
    const [locked] = await sql.rows(`select d.id from domains d where ${zoneCondition(lp, request)} for update of d`, lp.values);
    if (!locked) return undefined;
    request = { ...request, zone: { id: Number(locked.id) }, scopeUserId: undefined };
  }
  const p = new Params();
  let sameOwnerFilter = 'true';
  let sameOwnerRows = 'records r';
  if (!request.allRecords && request.touching) {
    sameOwnerRows = touchedRows(p, request.touching);
  } else if (!request.allRecords && request.owner !== undefined) {
    sameOwnerFilter = `r.owner = ${p.add(request.owner)}`;
  } else if (!request.allRecords) {
    // no owner given: the records at the owner of the target record
    sameOwnerFilter = `r.owner = (select t.owner from records t where t.id = ${p.add(request.targetId ?? null)})`;
  }
  const target = p.add(request.targetId ?? null);
  const where = zoneCondition(p, request);
  const [row] = await sql.rows(
    `select d.id, d.name, d.serial, d.user_id, d.kind, d.required_approvals, d.rules_version,
        (select coalesce(json_agg(${RECORD_JSON} order by r.id), '[]'::json) from ${sameOwnerRows} where r.domain_id = d.id and ${sameOwnerFilter}) as same_owner,
        (select ${RECORD_JSON} from records r where r.domain_id = d.id and r.id = ${target}) as target,
        (select ${RECORD_JSON} from records r where r.domain_id = d.id and r.owner = '@' and r.type = 'SOA') as soa,
        exists (select 1 from disabled_records x where x.domain_id = d.id) as has_disabled,
        exists (select 1 from protected_rrsets l where l.domain_id = d.id) as has_locks, d.strict_checks,
        exists (select 1 from steered_rrsets s where s.domain_id = d.id) as has_steered, d.has_view_zones,
        ${DNSSEC_POLICY_JSON} as dnssec${
          signer === 'whole'
            ? `,
        case when exists (select 1 from dnssec_zones z where z.domain_id = d.id) then ${wholeSignerSql('d.id')} end as whole_signer`
            : signer
              ? `,
        ${signerAnswersSql('d.id', (value) => p.add(value), signer)} as signer`
              : ''
        }
       from domains d where ${where}`,
    p.values,
  );
  if (!row) return undefined;
  return {
    id: Number(row.id),
    name: row.name,
    userId: Number(row.user_id),
    kind: row.kind,
    serial: Number(row.serial),
    soa: toRow(row.soa),
    sameOwner: (row.same_owner as any[]).map(toRow),
    target: row.target ? toRow(row.target) : undefined,
    hasDisabled: row.has_disabled === true,
    requiredApprovals: Number(row.required_approvals ?? 0),
    hasLocks: row.has_locks === true,
    strictChecks: row.strict_checks === true,
    hasSteered: row.has_steered === true,
    rulesVersion: Number(row.rules_version),
    dnssec: policyFromJson(row.dnssec),
    viewZones: row.has_view_zones === true,
    signer:
      signer && signer !== 'whole' && row.signer ? { questions: signer, answers: signerAnswersFromJson(row.signer, signer) } : undefined,
    wholeSigner: row.whole_signer ? wholeSignerFromJson(row.whole_signer) : undefined,
  };
}

export interface ZoneWrite {
  domainId: number;
  zone: string;
  serialBefore: number;
  serialAfter: number;
  /**
   * the version of the zone's rules the change was decided on (`LockedZone.rulesVersion`): like the serial, the
   * write's condition on the zone row, so that a rule changed since the read (a lock committed while this statement
   * waited for the row, or before it began) is seen, and the change decided again on it
   */
  rulesVersion: number;
  inserts: JournalRecord[];
  update?: StoredRow;
  deleteIds: number[];
  /** the SOA's new content, unless `update` is the SOA itself */
  soa?: { id: number; rdata: string; ttl: number };
  removed: JournalRecord[];
  /** the id of each of `removed`'s rows the change deletes, null for one edited in place (changes.removed_ids) */
  removedIds?: readonly (number | null)[];
  added: JournalRecord[];
  /** the findings the change's plan answered (its warnings), kept in the journal row for the history */
  findings?: readonly JournalFinding[];
  /** the RRsets' comments the change changed beside its records (docs/changes.md, «Comments»), for the history */
  comments?: readonly JournalCommentChange[];
  /** who made the change (the change history): the API key, or the TSIG key of a DNS UPDATE, and its user */
  author?: { keyId?: number; tsigKeyId?: number; keyName?: string; userId?: number; email?: string };
  /** the signer's records the step removes and adds (a signed zone), journalled beside the user's */
  signerRemoved?: readonly SignerRow[];
  signerAdded?: readonly SignerRow[];
  /** `zone-signed`: a step of the signer alone (refresh, key step), which the history and ETags skip */
  kind?: 'zone-changed' | 'zone-signed';
  /**
   * the zone's record quota when its user has none of its own (0: none); undefined: not checked (the admin,
   * the signer). Only a change that adds records is checked: one that removes some is always taken.
   */
  defaultMaxRecords?: number;
  /**
   * The change was decided on the zone as this process last saw it, not on a read (write-engine/zone-heads.ts):
   * beside the serial, the write then checks what that view assumed: the zone is still primary, the user's
   * `userId`, unsigned (or, `signed`, signed as the view held it: repositories/dnssec.ts `SignedProof`) and
   * without disabled records, and no record is at `unknownOwners` (owners the view took for empty). If any of it
   * fails, nothing is written, as when the serial moved.
   */
  expect?: { userId: number; unknownOwners: readonly string[]; signed?: SignedProof };
  /**
   * the RRsets the change touches (`owner type`; the apex SOA only when a field other than its serial moved): the
   * views' zones that do not override one of them step their serials in this statement (repositories/views.ts)
   */
  touched?: readonly string[];
  /**
   * a change decided without the zone row's lock: it writes only if no view overlays one of these owners, else
   * it answers `overlaid` and is decided again holding the lock, where the views' zones are checked
   * (write-engine/staging.ts)
   */
  noOverlayAt?: readonly string[];
  /**
   * a step of a signed zone (or the one that ends its signing), whose views' zones hold its signer records
   * (docs/views.md, «DNSSEC»). `step`: the zone has views' zones (the change holds the zone row's lock): every
   * view's serial of the zone steps in this statement, whatever the change touched, and the steps are answered
   * (`Written.views`) for those zones to be signed again in the change's transaction. `none`: the zone had none
   * when read, and the change holds no lock: it writes only if the zone row still says so (`has_view_zones`), else
   * it answers `overlaid` and is decided again holding the lock
   */
  signedViews?: 'step' | 'none';
}

/** why `writeZoneChange` wrote nothing: the zone moved (decide again), or the records would pass the quota */
export type NotWritten = { moved: true } | { quota: { limit: number; current: number } } | { overlaid: true };

/** what `writeZoneChange` wrote: the ids of the records and of the signer records it inserted, in order */
export interface Written {
  inserted: number[];
  signerInserted: number[];
  /** the views whose serials stepped with a signed zone's step (`ZoneWrite.signedViews`), with their new serials */
  views?: ViewStep[];
}

/**
 * Writes a zone change and its journal row (the outbox) in one statement of data-modifying CTEs, on the
 * condition that the zone's serial is still `serialBefore`: the serial is the zone's version (RFC 1035 §3.3.13),
 * and every change raises it, so a zone changed since it was read is left alone (`undefined` is returned) and
 * the caller decides again. Every part of the statement hangs on the serial update (`dom`), so it writes all
 * or nothing. Returns the ids of the inserted rows, in order.
 *
 * A change that removes a record and inserts one of the same identity (owner, type and RDATA: a TTL changed, by
 * a zone-file import or a REPLACE) deletes first, in a statement of its own, so that the record added again does
 * not meet the removed one in the unique index (the statement's parts run in no set order); that needs the
 * caller's transaction with the zone row locked (`needsTransaction`). Every other change, removals included (a
 * REPLACE of an RRset with new values, the ACME clients' TXT), is the one statement.
 */
/** the condition of every part of a zone change's statement: its compare-and-set on the serial passed */
const WRITTEN = 'exists (select 1 from dom)';

export async function writeZoneChange(sql: Sql, write: ZoneWrite): Promise<Written | NotWritten> {
  const twoStatements = needsTransaction(write);
  if (twoStatements) {
    const p = new Params();
    const domainId = p.add(write.domainId);
    await sql.rows(
      `delete from records s using ${idRows((value) => p.add(value), write.deleteIds)} where s.id = x.id and s.domain_id = ${domainId}`,
      p.values,
    );
    // an ALIAS/ANAME deleted leaves its schedule row due: the worker removes its derived rows (alias-refresh.ts)
    await sql.rows(dueOnDeleteSql('$1', 'true'), [write.deleteIds]);
  }
  const p = new Params();
  const domainId = p.add(write.domainId);
  // the zone's record count moves with its serial, in the same compare-and-set: changes of one zone are
  // serialised by the serial, so the count each sees is the one the change before it left (the deletes of a
  // two-statement change are counted here too: the count changes only in this statement)
  const delta = p.add(write.inserts.length - write.deleteIds.length);
  const quota = p.add(write.defaultMaxRecords ?? null);
  const serialBefore = p.add(write.serialBefore);
  const rulesVersion = p.add(write.rulesVersion);
  // a change decided without the views' overlays in hand writes only where none lies over its owners (docs/views.md);
  // asked view by view (views are few), so that each is a probe of the overlays' unique index (zone, view,
  // owner, type) whatever the plan knows of the zone: by zone and owner alone, a plan made without the values
  // took the zone's share of all overlays from their statistics (all of them, when one zone has overlays), and
  // read them all; the limit keeps each view's probe from being folded into a join
  const overlaidAt = write.noOverlayAt?.length
    ? `exists (select 1 from views w, lateral (select 1 from view_overlays v
        where v.domain_id = ${domainId} and v.view_id = w.id and v.owner = any(${p.add(write.noOverlayAt)}::text[]) limit 1) o)`
    : undefined;
  // a signed zone's step without the lock writes only if no view's zone is to be signed with it: a condition on the
  // zone row itself, so that an overlay committed while this statement waited for the row is seen
  const viewZones = write.signedViews === 'none' ? `(select has_view_zones from domains where id = ${domainId})` : undefined;
  const overlaid = overlaidAt && viewZones ? `(${overlaidAt} or ${viewZones})` : (overlaidAt ?? viewZones);
  const parts = [
    `lim as (${recordLimitSql(domainId, quota)})`,
    `dom as (update domains set serial = ${p.add(write.serialAfter)}, record_count = record_count + ${delta}::int
      where id = ${domainId} and serial = ${serialBefore} and rules_version = ${rulesVersion}
        and (${quota}::int is null or ${delta}::int <= 0 or (select max from lim) = 0 or record_count + ${delta}::int <= (select max from lim))${
          write.expect ? expectedSql(domainId, (value) => p.add(value), write.expect) : ''
        }${overlaidAt ? ` and not ${overlaidAt}` : ''}${viewZones ? ' and not has_view_zones' : ''}
      returning id, serial, user_id)`,
  ];
  if (write.deleteIds.length && !twoStatements) {
    // by primary key, one probe per id (`idRows`): with `id = any($n)` beside the zone, the plan kept for the
    // statement could read every row of the zone and compare it with the array
    parts.push(
      `del as (delete from records s using ${idRows((value) => p.add(value), write.deleteIds)} where s.id = x.id and s.domain_id = (select id from dom))`,
    );
    // alias_refresh holds only ALIAS/ANAME rows, keyed by record id: the array is probed on its primary key
    parts.push(`adel as (${dueOnDeleteSql(p.add(write.deleteIds), WRITTEN)})`);
  }
  if (write.update) {
    const u = write.update;
    parts.push(`upd as (update records set owner = ${p.add(u.owner)}, type = ${p.add(u.type)}, rdata = ${p.add(u.rdata)}, ttl = ${p.add(u.ttl)},
      updated_at = now() where domain_id = (select id from dom) and id = ${p.add(u.id)})`);
    // an ALIAS/ANAME edited is scheduled (alias-schedule.ts); its RDATA is a parameter only then (an unused
    // parameter has no type PostgreSQL can determine)
    const flattened = FLATTENED_TYPE_NAMES.has(u.type);
    const aliasSchedule = scheduleUpdatedSql(flattened, p.add(u.id), flattened ? p.add(u.rdata) : '', '(select id from dom)', WRITTEN);
    parts.push(`aupd as (${aliasSchedule})`);
  }
  const flattenedInserts = write.inserts.some((r) => FLATTENED_TYPE_NAMES.has(r.type));
  // the inserted records lead the journal's additions when the change staged them so (staging.ts journals each
  // insert as it stages it: a set of 1,000 new records is those and the SOA's new serial): then they are sent
  // once, as the journal's `added`, and inserted from its first elements; otherwise each is sent apart
  const added = p.add(JSON.stringify(write.added));
  const insertsLead = insertsLeadAdded(write);
  const rows = insertsLead
    ? `rows from (jsonb_to_recordset(${added}::jsonb) as (owner text, type text, rdata text, ttl int)) with ordinality as x(owner, type, rdata, ttl, n)
        where x.n <= ${p.add(write.inserts.length)}::bigint`
    : `rows from (json_to_recordset(${p.add(JSON.stringify(write.inserts))}::json) as (owner text, type text, rdata text, ttl int)) with ordinality as x(owner, type, rdata, ttl, n)`;
  parts.push(`ins as (insert into records (domain_id, owner, type, rdata, ttl)
      select dom.id, x.owner, x.type, x.rdata, x.ttl
        from dom, ${rows}
      order by x.n returning id${flattenedInserts ? ', type, rdata' : ''})`);
  // the schedule of an ALIAS/ANAME inserted, in the same statement (alias-schedule.ts)
  if (flattenedInserts) parts.push(`ains as (${scheduleInsertedSql('ins', '(select id from dom)')})`);
  if (write.soa) {
    parts.push(`soa as (update records set rdata = ${p.add(write.soa.rdata)}, ttl = ${p.add(write.soa.ttl)}, updated_at = now()
      where domain_id = (select id from dom) and id = ${p.add(write.soa.id)})`);
  }
  // the views whose zone moves with this change step their serials with it (docs/views.md)
  // (every view, for a signed zone: the base's signer records are in each, and each is signed again)
  if (write.signedViews === 'step') parts.push(`vser as (${stepEveryViewSerialSql('(select id from dom)')})`);
  else if (write.touched?.length) parts.push(`vser as (${stepViewSerialsSql('(select id from dom)', p.add(write.touched))})`);
  const signerRemoved = write.signerRemoved ?? [];
  const signerAdded = write.signerAdded ?? [];
  const signer = signerWriteCtes((value) => p.add(value), signerRemoved, signerAdded);
  parts.push(...signer.parts);
  const signerJournal = (rows: readonly SignerRow[]) =>
    rows.length ? JSON.stringify(rows.map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata }))) : null;
  parts.push(`chg as (insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, removed_ids, added, author_key_id, author_key_name, author_user_id, author_tsig_key_id, signer_removed, signer_added, author_email, findings, comments)
      select dom.id, ${p.add(write.zone)}, ${p.add(write.kind ?? 'zone-changed')}, ${p.add(write.serialBefore)}, dom.serial, ${p.add(JSON.stringify(write.removed))}::jsonb, ${p.add(write.removedIds ?? null)}::bigint[], ${added}::jsonb,
        ${p.add(write.author?.keyId ?? null)}::bigint, ${p.add(write.author?.keyName ?? null)}::text, ${p.add(write.author?.userId ?? null)}::bigint,
        ${p.add(write.author?.tsigKeyId ?? null)}::bigint, ${p.add(signerJournal(signerRemoved))}::jsonb, ${signer.journalAdded}, ${p.add(write.author?.email ?? null)}::text,
        ${p.add(write.findings?.length ? JSON.stringify(write.findings) : null)}::jsonb,
        ${p.add(write.comments?.length ? JSON.stringify(write.comments) : null)}::jsonb from dom returning id)`);
  // a change of the zone's data is an event (repositories/events.ts), in this statement; its records and author
  // are read from the journal row when the event is; a step of the signer alone is none (its key steps are)
  if ((write.kind ?? 'zone-changed') === 'zone-changed') {
    const zone = p.add(write.zone);
    parts.push(
      `ev as (${insertEventsSql(`select 'zone.changed', dom.id, ${zone}::text, dom.user_id, chg.id,
        jsonb_build_object('zone', ${zone}::text, 'serial', dom.serial, 'serialBefore', ${serialBefore}::bigint) from dom, chg`)})`,
    );
  }
  const shape = statementShape(write, { twoStatements, flattenedInserts, insertsLead, parameters: p.values.length });
  let text = shape === undefined ? undefined : statementTexts.get(shape);
  if (text === undefined) {
    text = `with ${parts.join(',\n')}
     select exists (select 1 from dom) as written, coalesce((select json_agg(id order by id) from ins), '[]'::json) as inserted,
       ${signer.inserted} as signer_inserted, (${quotaPassedSql(domainId, serialBefore, delta, quota)}) as quota, ${overlaid ?? 'false'} as overlaid${
         write.signedViews === 'step'
           ? `,
       (select coalesce(json_agg(json_build_object('viewId', view_id, 'serial', serial)), '[]'::json) from vser) as views`
           : ''
       }`;
    if (shape !== undefined && statementTexts.size < MAX_SHAPES) statementTexts.set(shape, text);
  }
  const [row] = await sql.rows(text, p.values, { plan: 'generic' });
  if (!row.written) {
    // over the quota on the zone as this statement saw it at the serial read: refused (the change is ordered
    // before whatever moved the zone since); else the zone moved
    if (row.quota) return { quota: { limit: Number(row.quota.limit), current: Number(row.quota.current) } };
    if (row.overlaid) return { overlaid: true };
    return { moved: true };
  }
  sql.journalWritten();
  return {
    inserted: (row.inserted as (string | number)[]).map(Number),
    signerInserted: signer.idsOf((row.signer_inserted as (string | number)[]).map(Number)),
    ...(row.views ? { views: (row.views as any[]).map((v) => ({ viewId: Number(v.viewId), serial: Number(v.serial) })) } : {}),
  };
}

/**
 * The statement texts of unsigned zone changes, by their shape (`statementShape`): the same text object for every
 * change of a shape. The text is a few kB; a new one each time was joined, then hashed and compared whole to find
 * its prepared statement's name (db/prepared-statements.ts) and compared whole again by pg against the statement
 * prepared on the connection. The text is still what the parts above give: the shape names every choice they make.
 */
const statementTexts = new Map<string, string>();
/** shapes are a few dozen in practice (which parts, how many ids deleted by `idRows`' padding); a bound all the same */
const MAX_SHAPES = 256;

/**
 * What decides `writeZoneChange`'s text for an unsigned change: every branch its parts take, and the count of
 * its parameters as a check beside them (`idRows` pads a short list to a power of two; an array is one). Undefined for a change with signer records or a signed
 * proof, whose parts' text depends on the rows (repositories/dnssec.ts): built every time, as before.
 */
function statementShape(
  write: ZoneWrite,
  built: { twoStatements: boolean; flattenedInserts: boolean; insertsLead: boolean; parameters: number },
): string | undefined {
  if (write.signerRemoved?.length || write.signerAdded?.length || write.expect?.signed) return undefined;
  const deleted = write.deleteIds.length && !built.twoStatements ? idRowsShape(write.deleteIds) : '-';
  const update = write.update ? (FLATTENED_TYPE_NAMES.has(write.update.type) ? 'flattened' : 'plain') : '-';
  const expect = write.expect ? (write.expect.unknownOwners.length ? 'owners' : 'head') : '-';
  const views = write.signedViews ?? '-';
  return `${built.twoStatements} ${deleted} ${update} ${built.flattenedInserts} ${built.insertsLead} ${!!write.soa} ${expect} ${write.kind ?? 'zone-changed'} ${!!write.touched?.length} ${!!write.noOverlayAt?.length} ${views} ${built.parameters}`;
}

/**
 * Whether the journal's additions begin with the inserted records, each as it is inserted (owner, type, TTL and
 * RDATA; not toggled, which the journal says of a record enabled again): their JSON is then the inserts'.
 */
function insertsLeadAdded(write: ZoneWrite): boolean {
  const { inserts, added } = write;
  if (inserts.length === 0 || added.length < inserts.length) return false;
  return inserts.every((r, i) => {
    const a = added[i];
    return a.toggled === undefined && a.owner === r.owner && a.type === r.type && a.ttl === r.ttl && a.rdata === r.rdata;
  });
}

/**
 * The conditions of a change decided on a zone's head (`ZoneWrite.expect`), on `domains` in the serial's update
 * (beside the rules' version every change's update holds, which says the zone is still without review, strict
 * checks and locks, as its head was read):
 * each a probe of a primary key or of the records' (domain_id, owner) index, one per owner taken for empty (the
 * lateral form of `touchedRows`, so that the prepared statement's generic plan probes rather than scans). The
 * owners go as one JSON text: pg writes a list as an array literal element by element, quoting and escaping each
 * in JavaScript (a quarter of a megabyte for a set of 1,000 new names), where JSON.stringify is one native call.
 */
function expectedSql(domainId: string, add: (value: unknown) => string, expect: NonNullable<ZoneWrite['expect']>): string {
  const owners = expect.unknownOwners.length
    ? `
        and not exists (select 1 from json_array_elements_text(${add(JSON.stringify(expect.unknownOwners))}::json) as o(owner)
          cross join lateral (select 1 from records r where r.domain_id = ${domainId} and r.owner = o.owner limit 1) t)`
    : '';
  const signing = expect.signed
    ? signedProofSql(domainId, add, expect.signed)
    : `
        and not exists (select 1 from dnssec_zones z where z.domain_id = ${domainId})`;
  return `
        and user_id = ${add(expect.userId)} and kind = 'primary'
        and not exists (select 1 from disabled_records x where x.domain_id = ${domainId})
        and not exists (select 1 from steered_rrsets t where t.domain_id = ${domainId})${signing}${owners}`;
}

/** the record quota of a zone: its user's own, else the default given (`$quota`; 0: none) */
const recordLimitSql = (domainId: string, quota: string) =>
  `select coalesce(u.max_records_per_zone, ${quota}::int) as max from domains d join users u on u.id = d.user_id where d.id = ${domainId}`;

/** the quota and the zone's count, when adding `delta` records to the zone at `serialBefore` passes it; else no row */
const quotaPassedSql = (domainId: string, serialBefore: string, delta: string, quota: string) =>
  `select json_build_object('limit', lim.max, 'current', d.record_count) from domains d, (${recordLimitSql(domainId, quota)}) lim
     where d.id = ${domainId} and d.serial = ${serialBefore} and ${quota}::int is not null and ${delta}::int > 0
       and lim.max <> 0 and d.record_count + ${delta}::int > lim.max`;

/**
 * Whether a change of `delta` records would pass the zone's record quota, as `writeZoneChange`'s statement
 * would find it (the same condition), read and not written: a dry run's answer. Undefined: within it.
 */
export async function recordQuotaExceeded(
  sql: Sql,
  change: { domainId: number; serialBefore: number; delta: number; defaultMaxRecords: number },
): Promise<{ limit: number; current: number } | undefined> {
  const [row] = await sql.rows(`select (${quotaPassedSql('$1', '$2', '$3', '$4')}) as quota`, [
    change.domainId,
    change.serialBefore,
    change.delta,
    change.defaultMaxRecords,
  ]);
  return row?.quota ? { limit: Number(row.quota.limit), current: Number(row.quota.current) } : undefined;
}

/**
 * What bounds an import before its file is read: the zone's record count, its record quota (its user's own,
 * else `defaultMaxRecords`; 0: none) and whether it is signed (its DNSKEY, CDS and CDNSKEY are then the
 * signer's, not the file's). Undefined: no such zone.
 */
export async function importBounds(
  sql: Sql,
  domainId: number,
  defaultMaxRecords: number,
): Promise<{ limit: number; current: number; signed: boolean } | undefined> {
  const [row] = await sql.rows(
    `select d.record_count, lim.max, exists (select 1 from dnssec_zones z where z.domain_id = d.id) as signed
       from domains d, (${recordLimitSql('$1', '$2')}) lim where d.id = $1`,
    [domainId, defaultMaxRecords],
  );
  return row ? { limit: Number(row.max), current: Number(row.record_count), signed: row.signed === true } : undefined;
}

/** a record's identity as the unique index `records_identity_unique` has it (within the zone) */
const identityOf = (record: JournalRecord): string => `${record.owner}\u0000${record.type}\u0000${record.rdata}`;

/**
 * The change inserts a record of the identity of one it removes: two statements (the delete first), so one
 * transaction with the zone row locked. `removed` holds every row the change takes away (the deleted ones among
 * them): a match there is taken as a clash, which at worst costs a transaction where one statement would do.
 */
export function needsTransaction(write: Pick<ZoneWrite, 'deleteIds' | 'inserts' | 'removed'>): boolean {
  if (write.deleteIds.length === 0 || write.inserts.length === 0) return false;
  const removed = new Set(write.removed.map(identityOf));
  return write.inserts.some((record) => removed.has(identityOf(record)));
}

export async function admitToCatalog(sql: Sql, ids: number[], serial: number): Promise<void> {
  if (ids.length) await sql.rows('update domains set catalog_serial = $1 where id = any($2::bigint[])', [serial, ids]);
}

/** one journal row (`changes`), in the caller's unit of work; its readers are woken after the commit */
export async function writeJournalRow(
  sql: Sql,
  row: {
    domainId: number;
    zone: string;
    kind: ChangeKind;
    serialBefore: number | null;
    serialAfter: number;
    removed: JournalRecord[];
    added: JournalRecord[];
  },
): Promise<void> {
  await sql.rows(
    `insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added)
     values ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb)`,
    [row.domainId, row.zone, row.kind, row.serialBefore, row.serialAfter, JSON.stringify(row.removed), JSON.stringify(row.added)],
  );
  sql.journalWritten();
}
