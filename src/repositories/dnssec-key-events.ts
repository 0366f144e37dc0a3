/**
 * DNSSEC key events (`dnssec_key_events`, docs/dnssec.md «Key events»): each step of a key's RFC 7583 life,
 * written by the repositories that move a key (dnssec.ts: insertKey, moveKey, deleteSigning) in the step's
 * own transaction, so an event exists exactly when its step committed.
 */
import type { Database, Sql } from '../db/pool';
import { EventType, insertEventsSql } from './events';
import { keyset, type PageRequest, Params } from './read-model';

/** RFC 7583 §3.1's states, and an algorithm roll's `signing` and `withdrawn` (Migration20261202000000) */
export type KeyState = 'generated' | 'published' | 'ready' | 'active' | 'retired' | 'removed' | 'signing' | 'withdrawn';
export type StoredKeyRole = 'KSK' | 'ZSK' | 'CSK';

/**
 * Why a key moved: DNSSEC enabled or disabled, a roll started by hand or at the end of the key's lifetime, a
 * planned wait of the roll over (`scheduled`: RFC 7583's TTL plus propagation delay), the KSK swap once the new
 * DS was observed served by the parent (`ds-seen`: a Zonekeeper parent, or the parent's servers the worker asks
 * at DNSSEC_PARENT_DS_SERVERS) or an operator confirmed it (`ds-confirmed`: confirmDnssecDsPublished), the
 * new keys of an algorithm roll (`algorithm-roll`: rollDnssecAlgorithm).
 */
export type KeyEventReason =
  'enabled' | 'rolled-by-hand' | 'lifetime' | 'scheduled' | 'ds-seen' | 'ds-confirmed' | 'disabled' | 'algorithm-roll';

/** the events out a key step may give: which one, if any, the DNSSEC service decides (key-step-events.ts) */
export type KeyStepEventType = Extract<EventType, 'dnssec.ds_required' | 'dnssec.ds_removable' | 'dnssec.key_rolled'>;

/** the key an event is about, as it was */
export interface KeyOfEvent {
  id: number;
  keyTag: number;
  role: StoredKeyRole;
  algorithm: number;
}

export interface KeyEvent {
  id: number;
  domainId: number;
  keyId: number;
  keyTag: number;
  role: StoredKeyRole;
  algorithm: number;
  /** null: the key was made by this step */
  fromState: KeyState | null;
  toState: KeyState;
  reason: KeyEventReason;
  at: Date;
}

/** a key event with its zone's name, as the change feed reads it */
export interface FeedKeyEvent extends KeyEvent {
  zone: string;
  /** the transaction that wrote it (its event's `xid`): a subscription is sent what its snapshot did not see */
  xid?: string;
}

const COLUMNS = 'id, domain_id, key_id, key_tag, role, algorithm, from_state, to_state, reason, at';

/** a row as node-postgres gives it (bigint as text) */
interface EventRow {
  id: string;
  domain_id: string;
  key_id: string;
  key_tag: number;
  role: StoredKeyRole;
  algorithm: number;
  from_state: KeyState | null;
  to_state: KeyState;
  reason: KeyEventReason;
  at: Date;
}

const toEvent = (r: EventRow): KeyEvent => ({
  id: Number(r.id),
  domainId: Number(r.domain_id),
  keyId: Number(r.key_id),
  keyTag: Number(r.key_tag),
  role: r.role,
  algorithm: Number(r.algorithm),
  fromState: r.from_state,
  toState: r.to_state,
  reason: r.reason,
  at: r.at,
});

/** a key step's columns as the live reader reads them (`dnssec_key_events k` beside its event `e`, with the zone) */
export const LIVE_KEY_STEP_COLUMNS = `e.zone, ${COLUMNS.split(', ')
  .map((column) => `k.${column}`)
  .join(', ')}`;
export const toFeedKeyEvent = (row: EventRow & { zone: string; feed_xid: string }): FeedKeyEvent => ({
  ...toEvent(row),
  zone: row.zone,
  xid: String(row.feed_xid),
});

/**
 * The events (repositories/events.ts) of the key steps in `steps` (rows of dnssec_key_events), in their statement,
 * one a step: `type` is the SQL of each step's meaning outside, as the DNSSEC service decided it
 * (key-step-events.ts); a step without one is a `dnssec.key_step`. Each names its step (`keyEventId`): live
 * subscriptions read the key steps through the event feed, in its order, as they read the zones' changes.
 */
function keyStepEventsSql(steps: string, type: string): string {
  return insertEventsSql(`select coalesce(t.type, 'dnssec.key_step'), d.id, d.name, d.user_id, null, jsonb_build_object('zone', d.name,
        'keyTag', s.key_tag, 'role', s.role, 'algorithm', s.algorithm, 'from', s.from_state, 'to', s.to_state, 'reason', s.reason,
        'at', s.at, 'keyEventId', s.id)
      from ${steps} s join domains d on d.id = s.domain_id cross join lateral (select ${type} as type) t order by s.id`);
}

/**
 * Records a key's step in the caller's transaction, with the event out it gives (`event`, null for none). The
 * journal's readers are woken after its commit (the change feed reads new key events when it reads the
 * journal): a key step is a `zone-signed` journal row almost always, but a step that commits without one must
 * still reach the subscribers.
 */
export async function recordKeyEvent(
  sql: Sql,
  domainId: number,
  key: KeyOfEvent,
  step: { from: KeyState | null; to: KeyState; reason: KeyEventReason; at: Date },
  event: KeyStepEventType | null,
): Promise<void> {
  await sql.rows(
    `with k as (
       insert into dnssec_key_events (domain_id, key_id, key_tag, role, algorithm, from_state, to_state, reason, at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *)
     ${keyStepEventsSql('k', '$10::text')}`,
    [domainId, key.id, key.keyTag, key.role, key.algorithm, step.from, step.to, step.reason, step.at, event],
  );
  sql.journalWritten();
}

/**
 * Records the last step of every key of a zone not removed yet (DNSSEC disabled: the keys are destroyed
 * next, in the same transaction), in one statement; `events`: the event out of each key's removal, by key id.
 */
export async function recordRemovalOfAllKeys(
  sql: Sql,
  domainId: number,
  reason: KeyEventReason,
  at: Date,
  events: ReadonlyMap<number, KeyStepEventType | null>,
): Promise<void> {
  await sql.rows(
    `with k as (
       insert into dnssec_key_events (domain_id, key_id, key_tag, role, algorithm, from_state, to_state, reason, at)
       select domain_id, id, key_tag, role, algorithm, state, 'removed', $2, $3 from dnssec_keys
        where domain_id = $1 and state <> 'removed' order by id returning *)
     ${keyStepEventsSql('k', '$4::jsonb ->> s.key_id::text')}`,
    [domainId, reason, at, JSON.stringify(Object.fromEntries(events))],
  );
  sql.journalWritten();
}

/** A zone's key events, newest first, keyset-paged by id (the `(domain_id, id)` index, read either way). */
export async function zoneKeyEvents(sql: Sql, domainId: number, page: PageRequest): Promise<KeyEvent[]> {
  const p = new Params();
  const ofZone = `domain_id = ${p.add(domainId)}`;
  const paged = keyset(p, 'id', page, true);
  const rows = await sql.rows<EventRow>(
    `select ${COLUMNS} from dnssec_key_events where ${[ofZone, ...paged.conditions].join(' and ')} ${paged.order} limit ${p.add(page.first)}`,
    p.values,
  );
  return rows.map(toEvent);
}

export async function countZoneKeyEvents(sql: Sql, domainId: number): Promise<number> {
  const [row] = await sql.rows<{ n: string }>('select count(*)::bigint as n from dnssec_key_events where domain_id = $1', [domainId]);
  return Number(row.n);
}

/**
 * The key events of some zones with ids above `afterId`, in id order, with the zone's name: one range of
 * `(domain_id, id)` per zone. The change feed asks only for the zones that have key-event subscribers.
 */
export async function keyEventsOfZonesAfter(db: Database, domainIds: number[], afterId: number, limit: number): Promise<FeedKeyEvent[]> {
  const rows = await db.rows<EventRow & { zone: string }>(
    `select d.name as zone, e.id, e.domain_id, e.key_id, e.key_tag, e.role, e.algorithm, e.from_state, e.to_state, e.reason, e.at
       from dnssec_key_events e join domains d on d.id = e.domain_id
      where e.domain_id = any($1::bigint[]) and e.id > $2 order by e.id limit $3`,
    [domainIds, afterId, limit],
  );
  return rows.map((r) => ({ ...toEvent(r), zone: r.zone }));
}

/** the key events' retention: rows older than `keepDays` (HISTORY_KEEP_DAYS, as the change history) */
export async function pruneKeyEvents(sql: Sql, keepDays: number): Promise<number> {
  return sql.affected(`delete from dnssec_key_events where at < now() - make_interval(days => $1)`, [keepDays]);
}
