/**
 * The health worker keeps storing its checks however long one store takes (src/worker/health.ts). Checks done
 * wait up to 200 ms to be stored together, one transaction at a time; a store held up (a slow or busy database)
 * must leave the checks done meanwhile to the next one, and the worker must go on checking and storing after it.
 * Here a store is held for three check intervals by a lock on the findings table, taken from another connection,
 * while four zones are checked every second from a root of the test's own (Knot); once the lock is let go, every
 * zone must be checked and stored again, and again after that.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { startKnotPrimary, type KnotPrimary } from '../support/knot-primary';
import { sleep, waitFor } from '../support/wait-for';
import { ADMIN_KEY, startTestApp, type TestApp } from '../support/test-app';

const ZONES = ['a.storing.test', 'b.storing.test', 'c.storing.test', 'd.storing.test'];

let app: TestApp;
let root: KnotPrimary;
let dir: string;
let databaseUrl = '';

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-health-storing-'));
  // a root that delegates nothing: each zone's check ends at once, NOT_DELEGATED (a finding to store each time)
  const rootFile = path.join(dir, 'root.zone');
  writeFileSync(
    rootFile,
    ['$ORIGIN .', '. 60 IN SOA a.root-servers. hostmaster.root-servers. 1 3600 600 86400 60', '. 60 IN NS a.root-servers.', ''].join('\n'),
  );
  root = await startKnotPrimary([{ zone: '.', file: rootFile }]);
  app = await startTestApp((url) => {
    databaseUrl = url;
    return {
      ROLES: 'api,worker',
      HEALTH_CHECK_INTERVAL: '1',
      HEALTH_ROOT_HINTS: `127.0.0.1:${root.port}`,
      HEALTH_QUERY_TIMEOUT_MS: '400',
    };
  });
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'health-storing@example.com' }).expect(201);
  for (const zone of ZONES)
    await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: user.body.id, zone }).expect(201);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await root?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** when each zone's last check was stored (null: never) */
async function checkedAt(): Promise<Map<string, Date | null>> {
  const rows = await app.service.database.db.rows(
    `select d.name, h.checked_at from domains d left join zone_health h on h.domain_id = d.id where d.name = any($1::text[])`,
    [ZONES],
  );
  return new Map(rows.map((r) => [r.name as string, r.checked_at as Date | null]));
}

/** waits until every zone has a check stored after `after` */
async function allCheckedAfter(after: Date, what: string): Promise<void> {
  let last = new Map<string, Date | null>();
  await waitFor(
    what,
    async () => {
      last = await checkedAt();
      return ZONES.every((zone) => (last.get(zone)?.getTime() ?? 0) > after.getTime()) ? true : undefined;
    },
    10_000,
    100,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}; checked at: ${JSON.stringify(Object.fromEntries(last))}`, { cause: error });
  });
}

test('checks done while a store is held up are stored after it, and the worker goes on storing', async () => {
  await allCheckedAfter(new Date(0), 'every zone to be checked once');
  // what each check stores: the root delegates none of them
  const findings = await app.service.database.db.rows(
    `select distinct f.code from zone_health_findings f join domains d on d.id = f.domain_id where d.name = any($1::text[])`,
    [ZONES],
  );
  expect(findings.map((f) => f.code)).toContain('NOT_DELEGATED');

  // a store held up for three intervals: its transaction waits on the findings table; checks go on beside it
  const blocker = new Client({ connectionString: databaseUrl });
  await blocker.connect();
  let released: Date;
  try {
    await blocker.query('begin');
    await blocker.query('lock table zone_health_findings in share mode');
    const heldFrom = new Date();
    await sleep(3000);
    // the worker did check beside the held store: its transaction waits for the lock
    const waiting = await blocker.query(
      `select count(*)::int as n from pg_locks where relation = 'zone_health_findings'::regclass and not granted`,
    );
    expect(waiting.rows[0].n).toBeGreaterThan(0);
    const during = await checkedAt();
    for (const zone of ZONES) expect(during.get(zone)!.getTime()).toBeLessThan(heldFrom.getTime() + 1000);
  } finally {
    await blocker.query('rollback');
    released = new Date();
    await blocker.end();
  }

  // every zone checked and stored after the store held up, and again after that
  await allCheckedAfter(released, 'every zone to be checked after the held store');
  const again = new Date();
  await allCheckedAfter(again, 'every zone to be checked once more');
}, 60_000);
