import { logger } from '../logger';
import { observeStandbys, replicaFallbackReads, replicaTokenWait, standbyReads } from '../metrics';
import { isDatabaseUnavailable } from './availability';
import { parseDatabaseUrl } from './database-hosts';
import { Database } from './pool';

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
 *   history may have parted from the primary's) is skipped until a check finds it fit again; reads then go to the
 *   primary, and `zonekeeper_replica_fallback_reads_total` counts them.
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

export type StandbyState = 'streaming' | 'lagging' | 'unreachable' | 'not_in_recovery';

/** one standby as /ready and /metrics show it */
export interface StandbyStatus {
  standby: string;
  state: StandbyState;
  /** its replay lag (see above); null while it cannot be measured */
  lagSeconds: number | null;
}

/** why a read that may lag went to the primary */
export type FallbackReason = 'no_standby' | 'token_wait' | 'token_invalid';

interface Waiter {
  position: bigint;
  deadline: number;
  resolve(caught: boolean): void;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

class Standby {
  /** unknown until its first check: no read goes to it before */
  state: StandbyState = 'unreachable';
  lagMs: number | undefined;
  /** the furthest replay position seen; replay only moves forward on one timeline */
  replayed = 0n;
  readonly db: Database;
  private waiters: Waiter[] = [];
  private polling = false;

  constructor(
    readonly name: string,
    url: string,
    poolSize: number,
  ) {
    this.db = new Database({
      connectionString: url,
      poolSize,
      // a standby's read that fails is not run again here: the next read goes elsewhere
      failoverWaitMs: 0,
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
    });
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
    else if (was === 'streaming') logger.warn(`standby ${this.name} ${state}${why ? ` (${why})` : ''}: its reads go to the primary`);
    if (state === 'unreachable' || state === 'not_in_recovery') this.release();
  }

  /** its replay position now, or a failure that marks it unreachable */
  async replayPosition(): Promise<{ position: bigint | undefined; recovery: boolean }> {
    const [row] = await this.db.rows<{ lsn: string | null; recovery: boolean }>(
      'select pg_last_wal_replay_lsn()::text as lsn, pg_is_in_recovery() as recovery',
    );
    const position = parseLsn(row.lsn);
    if (position !== undefined && position > this.replayed) this.replayed = position;
    return { position, recovery: row.recovery };
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
      const [{ lsn }] = await this.primary.rows<{ lsn: string }>('select pg_current_wal_lsn()::text as lsn', [], { failoverWait: false });
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
    let replay: { position: bigint | undefined; recovery: boolean };
    try {
      replay = await standby.replayPosition();
    } catch (error) {
      standby.noteState('unreachable', (error as Error)?.message);
      return;
    }
    if (!replay.recovery) return standby.noteState('not_in_recovery');
    const now = Date.now();
    let newestReplayed: { at: number } | undefined;
    for (const sample of this.samples) if (sample.position <= standby.replayed) newestReplayed = sample;
    // behind every sample kept: further behind than the oldest, which is older than REPLICA_MAX_LAG_MS
    standby.lagMs = newestReplayed ? now - newestReplayed.at : this.samples.length ? now - this.samples[0].at : undefined;
    standby.noteState(standby.lagMs !== undefined && standby.lagMs <= this.options.maxLagMs ? 'streaming' : 'lagging');
  }
}
