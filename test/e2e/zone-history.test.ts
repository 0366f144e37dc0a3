import { Client } from 'pg';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { Database } from '../../src/db/pool';
import { PropagationRepository } from '../../src/repositories/propagation';

/** Who changed what, the difference between serials, undo, and the history's retention. */
const APPLY = `mutation($zone: String!, $changes: [ZoneChangeInput!]!) { applyZoneChanges(zone: $zone, changes: $changes) { serial } }`;
const HISTORY = `query($z: String!, $first: Int, $after: String) { domain(name: $z) { serial changes(first: $first, after: $after) {
  totalCount pageInfo { hasNextPage endCursor }
  nodes { id kind serialBefore serialAfter createdAt author { keyId keyName userId admin } added { owner type rdata ttl } removed { owner type rdata ttl } } } } }`;

let app: TestApp;
let userId: string;
let userKey: string;
beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'history@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, 'hist.example');
});
afterAll(async () => app.close());

const records = async (zone: string) => {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { serial records { owner type rdata ttl } } }`, { z: zone });
  return {
    serial: res.data.domain.serial as number,
    set: (res.data.domain.records as any[])
      .filter((r) => r.type !== 'SOA')
      .map((r) => `${r.owner} ${r.type} ${r.rdata} ${r.ttl}`)
      .sort(),
  };
};

test('each change is in the history, newest first, with its author and its records', async () => {
  const created = await records('hist.example');
  await app.gql(CREATE_RECORD, { input: { zone: 'hist.example', owner: 'a', type: 'A', rdata: '192.0.2.1', ttl: 3600 } }, userKey);
  await app.gql(APPLY, {
    zone: 'hist.example',
    changes: [
      { kind: 'ADD', owner: 'b', type: 'A', rdata: '192.0.2.2', ttl: 3600 },
      { kind: 'REMOVE', owner: 'a', type: 'A', rdata: '192.0.2.1' },
    ],
  });
  const res = await app.gql(HISTORY, { z: 'hist.example', first: 10 });
  expect(res.errors).toBeUndefined();
  const { nodes, totalCount } = res.data.domain.changes;
  expect(totalCount).toBe(3);
  expect(nodes.map((n: any) => n.kind)).toEqual(['zone-changed', 'zone-changed', 'zone-created']);
  // newest: the admin's change set
  expect(nodes[0].author).toMatchObject({ admin: true, userId: null });
  expect(nodes[0].author.keyId).toBeTruthy();
  expect(nodes[0].added.filter((r: any) => r.type !== 'SOA')).toEqual([{ owner: 'b', type: 'A', rdata: '192.0.2.2', ttl: 3600 }]);
  expect(nodes[0].removed.filter((r: any) => r.type !== 'SOA')).toEqual([{ owner: 'a', type: 'A', rdata: '192.0.2.1', ttl: 3600 }]);
  expect(nodes[0].serialBefore).toBe(nodes[1].serialAfter);
  // the user's key, with its name and user
  expect(nodes[1].author).toEqual({ keyId: expect.any(String), keyName: 'test', userId, admin: false });
  expect(nodes[2].serialAfter).toBe(created.serial);
  expect(nodes[2].author).toBeNull();

  // keyset pages
  const page1 = await app.gql(HISTORY, { z: 'hist.example', first: 2 });
  expect(page1.data.domain.changes.pageInfo.hasNextPage).toBe(true);
  const page2 = await app.gql(HISTORY, { z: 'hist.example', first: 2, after: page1.data.domain.changes.pageInfo.endCursor });
  expect(page2.data.domain.changes.nodes.map((n: any) => n.kind)).toEqual(['zone-created']);

  // REST
  const rest = await app.http.get('/api/domain/changes/hist.example').set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body.map((n: any) => n.id)).toEqual(nodes.map((n: any) => n.id));
});

test('diff between two serials, both ways; revert brings the records back as a new change', async () => {
  await createZone(app, userId, 'undo.example');
  const start = await records('undo.example');
  await app.gql(APPLY, {
    zone: 'undo.example',
    changes: [
      { kind: 'ADD', owner: 'x', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
      { kind: 'ADD', owner: 'y', type: 'TXT', rdata: '"y"', ttl: 3600 },
    ],
  });
  const middle = await records('undo.example');
  await app.gql(APPLY, {
    zone: 'undo.example',
    changes: [
      { kind: 'REPLACE_RRSET', owner: 'x', type: 'A', ttl: 300, rdatas: ['192.0.2.99'] },
      { kind: 'REMOVE', owner: 'www', type: 'CNAME', rdata: 'undo.example.' },
    ],
  });
  const end = await records('undo.example');

  const diff = await app.gql(
    `query($z: String!, $f: Serial!, $t: Serial) { domain(name: $z) { diff(fromSerial: $f, toSerial: $t) { added { owner type rdata ttl } removed { owner type rdata ttl } } } }`,
    { z: 'undo.example', f: start.serial, t: end.serial },
  );
  expect(diff.errors).toBeUndefined();
  const show = (list: any[]) => list.map((r) => `${r.owner} ${r.type} ${r.rdata} ${r.ttl}`).sort();
  expect(show(diff.data.domain.diff.added)).toEqual(['x A 192.0.2.99 300', 'y TXT "y" 3600']);
  expect(show(diff.data.domain.diff.removed)).toEqual(['www CNAME undo.example. 3600']);
  const backwards = await app.gql(
    `query($z: String!, $f: Serial!, $t: Serial) { domain(name: $z) { diff(fromSerial: $f, toSerial: $t) { added { owner } removed { owner } } } }`,
    { z: 'undo.example', f: end.serial, t: start.serial },
  );
  expect(backwards.data.domain.diff.added.map((r: any) => r.owner)).toEqual(['www']);

  const revert = await app.gql(
    `mutation($z: String!, $t: Serial!) { revertZone(zone: $z, toSerial: $t) { serial added { owner } removed { owner } } }`,
    { z: 'undo.example', t: middle.serial },
  );
  expect(revert.errors).toBeUndefined();
  const after = await records('undo.example');
  expect(after.set).toEqual(middle.set);
  expect(after.serial).toBeGreaterThan(end.serial);

  // a stale expectSerial, and a serial the history never had
  const stale = await app.gql(
    `mutation($z: String!, $t: Serial!, $e: Serial) { revertZone(zone: $z, toSerial: $t, expectSerial: $e) { serial } }`,
    { z: 'undo.example', t: start.serial, e: end.serial },
  );
  expect(errorCode(stale)).toBe('SERIAL_MISMATCH');
  const never = await app.gql(`mutation($z: String!, $t: Serial!) { revertZone(zone: $z, toSerial: $t) { serial } }`, {
    z: 'undo.example',
    t: 12345,
  });
  expect(errorCode(never)).toBe('HISTORY_EXPIRED');
  expect((await records('undo.example')).set).toEqual(middle.set);
});

test('retention: the worker prunes old and surplus rows, oldest first; an expired serial is 410 over REST and GraphQL', async () => {
  await createZone(app, userId, 'prune.example');
  const first = await records('prune.example');
  for (let i = 0; i < 5; i++)
    await app.gql(CREATE_RECORD, { input: { zone: 'prune.example', owner: `p${i}`, type: 'A', rdata: `192.0.2.${i + 1}`, ttl: 3600 } });
  const pool = new Database({ connectionString: app.service.settings.databaseUrl!, poolSize: 1 });
  const db = new Client({ connectionString: app.service.settings.databaseUrl });
  await db.connect();
  try {
    // every row published (the worker role does not run in this test app) and two days old
    await db.query(`update changes set published_at = now(), created_at = now() - interval '2 days' where zone = 'prune.example'`);
    const repository = new PropagationRepository(pool);
    // keep 3 rows per zone: the 3 oldest of 6 go; keep 1 day: all but the newest go
    expect(await repository.pruneJournal(30, 3)).toBeGreaterThanOrEqual(3);
    let kept = (await db.query(`select count(*)::int as n from changes where zone = 'prune.example'`)).rows[0].n;
    expect(kept).toBe(3);
    await repository.pruneJournal(1, 1000);
    kept = (await db.query(`select count(*)::int as n from changes where zone = 'prune.example'`)).rows[0].n;
    expect(kept).toBe(1);
  } finally {
    await db.end();
    await pool.close();
  }
  const expired = await app.gql(`query($z: String!, $f: Serial!) { domain(name: $z) { diff(fromSerial: $f) { added { owner } } } }`, {
    z: 'prune.example',
    f: first.serial,
  });
  expect(errorCode(expired)).toBe('HISTORY_EXPIRED');
  const rest = await app.http.get('/api/domain/changes/prune.example').set('X-API-Key', ADMIN_KEY);
  expect(rest.body.length).toBe(1);
});
