import type { EntityManager } from '@mikro-orm/postgresql';
import type { Client as PgClient, QueryResultRow } from 'pg';

/** Plain parameterised SQL (`$1`, `$2`…) on the one connection of a transaction. */
export interface SqlTransaction {
  rows<T extends QueryResultRow = any>(text: string, params?: unknown[]): Promise<T[]>;
}

/** knex's client: the pool MikroORM opened, from which a transaction borrows one pg connection */
interface KnexPoolClient {
  acquireConnection(): Promise<PgClient & { __knex__disposed?: unknown }>;
  releaseConnection(connection: PgClient): Promise<void>;
}

/**
 * Runs `work` in one transaction on a connection borrowed from the ORM's own pool, with plain pg queries.
 *
 * The zone-change path (a record added, edited or deleted; a zone file imported) is the API's hot path and
 * needs no entities: it reads and locks with one statement and writes with one. Running it through
 * `em.transactional` cost more CPU than the SQL itself (a forked EntityManager, a transaction-bound knex
 * instance, query building and logging per statement; bench/FINDINGS.md §1). The connection, the pool size
 * and the database are the ORM's: nothing else is opened.
 */
export async function runSqlTransaction<T>(em: EntityManager, work: (tx: SqlTransaction) => Promise<T>): Promise<T> {
  const pool = em.getConnection().getKnex().client as unknown as KnexPoolClient;
  const connection = await pool.acquireConnection();
  const tx: SqlTransaction = {
    async rows<R extends QueryResultRow>(text: string, params: unknown[] = []) {
      return (await connection.query<R>(text, params)).rows;
    },
  };
  try {
    await connection.query('begin');
    const result = await work(tx);
    await connection.query('commit');
    return result;
  } catch (error) {
    try {
      await connection.query('rollback');
    } catch (rollbackError) {
      // a connection that cannot even roll back is not given to the next caller: knex's pool drops it
      connection.__knex__disposed = rollbackError;
    }
    throw error;
  } finally {
    await pool.releaseConnection(connection);
  }
}
