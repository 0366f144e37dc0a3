import { noteDatabaseFailure } from '../db/availability';
import { JOURNAL_CHANNEL } from '../db/journal-signal';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { HISTORY_COLUMNS, HistoryRow, toHistoryRow, zoneChangesAfter } from './history';
import { FeedKeyEvent, keyEventsOfZonesAfter, latestKeyEventId } from './dnssec-key-events';
import { FeedCursor, feedStartNow, FeedSnapshot, passedLiveJournal, readLiveJournal } from './events';

export interface FeedChange extends HistoryRow {
  domainId: number;
  zone: string;
  /** the transaction that wrote it (its event's `xid`): a subscription is sent what its snapshot did not see */
  xid?: string;
}

/** the journal row's columns as the live reader reads them (`changes c`, beside its event) */
const LIVE_COLUMNS = `c.domain_id, c.zone, ${HISTORY_COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ')}`;
const toFeedChange = (row: any): FeedChange => ({
  ...toHistoryRow(row),
  domainId: Number(row.domain_id),
  zone: row.zone,
  xid: String(row.feed_xid),
});

/** the DNSSEC key events the feed reads for the zones someone subscribes to them for (docs/dnssec.md, «Key events») */
export interface KeyEventReader {
  onEvent: (event: FeedKeyEvent) => void;
  /** the zones with key-event subscribers and the lowest id one of them waits after; undefined: none */
  subscriptions: () => { zones: number[]; sinceId: number } | undefined;
}

const PROPAGATION_CHANNEL = 'zonekeeper_propagation';
/** key event ids are taken at insert, rows become visible at commit: a row may appear below the key cursor */
const LATE_WINDOW = 1000;
const READ_LIMIT = 5000;
/**
 * how soon the feed reads again when an event of a subscribed zone waits for an older transaction to end: its own
 * commit woke the feed already, and nothing else may (the webhooks' and the pull feed's readers poll; this one
 * is woken), so it looks again, sooner at first (the older transaction is most often a write's, of milliseconds)
 */
const PENDING_FIRST_MS = 20;
const PENDING_MAX_MS = 1000;

/**
 * The journal as a stream, for this process's live updates: the third reader of the event feed
 * (repositories/events.ts), beside the webhooks' fan-out and the pull feed, in the same exact order. The
 * process's LISTEN connection (db/notifications.ts) wakes it when a change commits (any API process, any worker:
 * the writer notifies after its commit, db/journal-signal.ts), and it reads, on the process's pool, the settled
 * events after its cursor that stand for a journal row of a subscribed zone (a change, a move, a deletion), with
 * that row. A row that commits late, behind any number of others, sorts after everything read before it, so it
 * is read when it settles; changes that commit while the LISTEN connection is down are read when it is back (the
 * cursor does not move meanwhile).
 */
export class ChangeFeed {
  private readonly unsubscribe: (() => void)[] = [];
  private cursor: FeedCursor = { xid: '0', id: 0 };
  /**
   * whether `cursor` is where the feed stands: with no subscriber the feed reads nothing at all (not even where
   * the feed ends: under a write load every commit wakes it, and that read was a round trip per commit's
   * wake-up); a subscription that starts tells it (`join`)
   */
  private cursorKnown = false;
  private reading?: Promise<void>;
  private readAgain = false;
  private stopped = false;
  /** the read again of events that waited for an older transaction (PENDING_FIRST_MS), and its next delay */
  private pendingTimer?: NodeJS.Timeout;
  private pendingDelay = PENDING_FIRST_MS;
  /** the highest key event id read, and the ids read in the window below it (as `cursor`, `delivered`) */
  private keyCursor = 0;
  private readonly keysDelivered = new Set<number>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly onChange: (change: FeedChange) => void,
    private readonly onPropagation: (domainId: number) => void,
    /** the zones (domain ids) that have subscribers now */
    private readonly subscribedZones: () => number[],
    private readonly keyEvents?: KeyEventReader,
  ) {}

  async start(): Promise<void> {
    // what committed while no connection listened is read when it listens (again)
    this.unsubscribe.push(
      await this.db.notifications.subscribe(
        JOURNAL_CHANNEL,
        () => this.read(),
        () => this.read(),
      ),
    );
    this.unsubscribe.push(await this.db.notifications.subscribe(PROPAGATION_CHANNEL, (payload) => this.onPropagation(Number(payload))));
  }

  /**
   * Where a subscription starts: a snapshot of what has committed (it is sent what the snapshot did not see), and
   * the feed's settled end under it.
   */
  startNow(): Promise<{ snapshot: FeedSnapshot; head: FeedCursor }> {
    return feedStartNow(this.db);
  }

  /**
   * A subscription joins the feed, called right after it registered its zone: where the feed will stand once
   * the read in flight (begun before the zone was registered, so without it) has delivered; past that cursor,
   * every read includes the zone. With no subscriber before, the feed stood nowhere: it starts at `head`, the
   * settled end under the new subscription's snapshot, after which everything that snapshot did not see sorts.
   */
  async join(head: FeedCursor): Promise<FeedCursor> {
    if (!this.cursorKnown) {
      this.cursor = head;
      this.cursorKnown = true;
    }
    await this.reading?.catch(() => undefined);
    return this.cursor;
  }

  /** one zone's changes the feed passed (up to `upTo`) that `snapshot` did not see: a joining subscription's own */
  changesPassed(domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<FeedChange[]> {
    return passedLiveJournal(this.db, { domainId, upTo, snapshot, select: LIVE_COLUMNS }, toFeedChange);
  }

  /** the newest DNSSEC key event id now */
  latestKeyEventId(): Promise<number> {
    return latestKeyEventId(this.db);
  }

  /** one zone's changes after a journal id, oldest first: a starting subscription's catch-up */
  async changesOfZoneAfter(zone: { id: number; name: string }, afterId: number, limit: number): Promise<FeedChange[]> {
    const rows = await zoneChangesAfter(this.db, zone, afterId, limit);
    return rows.map((row) => ({ ...row, domainId: zone.id, zone: zone.name }));
  }

  /** one zone's key events after an id, oldest first: a starting subscription's catch-up */
  keyEventsOfZoneAfter(domainId: number, afterId: number, limit: number): Promise<FeedKeyEvent[]> {
    return keyEventsOfZonesAfter(this.db, [domainId], afterId, limit);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pendingTimer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    await this.reading?.catch(() => undefined);
  }

  /** reads the journal rows not delivered yet; calls coalesce while a read runs */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = Promise.all([this.readRows(), this.readKeyEvents()])
      .then(() => undefined)
      .catch((error) => {
        if (!noteDatabaseFailure(error, 'live updates')) this.log.warn({ err: error }, 'live updates: reading the journal failed');
      })
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain && !this.stopped) {
          this.readAgain = false;
          this.read();
        }
      });
  }

  /**
   * Reads what subscribers wait for: the settled events of subscribed zones after the cursor that stand for a
   * journal row, with the row, in the feed's order; then moves the cursor to the feed's settled end when the read
   * was not cut short. With no subscriber it reads nothing and forgets where it stood: under a write load every
   * commit wakes the feed (docs/performance.md, «The journal's readers»).
   */
  private async readRows(): Promise<void> {
    const zones = this.subscribedZones();
    if (zones.length === 0 || !this.cursorKnown) {
      this.cursorKnown = false;
      return;
    }
    const { rows, head, pending } = await readLiveJournal(
      this.db,
      { after: this.cursor, zones, limit: READ_LIMIT, select: LIVE_COLUMNS },
      toFeedChange,
    );
    // delivered and the cursor moved in one synchronous step: a subscription joining between two reads sees
    // the cursor of what was delivered (join)
    for (const row of rows) {
      const { cursor, ...change } = row;
      this.cursor = cursor;
      this.onChange(change);
    }
    if (rows.length === READ_LIMIT) this.readAgain = true;
    else if (this.cursorKnown && compareCursors(head, this.cursor) > 0) this.cursor = head;
    if (pending) this.readSoon();
    else this.pendingDelay = PENDING_FIRST_MS;
  }

  /** a read after the pending delay (one at a time; doubled each time the events still wait, up to PENDING_MAX_MS) */
  private readSoon(): void {
    if (this.pendingTimer || this.stopped) return;
    this.pendingTimer = setTimeout(() => {
      this.pendingTimer = undefined;
      this.read();
    }, this.pendingDelay);
    this.pendingTimer.unref();
    this.pendingDelay = Math.min(PENDING_MAX_MS, this.pendingDelay * 2);
  }

  /**
   * The DNSSEC key events of the zones with key-event subscribers: they are written in the transactions of the
   * key steps, which wake the journal's readers after their commit (repositories/dnssec-key-events.ts), so the
   * feed reads them when it reads the journal, on the same LISTEN connection. Nothing is read while no one
   * subscribes to them; otherwise one range of `(domain_id, id)` per subscribed zone, from the window below
   * the cursor (an event's id is taken at insert and it appears at commit) or the oldest subscription's start.
   */
  private async readKeyEvents(): Promise<void> {
    const wanted = this.keyEvents?.subscriptions();
    if (!wanted) {
      this.keyCursor = 0;
      this.keysDelivered.clear();
      return;
    }
    const floor = Math.max(wanted.sinceId, this.keyCursor - LATE_WINDOW);
    const events = await keyEventsOfZonesAfter(this.db, wanted.zones, floor, READ_LIMIT);
    for (const event of events) {
      if (event.id > this.keyCursor) this.keyCursor = event.id;
      if (this.keysDelivered.has(event.id)) continue;
      this.keysDelivered.add(event.id);
      this.keyEvents!.onEvent(event);
    }
    for (const id of this.keysDelivered) if (id <= floor) this.keysDelivered.delete(id);
    if (events.length === READ_LIMIT) this.readAgain = true;
  }
}

/** the feed's order: by the writing transaction's xid, then the event's id */
function compareCursors(a: FeedCursor, b: FeedCursor): number {
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  return ax === bx ? a.id - b.id : ax < bx ? -1 : 1;
}
