import type { RunningPostgres } from '../../src/db/embedded-postgres';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { __zonekeeperTestPg?: RunningPostgres }).__zonekeeperTestPg?.stop();
}
