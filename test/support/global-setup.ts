import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startEmbeddedPostgres, RunningPostgres } from '../../src/db/embedded-postgres';

/**
 * One PostgreSQL for the whole run: the one named by TEST_DATABASE_ADMIN_URL (CI's service), or an embedded
 * cluster in a temporary folder. Each test file then makes its own database on it (test/support/test-db.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.TEST_DATABASE_ADMIN_URL) return;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-test-pg-'));
  const cluster: RunningPostgres = await startEmbeddedPostgres({ dir, persistent: false, fast: true });
  process.env.TEST_DATABASE_ADMIN_URL = cluster.adminUrl;
  (globalThis as { __zonekeeperTestPg?: RunningPostgres }).__zonekeeperTestPg = cluster;
}
