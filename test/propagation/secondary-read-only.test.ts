/**
 * A secondary zone is read-only through every write API (docs/transfers.md): only its transfers from
 * its primaries write it. GraphQL and DNS UPDATE are asserted in secondary-zones.test.ts; here the REST API
 * (/api/record/*, /api/domain/changes, /api/domain/import), the PowerDNS API (PATCH of a zone's rrsets) and the
 * `zonekeeper` CLI (record add/edit/delete, zone apply/import), each with the zone's own user's key: every one
 * refused with an error naming the kind (ZONE_IS_SECONDARY), and the zone as its primary serves it.
 * The primary is a customer's BIND (test/support/bind-primary.ts).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createUserKey } from '../support/fixtures';
import { KeyArg } from '../support/update-clients';
import { BindPrimary, startBindPrimary } from '../support/bind-primary';
import { waitFor } from '../support/wait-for';
import { freePort } from './knot';

const ZONE = 'read-only-sec.zk.test';
const root = path.resolve(__dirname, '..', '..');
const ZONE_RECORDS = [`@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1'];

let app: TestApp;
let bind: BindPrimary | undefined;
let userKey: string;
let key: KeyArg;
let dir: string;
/** the zone's serial as it should be after each test: BIND's, until a test writes the zone itself */
let servedSerial = 7;

/** the zone's records as `owner type rdata` lines (the SOA left out), and the www A record's id */
async function zoneRecords(): Promise<{ lines: string[]; wwwId: string; serial: number }> {
  const res = await app.gql(
    `query($z: String!) { domain(name: $z) { serial } records(zone: $z, first: 100) { nodes { id owner type rdata } } }`,
    { z: ZONE },
    userKey,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  const nodes = res.data.records.nodes as { id: string; owner: string; type: string; rdata: string }[];
  return {
    lines: nodes
      .filter((r) => r.type !== 'SOA')
      .map((r) => `${r.owner} ${r.type} ${r.rdata}`)
      .sort(),
    wwwId: nodes.find((r) => r.owner === 'www' && r.type === 'A')!.id,
    serial: res.data.domain.serial,
  };
}

/** the message a refusal names the kind with */
const NAMES_THE_KIND = new RegExp(`zone ${ZONE.replace(/\./g, '\\.')}: The zone is of kind SECONDARY`);

/** the CLI (src/cli/main.ts) as a child process from the sources, with the zone's user's key */
function cli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--require', '@swc-node/register', path.join(root, 'src', 'cli', 'main.ts'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH, ZONEKEEPER_URL: app.baseUrl, ZONEKEEPER_API_KEY: userKey },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

beforeAll(async () => {
  app = await startTestApp({ ROLES: 'api,worker' });
  const userId = await createUser(app, 'customer@zk-read-only.test');
  userKey = await createUserKey(app, userId);
  key = await createTsigKey(app, userId, 'customer-read-only-key');
  // its NOTIFYs go nowhere: the zone is taken at its creation, and nothing changes on BIND here
  bind = await startBindPrimary({
    zone: ZONE,
    records: ZONE_RECORDS,
    soa: { serial: 7, refresh: 3600, retry: 60, expire: 86400 },
    notifyPort: await freePort(),
    tsig: key,
  });
  const created = await app.gql(
    `mutation($u: ID!, $z: String!, $p: [ServerInput!]) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id } }`,
    { u: userId, z: ZONE, p: [{ address: '127.0.0.1', port: bind.port, tsigKeyName: key.name }] },
  );
  expect(created.errors).toBeUndefined();
  await waitFor('the zone transferred', async () => ((await zoneRecords()).serial === 7 ? true : undefined));
  dir = mkdtempSync(path.join(os.tmpdir(), 'zk-read-only-'));
}, 60_000);

afterAll(async () => {
  await bind?.stop();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** after each refusal: nothing written, the zone as BIND serves it */
afterEach(async () => {
  const now = await zoneRecords();
  expect(now.serial).toBe(servedSerial);
  expect(now.lines).toEqual(['@ NS ns1.read-only-sec.zk.test.', 'ns1 A 192.0.2.53', 'www A 192.0.2.1']);
});

test('REST: record add, edit and delete, a change set and an import are refused 409 ZONE_IS_SECONDARY', async () => {
  const { wwwId } = await zoneRecords();
  const auth = { 'X-API-Key': userKey };
  const record = { zone: ZONE, owner: 'mine', rtype: 'A', rdata: '192.0.2.9', ttl: 300 };
  const answers = {
    add: await app.http.post('/api/record/add').set(auth).type('form').send(record),
    edit: await app.http
      .put(`/api/record/edit/${wwwId}`)
      .set(auth)
      .type('form')
      .send({ ...record, owner: 'www' }),
    delete: await app.http.delete(`/api/record/delete/${wwwId}`).set(auth),
    changes: await app.http
      .post(`/api/domain/changes/${ZONE}`)
      .set(auth)
      .send({ changes: [{ kind: 'ADD', owner: 'mine', type: 'A', rdata: '192.0.2.9', ttl: 300 }] }),
    import: await app.http
      .post(`/api/domain/import/${ZONE}`)
      .set(auth)
      .type('form')
      .send({ text: 'mine 300 IN A 192.0.2.9\n', mode: 'MERGE' }),
  };
  for (const [call, res] of Object.entries(answers)) {
    expect({ call, status: res.status, error: res.body.error }).toEqual({ call, status: 409, error: 'ZONE_IS_SECONDARY' });
    expect(res.body.message).toMatch(NAMES_THE_KIND);
  }
});

test('PowerDNS API: PATCH of the zone’s rrsets (REPLACE, DELETE) is refused 422 {"error"} naming the kind', async () => {
  const patch = (rrsets: unknown[]) =>
    app.http
      .patch(`/api/v1/servers/localhost/zones/${ZONE}.`)
      .set('X-API-Key', userKey)
      .set('content-type', 'application/json')
      .send({ rrsets });
  const replace = await patch([
    { name: `mine.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.9', disabled: false }] },
  ]);
  const remove = await patch([{ name: `www.${ZONE}.`, type: 'A', changetype: 'DELETE' }]);
  for (const [call, res] of Object.entries({ replace, remove })) {
    expect({ call, status: res.status }).toEqual({ call, status: 422 });
    expect(Object.keys(res.body)).toEqual(['error']);
    expect(res.body.error).toMatch(NAMES_THE_KIND);
  }
  // and the zone reads as PowerDNS shows a secondary zone
  const zone = await app.http.get(`/api/v1/servers/localhost/zones/${ZONE}.`).set('X-API-Key', userKey);
  expect(zone.status).toBe(200);
  expect(zone.body.kind).toBe('Slave');
});

test('CLI: record add, edit and delete, zone apply and zone import exit 1 with ZONE_IS_SECONDARY on stderr', async () => {
  const { wwwId } = await zoneRecords();
  const changes = path.join(dir, 'changes.json');
  writeFileSync(changes, JSON.stringify([{ kind: 'ADD', owner: 'mine', type: 'A', rdata: '192.0.2.9', ttl: 300 }]));
  const file = path.join(dir, 'mine.zone');
  writeFileSync(file, 'mine 300 IN A 192.0.2.9\n');
  const runs = {
    'record add': await cli(['record', 'add', ZONE, 'mine', 'A', '192.0.2.9', '--ttl', '300']),
    'record edit': await cli(['record', 'edit', wwwId, ZONE, 'www', 'A', '192.0.2.9', '--ttl', '300']),
    'record delete': await cli(['record', 'delete', wwwId, '--yes']),
    'zone apply': await cli(['zone', 'apply', ZONE, changes]),
    'zone import': await cli(['zone', 'import', ZONE, file, '--merge']),
  };
  for (const [command, run] of Object.entries(runs)) {
    expect({ command, code: run.code, out: run.out }).toEqual({ command, code: 1, out: '' });
    expect(run.err).toMatch(/^error: ZONE_IS_SECONDARY: /);
    expect(run.err).toMatch(NAMES_THE_KIND);
  }
});

test('PowerDNS API: a secondary zone shows its primaries as masters; PUT kind Master promotes it (PowerDNS’s kind change), and then PATCHes are taken', async () => {
  const pdns = `/api/v1/servers/localhost/zones/${ZONE}.`;
  const before = await app.http.get(pdns).set('X-API-Key', userKey);
  expect(before.body).toMatchObject({ kind: 'Slave', masters: [`127.0.0.1:${bind!.port}`] });
  const listed = await app.http.get(`/api/v1/servers/localhost/zones?zone=${ZONE}.`).set('X-API-Key', userKey);
  expect(listed.body).toEqual([expect.objectContaining({ kind: 'Slave', masters: [`127.0.0.1:${bind!.port}`] })]);
  // Slave again changes nothing; Master is the way off the primary (promoteZone): records and serial stay
  expect((await app.http.put(pdns).set('X-API-Key', userKey).send({ kind: 'Slave' })).status).toBe(204);
  expect((await app.http.get(pdns).set('X-API-Key', userKey)).body.kind).toBe('Slave');
  expect((await app.http.put(pdns).set('X-API-Key', userKey).send({ kind: 'Master' })).status).toBe(204);
  const after = await app.http.get(pdns).set('X-API-Key', userKey);
  expect(after.body).toMatchObject({ kind: 'Master', masters: [] });
  // a primary zone cannot be made a secondary one (a secondary zone is created as one, naming its primaries)
  const back = await app.http.put(pdns).set('X-API-Key', userKey).send({ kind: 'Slave' });
  expect(back.status).toBe(422);
  expect(back.body.error).toMatch(/stays a primary zone/);
  // written here from now on; the record goes again, so the zone reads as its primary served it (afterEach)
  const patch = (rrsets: unknown[]) =>
    app.http.patch(pdns).set('X-API-Key', userKey).set('content-type', 'application/json').send({ rrsets });
  expect(
    (await patch([{ name: `mine.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.9' }] }])).status,
  ).toBe(204);
  expect((await zoneRecords()).lines).toContain('mine A 192.0.2.9');
  expect((await patch([{ name: `mine.${ZONE}.`, type: 'A', changetype: 'DELETE' }])).status).toBe(204);
  // two changes of ours: two serial steps past BIND's
  servedSerial = (await zoneRecords()).serial;
  expect(servedSerial).toBeGreaterThan(7);
});

test("PowerDNS API: a secondary zone made as PowerDNS makes one (kind Slave, masters, slave_tsig_key_ids) is taken from its primary with the key; a user's key may not name a loopback primary", async () => {
  const zone = 'pdns-made-sec.zk.test';
  const primary = await startBindPrimary({
    zone,
    records: [`@ NS ns1.${zone}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.2'],
    soa: { serial: 11, refresh: 3600, retry: 60, expire: 86400 },
    notifyPort: await freePort(),
    tsig: key,
  });
  try {
    const zones = '/api/v1/servers/localhost/zones';
    const body = { name: `${zone}.`, kind: 'Slave', masters: [`127.0.0.1:${primary.port}`], slave_tsig_key_ids: [`${key.name}.`] };
    // the outbound rule of secondary zones (docs/transfers.md): this host is the admin's to name, not a user's
    const refused = await app.http.post(zones).set('X-API-Key', userKey).send(body);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatch(/primaries\[0\]\.address: 127\.0\.0\.1 is a loopback.*TRANSFER_SERVERS_ALLOW/);
    // the admin key makes it for the user (`account`), read back as PowerDNS reads a secondary zone never taken
    const created = await app.http
      .post(zones)
      .set('X-API-Key', ADMIN_KEY)
      .send({ ...body, account: 'customer@zk-read-only.test' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'Slave', serial: 0, rrsets: [], slave_tsig_key_ids: [`${key.name}.`] });
    const taken = await waitFor('the zone taken from BIND', async () => {
      const zoneNow = await app.http.get(`${zones}/${zone}.`).set('X-API-Key', userKey);
      return zoneNow.body.serial === 11 ? zoneNow.body : undefined;
    });
    expect(taken.rrsets).toContainEqual(
      expect.objectContaining({ name: `www.${zone}.`, type: 'A', records: [{ content: '192.0.2.2', disabled: false }] }),
    );
  } finally {
    await primary.stop();
  }
});
