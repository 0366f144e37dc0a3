import type { Sql } from '../db/pool';
import type { ReadRules } from '../auth/policy';
import { EVENT_FROM, EVENT_SELECT, FeedCursor, SETTLED_SQL, StoredEvent, toStoredEvent } from './events';

/**
 * Webhook subscriptions and their deliveries (docs/events.md): the SQL of services/events/webhooks.service.ts
 * and of the worker's delivery duty (worker/webhook-delivery.ts).
 */
export interface SubscriptionRow {
  id: number;
  /** null: the operator's (the admin key's), which may receive every event */
  userId: number | null;
  /** its creator's read rules (a restricted key's); null: every zone of its user */
  readRules: ReadRules | null;
  url: string;
  /** null: every type */
  eventTypes: string[] | null;
  /** null: every zone */
  zones: string[] | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: Date;
  /** the previous secrets still signing (each in its own overlap), the first to stop first */
  previousSecrets: PreviousSecret[];
}

/** a secret a rotation retired, still signing until its own overlap ends */
export interface PreviousSecret {
  /** the rotation that retired it */
  retiredAt: Date;
  /** when it stops signing: the rotation's time plus WEBHOOK_SECRET_OVERLAP_HOURS then */
  until: Date;
}

/** the secrets that sign an endpoint's deliveries, sealed: the current one, then the previous ones, newest first */
export interface SealedSecrets {
  secret: Buffer;
  previous: Buffer[];
}

/** a subscription's previous secrets still signing, as JSON (in a select or a RETURNING of webhook_subscriptions) */
const PREVIOUS_SECRETS_SQL = `(select coalesce(json_agg(json_build_object('retired_at', p.retired_at, 'until', p.until) order by p.until, p.id), '[]')
     from webhook_previous_secrets p where p.subscription_id = webhook_subscriptions.id and p.until > now()) as previous_secrets`;

const SUBSCRIPTION_COLUMNS = `id, user_id, read_rules, url, event_types, zones, enabled, disabled_reason, created_at, ${PREVIOUS_SECRETS_SQL}`;

const toSubscription = (row: any): SubscriptionRow => ({
  id: Number(row.id),
  userId: row.user_id === null ? null : Number(row.user_id),
  readRules: row.read_rules,
  url: row.url,
  eventTypes: row.event_types,
  zones: row.zones,
  enabled: row.enabled,
  disabledReason: row.disabled_reason,
  createdAt: new Date(row.created_at),
  previousSecrets: (row.previous_secrets as { retired_at: string; until: string }[]).map((p) => ({
    retiredAt: new Date(p.retired_at),
    until: new Date(p.until),
  })),
});

/** a new subscription; `seal` seals its secret for the row's id (the secret's associated data names the row) */
export async function insertSubscription(
  sql: Sql,
  row: {
    userId: number | null;
    keyId: number | null;
    readRules: ReadRules | null;
    url: string;
    eventTypes: string[] | null;
    zones: string[] | null;
  },
  seal: (id: number) => Buffer,
): Promise<SubscriptionRow> {
  const [{ id }] = await sql.rows(`select nextval('webhook_subscriptions_id_seq') as id`);
  const [inserted] = await sql.rows(
    `insert into webhook_subscriptions (id, user_id, created_by_key_id, read_rules, url, event_types, zones, secret)
     values ($1, $2, $3, $4::jsonb, $5, $6::text[], $7::text[], $8) returning ${SUBSCRIPTION_COLUMNS}`,
    [
      id,
      row.userId,
      row.keyId,
      row.readRules === null ? null : JSON.stringify(row.readRules),
      row.url,
      row.eventTypes,
      row.zones,
      seal(Number(id)),
    ],
  );
  return toSubscription(inserted);
}

/** the subscriptions of `userId` (undefined: every one, the operator's view), in id order */
export async function listSubscriptions(sql: Sql, userId: number | undefined): Promise<SubscriptionRow[]> {
  const rows = await sql.rows(
    `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions where ($1::bigint is null or user_id = $1) order by id`,
    [userId ?? null],
  );
  return rows.map(toSubscription);
}

/** one subscription, if `userId`'s (undefined: anyone's) */
export async function subscriptionOf(sql: Sql, id: number, userId: number | undefined): Promise<SubscriptionRow | undefined> {
  const [row] = await sql.rows(
    `select ${SUBSCRIPTION_COLUMNS} from webhook_subscriptions where id = $1 and ($2::bigint is null or user_id = $2)`,
    [id, userId ?? null],
  );
  return row ? toSubscription(row) : undefined;
}

/** of `names`, those that are zones of `userId` (undefined: of anyone, the operator's view) */
export async function zonesOfUser(sql: Sql, names: readonly string[], userId: number | undefined): Promise<Set<string>> {
  const rows = await sql.rows(
    `select name from domains where name collate "C" = any($1::text[]) and ($2::bigint is null or user_id = $2)`,
    [names, userId ?? null],
  );
  return new Set(rows.map((row) => row.name as string));
}

export async function deleteSubscription(sql: Sql, id: number, userId: number | undefined): Promise<boolean> {
  return (
    (await sql.affected('delete from webhook_subscriptions where id = $1 and ($2::bigint is null or user_id = $2)', [id, userId ?? null])) >
    0
  );
}

/** a subscription's secrets as a rotation finds them (its row locked until the caller's transaction ends) */
export interface SecretsForRotation {
  sealed: SealedSecrets;
  /** when the first of the previous secrets stops signing; null: none signs */
  firstEnds: Date | null;
}

/**
 * The secrets of `userId`'s (undefined: anyone's) subscription, its row locked for the rotation that follows in
 * the caller's transaction (two rotations at once take turns: the second retires the first's new secret).
 */
export async function lockSecrets(sql: Sql, id: number, userId: number | undefined): Promise<SecretsForRotation | undefined> {
  const [row] = await sql.rows(
    `select s.secret,
            array(select p.secret from webhook_previous_secrets p where p.subscription_id = s.id and p.until > now() order by p.until desc, p.id desc) as previous,
            (select min(p.until) from webhook_previous_secrets p where p.subscription_id = s.id and p.until > now()) as first_ends
       from webhook_subscriptions s where s.id = $1 and ($2::bigint is null or s.user_id = $2) for update of s`,
    [id, userId ?? null],
  );
  if (!row) return undefined;
  return { sealed: { secret: row.secret, previous: row.previous }, firstEnds: row.first_ends === null ? null : new Date(row.first_ends) };
}

/**
 * A new secret, in the transaction of lockSecrets: the current one is retired, signing for `overlapHours` from
 * now (none when 0), and every previous secret keeps its own end; those whose overlap is over go.
 */
export async function rotateSecret(sql: Sql, id: number, sealed: Buffer, overlapHours: number): Promise<void> {
  await sql.rows(
    `with gone as (delete from webhook_previous_secrets where subscription_id = $1 and until <= now()),
     retired as (
       insert into webhook_previous_secrets (subscription_id, secret, retired_at, until)
       select id, secret, now(), now() + make_interval(secs => $3::float8 * 3600) from webhook_subscriptions
        where id = $1 and $3::float8 > 0)
     update webhook_subscriptions set secret = $2 where id = $1`,
    [id, sealed, overlapHours],
  );
}

export interface DeliveryRow {
  id: number;
  eventId: number;
  type: string;
  zone: string | null;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  responseCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  deliveredAt: Date | null;
  createdAt: Date;
}

/** a subscription's deliveries, newest first, before `beforeId` */
export async function deliveriesOf(sql: Sql, subscriptionId: number, page: { first: number; beforeId?: number }): Promise<DeliveryRow[]> {
  const rows = await sql.rows(
    `select w.id, w.event_id, e.type, e.zone, w.status, w.attempts, w.response_code, w.last_error, w.next_attempt_at, w.delivered_at, w.created_at
       from webhook_deliveries w join events e on e.id = w.event_id
      where w.subscription_id = $1 and ($2::bigint is null or w.id < $2) order by w.id desc limit $3`,
    [subscriptionId, page.beforeId ?? null, page.first],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    eventId: Number(r.event_id),
    type: r.type,
    zone: r.zone,
    status: r.status,
    attempts: r.attempts,
    responseCode: r.response_code,
    lastError: r.last_error,
    nextAttemptAt: r.status === 'pending' ? new Date(r.next_attempt_at) : null,
    deliveredAt: r.delivered_at === null ? null : new Date(r.delivered_at),
    createdAt: new Date(r.created_at),
  }));
}

/**
 * Delivers again, from now, the subscription's deliveries of `eventIds` (null: every failed one), with a new retry
 * window; answers how many, or, when some of `eventIds` have no delivery to this subscription (no such event, or
 * not one it received), those ids and nothing changed (one statement: all or none). A disabled subscription is
 * enabled again: redelivering is asking for it.
 */
export async function redeliver(
  sql: Sql,
  subscriptionId: number,
  eventIds: number[] | null,
): Promise<{ redelivered: number; missing: number[] }> {
  const [row] = await sql.rows(
    `with missing as (
       select x.id from unnest($2::bigint[]) with ordinality as x(id, n)
        where not exists (select 1 from webhook_deliveries w where w.subscription_id = $1 and w.event_id = x.id) order by x.n),
     again as (
       update webhook_deliveries set status = 'pending', attempts = 0, first_attempt_at = null, next_attempt_at = now(),
              lease_until = null, last_error = null, delivered_at = null
        where subscription_id = $1 and (case when $2::bigint[] is null then status = 'failed' else event_id = any($2) end)
          and not exists (select 1 from missing)
        returning id),
     sub as (update webhook_subscriptions set enabled = true, disabled_reason = null, failing_since = null
              where id = $1 and not enabled and exists (select 1 from again))
     select (select count(*)::int from again) as n, array(select id from missing) as missing`,
    [subscriptionId, eventIds],
  );
  return { redelivered: row.n, missing: (row.missing as string[]).map(Number) };
}

// ---- the fan-out: events to deliveries ----

/** a subscription as the fan-out matches events against it */
export interface FanoutSubscription {
  id: number;
  userId: number | null;
  readRules: ReadRules | null;
  eventTypes: string[] | null;
  zones: string[] | null;
  createdAt: Date;
}

/**
 * Whether settled events wait after the fan-out's place (read without a lock): the fan-out's steps lock the place
 * only then. A row lock is a WAL record, and the commit of a transaction that wrote one waits for a WAL flush: a
 * step with nothing to pass (the duty's tick, four a second, and the steps that find a write's event already
 * passed) then costs no flush. The place is read first, as values, and the events after it in the feed's order
 * (its index): compared with another table's columns, or asked as an `exists` (which PostgreSQL plans without the
 * order), every event was read, 46 ms at 65,000 events on every step.
 */
const FANOUT_WAITING_SQL = `coalesce((select true from events e
   where (e.xid, e.id) > ((select w.xid from webhook_fanout w where w.id = 1), (select w.event_id from webhook_fanout w where w.id = 1))
     and ${SETTLED_SQL} order by e.xid, e.id limit 1), false)`;

/**
 * One step of the fan-out, in the caller's transaction: takes the fan-out's place in the feed (its row locked,
 * SKIP LOCKED: one process at a time), the settled events after it (up to `batch`) and the enabled
 * subscriptions; undefined when another process has the place or no settled event waits after it (then nothing
 * is locked, see FANOUT_WAITING_SQL).
 */
export async function beginFanout(
  sql: Sql,
  batch: number,
): Promise<{ cursor: FeedCursor; events: StoredEvent[]; subscriptions: FanoutSubscription[] } | undefined> {
  const [place] = await sql.rows(
    `select xid::text as xid, event_id from webhook_fanout where id = 1 and ${FANOUT_WAITING_SQL} for update skip locked`,
  );
  if (!place) return undefined;
  const cursor = { xid: place.xid, id: Number(place.event_id) };
  const events = await sql.rows(
    `select ${EVENT_SELECT} from ${EVENT_FROM} where (e.xid, e.id) > ($1::xid8, $2::bigint) and ${SETTLED_SQL} order by e.xid, e.id limit $3`,
    [cursor.xid, cursor.id, batch],
  );
  if (!events.length) return { cursor, events: [], subscriptions: [] };
  const subscriptions = await sql.rows(
    `select id, user_id, read_rules, event_types, zones, created_at from webhook_subscriptions where enabled order by id`,
  );
  return {
    cursor,
    events: events.map(toStoredEvent),
    subscriptions: subscriptions.map((r) => ({
      id: Number(r.id),
      userId: r.user_id === null ? null : Number(r.user_id),
      readRules: r.read_rules,
      eventTypes: r.event_types,
      zones: r.zones,
      createdAt: new Date(r.created_at),
    })),
  };
}

/**
 * What a step of the fan-out while no subscription is enabled came to: how many events it passed, and whether a
 * subscription was enabled (then it passed none: the step takes a transaction, beginFanout and endFanout).
 */
export interface FanoutPass {
  events: number;
  subscribed: boolean;
}

/**
 * The step of the fan-out while no subscription is enabled, as parts of one statement (passFanoutUnsubscribed,
 * and the outbox claim's statement, which takes it along: PropagationRepository.claimChanges): no event can
 * match, so the place moves past the settled events after it (up to the parameter `batchParam`) with nothing
 * written, as beginFanout and endFanout in a transaction would (four round trips and BEGIN/COMMIT). The place is
 * locked (SKIP LOCKED, as beginFanout) only when no subscription is enabled and settled events wait after it: a
 * step with nothing to do writes nothing. `ctes` go in the statement's WITH, `columns` in its one row's select
 * list, read back by fanoutPassOf.
 */
export const fanoutPassSql = (batchParam: string): { ctes: string; columns: string } => ({
  ctes: `fanout_subscribed as (select exists (select 1 from webhook_subscriptions where enabled) as yes),
          fanout_waiting as (select ${FANOUT_WAITING_SQL} as yes),
          fanout_place as (
            select xid, event_id from webhook_fanout
             where id = 1 and (select yes from fanout_waiting) and not (select yes from fanout_subscribed)
             for update skip locked),
          fanout_passed as (
            select e.xid, e.id from events e
             where (e.xid, e.id) > ((select xid from fanout_place), (select event_id from fanout_place)) and ${SETTLED_SQL}
             order by e.xid, e.id limit ${batchParam}),
          fanout_moved as (
            update webhook_fanout f set xid = last.xid, event_id = last.id
              from (select xid, id from fanout_passed order by xid desc, id desc limit 1) last
             where f.id = 1
            returning 1)`,
  columns: `exists (select 1 from fanout_place) as fanout_placed, (select yes from fanout_subscribed) as fanout_subscribed,
            (select yes from fanout_waiting) as fanout_waiting, (select count(*) from fanout_passed)::int as fanout_events,
            (select count(*) from fanout_moved)::int as fanout_moved`,
});

/** the pass's answer in a row of `fanoutPassSql`'s columns; undefined when another process holds the place */
export function fanoutPassOf(row: {
  fanout_placed: boolean;
  fanout_subscribed: boolean;
  fanout_waiting: boolean;
  fanout_events: number;
}): FanoutPass | undefined {
  if (row.fanout_placed) return { events: row.fanout_events, subscribed: false };
  if (row.fanout_subscribed) return { events: 0, subscribed: true };
  // nothing locked with no subscription enabled: nothing waited, or another process holds the place
  return row.fanout_waiting ? undefined : { events: 0, subscribed: false };
}

/**
 * A step of the fan-out while no subscription is enabled, in one statement of its own (fanoutPassSql). Answers
 * how many events it passed and whether a subscription was enabled; undefined when another process holds the
 * place (SKIP LOCKED, as beginFanout).
 */
export async function passFanoutUnsubscribed(sql: Sql, batch: number): Promise<FanoutPass | undefined> {
  const pass = fanoutPassSql('$1');
  const [row] = await sql.rows(`with ${pass.ctes} select ${pass.columns}`, [batch]);
  return fanoutPassOf(row);
}

/** the deliveries the fan-out decided, and its new place in the feed, in the caller's transaction */
export async function endFanout(
  sql: Sql,
  deliveries: { subscriptionId: number; eventId: number; xid: string; zoneKey: string }[],
  cursor: FeedCursor,
): Promise<void> {
  await sql.rows(
    `with ins as (
       insert into webhook_deliveries (subscription_id, event_id, xid, zone_key)
       select x.subscription_id, x.event_id, x.xid::xid8, x.zone_key
         from json_to_recordset($1::json) as x(subscription_id bigint, event_id bigint, xid text, zone_key text)
       on conflict (subscription_id, event_id) do nothing)
     update webhook_fanout set xid = $2::xid8, event_id = $3 where id = 1`,
    [
      JSON.stringify(deliveries.map((d) => ({ subscription_id: d.subscriptionId, event_id: d.eventId, xid: d.xid, zone_key: d.zoneKey }))),
      cursor.xid,
      cursor.id,
    ],
  );
}

// ---- the deliveries ----

export interface ClaimedDelivery {
  id: number;
  subscriptionId: number;
  url: string;
  readRules: ReadRules | null;
  secrets: SealedSecrets;
  attempts: number;
  event: StoredEvent;
}

/** an (endpoint, zone) queue's lease: `until` as PostgreSQL wrote it, which is also the holder's token */
export interface QueueLease {
  subscriptionId: number;
  zoneKey: string;
  until: string;
}

/** a queue claimed: its lease, and the run of its pending deliveries to send in this order, one at a time */
export interface ClaimedQueue {
  lease: QueueLease;
  deliveries: ClaimedDelivery[];
}

/**
 * Claims up to `batch` (endpoint, zone) queues whose first pending delivery is due, each leased for `leaseSeconds`
 * by a row of webhook_queue_leases, and answers for each the run of its first `run` pending deliveries (up to the
 * first one not due yet), to be sent in this order, the next only once the one before it is delivered: a zone's
 * events reach an endpoint in order. An endpoint has at most `perEndpoint` queues leased at once (each sends one
 * delivery at a time), counting every worker's leases; endpoints with no lease free are not looked at.
 *
 * The queues of the endpoints with room are found by a skip scan of the pending deliveries' index (subscription,
 * zone, feed order): one probe for each queue and one for its head, whatever the backlog. Two workers cannot hold
 * one queue: a lease is taken (insert, or update of an expired one) only where none runs, and the row's lock
 * makes the second wait and then see the first's lease; the chosen subscriptions are locked (key share) so that one
 * deleted meanwhile is left out rather than failing the claim. (Two claims at the same instant may each count the
 * other's leases as free, as before: the limit is exact per worker, and across workers up to a claim's race.)
 */
export async function claimQueues(
  sql: Sql,
  batch: number,
  perEndpoint: number,
  leaseSeconds: number,
  run: number,
): Promise<ClaimedQueue[]> {
  const rows = await sql.rows(
    `with recursive free as (
       select s.id, $2::int - (select count(*) from webhook_queue_leases l where l.subscription_id = s.id and l.lease_until > now())::int as slots
         from webhook_subscriptions s where s.enabled),
     queues as (
       (select f.id as subscription_id, f.slots, n.zone_key from free f cross join lateral (
          select w.zone_key from webhook_deliveries w where w.status = 'pending' and w.subscription_id = f.id
           order by w.zone_key limit 1) n
         where f.slots > 0)
       union all
       select q.subscription_id, q.slots, n.zone_key from queues q cross join lateral (
         select w.zone_key from webhook_deliveries w
          where w.status = 'pending' and w.subscription_id = q.subscription_id and w.zone_key > q.zone_key
          order by w.zone_key limit 1) n),
     heads as (
       select q.subscription_id, q.zone_key, q.slots, h.next_attempt_at, h.xid, h.event_id from queues q cross join lateral (
         select w.next_attempt_at, w.lease_until, w.xid, w.event_id from webhook_deliveries w
          where w.status = 'pending' and w.subscription_id = q.subscription_id and w.zone_key = q.zone_key
          order by w.xid, w.event_id limit 1) h
        where h.next_attempt_at <= now() and (h.lease_until is null or h.lease_until <= now())
          and not exists (select 1 from webhook_queue_leases l
                           where l.subscription_id = q.subscription_id and l.zone_key = q.zone_key and l.lease_until > now())),
     chosen as (
       select r.subscription_id, r.zone_key from (
         select h.*, row_number() over (partition by h.subscription_id order by h.next_attempt_at, h.xid, h.event_id) as place from heads h) r
        where r.place <= r.slots order by r.next_attempt_at, r.xid, r.event_id limit $1),
     kept as (
       select s.id from webhook_subscriptions s where s.id in (select subscription_id from chosen) and s.enabled for key share of s),
     leased as (
       insert into webhook_queue_leases as l (subscription_id, zone_key, lease_until)
       select subscription_id, zone_key, now() + make_interval(secs => $3::float8) from chosen where subscription_id in (select id from kept)
       on conflict (subscription_id, zone_key) do update set lease_until = excluded.lease_until where l.lease_until <= now()
       returning l.subscription_id, l.zone_key, l.lease_until),
     runs as (
       select r.* from leased l cross join lateral (
         select w.id, w.event_id, w.attempts, w.xid, l.subscription_id, l.zone_key, l.lease_until,
                bool_and(w.next_attempt_at <= now()) over (order by w.xid, w.event_id) as due
           from (select * from webhook_deliveries w
                  where w.status = 'pending' and w.subscription_id = l.subscription_id and w.zone_key = l.zone_key
                  order by w.xid, w.event_id limit $4) w) r
        where r.due),
     previous as (
       select p.subscription_id, array_agg(p.secret order by p.until desc, p.id desc) as secrets from webhook_previous_secrets p
        where p.subscription_id in (select subscription_id from leased) and p.until > now() group by p.subscription_id)
     select r.id as delivery_id, r.subscription_id, r.zone_key, r.lease_until::text as lease_until, r.attempts, s.url, s.read_rules, s.secret,
            coalesce(pv.secrets, '{}') as previous_secrets, ${EVENT_SELECT}
       from runs r join webhook_subscriptions s on s.id = r.subscription_id join events e on e.id = r.event_id left join changes c on c.id = e.change_id
            left join previous pv on pv.subscription_id = r.subscription_id
      order by r.subscription_id, r.zone_key, r.xid, r.event_id`,
    [batch, perEndpoint, leaseSeconds, run],
  );
  const queues = new Map<string, ClaimedQueue>();
  for (const r of rows) {
    const key = `${r.subscription_id} ${r.zone_key}`;
    let queue = queues.get(key);
    if (!queue) {
      queue = { lease: { subscriptionId: Number(r.subscription_id), zoneKey: r.zone_key, until: r.lease_until }, deliveries: [] };
      queues.set(key, queue);
    }
    queue.deliveries.push({
      id: Number(r.delivery_id),
      subscriptionId: Number(r.subscription_id),
      url: r.url,
      readRules: r.read_rules,
      secrets: { secret: r.secret, previous: r.previous_secrets },
      attempts: r.attempts,
      event: toStoredEvent(r),
    });
  }
  return [...queues.values()];
}

/**
 * Queue leases that ran out a day ago or more: a worker that died holding a queue left its row, taken over by the
 * queue's next claim, or by nothing if the queue never fills again (its zone gone). Answers how many went.
 */
export function pruneQueueLeases(sql: Sql): Promise<number> {
  return sql.affected(`delete from webhook_queue_leases where lease_until < now() - interval '1 day'`);
}

/**
 * Previous secrets whose overlap is over: no delivery signs with them any more, and a secret kept at rest no longer
 * than it signs is one less to leak (a rotation also drops its subscription's). Answers how many went.
 */
export function pruneRetiredSecrets(sql: Sql): Promise<number> {
  return sql.affected(`delete from webhook_previous_secrets where until <= now()`);
}

/** the statement part that releases `leases` ($n: subscription ids, $n+1: zone keys, $n+2: lease tokens), if still theirs */
const releaseSql = (n: number) =>
  `delete from webhook_queue_leases l using unnest($${n}::bigint[], $${n + 1}::text[], $${n + 2}::timestamptz[]) as q(subscription_id, zone_key, lease_until)
    where l.subscription_id = q.subscription_id and l.zone_key = q.zone_key and l.lease_until = q.lease_until`;

/**
 * Deliveries their endpoints took (2xx), in one statement: done (each row written once, leased by its queue), and
 * their endpoints no longer failing; and the queue leases whose runs ended, released (if still the holder's) in the
 * same statement, after their deliveries. The duty stores its successes together (one round trip for all those
 * answered since its last), not one by one.
 */
export async function recordDelivered(
  sql: Sql,
  delivered: readonly { id: number; responseCode: number }[],
  released: readonly QueueLease[] = [],
): Promise<void> {
  if (!delivered.length && !released.length) return;
  await sql.rows(
    `with x as (select * from unnest($1::bigint[], $2::int[]) as x(id, code)),
     d as (
       update webhook_deliveries w set status = 'delivered', attempts = w.attempts + 1, response_code = x.code, last_error = null,
              delivered_at = now(), lease_until = null, first_attempt_at = coalesce(w.first_attempt_at, now())
         from x where w.id = x.id returning w.subscription_id),
     r as (${releaseSql(3)}),
     s as (update webhook_subscriptions s set failing_since = null
            where s.id in (select subscription_id from d) and s.failing_since is not null)
     select 1`,
    [
      delivered.map((d) => d.id),
      delivered.map((d) => d.responseCode),
      released.map((l) => l.subscriptionId),
      released.map((l) => l.zoneKey),
      released.map((l) => l.until),
    ],
  );
}

/**
 * An attempt that failed: tried again after `retryMs`, unless its first attempt is more than `retryHours` ago
 * (then `failed`). Its endpoint is failing since its first failure; failing for `disableAfterDays`, it is disabled
 * (answered: the owner is told, by the caller's event). Its queue's lease, when given, is released in the same
 * statement: the queue's next claim sees the delivery's retry time. Answers the delivery's status and whether this
 * disabled the endpoint (with its user). A delivery already delivered (its attempt's failure stored late, after
 * another attempt's success) stays delivered.
 */
export async function recordAttemptFailed(
  sql: Sql,
  failure: {
    id: number;
    responseCode: number | null;
    error: string;
    retryMs: number;
    retryHours: number;
    disableAfterDays: number;
    release?: QueueLease;
  },
): Promise<{ status: 'pending' | 'failed'; disabled?: { subscriptionId: number; userId: number | null; url: string } }> {
  const release = failure.release ? [failure.release] : [];
  const [row] = await sql.rows(
    `with d as (
       update webhook_deliveries set attempts = attempts + 1, response_code = $2, last_error = $3, lease_until = null,
              first_attempt_at = coalesce(first_attempt_at, now()),
              status = case when first_attempt_at < now() - make_interval(hours => $5::int) then 'failed' else 'pending' end,
              next_attempt_at = now() + make_interval(secs => $4::float8 / 1000)
        where id = $1 and status = 'pending' returning subscription_id, status),
     r as (${releaseSql(7)}),
     s as (
       update webhook_subscriptions s set failing_since = coalesce(s.failing_since, now()),
              enabled = not coalesce(s.failing_since < now() - make_interval(days => $6::int), false),
              disabled_reason = case when s.failing_since < now() - make_interval(days => $6::int)
                                     then 'failing since ' || s.failing_since::text else s.disabled_reason end
         from d where s.id = d.subscription_id and s.enabled
       returning s.id, s.user_id, s.url, s.enabled, coalesce(s.failing_since < now() - make_interval(days => $6::int), false) as disabled_now)
     select d.status, s.id as subscription_id, s.user_id, s.url, s.disabled_now from d left join s on true`,
    [
      failure.id,
      failure.responseCode,
      failure.error.slice(0, 500),
      failure.retryMs,
      failure.retryHours,
      failure.disableAfterDays,
      release.map((l) => l.subscriptionId),
      release.map((l) => l.zoneKey),
      release.map((l) => l.until),
    ],
  );
  if (!row) return { status: 'failed' };
  return {
    status: row.status,
    disabled: row.disabled_now
      ? { subscriptionId: Number(row.subscription_id), userId: row.user_id === null ? null : Number(row.user_id), url: row.url }
      : undefined,
  };
}
