/**
 * The ALIAS/ANAME schedule (docs/templates-and-alias.md, «The flattening»): kept by the write engine as records
 * are written, so the worker's tick reads only the due rows, a bounded batch. No worker runs here: the test
 * leases as the worker does and reads the schedule rows. An ALIAS added is due at once; one not yet due is not
 * taken; the batch size bounds a lease; an edited target is due at once; a deleted ALIAS comes back `gone` (its
 * derived rows are to be removed) and its row is then forgotten; a zone made from a template gets its rows.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';
import { forgetAlias, leaseDueAliases } from '../../src/repositories/alias-refresh';
import type { Database } from '../../src/db/pool';

const ZONE = 'schedule.zk-alias.test';
let app: TestApp;
let db: Database;
let userId: string;

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api', ALIAS_RESOLVERS: '127.0.0.1:9' });
  db = app.service.database.db;
  userId = await createUser(app, 'owner@schedule.zk-alias.test');
  await createZone(app, userId, ZONE);
}, 60_000);
afterAll(async () => app?.close());

const ids = new Map<string, string>();
async function add(owner: string, type: string, rdata: string): Promise<void> {
  const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 300 } });
  expect(res.errors).toBeUndefined();
  ids.set(owner, res.data.createRecord.id);
}
const schedule = async () =>
  (
    await db.rows(
      `select r.owner, s.target, s.next_refresh_at <= now() as due from alias_refresh s
         join domains d on d.id = s.domain_id left join records r on r.id = s.record_id where d.name = $1 order by r.owner`,
      [ZONE],
    )
  ).map((r) => `${r.owner} ${r.target} ${r.due ? 'due' : 'later'}`);
const leased = async (limit: number) =>
  (await leaseDueAliases(db, limit, 60)).map((a) => `${a.owner ?? '-'} ${a.target ?? '-'}${a.gone ? ' gone' : ''}`).sort();

test('an ALIAS or ANAME written is scheduled in the same statement, due now; a person’s A is not', async () => {
  await add('a', 'ALIAS', 'a.cdn.example.');
  await add('b', 'ANAME', 'b.cdn.example.');
  await add('c', 'ALIAS', 'c.cdn.example.');
  await add('d', 'ALIAS', 'd.cdn.example.');
  await add('plain', 'A', '192.0.2.1');
  expect(await schedule()).toEqual(['a a.cdn.example. due', 'b b.cdn.example. due', 'c c.cdn.example. due', 'd d.cdn.example. due']);
});

test('a lease takes only due rows, at most the batch size, and a leased row is not due again until its lease ends', async () => {
  await db.rows(`update alias_refresh set next_refresh_at = now() + interval '1 hour' where record_id = any($1::bigint[])`, [
    [ids.get('c'), ids.get('d')],
  ]);
  const first = await leased(1);
  expect(first).toHaveLength(1);
  const second = await leased(10);
  // the other due row only: c and d are not due, the first one is leased
  expect([...first, ...second].sort()).toEqual(['a a.cdn.example.', 'b b.cdn.example.']);
  expect(await leased(10)).toEqual([]);
  expect(await schedule()).toEqual([
    'a a.cdn.example. later',
    'b b.cdn.example. later',
    'c c.cdn.example. later',
    'd d.cdn.example. later',
  ]);
});

test('an edited ALIAS is due at once; an edit of another record leaves the schedule alone', async () => {
  const update = (owner: string, rdata: string, ttl: number) =>
    app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { rdata } }`, {
      id: ids.get(owner),
      i: { zone: ZONE, owner, type: 'ALIAS', rdata, ttl },
    });
  expect((await update('c', 'c.cdn.example.', 900)).errors).toBeUndefined();
  // any edit of an ALIAS is asked at once (its owner may have moved; its derived TTL is the answers' anyway)
  expect(await leased(10)).toEqual(['c c.cdn.example.']);
  expect((await update('d', 'other.cdn.example.', 900)).errors).toBeUndefined();
  expect(await leased(10)).toEqual(['d other.cdn.example.']);
  // a person's A edited: no schedule row of its own, none touched
  const plain = await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { rdata } }`, {
    id: ids.get('plain'),
    i: { zone: ZONE, owner: 'plain', type: 'A', rdata: '192.0.2.2', ttl: 300 },
  });
  expect(plain.errors).toBeUndefined();
  expect(await leased(10)).toEqual([]);
});

test('a deleted ALIAS leaves its row due, taken as gone, then forgotten', async () => {
  const del = await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: ids.get('a') });
  expect(del.errors).toBeUndefined();
  const gone = await leaseDueAliases(db, 10, 60);
  expect(gone.map((a) => ({ recordId: String(a.recordId), gone: a.gone }))).toEqual([{ recordId: ids.get('a'), gone: true }]);
  await forgetAlias(db, gone[0].recordId);
  expect(await schedule()).toEqual(['b b.cdn.example. later', 'c c.cdn.example. later', 'd other.cdn.example. later']);
});

test('a zone made from a template that holds an ALIAS gets its schedule row with the zone', async () => {
  const template = await app.gql(`mutation($i: CreateRecordTemplateInput!) { createRecordTemplate(input: $i) { id } }`, {
    i: {
      name: 'cdn',
      records: [
        { owner: '@', type: 'SOA', rdata: 'ns1.example.net. hostmaster.example.net. 1 3600 900 604800 300' },
        { owner: '@', type: 'NS', rdata: 'ns1.example.net.' },
        { owner: '@', type: 'ALIAS', rdata: 'cdn.example.net.' },
      ],
    },
  });
  expect(template.errors).toBeUndefined();
  const zone = 'templated.zk-alias.test';
  const created = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z, template: "cdn"}) { id } }`, {
    u: userId,
    z: zone,
  });
  expect(created.errors).toBeUndefined();
  expect((await leaseDueAliases(db, 10, 60)).map((a) => `${a.zone} ${a.owner} ${a.target}`)).toEqual([`${zone} @ cdn.example.net.`]);
});
