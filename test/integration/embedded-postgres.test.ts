import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { EmbeddedPostgresError, startEmbeddedPostgres } from '../../src/db/embedded-postgres';
import { freePort } from '../support/free-port';

/** The embedded PostgreSQL of `npm start`: persistent data, and one clear line when it cannot start. */
const tempDir = () => mkdtempSync(path.join(os.tmpdir(), 'zk-embedded-'));

test('keeps its data across a restart', async () => {
  const dir = tempDir();
  const first = await startEmbeddedPostgres({ dir, persistent: true, fast: true });
  let client = new Client({ connectionString: first.adminUrl });
  await client.connect();
  await client.query('create table kept (v text)');
  await client.query(`insert into kept values ('still here')`);
  await client.end();
  await first.stop();

  const second = await startEmbeddedPostgres({ dir, persistent: true, fast: true });
  client = new Client({ connectionString: second.adminUrl });
  await client.connect();
  const { rows } = await client.query('select v from kept');
  await client.end();
  await second.stop();
  expect(rows).toEqual([{ v: 'still here' }]);
}, 120_000);

test('refuses a folder already held by a running PostgreSQL, naming the process', async () => {
  const dir = tempDir();
  const running = await startEmbeddedPostgres({ dir, persistent: true, fast: true });
  try {
    const error = await startEmbeddedPostgres({ dir, persistent: true, fast: true }).catch((e) => e);
    expect(error).toBeInstanceOf(EmbeddedPostgresError);
    expect(error.message).toMatch(/is in use by PostgreSQL process \d+/);
    expect(error.message).not.toContain('\n');
  } finally {
    await running.stop();
  }
}, 120_000);

test('says in one line why a DATA_DIR that is not a usable folder cannot be used', async () => {
  const file = path.join(tempDir(), 'not-a-folder');
  writeFileSync(file, 'x');
  const error = await startEmbeddedPostgres({ dir: file, persistent: true }).catch((e) => e);
  expect(error).toBeInstanceOf(EmbeddedPostgresError);
  expect(error.message).toContain(file);
  expect(error.message).not.toContain('\n');
});

test("a postmaster that exits before it is ready: the line says why, from PostgreSQL's own log", async () => {
  const port = await freePort();
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
  try {
    const error = await startEmbeddedPostgres({ dir: tempDir(), persistent: false, fast: true, port }).catch((e) => e);
    expect(error).toBeInstanceOf(EmbeddedPostgresError);
    expect(error.message).toMatch(/cannot start in .*: postgres exited before it was ready: .*could not (bind|create any TCP\/IP sockets)/);
    expect(error.message).not.toContain('\n');
  } finally {
    await new Promise((resolve) => holder.close(resolve));
  }
}, 120_000);
