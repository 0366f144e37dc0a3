import { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow, types } from 'pg';
import { logger } from '../logger';
import { isDatabaseUnavailable, markStandbyFailure, noteDatabaseFailure, noteDatabaseReachable } from './availability';
import { DatabaseHosts, generationOf, hostedClientClass } from './database-hosts';
import { JOURNAL_CHANNEL, JournalSignal } from './journal-signal';
import { Notifications } from './notifications';
import { StatementNames } from './prepared-statements';

/**
 * Plain parameterised SQL (`$1`, `$2`…): what every repository takes. Given by the Database itself (each
 * statement on a connection of the pool, committed on its own), or by `Database.transaction` and
 * `Database.connection` (one connection for all of `work`).
 */
export interface Sql {
  rows<T extends QueryResultRow = any>(text: string, params?: unknown[], options?: RowOptions): Promise<T[]>;
  /** how many rows the statement changed (UPDATE, DELETE, INSERT) */
  affected(text: string, params?: unknown[]): Promise<number>;
  /**
   * This unit of work wrote journal rows (`changes`): the journal's readers are woken once it has committed
   * (db/journal-signal.ts). Called by the repositories that write the journal.
   */
  journalWritten(): void;
}

export interface RowOptions {
  /**
   * `text`: timestamps (timestamptz) come as PostgreSQL's text, for the caller to parse when it is read: a nested
   * answer carries 1,100 users and zones and rarely asks for their creation time, and parsing every timestamp
   * was 4% of such an answer's CPU (docs/performance.md, «Reading zones»; repositories/read-model.ts)
   */
  timestamps?: 'text';
  /**
   * false: fail at once when no primary is there, without DATABASE_FAILOVER_WAIT_MS's wait (the availability
   * probe, db/availability.ts, which must say what it finds now). Only `Database.rows` reads it.
   */
  failoverWait?: false;
  /**
   * `values`: planned for its values on every call (run unnamed), never on a plan made once for any value. For a
   * statement whose rows depend wholly on a value's shape: a search's LIKE pattern finds one record or half the
   * table, and the plan made once (a parallel scan) read 100,000 matches a third slower than the plan for the
   * pattern. Planning it costs well under a millisecond.
   *
   * `generic`: planned once a connection, for any value (the statement's generic plan), by its indexes, when it
   * runs on its own outside a transaction: it is sent in a transaction of its own that sets
   * `GENERIC_PLAN_SETTINGS` for it alone (two round trips more). For the zone change, a statement of a few dozen
   * parts whose planning cost as much as running it: PostgreSQL keeps a generic plan on its own only when the
   * plan's estimate is no higher than the plans made for the values, and a generic plan guesses ten elements an
   * array, so it made a new plan on every write (bench/FINDINGS.md, «a write's statement is planned anew»).
   * Only for a statement whose generic plan probes by key whatever its values (the tests read its plan). Inside
   * a caller's transaction, and with the statements unnamed (DATABASE_PREPARED_STATEMENTS=off), it runs as any
   * other.
   */
  plan?: 'values' | 'generic';
}

const asText = (value: string) => value;

/**
 * pg's parsers, but timestamptz (OID 1184) left as text, and bigint (OID 20) given as its text without pg's
 * parser, which gives back the same text after testing it with a regular expression made anew for each value
 * (3,100 of them, 0.23 MB of garbage, in the nested answer of the bench)
 */
const TEXT_TIMESTAMPS = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 1184 || (oid === 20 && format !== 'binary')
      ? asText
      : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser,
};

/**
 * One statement on `client`, through pg's callback form and a promise made here, the callback an argument. pg's
 * promise form (`client.query(config)` without a callback) assigns the callback that resolves its promise to the
 * query's property (`query.callback = (err, res) => …`), and V8 allocates a function literal assigned to a property
 * in the old generation when the code is not optimised (measured: 500 of 500 statements; ours, 466 of 500 young).
 * An old object's references keep what they reach alive through every young-generation collection until the next
 * mark-compact, even once the object itself is garbage: through the callback's context, the promise and the
 * statement's result with all its rows. Every answer's rows were so promoted (bench/FINDINGS.md, «What kept every
 * request's objects alive through young-generation collections»).
 */
function queryOn<R extends QueryResultRow = any>(client: PoolClient, config: QueryConfig | string): Promise<QueryResult<R>> {
  return new Promise((resolve, reject) => {
    client.query<R>(config as QueryConfig, (error: Error | undefined, result: QueryResult<R>) => (error ? reject(error) : resolve(result)));
  });
}

/** the query of `text` under its prepared statement's name among `names` (db/prepared-statements.ts), if any */
function queryConfig(names: StatementNames | undefined, text: string, params: unknown[], options?: RowOptions): QueryConfig {
  const name = options?.plan === 'values' ? undefined : names?.nameOf(text);
  return { name, text, values: params, ...(options?.timestamps === 'text' ? { types: TEXT_TIMESTAMPS } : {}) };
}

/**
 * How a statement is planned under `RowOptions.plan: 'generic'`: once, without its values, and by its indexes.
 * A plan made without the values takes a zone's share of a table from the table's statistics, and when one zone
 * holds all of a table's rows (its disabled records, its views' overlays) that share is the whole table: a
 * scan that stops at the first row of the zone then looks cheapest, and reads the whole table for every other
 * zone. The statements so run read every table by key, so scans that are not by an index are priced out.
 */
export const GENERIC_PLAN_SETTINGS = [
  'plan_cache_mode = force_generic_plan',
  'enable_seqscan = off',
  // a scan that must be sequential (a table of a handful of rows without an index for the condition) is priced
  // 10^10 with enable_seqscan off, far past jit_above_cost: JIT compiled such a statement for 400 ms at every run
  'jit = off',
];
/** a BEGIN and, in the same message, the settings of the generic plans for the transaction it begins */
const withGenericPlans = (begin: string) => [begin, ...GENERIC_PLAN_SETTINGS.map((setting) => `set local ${setting}`)].join('; ');
const GENERIC_PLAN_BEGIN = withGenericPlans('begin');

/**
 * One statement on `client`, outside a transaction, under its generic plan when `options` ask for it
 * (`RowOptions.plan`) and it is prepared: in a transaction of its own, committed when it succeeds. `sent` is
 * told before the first message that may commit it: the statement itself when it commits on its own, the
 * COMMIT when it runs in its own transaction (a connection lost before that rolled it back, so the work may
 * run again, `Database.connection`); a connection lost at COMMIT leaves its outcome unknown either way.
 */
export async function queryAlone<R extends QueryResultRow = any>(
  client: PoolClient,
  config: QueryConfig,
  options: RowOptions | undefined,
  sent?: () => void,
): Promise<QueryResult<R>> {
  if (options?.plan !== 'generic' || config.name === undefined) {
    sent?.();
    return queryOn<R>(client, config);
  }
  await queryOn(client, GENERIC_PLAN_BEGIN);
  let result: QueryResult<R>;
  try {
    result = await queryOn<R>(client, config);
  } catch (error) {
    // the statement's own failure (a constraint) leaves the transaction aborted; a lost connection ends it
    await queryOn(client, 'rollback').catch(() => undefined);
    throw error;
  }
  sent?.();
  await queryOn(client, 'commit');
  return result;
}

/** how a transaction begins: READ COMMITTED read-write (PostgreSQL's default), or a snapshot for reading */
export type Isolation = 'read committed' | 'repeatable read, read only';

export interface DatabaseOptions {
  /** DATABASE_URL: one host, or a host list (db/database-hosts.ts) */
  connectionString: string;
  /** the host choice to share (the migrator's, at start); made from connectionString when absent */
  hosts?: DatabaseHosts;
  /** the pool's size (DATABASE_POOL_SIZE) */
  poolSize: number;
  /** DATABASE_PREPARED_STATEMENTS: false runs every statement unnamed (db/prepared-statements.ts); true if absent */
  preparedStatements?: boolean;
  /**
   * DATABASE_FAILOVER_WAIT_MS: how long a unit of work that found no writable primary, or was refused before
   * anything of it could have committed, waits for the primary and runs again before it fails (503); 0 = at once
   */
  failoverWaitMs?: number;
  /**
   * Set for a standby's read pool (db/read-replicas.ts): its lost or refused connections are the standby's
   * trouble, told to it here, not an outage of the service's database (availability.ts: 503 until it is back),
   * since the reads it served go to the primary meanwhile
   */
  standby?: { failed(error: unknown): void; reached(): void };
}

/**
 * Units of work that failed for want of a writable primary (no host found, a connection lost, SQLSTATE 25006)
 * at a point where nothing of them can have committed: `failoverWait` may run them again. An error is added
 * or removed by the unit of work that threw it last, so a nested one's mark never outlives what its caller did.
 */
const refusedUncommitted = new WeakSet<object>();

function markRetry(error: unknown, safe: boolean): void {
  if (!error || typeof error !== 'object') return;
  if (safe) refusedUncommitted.add(error);
  else refusedUncommitted.delete(error);
}

/** read_only_sql_transaction (PostgreSQL, Appendix A): the server refused the statement, so it wrote nothing */
const isReadOnlyRefusal = (error: unknown): boolean => (error as { code?: unknown } | undefined)?.code === '25006';

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** the first pause before a unit of work runs again, doubled up to FAILOVER_PAUSE_MAX_MS between later tries */
const FAILOVER_PAUSE_MIN_MS = 25;
const FAILOVER_PAUSE_MAX_MS = 200;

/**
 * The process's one way to PostgreSQL: one node-postgres pool, sized by DATABASE_POOL_SIZE and shared by every
 * role the process runs (the API, the DNS primary, the worker, live updates), and one LISTEN connection
 * (`notifications`). Every statement of the running service goes through here, so that
 *
 * - the process holds DATABASE_POOL_SIZE + 1 connections at most, whatever it runs;
 * - a transaction that wrote journal rows wakes the journal's readers once, after its COMMIT, in one place
 *   (`finish` below): a writer cannot forget it, and the signal never precedes the rows' visibility;
 * - every statement can be observed (`observeStatements`: the tests count a query's statements and explain them);
 * - a lost or refused connection is recorded as an outage (db/availability.ts: 503 until it is back);
 * - with several hosts (db/database-hosts.ts), every connection goes to the writable primary found, and one
 *   that loses its server or finds it read-only (SQLSTATE 25006) is dropped, not lent again: the next
 *   connection looks for the primary, and the connections made before are dropped when next lent (`checkout`);
 * - a unit of work (`transaction`, `connection`, one statement) that met no writable primary where nothing
 *   of it can have committed waits for the primary up to DATABASE_FAILOVER_WAIT_MS and runs again
 *   (`failoverWait`): a switchover is a pause, not a burst of 503s.
 *
 * MikroORM is not used at run time: it runs the migrations at start on a connection of its own, closed
 * before the roles start (src/db/database.ts).
 */
export class Database implements Sql {
  private readonly pool: Pool;
  /** the host choice among DATABASE_URL's hosts, shared by the pool and the LISTEN connection */
  readonly hosts: DatabaseHosts;
  readonly notifications: Notifications;
  readonly journalSignal: JournalSignal;
  /**
   * The Database that owns the pool: this one, or the one a view was made from (`withFailoverWaitAtMost`).
   * The write engine made on a database takes its views as that database (services/write-engine/index.ts).
   */
  readonly base: Database;
  /** whether statements run named (prepared once a connection): DATABASE_PREPARED_STATEMENTS */
  readonly preparedStatements: boolean;
  private readonly statementNames: StatementNames | undefined;
  private readonly observers = new Set<(text: string, params: readonly unknown[]) => void>();
  private closed = false;
  private readonly failoverWaitMs: number;
  private readonly standby: DatabaseOptions['standby'];

  constructor(options: DatabaseOptions) {
    this.preparedStatements = options.preparedStatements ?? true;
    this.statementNames = this.preparedStatements ? new StatementNames() : undefined;
    this.failoverWaitMs = options.failoverWaitMs ?? 0;
    this.standby = options.standby;
    this.base = this;
    this.hosts = options.hosts ?? new DatabaseHosts(options.connectionString);
    this.pool = new Pool({
      connectionString: this.hosts.targets[0].url,
      Client: hostedClientClass(this.hosts),
      max: options.poolSize,
      // a connection that cannot be had within 4 s (the pool busy, the server not answering) fails the request
      // with 503 (availability.ts), within the contract's 5 s; a refused connection fails at once
      connectionTimeoutMillis: 4000,
    });
    // pg's Pool re-emits an idle client's error (a server stop terminates idle sessions, 57P01) as an 'error'
    // event: without a listener Node ends the process. The client is already out of the pool.
    const { standby } = this;
    this.pool.on('error', (error, client) => {
      this.hosts.lost(generationOf(client));
      if (standby) standby.failed(error);
      else if (!noteDatabaseFailure(error, 'database pool')) logger.warn({ err: error }, 'an idle database connection failed');
    });
    this.pool.on('connect', (client) => {
      if (standby) standby.reached();
      else noteDatabaseReachable();
      // a client in use also emits 'error' when its connection dies; the query it runs rejects with it as well
      client.on('error', (error) => {
        this.hosts.lost(generationOf(client));
        if (standby) standby.failed(error);
        else noteDatabaseFailure(error, 'database connection');
      });
    });
    this.notifications = new Notifications(this.hosts);
    this.journalSignal = new JournalSignal(
      () => this.rows(`select pg_notify('${JOURNAL_CHANNEL}', '')`),
      () => this.pool.totalCount > this.pool.idleCount,
    );
  }

  /**
   * calls `observer` with the text and values of every statement the process sends from now on (not the
   * transaction a statement under its generic plan is sent in: `queryAlone`); returns the stop
   */
  observeStatements(observer: (text: string, params: readonly unknown[]) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** one statement on a connection of the pool, committed on its own */
  async rows<T extends QueryResultRow = any>(text: string, params: unknown[] = [], options?: RowOptions): Promise<T[]> {
    return this.failoverWait(async () => {
      this.observe(text, params);
      return (await this.onOwn((client) => queryAlone<T>(client, queryConfig(this.statementNames, text, params, options), options))).rows;
    }, options?.failoverWait);
  }

  async affected(text: string, params: unknown[] = []): Promise<number> {
    return this.failoverWait(async () => {
      this.observe(text, params);
      return (await this.onOwn((client) => queryOn(client, queryConfig(this.statementNames, text, params)))).rowCount ?? 0;
    });
  }

  /**
   * One statement on a connection of the pool (what pg's pool.query does, with `checkout` and `broken`). It may
   * run again (`failoverWait`) when no connection could be had, or when the server refused it as read-only
   * (25006: it wrote nothing); not when its connection was lost while it ran: it may have committed.
   */
  private async onOwn<R>(statement: (client: PoolClient) => Promise<R>): Promise<R> {
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      return await statement(client);
    } catch (error) {
      broken = this.broken(client, error);
      markRetry(error, isReadOnlyRefusal(error));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * Runs `attempt`, and runs it again while it fails for want of a writable primary at a point where nothing
   * of it can have committed (marked by markRetry), for DATABASE_FAILOVER_WAIT_MS at most: between the old
   * primary turning read-only and the new one being found, a request waits instead of answering 503. Each
   * attempt looks for the primary anew (`checkout`: the host search of db/database-hosts.ts). An attempt that
   * may have committed (its connection lost during COMMIT, or during a statement that commits on its own) is
   * never run again: its outcome is unknown, and it answers 503 as before.
   */
  private async failoverWait<T>(attempt: () => Promise<T>, wait = true): Promise<T> {
    const deadline = Date.now() + (wait ? this.failoverWaitMs : 0);
    for (let pauseMs = FAILOVER_PAUSE_MIN_MS; ; pauseMs = Math.min(pauseMs * 2, FAILOVER_PAUSE_MAX_MS)) {
      try {
        return await attempt();
      } catch (error) {
        const retry = !!error && typeof error === 'object' && refusedUncommitted.has(error);
        if (!retry || this.closed || Date.now() + pauseMs > deadline) throw error;
        await pause(pauseMs);
      }
    }
  }

  /**
   * A connection of the pool, made since the last loss of the primary: one made before may be on a server
   * that is gone or read-only now (a switchover), and is closed instead of lent (db/database-hosts.ts).
   */
  private async checkout(): Promise<PoolClient> {
    for (;;) {
      let client: PoolClient;
      try {
        client = await this.pool.connect();
      } catch (error) {
        // no connection, so nothing sent: no host writable yet (a search between a primary's loss and the
        // standby's promotion), the server refusing or not answering
        markRetry(error, isDatabaseUnavailable(error));
        throw error;
      }
      // one fixed host keeps its generation until its pool is renewed (DatabaseHosts.renew)
      if (generationOf(client) === this.hosts.generation) return client;
      client.release(true);
    }
  }

  /**
   * The error a connection is released with when `error` says its server is gone, restarting or read-only
   * (SQLSTATE 25006, availability.ts): pg's pool then closes it, and the next connection looks for the
   * primary again. Undefined for a statement's own failure (a constraint, a conflict): the connection is fine.
   */
  private broken(client: PoolClient, error: unknown): Error | undefined {
    if (!isDatabaseUnavailable(error)) return undefined;
    if (this.standby) {
      // a standby gone, restarting, or refusing a write (25006: a read that writes, sent here by mistake)
      markStandbyFailure(error);
      this.standby.failed(error);
    }
    this.hosts.lost(generationOf(client));
    return error instanceof Error ? error : new Error(String(error));
  }

  /**
   * This database with DATABASE_FAILOVER_WAIT_MS capped at `ms` for the units of work run through it: for a
   * client that gives up sooner than an HTTP client does. A DNS client over UDP resends after 1–3 s (RFC 1035
   * §4.2.1 leaves it to the resolver; nsupdate waits 3 s), and a secondary's SOA query or transfer is better
   * answered SERVFAIL at once, to be tried again on its retry timer (RFC 1034 §4.3.5), than late. A view of
   * this one that differs in its wait only (the same pool, hosts, journal signal and observers), handed down
   * with the work. Not carried by an AsyncLocalStorage, as it was: the first use of one turns Node's promise
   * hooks on for every promise of the process, so once the DNS role had answered one message each HTTP write
   * made 7 kB more garbage (bench/FINDINGS.md). Made once per wait by its user (PrimaryHandler), not per
   * message.
   */
  withFailoverWaitAtMost(ms: number): Database {
    if (ms >= this.failoverWaitMs) return this;
    return Object.create(this, { failoverWaitMs: { value: ms } }) as Database;
  }

  /** a statement here commits on its own: its journal rows are committed when it returns */
  journalWritten(): void {
    this.journalSignal.committed();
  }

  /**
   * Runs `work` on one connection of the pool without a transaction: every statement commits on its own
   * (PostgreSQL's autocommit), so `work` must need no more than one writing statement. The zone-change path
   * reads with one statement and writes with one on the same connection: one pool checkout for both.
   *
   * `work` may run again (`failoverWait`) when no connection could be had, when a statement was refused as
   * read-only (25006: only a writing statement is refused so, and with one writing statement at most nothing
   * of `work` was written), or when the connection was lost before anything that may commit was sent (a
   * statement under its generic plan commits with the COMMIT of its own transaction: `queryAlone`). Not when it
   * was lost after: that statement may have been the write, and committed.
   */
  async connection<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.failoverWait(async () => {
      const client = await this.checkout();
      let wroteJournal = false;
      let sent = 0;
      let broken: Error | undefined;
      try {
        return await work(
          this.sqlOn(
            client,
            () => {
              wroteJournal = true;
            },
            { sending: () => sent++ },
          ),
        );
      } catch (error) {
        broken = this.broken(client, error);
        markRetry(error, isReadOnlyRefusal(error) || (sent === 0 && isDatabaseUnavailable(error)));
        throw error;
      } finally {
        client.release(broken);
        // each statement committed on its own: what `work` wrote before a later failure is committed too
        if (wroteJournal) this.journalSignal.committed();
      }
    });
  }

  /**
   * Runs `work` in one transaction on one connection: committed when `work` succeeds, rolled back when it
   * throws. The journal's readers are woken after the COMMIT if `work` wrote journal rows.
   *
   * When the primary is lost or turns read-only (25006) before COMMIT is sent, the transaction did not commit
   * (a refused statement aborts it; a lost connection rolls it back), and the whole of `work` runs again on
   * the primary found within DATABASE_FAILOVER_WAIT_MS (`failoverWait`): `work` must be one that can run
   * again from the start, as a serialization failure's retry would (it reads what it decides on inside the
   * transaction). A connection lost while COMMIT is in flight leaves the outcome unknown (under synchronous
   * replication a session ended while waiting for its standby has committed locally): that one is never run
   * again and answers 503.
   *
   * `plan: 'generic'`: every statement of `work` under its generic plan (RowOptions.plan, GENERIC_PLAN_SETTINGS),
   * set in the BEGIN's own message, no round trip more. Only for work whose every statement probes by key.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T>, isolation: Isolation = 'read committed', plan?: 'generic'): Promise<T> {
    return this.failoverWait(async () => {
      const client = await this.checkout();
      let wroteJournal = false;
      let broken: unknown;
      try {
        let result: T;
        try {
          const begin = isolation === 'read committed' ? 'begin' : 'begin isolation level repeatable read read only';
          await this.send(client, plan === 'generic' ? withGenericPlans(begin) : begin);
          result = await work(
            this.sqlOn(client, () => {
              wroteJournal = true;
            }),
          );
        } catch (error) {
          // a connection that cannot even roll back is not lent again (release(error) ends it), nor one whose
          // server is read-only now (25006: a switchover) or going away
          broken = this.broken(client, error);
          markRetry(error, isDatabaseUnavailable(error));
          await this.send(client, 'rollback').catch((rollbackError: unknown) => {
            broken = rollbackError;
          });
          throw error;
        }
        try {
          await this.send(client, 'commit');
        } catch (error) {
          broken = this.broken(client, error) ?? error;
          markRetry(error, false);
          throw error;
        }
        if (wroteJournal) this.journalSignal.committed();
        return result;
      } finally {
        client.release(broken instanceof Error ? broken : undefined);
      }
    });
  }

  /**
   * Rows of one query page by page from a server-side cursor (DECLARE … CURSOR, FETCH n) in one read-only
   * REPEATABLE READ transaction on a connection of the pool, held until the consumer stops: a result of a
   * million rows costs the memory of one page, and every page comes from the same snapshot. `query` is built
   * by the caller with its values inlined (a cursor's query cannot be a prepared statement); stopping early
   * (the consumer's `return`, an error) rolls back and gives the connection back.
   */
  async *cursorPages<R>(query: string, pageSize: number): AsyncGenerator<R[]> {
    const client = await this.checkout();
    let open = false;
    let broken: unknown;
    try {
      await this.send(client, 'begin isolation level repeatable read read only');
      open = true;
      await this.send(client, `declare pages no scroll cursor for ${query}`);
      const fetch = `fetch ${Math.trunc(pageSize)} from pages`;
      for (;;) {
        this.observe(fetch);
        const { rows } = await queryOn<R & QueryResultRow>(client, fetch);
        if (rows.length) yield rows;
        if (rows.length < pageSize) break;
      }
      await this.send(client, 'commit');
      open = false;
    } finally {
      if (open)
        await this.send(client, 'rollback').catch((error: unknown) => {
          broken = error;
        });
      client.release(broken instanceof Error ? broken : undefined);
    }
  }

  /**
   * Sends the pending journal signal and closes the pool; the LISTEN connection closes first (its readers are
   * stopped by then).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.notifications.close();
    await this.journalSignal.stop();
    await this.pool.end();
  }

  /**
   * The Sql of one connection: in a transaction (`alone` absent), or with each statement on its own, `alone`
   * told before a statement is sent (what `connection` needs to know whether a failure may have written)
   */
  private sqlOn(client: PoolClient, journalWritten: () => void, alone?: { sending: () => void }): Sql {
    return {
      rows: async <R extends QueryResultRow>(text: string, params: unknown[] = [], options?: RowOptions) => {
        this.observe(text, params);
        const config = queryConfig(this.statementNames, text, params, options);
        return (await (alone ? queryAlone<R>(client, config, options, alone.sending) : queryOn<R>(client, config))).rows;
      },
      affected: async (text: string, params: unknown[] = []) => {
        this.observe(text, params);
        alone?.sending();
        return (await queryOn(client, queryConfig(this.statementNames, text, params))).rowCount ?? 0;
      },
      journalWritten,
    };
  }

  private async send(client: PoolClient, text: string): Promise<void> {
    this.observe(text);
    await queryOn(client, text);
  }

  private observe(text: string, params: readonly unknown[] = []): void {
    for (const observer of this.observers) observer(text, params);
  }
}
