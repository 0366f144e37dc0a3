import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import path from 'node:path';
import { watchDatabase } from './availability';
import { startEmbeddedPostgres, RunningPostgres } from './embedded-postgres';
import { makeOrmConfig } from './orm-config';
import { Database } from './pool';
import { DatabaseHosts } from './database-hosts';
import { ReadReplicas } from './read-replicas';

export { Database } from './pool';
export type { Sql } from './pool';

const EMBEDDED_DATABASE = 'zonekeeper';

/** CREATE DATABASE cannot run inside a transaction or take parameters; the name is ours, never a client's. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The service's database as the process holds it: the Database (one pool, one LISTEN connection), and its URL. */
export interface OpenDatabase {
  db: Database;
  /** the standbys for reads that may lag (DATABASE_REPLICA_URL); undefined: every read on the primary */
  replicas?: ReadReplicas;
  clientUrl: string;
  close(): Promise<void>;
}

/**
 * What opening the database takes of the settings (src/config/settings.ts: DATABASE_URL, DATA_DIR,
 * DATABASE_POOL_SIZE, DATABASE_FAILOVER_WAIT_MS): the database stands below the settings, which read its URL.
 */
export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  databasePoolSize: number;
  databaseFailoverWaitMs: number;
  /** DATABASE_PREPARED_STATEMENTS; on if absent */
  preparedStatements?: 'on' | 'off';
  /** DATABASE_REPLICA_URL, REPLICA_WAIT_MS, REPLICA_MAX_LAG_MS (db/read-replicas.ts) */
  databaseReplicaUrl?: string;
  replicaWaitMs?: number;
  replicaMaxLagMs?: number;
}

/**
 * Opens the service's database: DATABASE_URL when given, otherwise an embedded PostgreSQL whose data lives in
 * DATA_DIR and survives restarts. Pending migrations run before anything else, through MikroORM (its
 * Migrator, on connections of its own, closed once they are applied: the running process has one
 * pool, the Database's).
 */
export async function openDatabase(settings: DatabaseSettings, log: (line: string) => void): Promise<OpenDatabase> {
  let embedded: RunningPostgres | undefined;
  let clientUrl = settings.databaseUrl;
  if (!clientUrl) {
    embedded = await startEmbeddedPostgres({ dir: settings.dataDir, persistent: true, log });
    clientUrl = await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  }
  // one host choice for the migrator, the pool and the LISTEN connection: they all use the primary found
  let hosts: DatabaseHosts;
  try {
    hosts = new DatabaseHosts(clientUrl);
    await migrate((await hosts.primary()).url, log);
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
  const db = new Database({
    connectionString: clientUrl,
    hosts,
    poolSize: settings.databasePoolSize,
    failoverWaitMs: settings.databaseFailoverWaitMs,
    preparedStatements: settings.preparedStatements !== 'off',
  });
  // the probe says whether the database is there now: it does not wait for a primary
  watchDatabase(() => db.rows('select 1', [], { failoverWait: false }));
  const replicas = settings.databaseReplicaUrl
    ? new ReadReplicas(db, {
        replicaUrl: settings.databaseReplicaUrl,
        poolSize: settings.databasePoolSize,
        waitMs: settings.replicaWaitMs ?? 500,
        maxLagMs: settings.replicaMaxLagMs ?? 5000,
      })
    : undefined;
  // a standby away at start is no reason not to start: its reads go to the primary until it is back
  await replicas?.start();
  return {
    db,
    replicas,
    clientUrl,
    async close() {
      watchDatabase(undefined);
      await replicas?.close();
      await db.close();
      if (embedded) {
        log('stopping the embedded PostgreSQL');
        await embedded.stop();
      }
    },
  };
}

/**
 * Applies the pending migrations (MikroORM's Migrator) on connections of its own, closed when done; `clientUrl`
 * names one host (MikroORM's connection options take no host list: "TypeError: Invalid URL").
 */
async function migrate(clientUrl: string, log: (line: string) => void): Promise<void> {
  const orm = await MikroORM.init(makeOrmConfig({ clientUrl, poolMax: 2, preferTs: path.extname(__filename) === '.ts' }));
  try {
    const applied = await orm.getMigrator().up();
    if (applied.length) log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  } finally {
    await orm.close();
  }
}
