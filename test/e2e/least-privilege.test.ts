/**
 * Least-privilege keys over the HTTP API (docs/least-privilege.md): for each preset and for hand-written rules,
 * REST routes and GraphQL operations answer as the policy says, a refusal is 403 FORBIDDEN_BY_POLICY naming the
 * missing rule, and nothing a key may not touch changes (the zone's records are read back with the admin key).
 * Expired, idle and wrong-network keys are refused; a key never makes a key with more rights than its own.
 */
import { Client } from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { waitUntil } from '../support/wait-for';
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';

const ONE = 'lp-one.test';
const TWO = 'lp-two.test';

let app: TestApp;
let userId: string;
let db: Client;

/** a key of the user with a policy and/or a preset (made with the admin key unless `by` is given) */
async function makeKey(input: Record<string, unknown>, by?: string): Promise<string> {
  const res = await app.gql(
    `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id policy { restricted preset } } } }`,
    { input: { userId, name: 'lp', ...input } },
    by,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createApiKey.secret;
}

/** every record of a zone, as the admin key reads it: what a refusal must have left untouched */
async function zoneRecords(zone: string): Promise<string[]> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { records { owner type rdata } } }`, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain.records.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort();
}

const record = (zone: string, owner: string, type: string, rdata: string) => ({ zone, owner, type, rdata, ttl: 300 });

async function addRecord(key: string | undefined, zone: string, owner: string, type: string, rdata: string) {
  return app.gql(CREATE_RECORD, { input: record(zone, owner, type, rdata) }, key);
}

function expectForbidden(res: { errors?: any[] }, message: RegExp) {
  expect(errorCode(res)).toBe('FORBIDDEN_BY_POLICY');
  expect(res.errors![0].message).toMatch(message);
}

beforeAll(async () => {
  app = await startTestApp();
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  userId = await createUser(app, 'lp@example.org');
  await createZone(app, userId, ONE);
  await createZone(app, userId, TWO);
  for (const [zone, owner, type, rdata] of [
    [ONE, 'host', 'A', '192.0.2.1'],
    [ONE, '_acme-challenge.host', 'TXT', '"old-token"'],
    [ONE, 'dyn.fixed', 'TXT', '"fixed"'],
    [TWO, 'host', 'A', '192.0.2.2'],
  ]) {
    const res = await addRecord(undefined, zone, owner, type, rdata);
    if (res.errors) throw new Error(JSON.stringify(res.errors));
  }
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

describe('READ_ONLY preset', () => {
  let key: string;
  beforeAll(async () => {
    key = await makeKey({ preset: 'READ_ONLY' });
  });

  it('reads every zone of its user and every record', async () => {
    const res = await app.gql(`{ domains(first: 10) { totalCount nodes { name records(first: 50) { owner } } } }`, {}, key);
    expect(res.errors).toBeUndefined();
    expect(res.data.domains.nodes.map((d: any) => d.name).sort()).toEqual([ONE, TWO]);
    expect(res.data.domains.totalCount).toBe(2);
    const rest = await app.http.get('/api/record/list').query({ zone: ONE }).set('X-API-Key', key);
    expect(rest.status).toBe(200);
    const exported = await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ONE }, key);
    expect(exported.errors).toBeUndefined();
    expect(exported.data.exportZone).toContain('host');
  });

  it("does not reach another user's zone: an every-zone rule covers its own user's zones (404, not 403)", async () => {
    const other = await createUser(app, 'lp-other@example.org');
    await createZone(app, other, 'lp-three.test');
    const before = await zoneRecords('lp-three.test');
    expect(errorCode(await addRecord(key, 'lp-three.test', 'x', 'A', '192.0.2.50'))).toBe('ZONE_NOT_FOUND');
    const rest = await app.http
      .post('/api/record/add')
      .set('X-API-Key', key)
      .send({ zone: 'lp-three.test', owner: 'x', rtype: 'A', rdata: '192.0.2.50', ttl: 300 });
    expect(rest.status).toBe(404);
    expect(rest.body.error).toBe('ZONE_NOT_FOUND');
    expect(await zoneRecords('lp-three.test')).toEqual(before);
  });

  it('may not sign a zone, nor roll its keys: DNSSEC rewrites what the zone serves', async () => {
    const enable = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: ONE }, key);
    expectForbidden(enable, /no rule lets this key write DNSKEY at lp-one\.test/);
    const status = await app.gql(`query($z: String) { domain(name: $z) { dnssec { enabled } } }`, { z: ONE });
    expect(status.data.domain.dnssec.enabled).toBe(false);
  });

  it('changes nothing: records, change sets, zones and keys are refused with FORBIDDEN_BY_POLICY', async () => {
    const before = await zoneRecords(ONE);
    expectForbidden(await addRecord(key, ONE, 'new', 'A', '192.0.2.9'), /no rule lets this key write A at new\.lp-one\.test/);
    const rest = await app.http
      .post('/api/record/add')
      .set('X-API-Key', key)
      .type('form')
      .send({ zone: ONE, owner: 'new', rtype: 'A', rdata: '192.0.2.9', ttl: 300 });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error: 'FORBIDDEN_BY_POLICY', message: expect.stringContaining('write A at new.lp-one.test') });
    const list = await app.gql(`query($z: String) { records(zone: $z, owner: "host", type: "A") { nodes { id } } }`, { z: ONE }, key);
    const id = list.data.records.nodes[0].id;
    expect((await app.http.delete(`/api/record/delete/${id}`).set('X-API-Key', key)).status).toBe(403);
    expectForbidden(
      await app.gql(
        `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: REMOVE, id: "${id}"}]) { serial } }`,
        { z: ONE },
        key,
      ),
      /changes\[0\]: no rule lets this key write A at host\.lp-one\.test/,
    );
    expectForbidden(
      await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "lp-new.test"}) { id } }`, { u: userId }, key),
      /create zones/,
    );
    expect((await app.http.delete('/api/domain/delete').set('X-API-Key', key).query({ zone: TWO })).status).toBe(403);
    expectForbidden(await app.gql(`{ tsigKeys { id } }`, {}, key), /manage keys/);
    expectForbidden(
      await app.gql(`mutation($u: ID!) { updateUser(id: $u, input: {email: "taken@example.org"}) { id } }`, { u: userId }, key),
      /manage keys/,
    );
    expect(await zoneRecords(ONE)).toEqual(before);
    expect((await app.gql(`query($z: String) { domain(name: $z) { id } }`, { z: TWO })).errors).toBeUndefined();
  });
});

describe('ONE_ZONE preset', () => {
  let key: string;
  beforeAll(async () => {
    key = await makeKey({ preset: 'ONE_ZONE', zone: ONE });
  });

  it('sees only its zone: the other zone is neither listed, counted nor found', async () => {
    const res = await app.gql(`{ domains { totalCount nodes { name } } }`, {}, key);
    expect(res.data.domains).toEqual({ totalCount: 1, nodes: [{ name: ONE }] });
    const user = await app.gql(`query($u: ID) { user(id: $u) { domainsConnection { totalCount nodes { name } } } }`, { u: userId }, key);
    expect(user.errors).toBeUndefined();
    expect(user.data.user.domainsConnection).toEqual({ totalCount: 1, nodes: [{ name: ONE }] });
    const rest = await app.http.get('/api/domain/list').set('X-API-Key', key);
    expect(rest.status).toBe(200);
    expect(JSON.stringify(rest.body)).not.toContain(TWO);
    expect((await app.http.get('/api/domain/list/zone').query({ name: TWO }).set('X-API-Key', key)).status).toBe(404);
    expect(errorCode(await app.gql(`query($z: String) { records(zone: $z) { totalCount } }`, { z: TWO }, key))).toBeUndefined();
    expect((await app.gql(`query($z: String) { records(zone: $z) { totalCount } }`, { z: TWO }, key)).data.records.totalCount).toBe(0);
  });

  it('writes its zone, and nothing in the other', async () => {
    const before = await zoneRecords(TWO);
    const added = await addRecord(key, ONE, 'one-zone', 'A', '192.0.2.10');
    expect(added.errors).toBeUndefined();
    const set = await app.gql(
      `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: ADD, owner: "set", type: "TXT", rdata: "\\"x\\"", ttl: 300}]) { serial } }`,
      { z: ONE },
      key,
    );
    expect(set.errors).toBeUndefined();
    expect(errorCode(await addRecord(key, TWO, 'one-zone', 'A', '192.0.2.10'))).toBe('ZONE_NOT_FOUND');
    const rest = await app.http
      .post('/api/record/add')
      .set('X-API-Key', key)
      .type('form')
      .send({ zone: TWO, owner: 'x', rtype: 'A', rdata: '192.0.2.11', ttl: 300 });
    expect(rest.status).toBe(404);
    expect(await zoneRecords(TWO)).toEqual(before);
  });
});

describe('ACME preset', () => {
  let key: string;
  beforeAll(async () => {
    key = await makeKey({ preset: 'ACME' });
  });

  it('writes TXT at _acme-challenge names at any depth, in every zone of its user', async () => {
    for (const [zone, owner] of [
      [ONE, '_acme-challenge'],
      [ONE, '_acme-challenge.deep.www'],
      [TWO, '_acme-challenge.host'],
    ]) {
      const res = await addRecord(key, zone, owner, 'TXT', '"token"');
      expect(res.errors).toBeUndefined();
    }
  });

  it('reads and counts only the records its rule covers, in lists and nested fields alike', async () => {
    const top = await app.gql(`query($z: String) { records(zone: $z) { totalCount nodes { owner type } } }`, { z: ONE }, key);
    expect(top.errors).toBeUndefined();
    const owners = top.data.records.nodes.map((r: any) => `${r.owner} ${r.type}`);
    expect(owners.sort()).toEqual(['_acme-challenge TXT', '_acme-challenge.deep.www TXT', '_acme-challenge.host TXT']);
    expect(top.data.records.totalCount).toBe(3);
    const nested = await app.gql(
      `query($z: String) { domain(name: $z) { records { owner } recordsConnection { totalCount } } }`,
      { z: ONE },
      key,
    );
    expect(nested.data.domain.records).toHaveLength(3);
    expect(nested.data.domain.recordsConnection.totalCount).toBe(3);
    const rest = await app.http.get('/api/record/list').query({ zone: ONE }).set('X-API-Key', key);
    expect(rest.status).toBe(200);
    expect(JSON.stringify(rest.body)).not.toContain('192.0.2.1');
    // a record it may not read is not there for it
    const hidden = await app.gql(`query($z: String) { records(zone: $z, owner: "host") { nodes { id } } }`, { z: ONE });
    const hiddenId = hidden.data.records.nodes[0].id;
    expect((await app.http.get(`/api/record/list/${hiddenId}`).set('X-API-Key', key)).status).toBe(404);
    expect((await app.http.delete(`/api/record/delete/${hiddenId}`).set('X-API-Key', key)).status).toBe(404);
    expectForbidden(await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ONE }, key), /read every type at every name/);
  });

  it('refuses anything else, names the refused change of a set or import, and writes nothing', async () => {
    const before = await zoneRecords(ONE);
    expectForbidden(await addRecord(key, ONE, '_acme-challenge', 'A', '192.0.2.3'), /write A at _acme-challenge\.lp-one\.test/);
    expectForbidden(await addRecord(key, ONE, 'www', 'TXT', '"x"'), /write TXT at www\.lp-one\.test/);
    const set = await app.gql(
      `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [
          {kind: ADD, owner: "_acme-challenge.ok", type: "TXT", rdata: "\\"ok\\"", ttl: 300},
          {kind: ADD, owner: "www2", type: "A", rdata: "192.0.2.4", ttl: 300}]) { serial } }`,
      { z: ONE },
      key,
    );
    expectForbidden(set, /^changes\[1\]: no rule lets this key write A at www2\.lp-one\.test/);
    expect(set.errors![0].extensions.details.map((d: any) => d.field)).toEqual(['changes[1]']);
    const rest = await app.http
      .post(`/api/domain/changes/${ONE}`)
      .set('X-API-Key', key)
      .send({ changes: [{ kind: 'ADD', owner: 'www3', type: 'A', rdata: '192.0.2.5', ttl: 300 }] });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error: 'FORBIDDEN_BY_POLICY', details: [{ field: 'changes[0]', code: 'FORBIDDEN_BY_POLICY' }] });
    const imported = await app.gql(
      `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`,
      { z: ONE, t: `_acme-challenge.imp 300 IN TXT "imp"\nimp 300 IN A 192.0.2.6\n` },
      key,
    );
    expectForbidden(imported, /records\[1\]: no rule lets this key write A at imp\.lp-one\.test/);
    expect(await zoneRecords(ONE)).toEqual(before);
  });
});

describe('ACME preset over the other REST routes', () => {
  it('edits its own challenge record but cannot move it elsewhere; zone files and checks need the whole zone', async () => {
    const key = await makeKey({ preset: 'ACME', zone: ONE });
    const created = await addRecord(key, ONE, '_acme-challenge.edit', 'TXT', '"v1"');
    const id = created.data.createRecord.id;
    const edited = await app.http
      .put(`/api/record/edit/${id}`)
      .set('X-API-Key', key)
      .type('form')
      .send({ zone: ONE, owner: '_acme-challenge.edit', rtype: 'TXT', rdata: '"v2"', ttl: 300 });
    expect(edited.status).toBe(200);
    const before = await zoneRecords(ONE);
    const moved = await app.gql(
      `mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id } }`,
      { id, input: record(ONE, 'www-moved', 'A', '192.0.2.40') },
      key,
    );
    expectForbidden(moved, /write A at www-moved\.lp-one\.test/);
    expect((await app.http.get(`/api/domain/export/${ONE}`).set('X-API-Key', key)).status).toBe(403);
    expect((await app.http.get(`/api/domain/check/${ONE}`).set('X-API-Key', key)).status).toBe(403);
    const imported = await app.http
      .post(`/api/domain/import/${ONE}`)
      .set('X-API-Key', key)
      .send({ text: 'www-imported 300 IN A 192.0.2.41\n', mode: 'MERGE' });
    expect(imported.status).toBe(403);
    expect(imported.body.details[0]).toMatchObject({ field: 'records[0]', code: 'FORBIDDEN_BY_POLICY' });
    expect((await app.http.get(`/api/domain/status/${ONE}`).set('X-API-Key', key)).status).toBe(200);
    expect(await zoneRecords(ONE)).toEqual(before);
  });
});

describe('hand-written rules: most specific wins', () => {
  let key: string;
  beforeAll(async () => {
    key = await makeKey({
      policy: {
        rules: [
          { zone: ONE, access: 'READ' },
          { zone: ONE, owner: 'dyn.*', access: 'WRITE' },
          { zone: ONE, owner: 'dyn.fixed', types: ['TXT'], access: 'READ' },
        ],
      },
    });
  });

  it('shows its policy (never the secret again)', async () => {
    const res = await app.gql(`{ apiKeys { name policy { restricted preset rules { zone owner types access } } } }`);
    const mine = res.data.apiKeys.find((k: any) => JSON.stringify(k.policy.rules ?? []).includes('dyn.fixed'));
    expect(mine.policy).toEqual({
      restricted: true,
      preset: null,
      rules: [
        { zone: ONE, owner: null, types: null, access: 'READ' },
        { zone: ONE, owner: 'dyn.*', types: null, access: 'WRITE' },
        { zone: ONE, owner: 'dyn.fixed', types: ['TXT'], access: 'READ' },
      ],
    });
    expect(JSON.stringify(res.data.apiKeys)).not.toMatch(/zk_[A-Za-z0-9_-]{20}/);
  });

  it('writes under dyn, not the read-only name beneath it nor elsewhere', async () => {
    const before = await zoneRecords(ONE);
    expect((await addRecord(key, ONE, 'dyn.host', 'A', '192.0.2.20')).errors).toBeUndefined();
    expect((await addRecord(key, ONE, 'dyn.fixed', 'A', '192.0.2.21')).errors).toBeUndefined();
    expectForbidden(await addRecord(key, ONE, 'dyn.fixed', 'TXT', '"new"'), /write TXT at dyn\.fixed\.lp-one\.test/);
    expectForbidden(await addRecord(key, ONE, 'host', 'A', '192.0.2.22'), /write A at host\.lp-one\.test/);
    expect(errorCode(await addRecord(key, TWO, 'dyn.host', 'A', '192.0.2.23'))).toBe('ZONE_NOT_FOUND');
    const after = await zoneRecords(ONE);
    expect(after.filter((r) => !before.includes(r) && !r.startsWith('@ SOA')).sort()).toEqual([
      'dyn.fixed A 192.0.2.21',
      'dyn.host A 192.0.2.20',
    ]);
  });
});

describe('key limits', () => {
  it('refuses an expired key', async () => {
    const key = await makeKey({ policy: { expiresAt: new Date(Date.now() - 60_000).toISOString() } });
    const res = await app.http.get('/api/domain/list').set('X-API-Key', key);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'FORBIDDEN_BY_POLICY', message: expect.stringMatching(/expired/) });
    expectForbidden(await app.gql(`{ domains { totalCount } }`, {}, key), /expired/);
  });

  it('refuses a key unused for longer than its idle days, and keeps a used one', async () => {
    const idle = await makeKey({ policy: { idleDays: 1 } });
    await db.query(`update api_keys set created_at = now() - interval '3 days' where id = (select max(id) from api_keys)`);
    const res = await app.http.get('/api/domain/list').set('X-API-Key', idle);
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/not used for more than 1 days/);
    const used = await makeKey({ policy: { idleDays: 1 } });
    expect((await app.http.get('/api/domain/list').set('X-API-Key', used)).status).toBe(200);
    // the use is written beside the answer, not before it (UsageClock): wait for it rather than read it at once
    await waitUntil('the used key written as used', async () => {
      const { rows } = await db.query(`select last_used_at from api_keys where id = (select max(id) from api_keys)`);
      return rows[0].last_used_at !== null;
    });
  });

  it('refuses a key from outside its networks, and takes it from inside', async () => {
    const outside = await makeKey({ policy: { allowedNetworks: ['192.0.2.0/24'] } });
    const refused = await app.http.get('/api/domain/list').set('X-API-Key', outside);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/may not be used from .*127\.0\.0\.1/);
    const inside = await makeKey({ policy: { allowedNetworks: ['127.0.0.0/8', '::1/128'] } });
    expect((await app.http.get('/api/domain/list').set('X-API-Key', inside)).status).toBe(200);
  });
});

describe('a key never gets more than the key that makes it', () => {
  let manager: string;
  beforeAll(async () => {
    manager = await makeKey({ preset: 'ONE_ZONE', zone: ONE, policy: { mayManageKeys: true } });
  });

  it('makes keys within its own rights', async () => {
    const acme = await app.gql(
      `mutation($u: ID!, $z: String) { createApiKey(input: {userId: $u, name: "sub", preset: ACME, zone: $z}) { apiKey { policy { preset rules { zone owner types access } } } } }`,
      { u: userId, z: ONE },
      manager,
    );
    expect(acme.errors).toBeUndefined();
    expect(acme.data.createApiKey.apiKey.policy).toEqual({
      preset: 'ACME',
      rules: [{ zone: ONE, owner: '_acme-challenge.*', types: ['TXT'], access: 'WRITE' }],
    });
    const tsig = await app.http
      .post('/api/tsigkey/add')
      .set('X-API-Key', manager)
      .send({ name: 'sub-acme.lp-one.test', user_id: Number(userId), preset: 'acme', zone: ONE });
    expect(tsig.status).toBe(201);
    expect(tsig.body.policy).toMatchObject({ restricted: true, preset: 'ACME', may_manage_keys: false });
  });

  it('refuses escalation with 403 and makes no key', async () => {
    const count = async () => Number((await db.query('select count(*) as n from api_keys')).rows[0].n);
    const before = await count();
    const attempts = [
      { name: 'unrestricted' },
      { name: 'other zone', preset: 'ONE_ZONE', zone: TWO },
      { name: 'every zone', preset: 'READ_ONLY' },
      { name: 'zones', preset: 'ONE_ZONE', zone: ONE, policy: { mayCreateZones: true } },
    ];
    for (const input of attempts) {
      const res = await app.gql(
        `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`,
        { input: { userId, ...input } },
        manager,
      );
      expect({ name: input.name, code: errorCode(res) }).toEqual({ name: input.name, code: 'FORBIDDEN_BY_POLICY' });
    }
    const rest = await app.http
      .post('/api/tsigkey/add')
      .set('X-API-Key', manager)
      .send({ name: 'escalate.lp-one.test', user_id: Number(userId), policy: { rules: [{ access: 'write' }] } });
    expect(rest.status).toBe(403);
    expect(rest.body.error).toBe('FORBIDDEN_BY_POLICY');
    expect(await count()).toBe(before);
    // nor revokes a key with more rights than its own
    const wider = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "wider"}) { apiKey { id } } }`, { u: userId });
    const revoke = await app.gql(`mutation($id: ID!) { revokeApiKey(id: $id) { id } }`, { id: wider.data.createApiKey.apiKey.id }, manager);
    expectForbidden(revoke, /may not revoke a key with more rights/);
    const noFlag = await makeKey({ preset: 'ONE_ZONE', zone: ONE });
    expectForbidden(
      await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "x", preset: ACME}) { secret } }`, { u: userId }, noFlag),
      /manage keys/,
    );
  });
});

describe('subscriptions', () => {
  it('an ACME key is told only of the records it may read; a zone it has no rule for is not there', async () => {
    const key = await makeKey({ preset: 'ACME', zone: ONE });
    const client = createClient({
      url: app.baseUrl.replace('http', 'ws') + '/graphql',
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': key },
      retryAttempts: 0,
    });
    try {
      const events: any[] = [];
      const other: any[] = [];
      const query = `subscription($z: String!) { zoneChanged(zone: $z) { change { added { owner type } } } }`;
      const sink = (into: any[]) => ({
        next: (e: any) => into.push(e),
        error: (e: any) => into.push({ errors: e }),
        complete: () => undefined,
      });
      const stop = client.subscribe({ query, variables: { z: ONE } }, sink(events));
      client.subscribe({ query, variables: { z: TWO } }, sink(other));
      await waitUntil('the subscription registered', () => app.service.services.liveUpdates.subscriberCount() >= 1);
      await waitUntil('the other zone refused', () => other.length >= 1);
      expect(JSON.stringify(other[0].errors)).toContain('ZONE_NOT_FOUND');
      const set = await app.gql(
        `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [
            {kind: ADD, owner: "sub-visible-not", type: "A", rdata: "192.0.2.30", ttl: 300},
            {kind: ADD, owner: "_acme-challenge.sub", type: "TXT", rdata: "\\"s\\"", ttl: 300}]) { serial } }`,
        { z: ONE },
      );
      expect(set.errors).toBeUndefined();
      await waitUntil('the change event', () => events.length >= 1);
      expect(events[0].data.zoneChanged.change.added).toEqual([{ owner: '_acme-challenge.sub', type: 'TXT' }]);
      stop();
    } finally {
      await client.dispose();
    }
  });
});
