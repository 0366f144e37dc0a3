import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { sleep, waitFor } from '../support/wait-for';
import { nsupdate } from '../support/update-clients';
import { pruneAuditEvents } from '../../src/repositories/audit-events';

/**
 * The audit log (docs/audit-log.md). Each event appears once (a key created, revoked, first used; admin
 * actions), failed authentications are summarised per source address and minute, and only the admin key
 * reads it (GraphQL, REST). The real server with its DNS primary (TSIG keys) on its own PostgreSQL database.
 */
let app: TestApp;
let dnsPort: number;

const EVENTS = `query($kind: String, $since: DateTimeISO, $first: Int!, $after: String) {
  auditEvents(kind: $kind, since: $since, first: $first, after: $after) {
    nodes { id at kind actorKeyType actorKeyId actorKeyName actorUserId actorAdmin subject detail sourceAddress count }
    pageInfo { hasNextPage endCursor } totalCount } }`;

async function events(kind: string, subject?: string): Promise<any[]> {
  const res = await app.gql(EVENTS, { kind, first: 1000 });
  expect(res.errors).toBeUndefined();
  return res.data.auditEvents.nodes.filter((e: any) => subject === undefined || e.subject === subject);
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
});
afterAll(async () => app?.close());

describe('API keys', () => {
  let userId: string;
  let keyId: string;
  let secret: string;

  beforeAll(async () => {
    userId = await createUser(app, 'keys@example.org');
  });

  it('a key made by the admin for a user: one api-key-created event, naming both, without the secret', async () => {
    const res = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "ci"}) { secret apiKey { id firstUsedAt } } }`, {
      u: userId,
    });
    expect(res.errors).toBeUndefined();
    ({ secret } = res.data.createApiKey);
    keyId = res.data.createApiKey.apiKey.id;
    expect(res.data.createApiKey.apiKey.firstUsedAt).toBeNull();
    const created = await events('api-key-created', `api-key:${keyId}`);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      actorAdmin: true,
      actorKeyType: 'api',
      actorUserId: null,
      detail: { name: 'ci', userId: Number(userId) },
    });
    expect(JSON.stringify(created)).not.toContain(secret);
  });

  it('its first use is recorded once, however often it is used', async () => {
    for (let i = 0; i < 3; i++) expect((await app.http.get('/api/domain/list').set('X-API-Key', secret)).status).toBe(200);
    const used = await events('api-key-first-used', `api-key:${keyId}`);
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ actorKeyId: keyId, actorUserId: userId, actorAdmin: false, sourceAddress: '127.0.0.1' });
    const keys = await app.gql(`query($u: ID) { apiKeys(userId: $u) { id firstUsedAt } }`, { u: userId });
    expect(keys.data.apiKeys.find((k: any) => k.id === keyId).firstUsedAt).not.toBeNull();
  });

  it('a user key cannot read the audit log: 403 over REST, FORBIDDEN over GraphQL', async () => {
    const rest = await app.http.get('/api/audit').set('X-API-Key', secret);
    expect(rest.status).toBe(403);
    const gql = await app.gql(EVENTS, { first: 10 }, secret);
    expect(errorCode(gql)).toBe('FORBIDDEN');
    expect(gql.data?.auditEvents ?? null).toBeNull();
  });

  it('revoked by its user: one api-key-revoked event, not two when revoked again', async () => {
    const revoke = `mutation($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }`;
    expect((await app.gql(revoke, { id: keyId }, secret)).errors).toBeUndefined();
    expect((await app.gql(revoke, { id: keyId })).errors).toBeUndefined();
    const revoked = await events('api-key-revoked', `api-key:${keyId}`);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ actorKeyId: keyId, actorUserId: userId, actorAdmin: false });
  });
});

describe('failed authentications', () => {
  const total = async () => (await events('authentication-failed')).reduce((sum, e) => sum + e.count, 0);

  it('50 wrong keys from one address within a minute: one summarised event with count 50', async () => {
    // all 50 inside one minute: start at least 15 s before the next minute begins
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 45_000) await sleep(60_000 - intoMinute + 100);
    const since = new Date(Math.floor(Date.now() / 60_000) * 60_000);
    // distinct wrong keys (each read from the database) and one repeated (answered from the cache)
    const keys = [...Array.from({ length: 25 }, () => `zk_${randomBytes(16).toString('hex')}`), ...Array<string>(25).fill('zk_wrong')];
    const answers = await Promise.all(keys.map((key) => app.http.get('/api/domain/list').set('X-API-Key', key)));
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(401));
    // a request without a key is no attempt to authenticate: not counted
    expect((await app.http.get('/api/domain/list')).status).toBe(401);
    const rows = await waitFor('the summary of 50 failed authentications', async () => {
      const found = await events('authentication-failed');
      return found.length && found[0].count >= 50 ? found : undefined;
    });
    await sleep(1500); // another flush: nothing more comes
    const settled = await events('authentication-failed');
    expect(settled).toEqual(rows);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ count: 50, sourceAddress: '127.0.0.1', actorKeyId: null, at: since.toISOString() });
    // REST says the same
    const rest = await app.http.get('/api/audit').query({ kind: 'authentication-failed' }).set('X-API-Key', ADMIN_KEY);
    expect(rest.status).toBe(200);
    expect(rest.body).toEqual([expect.objectContaining({ kind: 'authentication-failed', count: 50, source_address: '127.0.0.1' })]);
  });

  it('a DNS request whose TSIG does not verify counts as a failed authentication too', async () => {
    const before = await total();
    const userId = await createUser(app, 'dns-fail@example.org');
    await createZone(app, userId, 'dns-fail.test');
    const res = await app.gql(`mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "fail-key"}) { secret } }`, { u: userId });
    const wrong = { name: 'fail-key', algorithm: 'hmac-sha256', secret: randomBytes(32).toString('base64') };
    expect(res.data.createTsigKey.secret).not.toBe(wrong.secret);
    const run = await nsupdate(dnsPort, wrong, ['zone dns-fail.test', 'update add x.dns-fail.test 300 A 192.0.2.1', 'send']);
    expect(`${run.stdout}${run.stderr}`).toMatch(/BADSIG|NOTAUTH|tsig/i);
    await waitFor('the DNS failure counted', async () => ((await total()) === before + 1 ? true : undefined));
  });
});

describe('TSIG keys', () => {
  it('created, first used (once), revoked: one event each', async () => {
    const userId = await createUser(app, 'tsig@example.org');
    await createZone(app, userId, 'tsig-audit.test');
    const userKey = await createUserKey(app, userId);
    const res = await app.gql(
      `mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "audit-key"}) { secret tsigKey { id name algorithm } } }`,
      { u: userId },
      userKey,
    );
    expect(res.errors).toBeUndefined();
    const { id } = res.data.createTsigKey.tsigKey;
    const key = { name: 'audit-key', algorithm: 'hmac-sha256', secret: res.data.createTsigKey.secret };
    const created = await events('tsig-key-created', `tsig-key:${id}`);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ actorAdmin: false, actorUserId: userId, detail: { name: 'audit-key', algorithm: 'hmac-sha256' } });

    for (const n of [1, 2]) {
      const run = await nsupdate(dnsPort, key, ['zone tsig-audit.test', `update add h${n}.tsig-audit.test 300 A 192.0.2.${n}`, 'send']);
      expect(run.code).toBe(0);
    }
    const used = await events('tsig-key-first-used', `tsig-key:${id}`);
    expect(used).toHaveLength(1);
    expect(used[0]).toMatchObject({ actorKeyType: 'tsig', actorKeyId: id, actorUserId: userId, sourceAddress: '127.0.0.1' });
    const listed = await app.gql(`query($u: ID) { tsigKeys(userId: $u) { id firstUsedAt } }`, { u: userId });
    expect(listed.data.tsigKeys[0].firstUsedAt).not.toBeNull();

    const revoke = `mutation($id: ID!) { revokeTsigKey(id: $id) { id } }`;
    expect((await app.gql(revoke, { id })).errors).toBeUndefined();
    expect((await app.gql(revoke, { id })).errors).toBeUndefined();
    const revoked = await events('tsig-key-revoked', `tsig-key:${id}`);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ actorAdmin: true });
  });
});

describe('admin actions', () => {
  it('user created, a zone of a user deleted by the admin, user deleted: one event each', async () => {
    const userId = await createUser(app, 'admin-acts@example.org');
    const userKey = await createUserKey(app, userId);
    await createZone(app, userId, 'own-delete.test', userKey);
    await createZone(app, userId, 'admin-delete.test', userKey);
    await createZone(app, userId, 'with-user.test', userKey);
    expect((await app.gql(`mutation { deleteDomain(zone: "own-delete.test") }`, {}, userKey)).errors).toBeUndefined();
    expect((await app.gql(`mutation { deleteDomain(zone: "admin-delete.test") }`)).errors).toBeUndefined();
    expect((await app.gql(`mutation($id: ID!) { deleteUser(id: $id) }`, { id: userId })).errors).toBeUndefined();

    const created = await events('user-created', `user:${userId}`);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ actorAdmin: true, detail: {} });
    // the user's own deletion is in the zone's history; the admin's is an admin action
    const zones = await events('zone-deleted-by-admin');
    expect(zones.map((e) => e.subject)).toEqual(['zone:admin-delete.test']);
    expect(zones[0]).toMatchObject({ actorAdmin: true, detail: { userId: Number(userId) } });
    const deleted = await events('user-deleted', `user:${userId}`);
    expect(deleted).toHaveLength(1);
    expect(deleted[0].detail).toEqual({ zones: ['with-user.test'] });
  });
});

describe('reading the log', () => {
  it('pages newest first, filters by kind and time, and refuses an unknown kind', async () => {
    const all = await app.gql(EVENTS, { first: 2 });
    expect(all.errors).toBeUndefined();
    const page = all.data.auditEvents;
    expect(page.nodes).toHaveLength(2);
    expect(Number(page.nodes[0].id)).toBeGreaterThan(Number(page.nodes[1].id));
    expect(page.pageInfo.hasNextPage).toBe(true);
    const next = await app.gql(EVENTS, { first: 2, after: page.pageInfo.endCursor });
    expect(Number(next.data.auditEvents.nodes[0].id)).toBeLessThan(Number(page.nodes[1].id));
    expect(next.data.auditEvents.totalCount).toBe(page.totalCount);

    const future = await app.gql(EVENTS, { first: 10, since: new Date(Date.now() + 3_600_000).toISOString() });
    expect(future.data.auditEvents.nodes).toEqual([]);

    const unknown = await app.gql(EVENTS, { first: 10, kind: 'no-such-kind' });
    expect(errorCode(unknown)).toBe('INVALID_INPUT');
    expect(unknown.errors![0].extensions.details[0]).toMatchObject({ field: 'kind' });
  });

  it('filters by zone, actor and a time range (the operator’s audit screen), counts following', async () => {
    const FILTERED = `query($zone: String, $actor: String, $since: DateTimeISO, $until: DateTimeISO) {
      auditEvents(zone: $zone, actor: $actor, since: $since, until: $until, first: 100) { totalCount nodes { kind subject actorKeyName } } }`;
    const byZone = await app.gql(FILTERED, { zone: 'Admin-Delete.TEST.' });
    expect(byZone.errors).toBeUndefined();
    expect(byZone.data.auditEvents).toEqual({
      totalCount: 1,
      nodes: [{ kind: 'zone-deleted-by-admin', subject: 'zone:admin-delete.test', actorKeyName: expect.any(String) }],
    });
    // the key made for keys@example.org is named "test" (fixtures): its events, and no other actor's
    const byActor = await app.gql(FILTERED, { actor: 'TES' });
    expect(byActor.errors).toBeUndefined();
    expect(byActor.data.auditEvents.nodes.length).toBeGreaterThan(0);
    for (const e of byActor.data.auditEvents.nodes) expect(e.actorKeyName?.toLowerCase()).toContain('tes');
    expect((await app.gql(FILTERED, { actor: 'nobody-acts-so' })).data.auditEvents).toEqual({ totalCount: 0, nodes: [] });
    const past = await app.gql(FILTERED, { until: new Date(Date.now() - 3_600_000).toISOString() });
    expect(past.data.auditEvents.totalCount).toBe(0);
    const window = await app.gql(FILTERED, {
      since: new Date(Date.now() - 3_600_000).toISOString(),
      until: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(window.data.auditEvents.totalCount).toBeGreaterThan(0);
    const badZone = await app.gql(FILTERED, { zone: 'not a zone' });
    expect(badZone.errors?.[0].extensions.details[0]).toMatchObject({ field: 'zone' });
  });

  it('a poller of the log (ETag, If-None-Match) sees each new event and each count added to a summary', async () => {
    const failures = async () => (await events('authentication-failed')).reduce((sum, e) => sum + e.count, 0);
    const poll = (etag?: string) => {
      const req = app.http.get('/api/audit').set('X-API-Key', ADMIN_KEY);
      return etag ? req.set('If-None-Match', etag) : req;
    };
    const failOnce = async () => {
      const before = await failures();
      expect((await app.http.get('/api/user/list').set('X-API-Key', 'zk_not_a_key')).status).toBe(401);
      await waitFor('the failure counted', async () => ((await failures()) === before + 1 ? true : undefined));
    };
    await failOnce();
    const first = await poll();
    expect(first.status).toBe(200);
    const etag = first.headers.etag;
    expect((await poll(etag)).status).toBe(304);
    // within the minute this adds to the summary row the first failure made (no new row, no new id)
    await failOnce();
    const afterCount = await poll(etag);
    expect(afterCount.status).toBe(200);
    await createUser(app, 'poll-audit@example.org');
    expect((await poll(afterCount.headers.etag)).status).toBe(200);
  });

  it('events older than HISTORY_KEEP_DAYS go with the history’s retention', async () => {
    const db = new Client({ connectionString: app.settings.databaseUrl });
    await db.connect();
    try {
      await db.query(`update audit_events set at = now() - interval '400 days' where kind = 'user-created'`);
      const kept = Number((await db.query(`select count(*) as n from audit_events`)).rows[0].n);
      const pruned = await pruneAuditEvents(app.service.database.db, app.settings.historyKeepDays);
      expect(pruned).toBeGreaterThan(0);
      expect(Number((await db.query(`select count(*) as n from audit_events`)).rows[0].n)).toBe(kept - pruned);
      expect((await db.query(`select count(*) as n from audit_events where kind = 'user-created'`)).rows[0].n).toBe('0');
    } finally {
      await db.end();
    }
  });
});

describe('refusals', () => {
  it('policy refusals and rate-limit hits are summarised per kind, key and minute, over GraphQL and REST alike', async () => {
    const userId = await createUser(app, 'refused@example.org');
    await createZone(app, userId, 'refused.test');
    const made = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`, {
      input: { userId, name: 'read-only', preset: 'READ_ONLY' },
    });
    expect(made.errors).toBeUndefined();
    const { secret, apiKey } = made.data.createApiKey;
    // three writes the policy refuses: two over GraphQL, one over REST
    for (let i = 0; i < 2; i++) {
      const res = await app.gql(
        `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`,
        { i: { zone: 'refused.test', owner: `r${i}`, type: 'A', ttl: 300, rdata: '192.0.2.1' } },
        secret,
      );
      expect(errorCode(res)).toBe('FORBIDDEN_BY_POLICY');
    }
    const rest = await app.http
      .post('/api/record/add')
      .set('X-API-Key', secret)
      .send({ zone: 'refused.test', owner: 'r3', rtype: 'A', ttl: '300', rdata: '192.0.2.1' });
    expect(rest.status).toBe(403);
    const rows = await waitFor('the summary of three policy refusals', async () => {
      const found = (await events('policy-refused')).filter((e) => String(e.actorKeyId) === String(apiKey.id));
      return found.length && found.reduce((sum, e) => sum + e.count, 0) >= 3 ? found : undefined;
    });
    expect(rows.reduce((sum, e) => sum + e.count, 0)).toBe(3);
    // one row a minute: two at most if the requests straddled a minute's end
    expect(rows.length).toBeLessThanOrEqual(2);
    expect(rows[0]).toMatchObject({
      actorKeyType: 'api',
      actorUserId: userId,
      detail: { message: expect.stringContaining('no rule lets this key') },
    });

    // the same key held to one request a second: the requests beyond it are answered 429 and summarised once
    const limited = await app.gql(
      `mutation($id: ID!) { setApiKeyRate(id: $id, input: {ratePerSecond: 1, rateBurst: 1}) { ratePerSecond } }`,
      { id: apiKey.id },
    );
    expect(limited.errors).toBeUndefined();
    const answers = await Promise.all([0, 1, 2].map(() => app.http.get('/api/domain/list').set('X-API-Key', secret)));
    const refused = answers.filter((a) => a.status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(2);
    await waitFor('the summary of the rate-limit hits', async () => {
      const found = (await events('rate-limited')).filter((e) => String(e.actorKeyId) === String(apiKey.id));
      return found.reduce((sum, e) => sum + e.count, 0) === refused ? true : undefined;
    });
  });
});
