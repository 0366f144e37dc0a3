import { noteDatabaseFailure } from '../db/availability';
import { JOURNAL_CHANNEL } from '../db/journal-signal';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { HISTORY_COLUMNS, HistoryRow, toHistoryRow, zoneChangesAfter } from './history';
import { FeedKeyEvent, keyEventsOfZonesAfter, latestKeyEventId } from './dnssec-key-events';

export interface FeedChange extends HistoryRow {
  domainId: number;
  zone: string;
}

/** the DNSSEC key events the feed reads for the zones someone subscribes to them for (docs/dnssec.md, «Key events») */
export interface KeyEventReader {
  onEvent: (event: FeedKeyEvent) => void;
  /** the zones with key-event subscribers and the lowest id one of them waits after; undefined: none */
  subscriptions: () => { zones: number[]; sinceId: number } | undefined;
}

const PROPAGATION_CHANNEL = 'zonekeeper_propagation';
/** journal ids are taken at insert, rows become visible at commit: a row may appear below the cursor */
const LATE_WINDOW = 1000;
const READ_LIMIT = 5000;

/**
 * The journal as a stream, for this process's live updates: the process's LISTEN connection
 * (db/notifications.ts) wakes it when a change commits (any API process, any worker: the writer notifies after
 * its commit, db/journal-signal.ts), and it reads the new journal rows by id on the process's pool. Rows that
 * commit out of id order are caught by re-reading a window below the cursor; changes that commit while the
 * LISTEN connection is down are read when it is back (the cursor does not move meanwhile).
 */
export class ChangeFeed {
  private readonly unsubscribe: (() => void)[] = [];
  private cursor = 0;
  /**
   * whether `cursor` is the newest id read: with no subscriber the feed reads nothing at all (not even the
   * newest id: under a write load every commit wakes it, and that read was a round trip per commit's wake-up)
   */
  private cursorKnown = true;
  private readonly delivered = new Set<number>();
  private reading?: Promise<void>;
  private readAgain = false;
  private stopped = false;
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
    this.cursor = await this.latestId();
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

  /** the newest journal id now */
  async latestId(): Promise<number> {
    const [row] = await this.db.rows<{ id: string }>('select coalesce(max(id), 0) as id from changes');
    return Number(row.id);
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
   * Reads what subscribers wait for, cheaply: the ids of the rows of subscribed zones in the window (an index
   * scan of ids, no row bodies), then the whole rows of the ones not delivered yet. With no subscriber it only
   * moves the cursor: under a write load every commit wakes the feed, and re-reading the window's rows with
   * their records each time halved the write throughput (docs/performance.md, «The journal's readers»); now it
   * reads nothing, and learns where the journal stands at the first wake-up that finds a subscriber.
   */
  private async readRows(): Promise<void> {
    const zones = this.subscribedZones();
    if (zones.length === 0) {
      this.cursorKnown = false;
      this.delivered.clear();
      return;
    }
    // the first read with subscribers again starts at the newest id now, and its window below covers what
    // committed since they subscribed (each subscription reads its own past after registering, and takes only
    // what comes after its start: live-updates.ts)
    if (!this.cursorKnown) {
      this.cursor = Math.max(this.cursor, await this.latestId());
      this.cursorKnown = true;
    }
    const ids = await this.db.rows(
      `select id, domain_id from changes where id > $1 and kind <> 'zone-signed' order by id limit ${READ_LIMIT}`,
      [Math.max(0, this.cursor - LATE_WINDOW)],
    );
    const wanted = new Set(zones);
    const fresh: number[] = [];
    for (const row of ids) {
      const id = Number(row.id);
      if (id > this.cursor) this.cursor = id;
      if (this.delivered.has(id)) continue;
      this.delivered.add(id);
      if (wanted.has(Number(row.domain_id))) fresh.push(id);
    }
    if (fresh.length) {
      const rows = await this.db.rows(`select domain_id, zone, ${HISTORY_COLUMNS} from changes where id = any($1::bigint[]) order by id`, [
        fresh,
      ]);
      for (const r of rows) this.onChange({ ...toHistoryRow(r), domainId: Number(r.domain_id), zone: r.zone });
    }
    // forget what fell out of the window
    for (const id of this.delivered) if (id <= this.cursor - LATE_WINDOW) this.delivered.delete(id);
    if (ids.length === READ_LIMIT) this.readAgain = true;
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
