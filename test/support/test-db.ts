import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { makeOrmConfig } from '../../src/db/orm-config';

const MIGRATIONS = path.join(__dirname, '..', '..', 'src', 'migrations');

/**
 * The name of a database that holds every migration of this tree, made once per PostgreSQL server: named by a
 * digest of the migrations' files, so that a changed or added migration makes a new one.
 */
function templateName(): string {
  const digest = createHash('sha256');
  for (const file of readdirSync(MIGRATIONS)
    .filter((name) => name.endsWith('.ts'))
    .sort())
    digest.update(file).update(readFileSync(path.join(MIGRATIONS, file)));
  return `zk_template_${digest.digest('hex').slice(0, 16)}`;
}

/**
 * Makes the migrated template on this server unless it is there (under an advisory lock, so that two runs on one
 * server make it once): its migrations run as the service's start runs them, through MikroORM's migrator.
 */
async function ensureTemplate(admin: Client, adminUrl: string): Promise<string> {
  const template = templateName();
  await admin.query(`select pg_advisory_lock(hashtext('zonekeeper test template'))`);
  try {
    const { rowCount } = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (rowCount) return template;
    const building = `${template}_building`;
    await admin.query(`drop database if exists "${building}" with (force)`);
    await admin.query(`create database "${building}"`);
    const url = new URL(adminUrl);
    url.pathname = `/${building}`;
    const orm = await MikroORM.init(makeOrmConfig({ clientUrl: url.toString(), poolMax: 2, preferTs: true }));
    try {
      await orm.getMigrator().up();
    } finally {
      await orm.close();
    }
    await admin.query(`alter database "${building}" rename to "${template}"`);
    return template;
  } finally {
    await admin.query(`select pg_advisory_unlock(hashtext('zonekeeper test template'))`);
  }
}

/**
 * A database of its own for one test file, on the run's PostgreSQL (see global-setup.ts). Empty, or with
 * `migrated`, a copy of a template that holds every migration already (the service's start then finds none
 * pending): the tests that start the service in their own process take the copy, which saves the half second
 * the migrations take at each start; the tests of a first start (its migrations, its log) take an empty one.
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_ADMIN_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_ADMIN_URL is not set: run the tests through jest (globalSetup)');
  const name = `zk_test_${process.env.JEST_WORKER_ID ?? 0}_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const template = options.migrated ? await ensureTemplate(admin, adminUrl) : undefined;
    await admin.query(template ? `create database "${name}" template "${template}"` : `create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    },
  };
}
