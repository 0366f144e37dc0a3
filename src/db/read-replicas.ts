import { logger } from '../logger';
import type { QueryResultRow } from 'pg';
import { observeStandbys, replicaFallbackReads, replicaTokenWait, standbyReads } from '../metrics';
import { isDatabaseUnavailable } from './availability';
import { parseDatabaseUrl } from './database-hosts';
import { Database, DatabaseOptions, Isolation, RowOptions, Sql } from './pool';

/**
 * Reads that may lag, served by streaming standbys (DATABASE_REPLICA_URL), without a client ever reading older
 * than what it wrote. Which reads come here is the edges' decision (http/read-routing.ts, graphql/standby-reads.ts);
 * this file decides which database answers one: a standby, or the primary.
 *
 * - **Read your writes**: a write's answer carries the primary's WAL position after its commit
 *   (`pg_current_wal_lsn()`, the Consistency-Token); a read that sends it back is served by a standby once that
 *   standby's `pg_last_wal_replay_lsn()` has reached it (PostgreSQL 19's WAIT FOR LSN, done on 15 by polling),
 *   waiting up to REPLICA_WAIT_MS, and by the primary otherwise. Replay of a commit record is what makes it
 *   visible on a hot standby, so a standby that replayed past the token shows the write and everything before it.
 * - **Bounded lag**: every MONITOR_INTERVAL_MS the primary's WAL position is sampled and each standby asked how
 *   far it replayed. Its lag is the age of the newest sample it has replayed past: it holds everything the primary
 *   had then, so nothing it lacks is older (an upper bound, within one interval of the truth). Measured so rather
 *   than by `now() - pg_last_xact_replay_timestamp()`, which grows without bound on an idle primary (no new
 *   commit to replay) and would skip a standby that is perfectly current; and rather than by bytes of WAL,
 *   which say nothing of time, the unit REPLICA_MAX_LAG_MS is written in.
 * - A standby further behind than REPLICA_MAX_LAG_MS, unreachable, or no longer in recovery (promoted: its
 *   history may have parted from the primary's, or it is the primary now) is skipped until a check finds it fit
 *   again; reads then go to the primary, and `zonekeeper_replica_fallback_reads_total` counts them.
 * - A read a standby could not answer (it went away under the read, or cancelled it in a conflict with its
 *   replay) runs again on the primary: a read writes nothing, so running it twice is harmless, and a standby
 *   stopped or failed over costs no request an error.
 * - The roles may change under the service (a failover): each check asks every standby whether it is in
 *   recovery, so naming every node of the cluster in DATABASE_REPLICA_URL lets whichever follows serve reads
 *   and skips whichever is the primary. The URL is the process's environment, read at start; a host name in it
 *   is resolved anew at each connection, and a standby that stops serving has its connections renewed.
 */

/** the response header of a write's WAL position, and the request header that sends it back (every edge's) */
export const CONSISTENCY_TOKEN_HEADER = 'Consistency-Token';

/** a WAL position as PostgreSQL writes a pg_lsn (`16/B374D848`): two 32-bit halves in hex */
const LSN_TEXT = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** the WAL position of a pg_lsn's text, or undefined when the text is none */
export function parseLsn(text: string | null | undefined): bigint | undefined {
  const match = text ? LSN_TEXT.exec(text.trim()) : null;
  if (!match) return undefined;
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`);
}

/** how often the primary's position is sampled and each standby's replay checked */
const MONITOR_INTERVAL_MS = 250;
/** how often a standby's replay is asked while reads wait for a token: one statement for all of them */
const WAIT_POLL_MS = 5;

/**
 * `primary`: not in recovery, and the very server the service writes to (a node named in both URLs, or a standby
 * promoted by a failover): its reads are the primary's anyway. `not_in_recovery`: not in recovery, and another
 * server than the primary (promoted while the service writes elsewhere: its history has parted).
 */
export type StandbyState = 'streaming' | 'lagging' | 'unreachable' | 'not_in_recovery' | 'primary';

/** one standby as /ready and /metrics show it */
export interface StandbyStatus {
  standby: string;
  state: StandbyState;
  /** its replay lag (see above); null while it cannot be measured */
  lagSeconds: number | null;
}

/**
 * why a read that may lag went to the primary; `standby_failed`: a standby was chosen, but could not answer (it
 * went away under the read, or cancelled it in a conflict with its replay), and the primary answered instead
 */
export type FallbackReason = 'no_standby' | 'token_wait' | 'token_invalid' | 'standby_failed';

interface Waiter {
  position: bigint;
  deadline: number;
  resolve(caught: boolean): void;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Whether a read that failed on a standby is the standby's trouble, to be answered by the primary instead: the
 * standby gone, restarting or refusing connections, or its replay cancelling the read (a recovery conflict:
 * SQLSTATE 40001, or 40P01 for a lock its replay needs; a read-only session on a hot standby meets neither
 * otherwise, SERIALIZABLE being refused there). Not 25006, a write sent to a standby: the standby refused it, the
 * route is wrong, and it is left to fail and be logged (the list of what stays on the primary misses it).
 */
function standbyFailed(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === '25006') return false;
  return code === '40001' || code === '40P01' || isDatabaseUnavailable(error);
}

/**
 * A standby's database as reads are given it: a unit of work that fails there for the standby's trouble
 * (standbyFailed) runs again on the primary. A read on a standby writes nothing (the standby refuses every write),
 * so running it again cannot do anything twice. A paged export runs again only before its first page: once pages
 * are sent, it fails as it did.
 */
class StandbyDatabase extends Database {
  constructor(
    options: DatabaseOptions,
    /** the primary, once the failure is counted and noted; throws `error` when it is no standby's trouble */
    private readonly instead: (error: unknown) => Database,
  ) {
    super(options);
  }

  /** a statement on the standby itself, never answered by the primary instead: the standby's own checks */
  onStandby<T extends QueryResultRow>(text: string): Promise<T[]> {
    return super.rows<T>(text);
  }

  override async rows<T extends QueryResultRow = any>(text: string, params: unknown[] = [], options?: RowOptions): Promise<T[]> {
    try {
      return await super.rows<T>(text, params, options);
    } catch (error) {
      return this.instead(error).rows<T>(text, params, options);
    }
  }

  override async affected(text: string, params: unknown[] = []): Promise<number> {
    try {
      return await super.affected(text, params);
    } catch (error) {
      return this.instead(error).affected(text, params);
    }
  }

  override async connection<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    try {
      return await super.connection(work);
    } catch (error) {
      return this.instead(error).connection(work);
    }
  }

  override async transaction<T>(work: (sql: Sql) => Promise<T>, isolation?: Isolation): Promise<T> {
    try {
      return await super.transaction(work, isolation);
    } catch (error) {
      return this.instead(error).transaction(work, isolation);
    }
  }

  override async *cursorPages<R>(query: string, pageSize: number): AsyncGenerator<R[]> {
    let sent = false;
    try {
      for await (const page of super.cursorPages<R>(query, pageSize)) {
        sent = true;
        yield page;
      }
      return;
    } catch (error) {
      if (sent) throw error;
      yield* this.instead(error).cursorPages<R>(query, pageSize);
    }
  }
}

class Standby {
  /** unknown until its first check: no read goes to it before */
  state: StandbyState = 'unreachable';
  lagMs: number | undefined;
  /** the furthest replay position seen; replay only moves forward on one timeline */
  replayed = 0n;
  readonly db: StandbyDatabase;
  private waiters: Waiter[] = [];
  private polling = false;

  constructor(
    readonly name: string,
    url: string,
    poolSize: number,
    primary: Database,
  ) {
    const instead = (error: unknown): Database => {
      if (!standbyFailed(error)) throw error;
      replicaFallbackReads.inc({ reason: 'standby_failed' });
      if (isDatabaseUnavailable(error)) this.noteState('unreachable', (error as Error)?.message);
      return primary;
    };
    this.db = new StandbyDatabase(
      {
        connectionString: url,
        poolSize,
        // a standby's read that fails is not waited for here: the primary answers it (StandbyDatabase)
        failoverWaitMs: 0,
        preparedStatements: primary.preparedStatements,
        standby: {
          failed: (error) => {
            // read_only_sql_transaction: the standby is fine, the read wrote; the list of what stays on the primary
            // (docs/deployment.md, «Reading from standbys») misses it
            if ((error as { code?: unknown })?.code === '25006')
              logger.error({ err: error }, `a read that writes was sent to standby ${this.name}: it belongs on the primary`);
            else if (isDatabaseUnavailable(error)) this.noteState('unreachable', (error as Error)?.message);
          },
          reached: () => undefined,
        },
      },
      instead,
    );
  }

  get usable(): boolean {
    return this.state === 'streaming';
  }

  status(): StandbyStatus {
    return { standby: this.name, state: this.state, lagSeconds: this.lagMs === undefined ? null : this.lagMs / 1000 };
  }

  noteState(state: StandbyState, why?: string): void {
    if (state !== 'streaming') this.lagMs = state === 'lagging' ? this.lagMs : undefined;
    if (state === this.state) return;
    const was = this.state;
    this.state = state;
    if (state === 'streaming') logger.info(`standby ${this.name} serves reads again (was ${was})`);
    else if (state === 'primary') logger.info(`standby ${this.name} is the primary now: it serves no read as a standby`);
    else if (was === 'streaming') logger.warn(`standby ${this.name} ${state}${why ? ` (${why})` : ''}: its reads go to the primary`);
    if (state === 'unreachable' || state === 'not_in_recovery' || state === 'primary') {
      this.release();
      // what comes back may be another server, or this one on another timeline (rewound, rebuilt from a new
      // primary, or behind a name a failover manager moved): its position is learnt again, never carried over,
      // and its connections are made anew (the name resolved again)
      this.replayed = 0n;
      this.db.hosts.renew();
    }
  }

  /** its replay position now (and when its server started), or a failure that marks it unreachable */
  async replayPosition(): Promise<{ position: bigint | undefined; recovery: boolean; started: string }> {
    const [row] = await this.db.onStandby<{ lsn: string | null; recovery: boolean; started: string }>(
      'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery, pg_postmaster_start_time()::text as started',
    );
    const position = parseLsn(row.lsn);
    if (position !== undefined && position > this.replayed) this.replayed = position;
    return { position, recovery: row.recovery, started: row.started };
  }

  /** whether it replays past `position` within `waitMs`; the waiters of one standby share its polls */
  replayedBy(position: bigint, waitMs: number): Promise<boolean> {
    if (this.replayed >= position) return Promise.resolve(true);
    if (waitMs <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiters.push({ position, deadline: Date.now() + waitMs, resolve });
      void this.poll();
    });
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      while (this.waiters.length) {
        try {
          await this.replayPosition();
        } catch (error) {
          this.noteState('unreachable', (error as Error)?.message);
          break;
        }
        const now = Date.now();
        this.waiters = this.waiters.filter((waiter) => {
          if (this.replayed >= waiter.position) waiter.resolve(true);
          else if (now >= waiter.deadline) waiter.resolve(false);
          else return true;
          return false;
        });
        if (!this.waiters.length) break;
        const soonest = Math.min(...this.waiters.map((waiter) => waiter.deadline));
        await pause(Math.max(0, Math.min(WAIT_POLL_MS, soonest - now)));
      }
    } finally {
      this.polling = false;
      this.release();
    }
  }

  /** the waiters left are served by the primary */
  release(): void {
    if (this.polling) return;
    for (const waiter of this.waiters) waiter.resolve(false);
    this.waiters = [];
  }

  async close(): Promise<void> {
    this.release();
    await this.db.close();
  }
}

export interface ReadReplicaOptions {
  /** DATABASE_REPLICA_URL: one standby per host */
  replicaUrl: string;
  /** each standby's pool (DATABASE_POOL_SIZE) */
  poolSize: number;
  /** REPLICA_WAIT_MS */
  waitMs: number;
  /** REPLICA_MAX_LAG_MS */
  maxLagMs: number;
}

/** The process's standbys for reads, their lag, and the choice of the database that answers a read that may lag. */
export class ReadReplicas {
  private readonly standbys: Standby[];
  /** the primary's WAL position at each check, the newest last, as old as REPLICA_MAX_LAG_MS and one more */
  private samples: { at: number; position: bigint }[] = [];
  /**
   * when the primary's server started (pg_postmaster_start_time(), to the microsecond), as the last check found
   * it: a standby not in recovery that started at that very moment is that server
   */
  private primaryStarted?: string;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private next = 0;
  private readonly stopObserving: () => void;

  constructor(
    private readonly primary: Database,
    private readonly options: ReadReplicaOptions,
  ) {
    this.standbys = parseDatabaseUrl(options.replicaUrl).targets.map(
      (target) =>
        new Standby(
          target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`,
          target.url,
          options.poolSize,
          primary,
        ),
    );
    this.stopObserving = observeStandbys(() => this.status());
  }

  /** checks every standby now, then every MONITOR_INTERVAL_MS; resolves once the first check is done */
  async start(): Promise<void> {
    await this.check();
    const again = () => {
      this.timer = setTimeout(() => {
        void this.check().finally(() => {
          if (!this.closed) again();
        });
      }, MONITOR_INTERVAL_MS);
      this.timer.unref();
    };
    again();
  }

  status(): StandbyStatus[] {
    return this.standbys.map((standby) => standby.status());
  }

  /**
   * The database for one read that may lag: a standby fit for reads, one that replayed past `token` (a
   * Consistency-Token sent back) within REPLICA_WAIT_MS, or else the primary. `sessionToken`: the one a person's
   * session keeps of the person's latest write (the session's own, a WAL position the service wrote); the read
   * waits for the later of the two.
   */
  async readDatabase(token?: string, sessionToken?: string): Promise<Database> {
    const usable = this.standbys.filter((standby) => standby.usable);
    if (!usable.length) return this.fallback('no_standby');
    const sent = token ? parseLsn(token) : undefined;
    if (token && sent === undefined) return this.fallback('token_invalid');
    const kept = parseLsn(sessionToken);
    const position = sent === undefined || (kept !== undefined && kept > sent) ? kept : sent;
    if (position === undefined) {
      const standby = usable[this.next++ % usable.length];
      standbyReads.inc();
      return standby.db;
    }
    // the standby furthest along has the best chance of having replayed it already
    const standby = usable.reduce((best, one) => (one.replayed > best.replayed ? one : best));
    const started = performance.now();
    const caught = await standby.replayedBy(position, this.options.waitMs);
    replicaTokenWait.observe((performance.now() - started) / 1000);
    if (!caught || !standby.usable) return this.fallback('token_wait');
    standbyReads.inc();
    return standby.db;
  }

  /** the primary's WAL position now: taken after a write's commit, it is the token of that write */
  async positionAfterWrite(): Promise<string> {
    const [{ lsn }] = await this.primary.rows<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn');
    return lsn;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.stopObserving();
    await Promise.all(this.standbys.map((standby) => standby.close()));
  }

  private fallback(reason: FallbackReason): Database {
    replicaFallbackReads.inc({ reason });
    return this.primary;
  }

  private async check(): Promise<void> {
    try {
      // the availability probe's way: what the primary says now, without waiting for one during a failover
      const [{ lsn, started }] = await this.primary.rows<{ lsn: string; started: string }>(
        'select pg_current_wal_lsn()::text as lsn, pg_postmaster_start_time()::text as started',
        [],
        { failoverWait: false },
      );
      this.primaryStarted = started;
      const now = Date.now();
      this.samples.push({ at: now, position: parseLsn(lsn)! });
      const keepFrom = now - this.options.maxLagMs - MONITOR_INTERVAL_MS;
      while (this.samples.length > 1 && this.samples[1].at < keepFrom) this.samples.shift();
    } catch {
      // the primary away: availability.ts says so; the standbys are measured against the samples there are
    }
    await Promise.all(this.standbys.map((standby) => this.checkStandby(standby)));
  }

  private async checkStandby(standby: Standby): Promise<void> {
    let replay: { position: bigint | undefined; recovery: boolean; started: string };
    try {
      replay = await standby.replayPosition();
    } catch (error) {
      standby.noteState('unreachable', (error as Error)?.message);
      return;
    }
    if (!replay.recovery) return standby.noteState(replay.started === this.primaryStarted ? 'primary' : 'not_in_recovery');
    const now = Date.now();
    let newestReplayed: { at: number } | undefined;
    for (const sample of this.samples) if (sample.position <= standby.replayed) newestReplayed = sample;
    // behind every sample kept: further behind than the oldest, which is older than REPLICA_MAX_LAG_MS
    standby.lagMs = newestReplayed ? now - newestReplayed.at : this.samples.length ? now - this.samples[0].at : undefined;
    standby.noteState(standby.lagMs !== undefined && standby.lagMs <= this.options.maxLagMs ? 'streaming' : 'lagging');
  }
}
