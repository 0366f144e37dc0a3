import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client as PgClient, Pool, PoolClient, QueryResultRow } from 'pg';
import { journalSignalOf, journalSignalOfPool } from '../db/journal-signal';
import { statementName } from '../db/prepared-statements';

/** Plain parameterised SQL (`$1`, `$2`…) on one borrowed connection. */
export interface Sql {
  rows<T extends QueryResultRow = any>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * This unit of work wrote journal rows (`changes`): the journal's readers are woken once it has committed
   * (db/journal-signal.ts). Called by the repositories that write the journal.
   */
  journalWritten(): void;
}

/** knex's client: the pool MikroORM opened, from which plain SQL borrows one pg connection */
interface KnexPoolClient {
  acquireConnection(): Promise<PooledConnection>;
  releaseConnection(connection: PgClient): Promise<void>;
}

/**
 * Runs `work` with one connection borrowed from the ORM's own pool; every statement commits on its own
 * (PostgreSQL's autocommit), so `work` must need no more than one writing statement.
 *
 * The zone-change path (a record added, edited or deleted) is the API's hot path and needs no entities: it
 * reads with one statement and writes with one. Running it through `em.transactional` cost more CPU than the
 * SQL itself (a forked EntityManager, a transaction-bound knex instance, query building and logging per
 * statement; bench/FINDINGS.md §1). The connection, the pool size and the database stay the ORM's.
 */
export async function withSqlConnection<T>(em: EntityManager, work: (sql: Sql) => Promise<T>): Promise<T> {
  let wroteJournal = false;
  try {
    return await borrow(em, (connection) => work(sqlOn(connection, () => { wroteJournal = true; })));
  } finally {
    // each statement committed on its own: what `work` wrote before a later failure is committed too
    if (wroteJournal) journalSignalOf(em).committed();
  }
}

/** As `withSqlConnection`, inside one transaction: committed when `work` succeeds, rolled back otherwise. */
export async function runSqlTransaction<T>(em: EntityManager, work: (sql: Sql) => Promise<T>): Promise<T> {
  let wroteJournal = false;
  const result = await borrow(em, async (connection) => {
    await connection.query('begin');
    let result: T;
    try {
      result = await work(sqlOn(connection, () => { wroteJournal = true; }));
    } catch (error) {
      try {
        await connection.query('rollback');
      } catch (rollbackError) {
        // a connection that cannot even roll back is not lent again: knex's pool drops it when validating
        connection.__knex__disposed = rollbackError;
      }
      throw error;
    }
    await connection.query('commit');
    return result;
  });
  if (wroteJournal) journalSignalOf(em).committed();
  return result;
}

/**
 * Rows of one query page by page from a server-side cursor (DECLARE … CURSOR, FETCH n) in one read-only
 * REPEATABLE READ transaction on a connection of the ORM's pool, held until the consumer stops: a result of a
 * million rows costs the memory of one page, and every page comes from the same snapshot. `query` is built by
 * the caller with its values inlined (a cursor's query cannot be a prepared statement); stopping early (the
 * consumer's `return`, an error) rolls back and gives the connection back.
 */
export async function* cursorPages<R>(em: EntityManager, query: string, pageSize: number): AsyncGenerator<R[]> {
  const pool = em.getConnection().getKnex().client as unknown as KnexPoolClient;
  const connection = await pool.acquireConnection();
  let open = false;
  try {
    await connection.query('begin isolation level repeatable read read only');
    open = true;
    await connection.query(`declare pages no scroll cursor for ${query}`);
    for (;;) {
      const { rows } = await connection.query<R & QueryResultRow>(`fetch ${Math.trunc(pageSize)} from pages`);
      if (rows.length) yield rows;
      if (rows.length < pageSize) break;
    }
    await connection.query('commit');
    open = false;
  } finally {
    if (open) await connection.query('rollback').catch((error: unknown) => { connection.__knex__disposed = error; });
    await pool.releaseConnection(connection);
  }
}

type PooledConnection = PgClient & { __knex__disposed?: unknown };

async function borrow<T>(em: EntityManager, work: (connection: PooledConnection) => Promise<T>): Promise<T> {
  const pool = em.getConnection().getKnex().client as unknown as KnexPoolClient;
  const connection = await pool.acquireConnection();
  try {
    return await work(connection);
  } finally {
    await pool.releaseConnection(connection);
  }
}

/**
 * `Sql` on one connection: every statement a named prepared statement (db/prepared-statements.ts);
 * `journalWritten` tells the caller, which signals after its commit.
 */
export const sqlOn = (connection: PgClient | PoolClient, journalWritten: () => void): Sql => ({
  async rows<R extends QueryResultRow>(text: string, params: unknown[] = []) {
    return (await connection.query<R>({ name: statementName(text), text, values: params })).rows;
  },
  journalWritten,
});

/** As `runSqlTransaction`, on a role's own pg pool (the worker's, which has no ORM). */
export async function runPoolSqlTransaction<T>(pool: Pool, work: (sql: Sql) => Promise<T>): Promise<T> {
  let wroteJournal = false;
  const result = await poolClientTransaction(pool, 'begin', (client) => work(sqlOn(client, () => { wroteJournal = true; })));
  if (wroteJournal) journalSignalOfPool(pool).committed();
  return result;
}

/**
 * Runs `work` in one transaction on a connection of a role's own pg pool (the DNS primary's, the worker's,
 * which have no ORM): `begin` opens it (a plain BEGIN, or one with an isolation level), commit when `work`
 * succeeds, rollback otherwise.
 */
export async function poolClientTransaction<T>(pool: Pool, begin: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(begin);
    try {
      const result = await work(client);
      await client.query('commit');
      return result;
    } catch (error) {
      await client.query('rollback').catch(() => undefined);
      throw error;
    }
  } finally {
    client.release();
  }
}
