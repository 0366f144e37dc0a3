/**
 * The collector (ROLES=collector, docs/analytics.md): the secondaries' dnstap taken at ANALYTICS_DNSTAP_LISTEN,
 * each answer matched to its zone and counted in memory (query-tally.ts), the counts and the coverage written
 * every ANALYTICS_FLUSH_MS in one transaction (one statement a table). Each secondary is named by the identity
 * its dnstap carries (BIND's and Knot's server-id, NSD's and dnsdist's identity), else by its connection's peer.
 *
 * Coverage is data: the time each sender was connected is counted per minute, so that a minute without its
 * counts (the collector stopped, the sender away) reads as a gap rather than as no queries. A connection is told
 * under its sender's name from its first frame on, its time since it connected with it: a sender's name is in
 * its frames only.
 */
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { analyticsConnectionErrors, analyticsConnections, analyticsDropped, analyticsFlushLag, analyticsFrames } from '../metrics';
import { inTransaction } from '../services/db-errors';
import { noteDatabaseFailure } from '../db/availability';
import { writeTally, zoneNames } from '../repositories/query-analytics';
import { ListenError } from '../listen-error';
import { describeListen, listenDnstap, type DnstapConnection, type DnstapListen, type DnstapListener } from './dnstap-listener';
import { QueryTally } from './query-tally';
import { ZoneMatcher } from './zone-matcher';

/** how often the zones' names are read again (a zone created since is matched from then on) */
const ZONES_REFRESH_MS = 10_000;
/** the rows held for a database away before the oldest batch's counts are dropped (and told as dropped) */
const MAX_HELD_ROWS = 1_000_000;

interface Tracked {
  connection: DnstapConnection;
  /** the sender's name, decided at its first frame */
  secondary: string | undefined;
  /** up to when its connected time was counted */
  countedTo: number;
}

export class QueryCollector {
  private readonly tally: QueryTally;
  private matcher = new ZoneMatcher(new Map());
  private listener: DnstapListener | undefined;
  private readonly tracked = new Map<number, Tracked>();
  private flushTimer: NodeJS.Timeout | undefined;
  private zonesTimer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private lastFlush = Date.now();

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
  ) {
    this.tally = new QueryTally(settings.analytics.namesPerMinute);
  }

  /** where it listens (a TCP port 0 becomes the port taken) */
  get address(): string | undefined {
    return this.listener?.address;
  }

  get port(): number | undefined {
    return this.listener?.port;
  }

  async start(): Promise<void> {
    const listen = this.settings.analytics.dnstapListen;
    if (!listen) throw new Error('the collector needs ANALYTICS_DNSTAP_LISTEN');
    await this.refreshZones();
    this.listener = await this.listen(listen);
    this.log.info(`analytics: dnstap collector listening on ${this.listener.address}`);
    this.flushTimer = setInterval(() => void this.flush(), this.settings.analytics.flushMs);
    this.zonesTimer = setInterval(
      () => void this.refreshZones().catch((error) => this.failed('reading the zones', error)),
      ZONES_REFRESH_MS,
    );
  }

  private listen(listen: DnstapListen): Promise<DnstapListener> {
    const listening = listenDnstap(listen, {
      connected: (connection) => {
        this.tracked.set(connection.id, { connection, secondary: undefined, countedTo: connection.since });
        analyticsConnections.inc();
      },
      frame: (connection, reading) => {
        const now = Date.now();
        const tracked = this.tracked.get(connection.id);
        const secondary =
          reading.kind === 'answer' && reading.answer.identity !== undefined
            ? reading.answer.identity
            : (connection.identity ?? connection.peer);
        if (tracked && tracked.secondary === undefined) tracked.secondary = secondary;
        this.tally.frame(secondary, now);
        if (reading.kind === 'malformed') {
          this.tally.malformed(secondary, now);
          analyticsFrames.inc({ kind: 'malformed' });
          return;
        }
        if (reading.kind === 'other') {
          analyticsFrames.inc({ kind: 'other' });
          return;
        }
        const { answer } = reading;
        const matched = this.matcher.match(answer.name);
        if (!matched) {
          this.tally.unmatched(secondary, now);
          analyticsFrames.inc({ kind: 'unmatched' });
          return;
        }
        this.tally.answer(matched.zoneId, matched.owner, answer.type, answer.rcode, secondary, answer.at);
        analyticsFrames.inc({ kind: 'answer' });
      },
      closed: (connection, error) => {
        const tracked = this.tracked.get(connection.id);
        this.tracked.delete(connection.id);
        analyticsConnections.dec();
        if (tracked?.secondary !== undefined) this.tally.connected(tracked.secondary, tracked.countedTo, Date.now());
        if (error) {
          analyticsConnectionErrors.inc();
          this.log.warn(
            { peer: connection.peer, identity: connection.identity, err: error },
            `analytics: a dnstap connection closed: ${error.message}`,
          );
        }
      },
    });
    return listening.catch((error: NodeJS.ErrnoException) => {
      throw new ListenError('dnstap collector', describeListen(listen), error);
    });
  }

  private failed(what: string, error: unknown): void {
    if (!noteDatabaseFailure(error, 'analytics collector')) this.log.warn({ err: error }, `analytics: ${what} failed; tried again shortly`);
  }

  /** reads the zones' names again (every ZONES_REFRESH_MS; a test that just made a zone asks at once) */
  async refreshZones(): Promise<void> {
    this.matcher = new ZoneMatcher(await zoneNames(this.db));
  }

  /** writes what was counted since the last flush; a write that fails is held for the next (up to MAX_HELD_ROWS) */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing;
    this.flushing = this.write().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private async write(): Promise<void> {
    const now = Date.now();
    for (const tracked of this.tracked.values()) {
      if (tracked.secondary === undefined) continue;
      this.tally.connected(tracked.secondary, tracked.countedTo, now);
      tracked.countedTo = now;
    }
    const batch = this.tally.take();
    if (!batch.counts.length && !batch.coverage.length) {
      this.lastFlush = now;
      analyticsFlushLag.set(0);
      return;
    }
    try {
      await inTransaction(this.db, (sql) => writeTally(sql, batch.counts, batch.coverage, new Date(now)));
      this.lastFlush = now;
      analyticsFlushLag.set(0);
    } catch (error) {
      analyticsFlushLag.set((Date.now() - this.lastFlush) / 1000);
      this.failed('storing the counts', error);
      if (this.tally.size + batch.counts.length > MAX_HELD_ROWS) {
        const dropped = this.tally.drop(batch);
        analyticsDropped.inc(dropped);
        this.log.error(`analytics: ${dropped} answers dropped: the database is away and the collector holds ${MAX_HELD_ROWS} rows at most`);
      } else this.tally.putBack(batch);
    }
  }

  /** stops listening, counts the connections' time up to now and writes what is held (once: a stop may not wait) */
  async stop(): Promise<void> {
    clearInterval(this.flushTimer);
    clearInterval(this.zonesTimer);
    const listener = this.listener;
    this.listener = undefined;
    if (listener) {
      // the connections' time is counted before they close (their close would count it again)
      await this.flushing;
      await this.write();
      this.tracked.clear();
      await listener.close();
    }
    await this.flushing;
  }
}

/** Starts the collector role on the process's database. */
export async function startCollector(settings: Settings, db: Database, log: Logger): Promise<QueryCollector> {
  const collector = new QueryCollector(settings, db, log);
  await collector.start();
  return collector;
}
