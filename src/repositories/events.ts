import type { Sql } from '../db/pool';

/**
 * Events (docs/events.md): the journal's second reader. A row of `events` is written in the transaction of what
 * it describes, most often as one more part of the statement that writes it (the zone change's CTEs, the
 * create's, the deletion's, a key step's), so that an event exists exactly when its cause committed, and the
 * write path asks no statement more.
 *
 * The feed's order, and why no reader ever passes over an event: an event's id is taken from a sequence when
 * its row is inserted, but the row is seen only when its transaction commits, and transactions commit in any
 * order; a reader that had passed id 7 would never see an id 6 committed after it. So the feed is ordered by
 * `(xid, id)`, `xid` being the writing transaction's id (xid8, pg_current_xact_id(), which never wraps), and
 * serves only the rows of transactions older than the oldest one still running
 * (`xid < pg_snapshot_xmin(pg_current_snapshot())`): every transaction that commits later has an xid at or
 * above that bound (it is running, or not yet begun), so whatever commits later sorts after whatever was served.
 * A cursor is the pair `(xid, id)` of the last event served. The price: an event waits for every transaction
 * older than its own to end (milliseconds; a transaction left open holds the feed, which the database's
 * idle_in_transaction_session_timeout bounds).
 *
 * A zone's events come in the order their transactions took their xids, which is the order of their commits:
 * a zone's writes are serialised by its row's lock, and a writing transaction takes its xid at its first write,
 * for the write engine that lock or the compare-and-set on the zone's serial. The exception: two transactions
 * that reach the row in the same instant, the later to commit having taken its xid just before it waited (a
 * statement takes its xid before it waits for a row lock). A `zone.changed` event carries the serial, which rises
 * with every change, so a consumer can tell.
 */
export const EVENT_TYPES = [
  'zone.created',
  'zone.changed',
  'zone.deleted',
  'zone.moved',
  'zone.propagated',
  'zone.transfer_failed',
  'zone.expired',
  'dnssec.ds_required',
  'dnssec.ds_removable',
  'dnssec.key_rolled',
  'dnssec.key_step',
  'dnssec.ds_updated',
  'dnssec.foreign_keys_changed',
  'health.changed',
  'steering.changed',
  'steering.panic',
  // a steering vantage isolated (its probes not counted) or sound again (docs/steering.md): the operator's
  'steering.vantage',
  // a view's overlay of a zone set or cleared (docs/views.md): the operator's
  'view.changed',
  'webhook.disabled',
  // a zone's rules changed: an RRset locked or unlocked, strictChecks, the approvals a change needs (docs/changes.md)
  'zone.rules_changed',
  // RRsets' comments changed alone, no DNS data (docs/changes.md, «Comments»): a journal row with no serial step
  'zone.comments_changed',
  // change requests (docs/changes.md, «Review», «Scheduled changes»)
  'change.proposed',
  'change.approved',
  'change.rejected',
  'change.applied',
  'change.refused',
  'change.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** the columns of an event's INSERT, in the order the SELECT of `insertEventsSql` gives them */
const EVENT_COLUMNS = 'type, domain_id, zone, user_id, change_id, data';

/**
 * An INSERT of events from `select`, to be one part (a CTE) of the statement that writes what they describe;
 * `select` yields (type, domain_id, zone, user_id, change_id, data) per event.
 */
export const insertEventsSql = (select: string): string => `insert into events (${EVENT_COLUMNS}) ${select}`;

/**
 * Appends one event in the caller's unit of work (its transaction): what a statement of its own describes, such
 * as a health finding that changed (the health checker's duty calls this in the transaction that stores the
 * finding). `domainId` alone names the zone: its name and user are read from it. Its readers (the webhook
 * fan-out) are woken after the commit, as the journal's are.
 */
export async function appendEvent(
  sql: Sql,
  event: { type: EventType; domainId?: number | null; zone?: string | null; userId?: number | null; data: Record<string, unknown> },
): Promise<void> {
  await sql.rows(
    insertEventsSql(
      `select $1, $2::bigint, coalesce($3::text, d.name), coalesce($4::bigint, d.user_id), null, $5::jsonb
         from (select 1) one left join domains d on d.id = $2::bigint`,
    ),
    [event.type, event.domainId ?? null, event.zone ?? null, event.userId ?? null, JSON.stringify(event.data)],
  );
  sql.journalWritten();
}

/**
 * Appends events in the caller's unit of work in one statement, in the order given (`appendEvent` for each, as the
 * health duty's batch of checks stores them).
 */
export async function appendEvents(
  sql: Sql,
  events: readonly {
    type: EventType;
    domainId?: number | null;
    zone?: string | null;
    userId?: number | null;
    data: Record<string, unknown>;
  }[],
): Promise<void> {
  if (!events.length) return;
  await sql.rows(
    insertEventsSql(
      `select n.type, n.domain_id, coalesce(n.zone, d.name), coalesce(n.user_id, d.user_id), null, n.data
         from unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::jsonb[]) with ordinality n(type, domain_id, zone, user_id, data, ord)
         left join domains d on d.id = n.domain_id
        order by n.ord`,
    ),
    [
      events.map((e) => e.type),
      events.map((e) => e.domainId ?? null),
      events.map((e) => e.zone ?? null),
      events.map((e) => e.userId ?? null),
      events.map((e) => JSON.stringify(e.data)),
    ],
  );
  sql.journalWritten();
}

/** where a reader is in the feed: the last event it was given (0, 0: the start) */
export interface FeedCursor {
  xid: string;
  id: number;
}
export const FEED_START: FeedCursor = { xid: '0', id: 0 };

export const formatCursor = (cursor: FeedCursor): string => `${cursor.xid}-${cursor.id}`;
export function parseCursor(text: string): FeedCursor | undefined {
  if (text === '' || text === '0') return FEED_START;
  const match = /^(\d{1,20})-(\d{1,19})$/.exec(text);
  return match ? { xid: match[1], id: Number(match[2]) } : undefined;
}

export interface StoredEvent {
  id: number;
  xid: string;
  type: EventType;
  domainId: number | null;
  zone: string | null;
  userId: number | null;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** a `zone.changed` event lists its records when they are at most this many; beyond, it names the journal row */
export const INLINE_RECORDS = 100;

/**
 * An event's data as delivered: a `zone.changed` event's records and author come from its journal row (stored
 * once, in `changes`), inline when few, else as the journal row's id and its counts (the history reads it); the
 * RRsets' comments it changed (`comments`), when it changed some (a `zone.comments_changed` event: only those).
 */
const EVENT_DATA_SQL = `case when e.change_id is null then e.data
  when c.id is null then e.data || jsonb_build_object('changeId', e.change_id)
  else e.data || jsonb_build_object('changeId', c.id, 'author', jsonb_strip_nulls(jsonb_build_object(
      'keyId', c.author_key_id, 'keyName', c.author_key_name, 'userId', c.author_user_id, 'tsigKeyId', c.author_tsig_key_id, 'email', c.author_email)))
    || case when jsonb_array_length(c.added) + jsonb_array_length(c.removed) <= ${INLINE_RECORDS}
         then jsonb_build_object('added', c.added, 'removed', c.removed)
         else jsonb_build_object('addedCount', jsonb_array_length(c.added), 'removedCount', jsonb_array_length(c.removed), 'truncated', true) end
    || case when c.comments is null then '{}'::jsonb else jsonb_build_object('comments', c.comments) end
  end`;

/** the select list that reads events `e` as delivered (joined to `changes c` on the event's journal row) */
export const EVENT_SELECT = `e.id, e.xid::text as xid, e.type, e.domain_id, e.zone, e.user_id, e.created_at, ${EVENT_DATA_SQL} as data`;
export const EVENT_FROM = 'events e left join changes c on c.id = e.change_id';

export const toStoredEvent = (row: any): StoredEvent => ({
  id: Number(row.id),
  xid: String(row.xid),
  type: row.type,
  domainId: row.domain_id === null ? null : Number(row.domain_id),
  zone: row.zone,
  userId: row.user_id === null ? null : Number(row.user_id),
  createdAt: new Date(row.created_at),
  data: row.data,
});

/** the bound below which every transaction has ended: only events under it are read (see above) */
export const SETTLED_SQL = 'e.xid < pg_snapshot_xmin(pg_current_snapshot())';

/**
 * The feed after `after`, in order, up to `limit` events: of the user `userId` (undefined: every user's and the
 * operator's own), of the zones `zones` when given (a key whose rules name zones), of the types `types` when given.
 */
export async function readFeed(
  sql: Sql,
  query: { after: FeedCursor; limit: number; userId?: number; zones?: readonly string[]; types?: readonly string[] },
): Promise<StoredEvent[]> {
  const rows = await sql.rows(
    `select ${EVENT_SELECT} from ${EVENT_FROM}
      where (e.xid, e.id) > ($1::xid8, $2::bigint) and ${SETTLED_SQL}
        and ($3::bigint is null or e.user_id = $3) and ($4::text[] is null or e.zone = any($4)) and ($5::text[] is null or e.type = any($5))
      order by e.xid, e.id limit $6`,
    [query.after.xid, query.after.id, query.userId ?? null, query.zones ?? null, query.types ?? null, query.limit],
  );
  return rows.map(toStoredEvent);
}

/** the feed's end as a reader now sees it: where a reader that wants only what comes next starts */
export async function feedHead(sql: Sql): Promise<FeedCursor> {
  const [row] = await sql.rows(`select e.xid::text as xid, e.id from events e where ${SETTLED_SQL} order by e.xid desc, e.id desc limit 1`);
  return row ? { xid: row.xid, id: Number(row.id) } : FEED_START;
}

/** events older than `keepDays` (the journal's retention, HISTORY_KEEP_DAYS); their deliveries go with them */
export function pruneEvents(sql: Sql, keepDays: number): Promise<number> {
  return sql.affected(`delete from events where created_at < now() - make_interval(days => $1::int)`, [keepDays]);
}

/**
 * A snapshot as PostgreSQL gives it (`pg_current_snapshot()`, `xmin:xmax:xip,…`): which transactions had committed
 * when it was taken. A live subscription takes one when it starts, and is sent exactly the events of
 * transactions this snapshot did not see: what committed after it began, however late and whatever its id.
 */
export class FeedSnapshot {
  private constructor(
    private readonly xmin: bigint,
    private readonly xmax: bigint,
    private readonly running: ReadonlySet<bigint>,
    readonly text: string,
  ) {}

  static parse(text: string): FeedSnapshot {
    const [xmin, xmax, running] = text.split(':');
    return new FeedSnapshot(BigInt(xmin), BigInt(xmax), new Set(running ? running.split(',').map(BigInt) : []), text);
  }

  /** whether the transaction `xid` had committed when the snapshot was taken (pg_visible_in_snapshot's rule) */
  sees(xid: string): boolean {
    const id = BigInt(xid);
    return id < this.xmin || (id < this.xmax && !this.running.has(id));
  }
}

/** a snapshot to start a live reader from, and the feed's settled end under it (every later commit sorts after it) */
export async function feedStartNow(sql: Sql): Promise<{ snapshot: FeedSnapshot; head: FeedCursor }> {
  const [row] = await sql.rows(
    `select pg_current_snapshot()::text as snapshot, h.xid::text as xid, h.id
       from (select 1) one left join (select e.xid, e.id from events e where ${SETTLED_SQL} order by e.xid desc, e.id desc limit 1) h on true`,
  );
  return { snapshot: FeedSnapshot.parse(row.snapshot), head: row.xid === null ? FEED_START : { xid: row.xid, id: Number(row.id) } };
}

/**
 * What a live reader reads beside an event: the row it stands for. `journal`: the journal row (`changes c`) of a
 * zone's change, move or deletion, the rows the history shows; `keySteps`: the DNSSEC key step
 * (`dnssec_key_events k`) of a key-step event, every step having one (repositories/dnssec-key-events.ts).
 */
export type LiveSource = 'journal' | 'keySteps';
const LIVE_SOURCES: Record<LiveSource, { from: string; standsFor: string }> = {
  journal: { from: `events e join changes c on c.id = e.change_id and c.kind <> 'zone-signed'`, standsFor: 'e.change_id is not null' },
  keySteps: {
    from: `events e join dnssec_key_events k on k.id = (e.data ->> 'keyEventId')::bigint`,
    standsFor: `e.type like 'dnssec.%' and e.data ? 'keyEventId'`,
  },
};

/**
 * The live reader's next step: the settled events after `after` of the zones `zones` that stand for a row of
 * `source` (`select` reads its columns from `c` or `k`), in the feed's order, at most `limit`; and the feed's
 * settled end in the same snapshot, where the reader's cursor may move when fewer than `limit` came (no settled
 * event of these zones lies between); `pending`: such an event after the cursor has committed or is being
 * written but waits for an older transaction to end (the reader reads again soon: no commit may wake it).
 */
export async function readLive<T>(
  sql: Sql,
  source: LiveSource,
  query: { after: FeedCursor; zones: readonly number[]; limit: number; select: string },
  toRow: (row: any) => T,
): Promise<{ rows: Array<T & { cursor: FeedCursor }>; head: FeedCursor; pending: boolean }> {
  const { from, standsFor } = LIVE_SOURCES[source];
  const rows = await sql.rows(
    `with head as (select e.xid, e.id from events e where ${SETTLED_SQL} order by e.xid desc, e.id desc limit 1),
          pending as (select exists (select 1 from events e where (e.xid, e.id) > ($1::xid8, $2::bigint) and not ${SETTLED_SQL}
                                        and e.domain_id = any($3::bigint[]) and ${standsFor}) as pending),
          got as (select e.xid as feed_xid8, e.xid::text as feed_xid, e.id as feed_id, ${query.select} from ${from}
                   where (e.xid, e.id) > ($1::xid8, $2::bigint) and ${SETTLED_SQL} and e.domain_id = any($3::bigint[])
                     and ${standsFor}
                   order by e.xid, e.id limit $4)
     select h.xid::text as head_xid, h.id as head_id, p.pending, g.*
       from pending p left join head h on true left join got g on true order by g.feed_xid8, g.feed_id`,
    [query.after.xid, query.after.id, query.zones, query.limit],
  );
  const head = rows[0]?.head_xid == null ? FEED_START : { xid: String(rows[0].head_xid), id: Number(rows[0].head_id) };
  return {
    head,
    pending: rows[0]?.pending === true,
    rows: rows
      .filter((row) => row.feed_id !== null)
      .map((row) => ({ ...toRow(row), cursor: { xid: String(row.feed_xid), id: Number(row.feed_id) } })),
  };
}

/**
 * One zone's events of `source` that a live reader at `upTo` has passed and `snapshot` did not see: what
 * committed between a subscription's snapshot and the moment it joined the reader, which the reader read for no one.
 */
export async function passedLive<T>(
  sql: Sql,
  source: LiveSource,
  query: { domainId: number; upTo: FeedCursor; snapshot: FeedSnapshot; select: string },
  toRow: (row: any) => T,
): Promise<Array<T & { cursor: FeedCursor }>> {
  const { from, standsFor } = LIVE_SOURCES[source];
  const rows = await sql.rows(
    `select e.xid::text as feed_xid, e.id as feed_id, ${query.select} from ${from}
      where e.domain_id = $1 and (e.xid, e.id) <= ($2::xid8, $3::bigint) and e.xid >= pg_snapshot_xmin($4::pg_snapshot)
        and not pg_visible_in_snapshot(e.xid, $4::pg_snapshot) and ${standsFor}
      order by e.xid, e.id`,
    [query.domainId, query.upTo.xid, query.upTo.id, query.snapshot.text],
  );
  return rows.map((row) => ({ ...toRow(row), cursor: { xid: String(row.feed_xid), id: Number(row.feed_id) } }));
}
