/** A zone's keys (`dnssec_keys`, the private part sealed): made, moved through their states, planned */
import type { Database, Sql } from '../../db/pool';
import { KeyEventReason, KeyState, KeyStepEventType, recordKeyEvent, StoredKeyRole } from '../dnssec-key-events';

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

/** the largest TTL in a zone (RFC 7583 §3.2: a ZSK retires once every signature it made has left the caches) */
export async function maxTtlOfZone(sql: Sql | Database, domainId: number): Promise<number> {
  const [row] = await sql.rows('select coalesce(max(ttl), 0) as ttl from records where domain_id = $1', [domainId]);
  return Number(row.ttl);
}
