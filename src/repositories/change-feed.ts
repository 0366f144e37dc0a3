import { noteDatabaseFailure } from '../db/availability';
import { JOURNAL_CHANNEL } from '../db/journal-signal';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { HISTORY_COLUMNS, HistoryRow, toHistoryRow, zoneChangesAfter } from './history';
import { FeedKeyEvent, keyEventsOfZonesAfter, LIVE_KEY_STEP_COLUMNS, toFeedKeyEvent } from './dnssec-key-events';
import { FeedCursor, feedStartNow, FeedSnapshot, LiveSource, passedLive, readLive } from './events';

export interface FeedChange extends HistoryRow {
  domainId: number;
  zone: string;
  /** the transaction that wrote it (its event's `xid`): a subscription is sent what its snapshot did not see */
  xid?: string;
}

/** the journal row's columns as the live reader reads them (`changes c`, beside its event) */
const LIVE_JOURNAL_COLUMNS = `c.domain_id, c.zone, ${HISTORY_COLUMNS.split(', ')
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
  /** the zones with key-event subscribers (none: nothing is read) */
  subscribedZones: () => number[];
}

const PROPAGATION_CHANNEL = 'zonekeeper_propagation';
const READ_LIMIT = 5000;
/**
 * how soon the feed reads again when an event of a subscribed zone waits for an older transaction to end: its own
 * commit woke the feed already, and nothing else may (the webhooks' and the pull feed's readers poll; this one
 * is woken), so it looks again, sooner at first (the older transaction is most often a write's, of milliseconds)
 */
const PENDING_FIRST_MS = 20;
const PENDING_MAX_MS = 1000;

/**
 * One kind of row the feed follows for its subscribers (`journal`: the zones' changes; `keySteps`: their DNSSEC key
 * steps): its own place in the event feed, read only while someone subscribes to it.
 */
class LiveReader<T> {
  private cursor: FeedCursor = { xid: '0', id: 0 };
  /**
   * whether `cursor` is where the reader stands: with no subscriber it reads nothing at all (not even where the
   * feed ends: under a write load every commit wakes it, and that read was a round trip per commit's wake-up); a
   * subscription that starts tells it (`join`)
   */
  private cursorKnown = false;

  constructor(
    private readonly source: LiveSource,
    private readonly select: string,
    private readonly toRow: (row: any) => T,
    private readonly subscribedZones: () => number[],
    private readonly deliver: (row: T) => void,
  ) {}

  /** where the reader will stand once what is being read is delivered (see ChangeFeed.join) */
  join(head: FeedCursor): void {
    if (this.cursorKnown) return;
    this.cursor = head;
    this.cursorKnown = true;
  }

  get position(): FeedCursor {
    return this.cursor;
  }

  /**
   * Reads the settled events of subscribed zones after the cursor that stand for this reader's rows, with the
   * rows, in the feed's order, delivers them, then moves the cursor to the feed's settled end when the read was
   * not cut short. Answers whether to read again at once (cut short) and whether an event waits for an older
   * transaction.
   */
  async read(db: Database): Promise<{ more: boolean; pending: boolean }> {
    const zones = this.subscribedZones();
    if (zones.length === 0 || !this.cursorKnown) {
      this.cursorKnown = false;
      return { more: false, pending: false };
    }
    const { rows, head, pending } = await readLive(
      db,
      this.source,
      { after: this.cursor, zones, limit: READ_LIMIT, select: this.select },
      this.toRow,
    );
    // delivered and the cursor moved in one synchronous step: a subscription joining between two reads sees the
    // cursor of what was delivered (ChangeFeed.join)
    for (const { cursor, ...row } of rows) {
      this.cursor = cursor;
      this.deliver(row as T);
    }
    const more = rows.length === READ_LIMIT;
    if (!more && this.cursorKnown && compareCursors(head, this.cursor) > 0) this.cursor = head;
    return { more, pending };
  }

  /** one zone's rows the reader passed (up to `upTo`) that `snapshot` did not see: a joining subscription's own */
  passed(db: Database, domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<T[]> {
    return passedLive(db, this.source, { domainId, upTo, snapshot, select: this.select }, this.toRow);
  }
}

/**
 * The zones' changes and DNSSEC key steps as a stream, for this process's live updates: the third reader of the
 * event feed (repositories/events.ts), beside the webhooks' fan-out and the pull feed, in the same exact order.
 * The process's LISTEN connection (db/notifications.ts) wakes it when a change or a key step commits (any API
 * process, any worker: the writer notifies after its commit, db/journal-signal.ts), and it reads, on the
 * process's pool, the settled events after its cursors that stand for a journal row (a change, a move, a
 * deletion) or a key step of a subscribed zone, with that row. A row that commits late, behind any number of
 * others, sorts after everything read before it, so it is read when it settles; what commits while the LISTEN
 * connection is down is read when it is back (the cursors do not move meanwhile).
 */
export class ChangeFeed {
  private readonly unsubscribe: (() => void)[] = [];
  private readonly readers: { journal: LiveReader<FeedChange>; keySteps: LiveReader<FeedKeyEvent> };
  private reading?: Promise<void>;
  private readAgain = false;
  private stopped = false;
  /** the read again of events that waited for an older transaction (PENDING_FIRST_MS), and its next delay */
  private pendingTimer?: NodeJS.Timeout;
  private pendingDelay = PENDING_FIRST_MS;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    onChange: (change: FeedChange) => void,
    private readonly onPropagation: (domainId: number) => void,
    /** the zones (domain ids) that have change subscribers now */
    subscribedZones: () => number[],
    keyEvents?: KeyEventReader,
  ) {
    this.readers = {
      journal: new LiveReader('journal', LIVE_JOURNAL_COLUMNS, toFeedChange, subscribedZones, onChange),
      keySteps: new LiveReader('keySteps', LIVE_KEY_STEP_COLUMNS, toFeedKeyEvent, keyEvents?.subscribedZones ?? (() => []), (event) =>
        keyEvents?.onEvent(event),
      ),
    };
  }

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
   * A subscription joins the feed's reader of `source`, called right after it registered its zone: where that
   * reader will stand once the read in flight (begun before the zone was registered, so without it) has
   * delivered; past that cursor, every read includes the zone. With no subscriber before, the reader stood
   * nowhere: it starts at `head`, the settled end under the new subscription's snapshot, after which everything
   * that snapshot did not see sorts.
   */
  async join(source: LiveSource, head: FeedCursor): Promise<FeedCursor> {
    this.readers[source].join(head);
    await this.reading?.catch(() => undefined);
    return this.readers[source].position;
  }

  /** one zone's changes the feed passed (up to `upTo`) that `snapshot` did not see: a joining subscription's own */
  changesPassed(domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<FeedChange[]> {
    return this.readers.journal.passed(this.db, domainId, upTo, snapshot);
  }

  /** one zone's key steps the feed passed (up to `upTo`) that `snapshot` did not see */
  keyEventsPassed(domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<FeedKeyEvent[]> {
    return this.readers.keySteps.passed(this.db, domainId, upTo, snapshot);
  }

  /** one zone's changes after a journal id, oldest first: a subscription's catch-up after the change it names */
  async changesOfZoneAfter(zone: { id: number; name: string }, afterId: number, limit: number): Promise<FeedChange[]> {
    const rows = await zoneChangesAfter(this.db, zone, afterId, limit);
    return rows.map((row) => ({ ...row, domainId: zone.id, zone: zone.name }));
  }

  /** one zone's key events after an id, oldest first: a subscription's catch-up after the key event it names */
  keyEventsOfZoneAfter(domainId: number, afterId: number, limit: number): Promise<FeedKeyEvent[]> {
    return keyEventsOfZonesAfter(this.db, [domainId], afterId, limit);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pendingTimer);
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    await this.reading?.catch(() => undefined);
  }

  /** reads what is not delivered yet; calls coalesce while a read runs */
  private read(): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = Promise.all([this.readers.journal.read(this.db), this.readers.keySteps.read(this.db)])
      .then((steps) => {
        if (steps.some((step) => step.more)) this.readAgain = true;
        if (steps.some((step) => step.pending)) this.readSoon();
        else this.pendingDelay = PENDING_FIRST_MS;
      })
      .catch((error) => {
        if (!noteDatabaseFailure(error, 'live updates')) this.log.warn({ err: error }, 'live updates: reading the event feed failed');
      })
      .finally(() => {
        this.reading = undefined;
        if (this.readAgain && !this.stopped) {
          this.readAgain = false;
          this.read();
        }
      });
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
}

/** the feed's order: by the writing transaction's xid, then the event's id */
function compareCursors(a: FeedCursor, b: FeedCursor): number {
  const ax = BigInt(a.xid);
  const bx = BigInt(b.xid);
  return ax === bx ? a.id - b.id : ax < bx ? -1 : 1;
}
