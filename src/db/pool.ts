import { Pool, PoolClient, QueryConfig, QueryResultRow, types } from 'pg';
import { logger } from '../logger';
import { isDatabaseUnavailable, noteDatabaseFailure, noteDatabaseReachable } from './availability';
import { DatabaseHosts, generationOf, hostedClientClass } from './database-hosts';
import { JOURNAL_CHANNEL, JournalSignal } from './journal-signal';
import { Notifications } from './notifications';
import { statementName } from './prepared-statements';

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
}

/** pg's parsers, but timestamptz (OID 1184) left as text */
const TEXT_TIMESTAMPS = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 1184 ? (value: string) => value : types.getTypeParser(oid, format as 'text')) as typeof types.getTypeParser,
};

/** the query of `text` under its prepared statement's name (db/prepared-statements.ts) */
function queryConfig(text: string, params: unknown[], options?: RowOptions): QueryConfig {
  return { name: statementName(text), text, values: params, ...(options?.timestamps === 'text' ? { types: TEXT_TIMESTAMPS } : {}) };
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
}

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
 *   connection looks for the primary, and the connections made before are dropped when next lent (`checkout`).
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
  private readonly observers = new Set<(text: string, params: readonly unknown[]) => void>();
  private closed = false;

  constructor(options: DatabaseOptions) {
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
    this.pool.on('error', (error, client) => {
      this.hosts.lost(generationOf(client));
      if (!noteDatabaseFailure(error, 'database pool')) logger.warn({ err: error }, 'an idle database connection failed');
    });
    this.pool.on('connect', (client) => {
      noteDatabaseReachable();
      // a client in use also emits 'error' when its connection dies; the query it runs rejects with it as well
      client.on('error', (error) => {
        this.hosts.lost(generationOf(client));
        noteDatabaseFailure(error, 'database connection');
      });
    });
    this.notifications = new Notifications(this.hosts);
    this.journalSignal = new JournalSignal(() => this.rows(`select pg_notify('${JOURNAL_CHANNEL}', '')`));
  }

  /** calls `observer` with the text and values of every statement the process sends from now on; returns the stop */
  observeStatements(observer: (text: string, params: readonly unknown[]) => void): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /** one statement on a connection of the pool, committed on its own */
  async rows<T extends QueryResultRow = any>(text: string, params: unknown[] = [], options?: RowOptions): Promise<T[]> {
    this.observe(text, params);
    return (await this.onOwn((client) => client.query<T>(queryConfig(text, params, options)))).rows;
  }

  async affected(text: string, params: unknown[] = []): Promise<number> {
    this.observe(text, params);
    return (await this.onOwn((client) => client.query(queryConfig(text, params)))).rowCount ?? 0;
  }

  /** one statement on a connection of the pool (what pg's pool.query does, with `checkout` and `broken`) */
  private async onOwn<R>(statement: (client: PoolClient) => Promise<R>): Promise<R> {
    const client = await this.checkout();
    let broken: Error | undefined;
    try {
      return await statement(client);
    } catch (error) {
      broken = this.broken(client, error);
      throw error;
    } finally {
      client.release(broken);
    }
  }

  /**
   * A connection of the pool, made since the last loss of the primary: one made before may be on a server
   * that is gone or read-only now (a switchover), and is closed instead of lent (db/database-hosts.ts).
   */
  private async checkout(): Promise<PoolClient> {
    for (;;) {
      const client = await this.pool.connect();
      if (generationOf(client) === this.hosts.generation || this.hosts.fixed) return client;
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
    this.hosts.lost(generationOf(client));
    return error instanceof Error ? error : new Error(String(error));
  }

  /** a statement here commits on its own: its journal rows are committed when it returns */
  journalWritten(): void {
    this.journalSignal.committed();
  }

  /**
   * Runs `work` on one connection of the pool without a transaction: every statement commits on its own
   * (PostgreSQL's autocommit), so `work` must need no more than one writing statement. The zone-change path
   * reads with one statement and writes with one on the same connection: one pool checkout for both.
   */
  async connection<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    const client = await this.checkout();
    let wroteJournal = false;
    let broken: Error | undefined;
    try {
      return await work(
        this.sqlOn(client, () => {
          wroteJournal = true;
        }),
      );
    } catch (error) {
      broken = this.broken(client, error);
      throw error;
    } finally {
      client.release(broken);
      // each statement committed on its own: what `work` wrote before a later failure is committed too
      if (wroteJournal) this.journalSignal.committed();
    }
  }

  /**
   * Runs `work` in one transaction on one connection: committed when `work` succeeds, rolled back when it
   * throws. The journal's readers are woken after the COMMIT if `work` wrote journal rows.
   */
  async transaction<T>(work: (sql: Sql) => Promise<T>, isolation: Isolation = 'read committed'): Promise<T> {
    const client = await this.checkout();
    let wroteJournal = false;
    let broken: unknown;
    try {
      await this.send(client, isolation === 'read committed' ? 'begin' : 'begin isolation level repeatable read read only');
      let result: T;
      try {
        result = await work(
          this.sqlOn(client, () => {
            wroteJournal = true;
          }),
        );
      } catch (error) {
        // a connection that cannot even roll back is not lent again (release(error) ends it), nor one whose
        // server is read-only now (25006: a switchover) or going away
        broken = this.broken(client, error);
        await this.send(client, 'rollback').catch((rollbackError: unknown) => {
          broken = rollbackError;
        });
        throw error;
      }
      try {
        await this.send(client, 'commit');
      } catch (error) {
        broken = this.broken(client, error) ?? error;
        throw error;
      }
      if (wroteJournal) this.journalSignal.committed();
      return result;
    } finally {
      client.release(broken instanceof Error ? broken : undefined);
    }
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
        const { rows } = await client.query<R & QueryResultRow>(fetch);
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

  private sqlOn(client: PoolClient, journalWritten: () => void): Sql {
    return {
      rows: async <R extends QueryResultRow>(text: string, params: unknown[] = [], options?: RowOptions) => {
        this.observe(text, params);
        return (await client.query<R>(queryConfig(text, params, options))).rows;
      },
      affected: async (text: string, params: unknown[] = []) => {
        this.observe(text, params);
        return (await client.query(queryConfig(text, params))).rowCount ?? 0;
      },
      journalWritten,
    };
  }

  private async send(client: PoolClient, text: string): Promise<void> {
    this.observe(text);
    await client.query(text);
  }

  private observe(text: string, params: readonly unknown[] = []): void {
    for (const observer of this.observers) observer(text, params);
  }
}
