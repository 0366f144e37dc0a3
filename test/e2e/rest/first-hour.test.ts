/**
 * What a new user met in the first hour with the REST interface, each fixed: a zone file sent as a file part,
 * ids past 2^53 (never a 500), another user's object with a bad body (404, not 422), a change set that breaks
 * RDATA and a zone rule (every problem at once), the create-user answer's own created_at form, unquoted TXT
 * text with spaces (one string, not one per word).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUser, createUserKey, createZone } from '../../support/fixtures';

let app: TestApp;
let aliceKey: string;
let bobRecordId: number;
const BOB_ZONE = 'bob.first-hour.test';
const ALICE_ZONE = 'alice.first-hour.test';

beforeAll(async () => {
  app = await startTestApp();
  const alice = await createUser(app, 'alice@first-hour.test');
  const bob = await createUser(app, 'bob@first-hour.test');
  aliceKey = await createUserKey(app, alice);
  await createZone(app, alice, ALICE_ZONE);
  await createZone(app, bob, BOB_ZONE);
  const added = await app.http
    .post('/api/record/add')
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: BOB_ZONE, owner: 'host', rtype: 'A', rdata: '192.0.2.1', ttl: 3600 });
  bobRecordId = added.body.id;
}, 60_000);

afterAll(async () => {
  await app?.close();
});

test('a zone file uploaded as a file part (curl -F text=@file), as users send it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-upload-'));
  try {
    const file = path.join(dir, `${ALICE_ZONE}.zone`);
    writeFileSync(file, `$ORIGIN ${ALICE_ZONE}.\n$TTL 3600\nuploaded IN A 192.0.2.80\nuploaded IN TXT "from a file"\n`);
    const out = await new Promise<string>((resolve, reject) => {
      execFile(
        'curl',
        ['-s', '-H', `X-API-Key: ${aliceKey}`, '-F', `text=@${file}`, '-F', 'mode=merge', `${app.baseUrl}/api/domain/import/${ALICE_ZONE}`],
        (error, stdout) => (error ? reject(error) : resolve(stdout)),
      );
    });
    expect(JSON.parse(out)).toMatchObject({ zone: ALICE_ZONE, added: 2 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.each([
  ['get', '/api/record/list/18446744073709551616'],
  ['put', '/api/record/edit/18446744073709551616'],
  ['delete', '/api/record/delete/18446744073709551616'],
  ['get', '/api/user/list/18446744073709551616'],
  ['put', '/api/user/edit/18446744073709551616'],
  ['delete', '/api/user/delete/18446744073709551616'],
  ['get', '/api/domain/list/zone/18446744073709551616'],
  ['get', '/api/domain/list/user/18446744073709551616'],
  ['get', '/api/domain/export/18446744073709551616'],
  ['get', '/api/domain/status/18446744073709551616'],
  ['get', '/api/domain/changes/18446744073709551616'],
  ['post', '/api/tsigkey/revoke/18446744073709551616'],
])('%s %s: an id past 2^53 is a clear 4xx, never a 500', async (method, url) => {
  const res = await (app.http as any)[method](url).set('X-API-Key', ADMIN_KEY).send({});
  expect(res.status).toBeGreaterThanOrEqual(400);
  expect(res.status).toBeLessThan(500);
  expect(res.body.error).toMatch(/^[A-Z_]+$/);
});

test.each([
  ['post', `/api/domain/changes/${BOB_ZONE}`, {}],
  ['post', `/api/domain/import/${BOB_ZONE}`, {}],
  ['post', `/api/domain/changes/${BOB_ZONE}`, { changes: [{ kind: 'ADD', owner: 'x', type: 'A', rdata: 'not an address', ttl: 3600 }] }],
])("%s %s with a bad body, by another user: 404 (the zone's existence is not told)", async (method, url, body) => {
  const res = await (app.http as any)[method](url).set('X-API-Key', aliceKey).send(body);
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 404, error: 'ZONE_NOT_FOUND' });
});

test("PUT /api/record/edit/<another user's record> with a bad body: 404", async () => {
  const res = await app.http
    .put(`/api/record/edit/${bobRecordId}`)
    .set('X-API-Key', aliceKey)
    .send({ zone: BOB_ZONE, owner: 'host', rtype: 'A', rdata: 'bad', ttl: 'x' });
  expect({ status: res.status, error: res.body.error }).toEqual({ status: 404, error: 'RECORD_NOT_FOUND' });
});

test('a change set with bad RDATA, a CNAME beside data and a duplicate reports every problem at once', async () => {
  const res = await app.http
    .post(`/api/domain/changes/${ALICE_ZONE}`)
    .set('X-API-Key', aliceKey)
    .send({
      changes: [
        { kind: 'ADD', owner: 'box', type: 'A', rdata: '999.1.1.1', ttl: 3600 },
        // www holds the default CNAME: an A beside it breaks RFC 1034 §3.6.2
        { kind: 'ADD', owner: 'www', type: 'A', rdata: '192.0.2.7', ttl: 3600 },
        { kind: 'ADD', owner: 'twice', type: 'A', rdata: '192.0.2.8', ttl: 3600 },
        { kind: 'ADD', owner: 'twice', type: 'A', rdata: '192.0.2.8', ttl: 3600 },
      ],
    });
  expect(res.status).toBe(422);
  const fields = res.body.details.map((d: any) => d.field.split('.')[0]);
  expect(new Set(fields)).toEqual(new Set(['changes[0]', 'changes[1]', 'changes[3]']));
  // nothing of the set was written
  const records = await app.gql(`query($n: String) { domain(name: $n) { records(first: 100) { owner } } }`, { n: ALICE_ZONE });
  expect(records.data.domain.records.map((r: any) => r.owner)).not.toContain('twice');
});

test("the create-user answer's created_at: date and time separated by a space, with fractions; the listing's: the T form", async () => {
  const created = await app.http.post('/api/user/add').set('X-API-Key', ADMIN_KEY).type('form').send({ email: 'carol@first-hour.test' });
  expect(created.body.created_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/);
  const listed = await app.http.get(`/api/user/list/${created.body.id}`).set('X-API-Key', ADMIN_KEY);
  expect(listed.body.created_at).toBe(created.body.created_at.replace(' ', 'T'));
});

test('unquoted TXT text with spaces is one string (quoted text keeps the zone-file syntax)', async () => {
  const one = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .type('form')
    .send({ zone: ALICE_ZONE, owner: '@', rtype: 'TXT', rdata: 'v=spf1 include:_spf.example.net -all', ttl: 3600 });
  expect(one.body.rdata).toBe('"v=spf1 include:_spf.example.net -all"');
  const two = await app.http
    .post('/api/record/add')
    .set('X-API-Key', aliceKey)
    .type('form')
    .send({ zone: ALICE_ZONE, owner: 'two', rtype: 'TXT', rdata: '"first" "second"', ttl: 3600 });
  expect(two.body.rdata).toBe('"first" "second"');
});
