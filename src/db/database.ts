import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import path from 'node:path';
import type { Settings } from '../config/settings';
import { watchDatabase } from './availability';
import { startEmbeddedPostgres, RunningPostgres } from './embedded-postgres';
import { makeOrmConfig } from './orm-config';
import { stopJournalSignal } from './journal-signal';

export interface Database {
  orm: MikroORM;
  clientUrl: string;
  close(): Promise<void>;
}

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

/**
 * Opens the service's database: DATABASE_URL when given, otherwise an embedded PostgreSQL whose data lives in
 * DATA_DIR and survives restarts. Pending migrations run before anything else.
 */
export async function openDatabase(settings: Settings, log: (line: string) => void): Promise<Database> {
  let embedded: RunningPostgres | undefined;
  let clientUrl = settings.databaseUrl;
  if (!clientUrl) {
    embedded = await startEmbeddedPostgres({ dir: settings.dataDir, persistent: true, log });
    clientUrl = await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  }
  const orm = await MikroORM.init(makeOrmConfig({ clientUrl, preferTs: path.extname(__filename) === '.ts' }));
  try {
    const applied = await orm.getMigrator().up();
    if (applied.length) log(`applied migrations: ${applied.map((m) => m.name).join(', ')}`);
  } catch (error) {
    await orm.close();
    await embedded?.stop();
    throw error;
  }
  watchDatabase(() => orm.em.fork().getConnection().execute('select 1'));
  return {
    orm,
    clientUrl,
    async close() {
      watchDatabase(undefined);
      await stopJournalSignal(orm.em.getConnection());
      await orm.close();
      if (embedded) {
        log('stopping the embedded PostgreSQL');
        await embedded.stop();
      }
    },
  };
}
