/**
 * Rate limits and quotas (README "Rate limits and quotas"), through the real HTTP server, the real DNS primary and
 * BIND's nsupdate, on a database of the test's own: 429 with Retry-After and the RateLimit / RateLimit-Policy
 * fields (draft-ietf-httpapi-ratelimit-headers), GraphQL RATE_LIMITED, a user's keys sharing the user's
 * bucket, DNS UPDATE REFUSED with its reason (RFC 8914 EDE), a zone's change rate on every edge, and quotas
 * that the database holds under concurrency with nothing written when refused.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createUserKey, createZone, CREATE_RECORD, errorCode } from '../support/fixtures';
import { findBinary } from '../propagation/knot';
import { freePort } from '../support/free-port';
import { KeyArg, runClient } from '../support/update-clients';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import http from 'node:http';
import pg from 'pg';

let app: TestApp;
let dnsPort: number;

/** the zone's change rate is low in this app (1 a second, 20 at once), so that the tests can reach it */
const ZONE_BURST = 20;

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    ZONE_CHANGES_PER_SECOND: '1',
    ZONE_CHANGES_BURST: String(ZONE_BURST),
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const SET_LIMITS = `mutation($id: ID!, $input: UserLimitsInput!) { setUserLimits(id: $id, input: $input) {
  ratePerSecond rateBurst maxZones maxRecordsPerZone zoneCount effective { ratePerSecond rateBurst maxZones maxRecordsPerZone } } }`;

async function setLimits(userId: string, input: Record<string, number | null>) {
  const res = await app.gql(SET_LIMITS, { id: userId, input });
  expect(res.errors).toBeUndefined();
  return res.data.setUserLimits;
}

async function keyOf(userId: string): Promise<{ id: string; secret: string }> {
  const res = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "k"}) { secret apiKey { id } } }`, { u: userId });
  expect(res.errors).toBeUndefined();
  return { id: res.data.createApiKey.apiKey.id, secret: res.data.createApiKey.secret };
}

/** the zones' and records' numbers as the admin reads them */
async function zoneCountOf(userId: string): Promise<number> {
  const res = await app.gql(`query($u: ID!) { user(id: $u) { domainsConnection(first: 1) { totalCount } limits { zoneCount } } }`, {
    u: userId,
  });
  expect(res.errors).toBeUndefined();
  // the counter the quota is checked against agrees with the rows
  expect(res.data.user.limits.zoneCount).toBe(res.data.user.domainsConnection.totalCount);
  return res.data.user.domainsConnection.totalCount;
}

async function zoneState(zone: string): Promise<{ serial: number; records: string[] }> {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { serial records { owner type rdata } } }`, { z: zone });
  expect(res.errors).toBeUndefined();
  return {
    serial: res.data.domain.serial,
    records: res.data.domain.records.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort(),
  };
}

/** nsupdate with -d, so that the answer (its RCODE and EDE) is in the output */
async function nsupdateDebug(key: KeyArg, zone: string, lines: string[], options: { port?: number; tcp?: boolean } = {}) {
  const run = await runClient(
    findBinary('nsupdate'),
    ['-d', ...(options.tcp ? ['-v'] : []), '-y', `${key.algorithm}:${key.name}:${key.secret}`],
    [`server 127.0.0.1 ${options.port ?? dnsPort}`, `zone ${zone}`, ...lines, 'send', ''].join('\n'),
  );
  return { ...run, output: run.stdout + run.stderr };
}

const metric = async (pattern: RegExp): Promise<number> => {
  const text = (await app.http.get('/metrics')).text;
  const match = pattern.exec(text);
  return match ? Number(match[1]) : 0;
};

describe('rate limits', () => {
  test('REST: within the bucket 200 with RateLimit fields, then 429 with Retry-After; the admin sets the limit', async () => {
    const userId = await createUser(app, 'rest@limits.test');
    const key = await createUserKey(app, userId);
    // the admin sets it over REST: 3 at once, 1 a second
    const set = await app.http.put(`/api/user/limits/${userId}`).set('X-API-Key', ADMIN_KEY).send({ rate_per_second: 1, rate_burst: 3 });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      rate_per_second: 1,
      rate_burst: 3,
      max_zones: null,
      effective: { rate_per_second: 1, rate_burst: 3 },
    });
    const before = await metric(/zonekeeper_rate_limited_total\{limit="user"\} (\d+)/);

    const answers = [];
    const took: number[] = [];
    for (let i = 0; i < 4; i++) {
      const started = Date.now();
      answers.push(await app.http.get(`/api/user/list/${userId}`).set('X-API-Key', key));
      took.push(Date.now() - started);
    }
    // a refusal is held RATE_LIMIT_REFUSAL_DELAY_MS (1 s) before it is sent
    expect(took[3]).toBeGreaterThanOrEqual(950);
    expect(answers.slice(0, 3).map((a) => a.status)).toEqual([200, 200, 200]);
    expect(answers[0].headers['ratelimit-policy']).toBe('"key";q=500;w=10, "user";q=3;w=3');
    expect(answers[0].headers.ratelimit).toMatch(/^"key";r=499;t=\d+, "user";r=2;t=\d+$/);
    expect(answers[2].headers.ratelimit).toMatch(/"user";r=0;t=[1-3]$/);

    const refused = answers[3];
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toBe('"key";q=500;w=10, "user";q=3;w=3');
    expect(refused.headers.ratelimit).toMatch(/"user";r=0;t=\d+$/);
    expect(refused.body).toMatchObject({ code: 429, error: 'RATE_LIMITED', details: [{ field: 'user', code: 'RATE_LIMITED' }] });
    expect(await metric(/zonekeeper_rate_limited_total\{limit="user"\} (\d+)/)).toBeGreaterThan(before);

    // health and metrics are never limited, and the admin key is not limited by the user's bucket
    expect((await app.http.get('/health')).status).toBe(200);
    expect((await app.http.get('/metrics')).status).toBe(200);
    const admin = await app.gql(`query($u: ID!) { user(id: $u) { id } }`, { u: userId });
    expect(admin.status).toBe(200);

    // after the refill, the user is served again
    await new Promise((resolve) => setTimeout(resolve, 1000 * Number(refused.headers['retry-after'])));
    expect((await app.http.get(`/api/user/list/${userId}`).set('X-API-Key', key)).status).toBe(200);
  });

  test('GraphQL: RATE_LIMITED with 429 and Retry-After; a wrong key is refused before any limit', async () => {
    const userId = await createUser(app, 'gql@limits.test');
    const key = await createUserKey(app, userId);
    await setLimits(userId, { ratePerSecond: 1, rateBurst: 2 });
    const query = `query { users(first: 1) { nodes { id } } }`;
    expect((await app.gql(query, {}, key)).status).toBe(200);
    expect((await app.gql(query, {}, key)).status).toBe(200);
    // both at once: a refusal is held RATE_LIMIT_REFUSAL_DELAY_MS (1 s), time enough for a token to come back
    const [refused, raw] = await Promise.all([
      app.gql(query, {}, key),
      app.http.post('/graphql').set('X-API-Key', key).set('content-type', 'application/json').send({ query }),
    ]);
    expect(refused.status).toBe(429);
    expect(errorCode(refused)).toBe('RATE_LIMITED');
    expect(refused.errors![0].extensions.details[0]).toMatchObject({ field: 'user', code: 'RATE_LIMITED' });
    expect(refused.errors![0].extensions.details[0].retryAfter).toBeGreaterThanOrEqual(1);
    expect(raw.status).toBe(429);
    expect(Number(raw.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(raw.headers['ratelimit-policy']).toContain('"user";q=2;w=2');
    // authentication first: a wrong key is 401, never 429
    expect((await app.gql(query, {}, 'not-a-key-of-anyone-0123456789')).status).toBe(401);
  });

  test("a user's keys share the user's bucket, and a key's own limit binds that key alone", async () => {
    const userId = await createUser(app, 'keys@limits.test');
    await setLimits(userId, { ratePerSecond: 1, rateBurst: 6 });
    const first = await keyOf(userId);
    const second = await keyOf(userId);
    // the first key's own bucket: 2 at once
    const rate = await app.gql(
      `mutation($id: ID!) { setApiKeyRate(id: $id, input: {ratePerSecond: 1, rateBurst: 2}) { ratePerSecond rateBurst } }`,
      {
        id: first.id,
      },
    );
    expect(rate.data.setApiKeyRate).toEqual({ ratePerSecond: 1, rateBurst: 2 });
    const get = (key: string) => app.http.get(`/api/user/list/${userId}`).set('X-API-Key', key);
    // all at once (a refusal is held 1 s, time for a token to come back): 3 with the first key, 5 with the second
    const answers = await Promise.all([...[1, 2, 3].map(() => get(first.secret)), ...[1, 2, 3, 4, 5].map(() => get(second.secret))]);
    const served = (list: typeof answers) => list.filter((a) => a.status === 200).length;
    // the user's 6 tokens, whoever took them, and never more than 2 by the first key
    expect(served(answers)).toBe(6);
    expect(served(answers.slice(0, 3))).toBeLessThanOrEqual(2);
    const refusals = answers.filter((a) => a.status === 429);
    expect(refusals.length).toBe(2);
    expect(refusals.some((a) => a.body.details[0].field === 'user')).toBe(true);
    expect(refusals[0].headers['ratelimit-policy']).toMatch(/^"key";q=(2;w=2|500;w=10), "user";q=6;w=6$/);

    // the first key's own bucket, with its user's plenty: the key's limit refuses
    await setLimits(userId, { ratePerSecond: null, rateBurst: null });
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await get(first.secret)).status).toBe(200);
    expect((await get(first.secret)).status).toBe(200);
    const keyRefused = await get(first.secret);
    expect(keyRefused.status).toBe(429);
    expect(keyRefused.body.details[0].field).toBe('apiKey');
    expect(keyRefused.headers['ratelimit-policy']).toBe('"key";q=2;w=2, "user";q=500;w=10');
  });

  test('GraphQL over WebSocket: each operation takes a token; over the limit RATE_LIMITED, the connection stays', async () => {
    const userId = await createUser(app, 'ws@limits.test');
    const key = await createUserKey(app, userId);
    await createZone(app, userId, 'ws.limits.test');
    await setLimits(userId, { ratePerSecond: 1, rateBurst: 2 });
    const client = createClient({
      url: `${app.baseUrl.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'X-API-Key': key },
      retryAttempts: 0,
    });
    try {
      const run = () =>
        new Promise<{ data?: any; errors?: any[] }>((resolve) => {
          let result: { data?: any; errors?: any[] } = {};
          client.subscribe(
            { query: '{ domain(name: "ws.limits.test") { name } }' },
            {
              next: (value) => (result = value as any),
              error: (errors) => resolve({ errors: errors as any[] }),
              complete: () => resolve(result),
            },
          );
        });
      const answers = [await run(), await run(), await run()];
      expect(answers.slice(0, 2).map((a) => a.data?.domain?.name)).toEqual(['ws.limits.test', 'ws.limits.test']);
      expect(answers[2].errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
      expect(answers[2].errors?.[0]?.extensions?.details?.[0]).toMatchObject({ field: 'user', code: 'RATE_LIMITED' });
      // the connection stays: after the refill the next operation is served on it
      await new Promise((resolve) => setTimeout(resolve, 1100));
      expect((await run()).data?.domain?.name).toBe('ws.limits.test');
    } finally {
      await client.dispose();
    }
  });

  test('DNS UPDATE over the rate: REFUSED with an EDE that says so', async () => {
    const userId = await createUser(app, 'dns@limits.test');
    await createZone(app, userId, 'rate.limits.test');
    const key = await createTsigKey(app, userId, 'rate-key');
    await setLimits(userId, { ratePerSecond: 1, rateBurst: 2 });
    const runs = await Promise.all(
      [1, 2, 3, 4].map((i) => nsupdateDebug(key, 'rate.limits.test', [`update add h${i}.rate.limits.test 3600 A 192.0.2.${i}`])),
    );
    const refused = runs.filter((run) => /status: REFUSED/.test(run.output));
    expect(refused.length).toBeGreaterThanOrEqual(2);
    expect(refused[0].output).toMatch(/EDE: 0 \(Other\): \(too many updates for this user; try again in \d+ s\)/);
    const added = (await zoneState('rate.limits.test')).records.filter((r) => /^h\d A/.test(r));
    expect(added.length).toBe(4 - refused.length);
    expect(await metric(/zonekeeper_dns_updates_total\{rcode="REFUSED",reason="rate_limited"\} (\d+)/)).toBeGreaterThanOrEqual(2);
  });

  test("a zone's change rate binds REST, GraphQL, change sets and DNS UPDATE", async () => {
    const userId = await createUser(app, 'zone-rate@limits.test');
    const key = await createUserKey(app, userId);
    const zone = 'busy.limits.test';
    await createZone(app, userId, zone, key);
    const tsig = await createTsigKey(app, userId, 'busy-key');
    let n = 0;
    // empties the zone's bucket (1 change a second, 20 at once): more changes at once than it holds
    const drain = async () => {
      const results = await Promise.all(
        Array.from({ length: ZONE_BURST + 5 }, () =>
          app.gql(CREATE_RECORD, { input: { zone, owner: `d${n++}`, type: 'A', rdata: '192.0.2.9', ttl: 3600 } }, key),
        ),
      );
      expect(results.some((r) => errorCode(r) === 'RATE_LIMITED')).toBe(true);
      expect(results.every((r) => !r.errors || errorCode(r) === 'RATE_LIMITED')).toBe(true);
    };

    // the bucket refills a change a second: on a loaded machine a second may pass between the drain and the
    // request, so a request that found a fresh change is sent again after another drain (at most three times)
    const afterDrain = async <T>(send: () => Promise<T>, refused: (result: T) => boolean): Promise<T> => {
      let result!: T;
      for (let attempt = 0; attempt < 3; attempt++) {
        await drain();
        result = await send();
        if (refused(result)) break;
      }
      return result;
    };

    let restAttempts = 0;
    const rest = await afterDrain(
      () =>
        app.http
          .post('/api/record/add')
          .set('X-API-Key', key)
          .send({ zone, owner: `rest${restAttempts++}`, rtype: 'A', rdata: '192.0.2.1', ttl: 3600 }),
      (res) => res.status !== 201,
    );
    expect(rest.status).toBe(429);
    expect(rest.body).toMatchObject({ error: 'RATE_LIMITED', details: [{ field: 'zone', code: 'RATE_LIMITED' }] });
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    let before: Awaited<ReturnType<typeof zoneState>> | undefined;
    let setAttempts = 0;
    const set = await afterDrain(
      async () => {
        before = await zoneState(zone);
        return app.gql(
          `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`,
          { z: zone, c: [{ kind: 'ADD', owner: `set${setAttempts++}`, type: 'A', rdata: '192.0.2.2', ttl: 3600 }] },
          key,
        );
      },
      (res) => Boolean(res.errors),
    );
    expect(errorCode(set)).toBe('RATE_LIMITED');
    expect(set.status).toBe(429);
    expect(await zoneState(zone)).toEqual(before);

    let updateAttempts = 0;
    const update = await afterDrain(
      () => nsupdateDebug(tsig, zone, [`update add upd${updateAttempts++}.${zone} 3600 A 192.0.2.3`]),
      (run) => /status: REFUSED/.test(run.output),
    );
    expect(update.output).toMatch(/status: REFUSED/);
    expect(update.output).toMatch(/EDE: 0 \(Other\): \(too many changes for this zone; try again in \d+ s\)/);

    // the admin is not held to it
    const admin = await app.gql(CREATE_RECORD, { input: { zone, owner: 'admin', type: 'A', rdata: '192.0.2.4', ttl: 3600 } });
    expect(admin.errors).toBeUndefined();
    expect(await metric(/zonekeeper_rate_limited_total\{limit="zone"\} (\d+)/)).toBeGreaterThan(0);
  });

  test("a change refused for what it is (the zone's rules) takes none of the zone's changes", async () => {
    const userId = await createUser(app, 'zone-rate-refused@limits.test');
    const key = await createUserKey(app, userId);
    const zone = 'refused.limits.test';
    await createZone(app, userId, zone, key);
    const host = await app.gql(CREATE_RECORD, { input: { zone, owner: 'host', type: 'A', rdata: '192.0.2.1', ttl: 3600 } }, key);
    expect(host.errors).toBeUndefined();
    // more refused changes than the zone's bucket holds: a CNAME beside the A record, refused by the zone's rules
    const refused = await Promise.all(
      Array.from({ length: ZONE_BURST + 5 }, () =>
        app.gql(CREATE_RECORD, { input: { zone, owner: 'host', type: 'CNAME', rdata: 'example.net.', ttl: 3600 } }, key),
      ),
    );
    expect(refused.map(errorCode)).toEqual(Array(ZONE_BURST + 5).fill('CNAME_CONFLICT'));
    // the bucket is as full as before them (less the one change above): as many changes at once as it holds pass
    const accepted = await Promise.all(
      Array.from({ length: ZONE_BURST - 1 }, (_, i) =>
        app.gql(CREATE_RECORD, { input: { zone, owner: `ok${i}`, type: 'A', rdata: '192.0.2.2', ttl: 3600 } }, key),
      ),
    );
    expect(accepted.map(errorCode)).toEqual(Array(ZONE_BURST - 1).fill(undefined));
  });

  test("a read-only key's writes are refused by its policy first and spend none of the zone's changes", async () => {
    const userId = await createUser(app, 'zone-rate-read-only@limits.test');
    const key = await createUserKey(app, userId);
    const zone = 'read-only.limits.test';
    await createZone(app, userId, zone, key);
    const made = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: { userId, name: 'reader', preset: 'READ_ONLY' },
    });
    const reader = made.data.createApiKey.secret as string;
    const write = (owner: string, as: string) =>
      app.gql(CREATE_RECORD, { input: { zone, owner, type: 'A', rdata: '192.0.2.1', ttl: 3600 } }, as);
    // twice the zone's bucket of writes by the read-only key, at once: each refused by its policy, none by the rate
    const refused = await Promise.all(Array.from({ length: 2 * ZONE_BURST }, (_, i) => write(`ro${i}`, reader)));
    expect(refused.map(errorCode)).toEqual(Array(2 * ZONE_BURST).fill('FORBIDDEN_BY_POLICY'));
    // the bucket is as full as before them: the owner's key writes as many changes at once as it holds
    const accepted = await Promise.all(Array.from({ length: ZONE_BURST }, (_, i) => write(`ok${i}`, key)));
    expect(accepted.map(errorCode)).toEqual(Array(ZONE_BURST).fill(undefined));
    // and with the bucket empty (the owner's next writes refused by the rate; a second's refill may let one pass),
    // the read-only key is told its policy, not the zone's rate: authorised first
    const [late, ...owners] = await Promise.all([write('late', reader), ...[1, 2, 3].map((i) => write(`late${i}`, key))]);
    expect(owners.map(errorCode)).toContain('RATE_LIMITED');
    expect(errorCode(late)).toBe('FORBIDDEN_BY_POLICY');
  });

  test('a noisy tenant at concurrency 64 gets 429s and no 5xx, and a quiet one is served', async () => {
    const noisy = await createUser(app, 'noisy@limits.test');
    const quiet = await createUser(app, 'quiet@limits.test');
    const noisyKey = await createUserKey(app, noisy);
    const quietKey = await createUserKey(app, quiet);
    await setLimits(noisy, { ratePerSecond: 20, rateBurst: 20 });
    const statuses = new Map<number, number>();
    const quietStatuses: number[] = [];
    const until = Date.now() + 1500;
    const noisyLoop = async () => {
      while (Date.now() < until) {
        const res = await app.http.get(`/api/user/list/${noisy}`).set('X-API-Key', noisyKey);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    // the quiet tenant keeps within its own limit (the default 50 a second): 20 requests a second, one at a
    // time; unpaced, it answers so fast once the noisy one is held that it spends its own burst
    const quietLoop = async () => {
      while (Date.now() < until) {
        quietStatuses.push((await app.http.get(`/api/user/list/${quiet}`).set('X-API-Key', quietKey)).status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await Promise.all([...Array.from({ length: 64 }, noisyLoop), quietLoop()]);
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
    // each refusal held 1 s: at most 2 a connection in 1.5 s, not the thousands an at-once 429 would invite
    expect(statuses.get(429) ?? 0).toBeLessThanOrEqual(64 * 2);
    expect(statuses.get(200) ?? 0).toBeGreaterThanOrEqual(20);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect(quietStatuses.length).toBeGreaterThan(0);
    expect(new Set(quietStatuses)).toEqual(new Set([200]));
  });
});

describe('quotas', () => {
  test('20 parallel creates with a zone quota of 5: exactly 5 zones, the others QUOTA_EXCEEDED naming maxZones', async () => {
    const userId = await createUser(app, 'zones@limits.test');
    const key = await createUserKey(app, userId);
    const set = await setLimits(userId, { maxZones: 5 });
    expect(set).toMatchObject({ maxZones: 5, zoneCount: 0, effective: { maxZones: 5 } });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        app.gql(
          `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`,
          { u: userId, z: `q${i}.zones.test` },
          key,
        ),
      ),
    );
    expect(results.filter((r) => !r.errors).length).toBe(5);
    const refused = results.filter((r) => r.errors);
    expect(refused.every((r) => errorCode(r) === 'QUOTA_EXCEEDED')).toBe(true);
    expect(refused[0].errors![0].extensions.details[0]).toMatchObject({ field: 'maxZones', code: 'QUOTA_EXCEEDED', limit: 5, current: 5 });
    expect(await zoneCountOf(userId)).toBe(5);

    // REST: a clear 403 naming the quota, nothing written
    const rest = await app.http
      .post('/api/domain/add')
      .set('X-API-Key', key)
      .send({ user_id: Number(userId), zone: 'rest.zones.test' });
    expect(rest.status).toBe(403);
    expect(rest.body).toMatchObject({ error: 'QUOTA_EXCEEDED', details: [{ field: 'maxZones', limit: 5 }] });
    expect((await app.gql(`query { domain(name: "rest.zones.test") { id } }`)).errors?.[0]?.extensions.code).toBe('ZONE_NOT_FOUND');

    // the admin is not held to the user's quota
    await createZone(app, userId, 'admin.zones.test');
    expect(await zoneCountOf(userId)).toBe(6);
    // a deletion makes room only once the user is under the quota again
    const del = (zone: string) => app.gql(`mutation($z: String!) { deleteDomain(zone: $z) }`, { z: zone }, key);
    expect((await del('admin.zones.test')).errors).toBeUndefined();
    const stillFull = await app.gql(
      `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "again.zones.test"}) { id } }`,
      { u: userId },
      key,
    );
    expect(errorCode(stillFull)).toBe('QUOTA_EXCEEDED');
    const created = results.findIndex((r) => !r.errors);
    expect((await del(`q${created}.zones.test`)).errors).toBeUndefined();
    const again = await app.gql(
      `mutation($u: ID!) { createDomain(input: {userId: $u, zone: "again.zones.test"}) { id } }`,
      { u: userId },
      key,
    );
    expect(again.errors).toBeUndefined();
    expect(await zoneCountOf(userId)).toBe(5);

    // null returns the quota to the default (MAX_ZONES_PER_USER, 1000)
    expect(await setLimits(userId, { maxZones: null })).toMatchObject({ maxZones: null, effective: { maxZones: 1000 } });
  });

  test('records per zone: parallel creates, change sets, imports and DNS UPDATE stop at the quota with nothing written', async () => {
    const userId = await createUser(app, 'records@limits.test');
    const key = await createUserKey(app, userId);
    const zone = 'records.limits.test';
    await createZone(app, userId, zone, key);
    const tsig = await createTsigKey(app, userId, 'records-key');
    const start = await zoneState(zone);
    // the zone's default records (SOA, the NS, www) and room for 2 more
    await setLimits(userId, { maxRecordsPerZone: start.records.length + 2 });

    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        app.gql(CREATE_RECORD, { input: { zone, owner: `p${i}`, type: 'A', rdata: '192.0.2.1', ttl: 3600 } }, key),
      ),
    );
    expect(results.filter((r) => !r.errors).length).toBe(2);
    expect(results.filter((r) => r.errors).every((r) => errorCode(r) === 'QUOTA_EXCEEDED')).toBe(true);
    expect(results.find((r) => r.errors)!.errors![0].extensions.details[0]).toMatchObject({
      field: 'maxRecordsPerZone',
      limit: start.records.length + 2,
    });
    const full = await zoneState(zone);
    expect(full.records.length).toBe(start.records.length + 2);

    // a change set that adds more than it removes: refused whole
    const set = await app.gql(
      `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`,
      {
        z: zone,
        c: [
          { kind: 'ADD', owner: 's1', type: 'A', rdata: '192.0.2.5', ttl: 3600 },
          { kind: 'ADD', owner: 's2', type: 'A', rdata: '192.0.2.6', ttl: 3600 },
        ],
      },
      key,
    );
    expect(errorCode(set)).toBe('QUOTA_EXCEEDED');
    // an import (merge) likewise
    const imported = await app.gql(
      `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`,
      { z: zone, t: '$TTL 3600\nimp IN A 192.0.2.7\n' },
      key,
    );
    expect(errorCode(imported)).toBe('QUOTA_EXCEEDED');
    // DNS UPDATE: REFUSED, and the EDE names the quota
    const update = await nsupdateDebug(tsig, zone, [`update add upd.${zone} 3600 A 192.0.2.8`]);
    expect(update.output).toMatch(/status: REFUSED/);
    expect(update.output).toMatch(
      /EDE: 0 \(Other\): \(.*maxRecordsPerZone: the quota of \d+ records in zone records\.limits\.test would be exceeded/,
    );
    expect(await zoneState(zone)).toEqual(full);

    // a change that removes records is always taken; then there is room for one again
    const written = full.records.find((r) => /^p\d A/.test(r))!.split(' ')[0];
    const del = await app.gql(
      `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`,
      { z: zone, c: [{ kind: 'REMOVE', owner: written, type: 'A', rdata: '192.0.2.1' }] },
      key,
    );
    expect(del.errors).toBeUndefined();
    const one = await app.gql(CREATE_RECORD, { input: { zone, owner: 'room', type: 'A', rdata: '192.0.2.9', ttl: 3600 } }, key);
    expect(one.errors).toBeUndefined();
    // the admin is not held to the user's quota
    const admin = await app.gql(CREATE_RECORD, { input: { zone, owner: 'admin', type: 'A', rdata: '192.0.2.9', ttl: 3600 } });
    expect(admin.errors).toBeUndefined();
    expect(await metric(/zonekeeper_quota_refusals_total\{quota="records_per_zone"\} (\d+)/)).toBeGreaterThanOrEqual(10);
  });

  test('only the admin sets limits; a user reads its own; bad values are refused by name', async () => {
    const userId = await createUser(app, 'self@limits.test');
    const key = await createUserKey(app, userId);
    const own = await app.http.get(`/api/user/limits/${userId}`).set('X-API-Key', key);
    expect(own.status).toBe(200);
    expect(own.body).toEqual({
      rate_per_second: null,
      rate_burst: null,
      max_zones: null,
      max_records_per_zone: null,
      zone_count: 0,
      effective: { rate_per_second: 50, rate_burst: 500, max_zones: 1000, max_records_per_zone: 100000 },
    });
    const self = await app.http.put(`/api/user/limits/${userId}`).set('X-API-Key', key).send({ max_zones: 100000 });
    expect(self.status).toBe(403);
    expect(self.body.error).toBe('FORBIDDEN');
    const keyRate = await app.gql(
      `mutation($id: ID!) { setApiKeyRate(id: $id, input: {rateBurst: 100}) { rateBurst } }`,
      { id: (await keyOf(userId)).id },
      key,
    );
    expect(errorCode(keyRate)).toBe('FORBIDDEN');
    const bad = await app.gql(SET_LIMITS, { id: userId, input: { rateBurst: 0 } });
    expect(errorCode(bad)).toBe('INVALID_INPUT');
    expect(bad.errors![0].extensions.details[0].field).toBe('rateBurst');
    const reset = await app.http
      .put(`/api/user/limits/${userId}`)
      .set('X-API-Key', ADMIN_KEY)
      .send({ max_zones: 3, max_records_per_zone: null });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({
      max_zones: 3,
      max_records_per_zone: null,
      effective: { max_zones: 3, max_records_per_zone: 100000 },
    });
  });
});

describe("one user's requests at once (RATE_LIMIT_CONCURRENCY, RATE_LIMIT_QUEUE)", () => {
  let gated: TestApp;
  let gatedDnsPort: number;
  beforeAll(async () => {
    gatedDnsPort = await freePort();
    gated = await startTestApp({
      ROLES: 'api,dns',
      DNS_LISTEN: `127.0.0.1:${gatedDnsPort}`,
      RATE_LIMIT_CONCURRENCY: '2',
      RATE_LIMIT_QUEUE: '2',
    });
  }, 60_000);
  afterAll(async () => {
    await gated?.close();
  });

  /**
   * A POST /graphql whose body is sent in two parts: a request that has its turn waits for the rest of its body,
   * so the test decides when a turn ends (`finish`) or the client goes away (`abandon`).
   */
  function heldRequest(key: string, complete = false) {
    const body = JSON.stringify({ query: '{ users(first: 1) { nodes { id } } }' });
    const held: { req?: http.ClientRequest; answered: boolean } = { answered: false };
    const answer = new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
      const req = http.request(
        `${gated.baseUrl}/graphql`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-api-key': key } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      held.req = req;
    });
    void answer.then(() => (held.answered = true)).catch(() => undefined);
    held.req!.write(complete ? body : body.slice(0, 10));
    if (complete) held.req!.end();
    return {
      answer,
      get answered() {
        return held.answered;
      },
      finish: () => held.req!.end(body.slice(10)),
      abandon: () => held.req!.destroy(),
    };
  }

  const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

  test("a user's requests beyond the cap wait their turn in order, beyond the queue 429 with Retry-After; another user is served meanwhile", async () => {
    const noisy = await createUser(gated, 'crowd@limits.test');
    const quiet = await createUser(gated, 'calm@limits.test');
    const noisyKey = await createUserKey(gated, noisy);
    const quietKey = await createUserKey(gated, quiet);
    const refusedBefore = await gated.http
      .get('/metrics')
      .then((res) => Number(/zonekeeper_rate_limited_total\{limit="concurrency"\} (\d+)/.exec(res.text)?.[1] ?? 0));

    // two turns taken and held (their bodies not finished), two complete requests waiting behind them
    const running = [heldRequest(noisyKey), heldRequest(noisyKey)];
    await settle();
    const waiting = [heldRequest(noisyKey, true), heldRequest(noisyKey, true)];
    await settle();
    // the queue is full: the next one is refused, with the fields of every answer to a limited key
    const refused = await heldRequest(noisyKey, true).answer;
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['ratelimit-policy']).toMatch(/"user";q=\d+;w=\d+/);
    expect(refused.headers.ratelimit).toMatch(/"user";r=\d+;t=\d+/);
    expect(refused.body.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', details: [{ field: 'user', code: 'RATE_LIMITED' }] });
    const metrics = await gated.http.get('/metrics');
    expect(Number(/zonekeeper_rate_limited_total\{limit="concurrency"\} (\d+)/.exec(metrics.text)?.[1])).toBe(refusedBefore + 1);

    // another user is not held by the first one's turns, nor is the admin
    const served = await gated.gql('{ users(first: 1) { nodes { id } } }', {}, quietKey);
    expect(served.status).toBe(200);
    expect(served.errors).toBeUndefined();
    expect((await gated.gql('{ users(first: 1) { nodes { id } } }')).status).toBe(200);
    // the waiting ones have not run: their turn has not come
    expect(waiting.map((w) => w.answered)).toEqual([false, false]);

    // a client gone while its request ran frees its turn: the waiting ones run in order, the second once the
    // first's answer is sent (two turns: the other is still held)
    running[0].abandon();
    expect((await waiting[0].answer).status).toBe(200);
    expect(waiting[1].answered).toBe(false);
    expect((await waiting[1].answer).status).toBe(200);
    // the held request ends when its body is in
    running[1].finish();
    expect((await running[1].answer).status).toBe(200);

    // with every turn ended, the user is served at once again
    const again = await gated.gql('{ users(first: 1) { nodes { id } } }', {}, noisyKey);
    expect(again.status).toBe(200);
  });

  test('a client gone while its key was still being checked gives its turn back: the user is not held by requests nobody waits for', async () => {
    const user = await createUser(gated, 'aborting@limits.test');
    const keys = await Promise.all([0, 1, 2].map(() => createUserKey(gated, user)));
    // a key's first use reads the database: that read is held (the table locked by another session) while the
    // clients go, as a browser's fetch is aborted when the page asks the same again
    const locker = new pg.Client({ connectionString: gated.settings.databaseUrl });
    await locker.connect();
    try {
      await locker.query('begin');
      await locker.query('lock table api_keys in access exclusive mode');
      const gone = keys.map((key) => heldRequest(key, true));
      for (const request of gone) request.answer.catch(() => undefined);
      await settle();
      for (const request of gone) request.abandon();
      await settle();
      await locker.query('commit');
    } finally {
      await locker.end();
    }
    await settle();
    // the user's two turns are free: two requests at once are answered, not held behind the gone ones
    const answered = await Promise.race([
      Promise.all([0, 1].map(() => gated.gql('{ users(first: 1) { nodes { id } } }', {}, keys[0]))),
      new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 10_000)),
    ]);
    expect(answered === 'held' ? 'held' : answered.map((res) => res.status)).toEqual([200, 200]);
  });

  test("graphql-ws queries and mutations take turns in the same gate as the user's HTTP requests; a subscription takes none", async () => {
    const user = await createUser(gated, 'sockets@limits.test');
    const key = await createUserKey(gated, user);
    await createZone(gated, user, 'sockets.limits.test');
    const connect = () =>
      createClient({
        url: gated.baseUrl.replace('http', 'ws') + '/graphql',
        webSocketImpl: WebSocket,
        connectionParams: { 'X-API-Key': key },
        retryAttempts: 0,
        lazy: false,
        onNonLazyError: () => undefined,
      });
    /** one operation over the socket: its result (data or errors), and whether it has come */
    const operation = (client: ReturnType<typeof createClient>, query: string) => {
      const held = { answered: false };
      const result = new Promise<{ data?: any; errors?: any[] }>((resolve) => {
        let last: { data?: any; errors?: any[] } = {};
        client.subscribe(
          { query },
          {
            next: (value) => (last = value as typeof last),
            error: (errors) => resolve({ errors: errors as any[] }),
            complete: () => resolve(last),
          },
        );
      });
      void result.then(() => (held.answered = true));
      return {
        result,
        get answered() {
          return held.answered;
        },
      };
    };
    const client = connect();
    try {
      // a subscription open all along: it holds no turn (else one of the two operations queued below would be refused)
      const events: unknown[] = [];
      client.subscribe(
        { query: 'subscription { zoneChanged(zone: "sockets.limits.test") { zone } }' },
        {
          next: (value) => events.push(value),
          error: () => undefined,
          complete: () => undefined,
        },
      );
      await settle();
      // both turns taken by held HTTP requests of the same user: the socket's operations wait behind them
      const running = [heldRequest(key), heldRequest(key)];
      await settle();
      const waiting = [
        operation(client, '{ domains(first: 1) { nodes { name } } }'),
        operation(
          client,
          'mutation { createRecord(input: {zone: "sockets.limits.test", owner: "q", type: "TXT", rdata: "\\"x\\"", ttl: 3600}) { id } }',
        ),
      ];
      await settle();
      expect(waiting.map((w) => w.answered)).toEqual([false, false]);
      // the queue is full: the next operation is refused as HTTP's 429 is, and the connection stays
      const refused = await operation(client, '{ domains(first: 1) { nodes { name } } }').result;
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', details: [{ field: 'user', code: 'RATE_LIMITED' }] });
      expect(refused.errors?.[0]?.message).toMatch(/too many requests at once for this user/);
      // the HTTP turns end: the socket's operations run, in order
      running[0].finish();
      running[1].finish();
      await Promise.all(running.map((r) => r.answer));
      expect((await waiting[0].result).data.domains.nodes).toEqual([{ name: 'sockets.limits.test' }]);
      expect((await waiting[1].result).data.createRecord.id).toEqual(expect.any(String));

      // operations waiting on a socket that closes leave the queue without running: the user's next ones are served
      const second = connect();
      const heldAgain = [heldRequest(key), heldRequest(key)];
      await settle();
      // two of the user's operations wait on a second socket, which then closes
      operation(
        second,
        'mutation { createRecord(input: {zone: "sockets.limits.test", owner: "gone", type: "TXT", rdata: "\\"x\\"", ttl: 3600}) { id } }',
      );
      operation(second, '{ domains(first: 1) { nodes { name } } }');
      await settle();
      await second.dispose();
      await settle();
      const queued = [
        operation(client, '{ domains(first: 1) { nodes { name } } }'),
        operation(client, '{ domains(first: 1) { nodes { name } } }'),
      ];
      await settle();
      expect(queued.map((q) => q.answered)).toEqual([false, false]);
      heldAgain.forEach((h) => h.finish());
      for (const q of queued) expect((await q.result).errors).toBeUndefined();
      // the mutation left waiting never ran
      const gone = await gated.gql(`{ domain(name: "sockets.limits.test") { records { owner } } }`, {}, key);
      expect(gone.data.domain.records.map((r: any) => r.owner)).not.toContain('gone');
    } finally {
      await client.dispose();
    }
  });
  test("a DNS UPDATE takes its turn in the same gate: it waits behind the user's requests, beyond the queue REFUSED with an EDE", async () => {
    const user = await createUser(gated, 'updates@limits.test');
    const key = await createUserKey(gated, user);
    await createZone(gated, user, 'updates.limits.test');
    const tsig = await createTsigKey(gated, user, 'gated-update-key');
    const owners = async () => {
      const res = await gated.gql(`{ domain(name: "updates.limits.test") { records { owner } } }`);
      return res.data.domain.records.map((r: any) => r.owner as string);
    };
    // both turns taken by held HTTP requests: two UPDATEs (over TCP: no retransmission) wait, a third is refused
    const running = [heldRequest(key), heldRequest(key)];
    await settle();
    const update = (owner: string) =>
      nsupdateDebug(tsig, 'updates.limits.test', [`update add ${owner}.updates.limits.test 3600 A 192.0.2.1`], {
        port: gatedDnsPort,
        tcp: true,
      });
    const waiting = [update('first'), update('second')];
    await settle();
    const refused = await update('third');
    expect(refused.output).toMatch(/status: REFUSED/);
    expect(refused.output).toMatch(/EDE: 0 \(Other\): \(too many requests at once for this user; try again in \d+ s\)/);
    // the waiting ones have not run
    expect(await owners()).not.toEqual(expect.arrayContaining(['first']));
    expect(await owners()).not.toEqual(expect.arrayContaining(['second']));
    running.forEach((r) => r.finish());
    await Promise.all(running.map((r) => r.answer));
    for (const run of await Promise.all(waiting)) expect(run.output).toMatch(/status: NOERROR/);
    expect(await owners()).toEqual(expect.arrayContaining(['first', 'second']));
    expect(await owners()).not.toContain('third');
  });
});
