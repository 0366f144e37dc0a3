import { Client as PgClient } from 'pg';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { sleep, waitFor } from '../support/wait-for';
import { KeyArg, nsupdate, runClient } from '../support/update-clients';
import { findBinary } from '../propagation/knot';
import { KeyLimitRefusals, Refusals } from '../../src/services/audit-log';
import type { Principal } from '../../src/auth/principal';

/**
 * The audit log of keys refused for their limits (docs/audit-log.md): an expired key, an idle key and a key
 * used from outside its networks are refused over HTTP (REST and GraphQL), over graphql-ws (connection_init)
 * and, for TSIG keys, over DNS UPDATE; the admin's audit query (GraphQL and REST) then shows each event once.
 * A change of a key is one `*-key-changed` event, and a refused subscription (policy, rate limit) is audited as
 * on HTTP. The real server with its DNS primary on its own PostgreSQL database.
 */
let app: TestApp;
let dnsPort: number;
let db: PgClient;
let userId: string;
const ZONE = 'key-limits-audit.test';

const EVENTS = `query($kind: String, $first: Int!) {
  auditEvents(kind: $kind, first: $first) {
    nodes { id at kind actorKeyType actorKeyId actorKeyName actorUserId actorAdmin subject detail sourceAddress count } } }`;

async function events(kind: string, subject?: string): Promise<any[]> {
  const res = await app.gql(EVENTS, { kind, first: 1000 });
  expect(res.errors).toBeUndefined();
  return res.data.auditEvents.nodes.filter((e: any) => subject === undefined || e.subject === subject);
}

async function restEvents(kind: string, subject: string): Promise<any[]> {
  const res = await app.http.get('/api/audit').query({ kind }).set('X-API-Key', ADMIN_KEY);
  expect(res.status).toBe(200);
  return res.body.filter((e: any) => e.subject === subject);
}

async function apiKey(name: string, policy: Record<string, unknown>): Promise<{ id: string; secret: string }> {
  const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`, {
    input: { userId, name, policy },
  });
  expect(res.errors).toBeUndefined();
  return { id: res.data.createApiKey.apiKey.id, secret: res.data.createApiKey.secret };
}

async function tsigKey(name: string, policy: Record<string, unknown>): Promise<KeyArg & { id: string }> {
  const res = await app.gql(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { id } } }`, {
    input: { userId, name, preset: 'ACME', policy },
  });
  expect(res.errors).toBeUndefined();
  return { id: res.data.createTsigKey.tsigKey.id, name, algorithm: 'hmac-sha256', secret: res.data.createTsigKey.secret };
}

/** the key refused over REST and over GraphQL (403 FORBIDDEN_BY_POLICY) with `reason` */
async function refusedOverHttp(secret: string, reason: RegExp): Promise<void> {
  const rest = await app.http.get('/api/domain/list').set('X-API-Key', secret);
  expect(rest.status).toBe(403);
  expect(rest.body.error).toBe('FORBIDDEN_BY_POLICY');
  expect(rest.body.message).toMatch(reason);
  const gql = await app.gql(`{ domains(first: 1) { nodes { name } } }`, {}, secret);
  expect(gql.status).toBe(403);
  expect(errorCode(gql)).toBe('FORBIDDEN_BY_POLICY');
}

function wsClient(secret: string) {
  return createClient({
    url: app.baseUrl.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { 'X-API-Key': secret },
    retryAttempts: 0,
    lazy: true,
  });
}

/** one operation over graphql-ws: its results, or the error (a close event) that ended it */
async function overWs(client: ReturnType<typeof wsClient>, query: string, variables: Record<string, unknown> = {}): Promise<any[]> {
  const results: any[] = [];
  await new Promise<void>((resolve) => {
    client.subscribe(
      { query, variables },
      {
        next: (value) => void results.push(value),
        error: (error) => {
          results.push({ error });
          resolve();
        },
        complete: () => resolve(),
      },
    );
  });
  return results;
}

/** the key refused at connection_init: the server closes the socket with 4403 (Forbidden) */
async function refusedOverWs(secret: string): Promise<void> {
  const client = wsClient(secret);
  try {
    const results = await overWs(client, `subscription($z: String!) { zoneChanged(zone: $z) { zone } }`, { z: ZONE });
    expect(results).toHaveLength(1);
    expect(results[0].error?.code).toBe(4403);
  } finally {
    await client.dispose();
  }
}

/** a DNS UPDATE signed with the key (nsupdate -d: the answer's header and EDE are in its output): REFUSED with `reason` */
async function refusedOverDns(key: KeyArg, reason: RegExp): Promise<void> {
  const run = await runClient(
    findBinary('nsupdate'),
    ['-d', '-y', `${key.algorithm}:${key.name}:${key.secret}`],
    [`server 127.0.0.1 ${dnsPort}`, `zone ${ZONE}`, `update add _acme-challenge.${ZONE} 300 TXT "x"`, 'send', ''].join('\n'),
  );
  expect(run.code).not.toBe(0);
  const output = run.stdout + run.stderr;
  expect(output).toMatch(/opcode: UPDATE, status: REFUSED/);
  expect(output).toMatch(/EDE: 18 \(Prohibited\)/);
  expect(output).toMatch(reason);
}

/** starts at least `seconds` before the next minute: summaries are one row per key and minute */
async function wellInsideAMinute(seconds = 20): Promise<void> {
  const into = Date.now() % 60_000;
  if (into > 60_000 - seconds * 1000) await sleep(60_000 - into + 100);
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  db = new PgClient({ connectionString: app.settings.databaseUrl });
  await db.connect();
  userId = await createUser(app, 'limits@key-limits-audit.test');
  await createZone(app, userId, ZONE);
});
afterAll(async () => {
  await db?.end();
  await app?.close();
});

describe('an expired key', () => {
  it('is refused over HTTP, graphql-ws and DNS UPDATE, and the log shows one key-expired event per key', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const api = await apiKey('expired-api', { expiresAt: past });
    const tsig = await tsigKey('expired.key-limits-audit.test', { expiresAt: past });
    for (let i = 0; i < 2; i++) await refusedOverHttp(api.secret, /this key expired at/);
    await refusedOverWs(api.secret);
    await refusedOverDns(tsig, /this key expired at/);
    await refusedOverDns(tsig, /this key expired at/);

    const forApi = await events('key-expired', `api-key:${api.id}`);
    expect(forApi).toHaveLength(1);
    expect(forApi[0]).toMatchObject({
      actorKeyType: 'api',
      actorKeyId: api.id,
      actorKeyName: 'expired-api',
      actorUserId: userId,
      sourceAddress: '127.0.0.1',
      count: 1,
      detail: { expiresAt: past, message: expect.stringContaining('this key expired at') },
    });
    const forTsig = await events('key-expired', `tsig-key:${tsig.id}`);
    expect(forTsig).toHaveLength(1);
    expect(forTsig[0]).toMatchObject({
      actorKeyType: 'tsig',
      actorKeyId: tsig.id,
      sourceAddress: '127.0.0.1',
      detail: { expiresAt: past },
    });
    // REST says the same, and nothing of it names a secret
    expect(await restEvents('key-expired', `api-key:${api.id}`)).toHaveLength(1);
    expect(await restEvents('key-expired', `tsig-key:${tsig.id}`)).toHaveLength(1);
    expect(JSON.stringify(forApi)).not.toContain(api.secret);
    // an expired key is no failed authentication: it authenticated, and was refused for its limit; nor was it used
    expect((await events('authentication-failed')).length).toBe(0);
    expect(await events('api-key-first-used', `api-key:${api.id}`)).toEqual([]);
    expect(await events('tsig-key-first-used', `tsig-key:${tsig.id}`)).toEqual([]);
  });

  it('is recorded once even when processes that never saw it refuse it at the same time (the database decides)', async () => {
    const past = new Date(Date.now() - 60_000).toISOString();
    const api = await apiKey('expired-race', { expiresAt: past });
    const principal: Principal = { kind: 'user', keyId: Number(api.id), keyName: 'expired-race', userId: Number(userId) };
    // each instance stands for a process of its own (its own memory of what it recorded)
    const processes = Array.from({ length: 6 }, () => new KeyLimitRefusals(new Refusals()));
    await Promise.all(
      processes.map((p) =>
        p.note(app.service.database.db, principal, { limit: 'expired', message: `this key expired at ${past}` }, '192.0.2.7'),
      ),
    );
    expect(await events('key-expired', `api-key:${api.id}`)).toHaveLength(1);
  });
});

describe('an idle key', () => {
  it('is refused over HTTP, graphql-ws and DNS UPDATE, and the log shows one key-idle event per key', async () => {
    const api = await apiKey('idle-api', { idleDays: 2 });
    const tsig = await tsigKey('idle.key-limits-audit.test', { idleDays: 2 });
    // never used, made five days ago: idle for longer than its two days
    await db.query(`update api_keys set created_at = now() - interval '5 days' where id = $1`, [api.id]);
    await db.query(`update tsig_keys set created_at = now() - interval '5 days' where id = $1`, [tsig.id]);
    for (let i = 0; i < 2; i++) await refusedOverHttp(api.secret, /not used for more than 2 days/);
    await refusedOverWs(api.secret);
    await refusedOverDns(tsig, /not used for more than 2 days/);
    await refusedOverDns(tsig, /not used for more than 2 days/);

    const forApi = await events('key-idle', `api-key:${api.id}`);
    expect(forApi).toHaveLength(1);
    expect(forApi[0]).toMatchObject({ actorKeyType: 'api', actorKeyId: api.id, count: 1, detail: { idleDays: 2 } });
    const forTsig = await events('key-idle', `tsig-key:${tsig.id}`);
    expect(forTsig).toHaveLength(1);
    expect(forTsig[0]).toMatchObject({ actorKeyType: 'tsig', actorKeyId: tsig.id, detail: { idleDays: 2 } });
    expect(await restEvents('key-idle', `api-key:${api.id}`)).toHaveLength(1);
    expect(await restEvents('key-idle', `tsig-key:${tsig.id}`)).toHaveLength(1);
    // neither is an expiry
    expect(await events('key-expired', `api-key:${api.id}`)).toEqual([]);
  });
});

describe('a key used from outside its networks', () => {
  it('is refused over HTTP, graphql-ws and DNS UPDATE, and the log shows one key-wrong-network row per key and minute', async () => {
    const api = await apiKey('network-api', { allowedNetworks: ['192.0.2.0/24'] });
    const tsig = await tsigKey('network.key-limits-audit.test', { allowedNetworks: ['198.51.100.0/24'] });
    await wellInsideAMinute();
    for (let i = 0; i < 2; i++) await refusedOverHttp(api.secret, /may not be used from 127\.0\.0\.1 \(allowedNetworks\)/);
    await refusedOverWs(api.secret);
    await refusedOverDns(tsig, /may not be used from 127\.0\.0\.1/);
    await refusedOverDns(tsig, /may not be used from 127\.0\.0\.1/);

    // REST and GraphQL twice each, and the socket's connection_init: five attempts, one row
    const forApi = await waitFor('the summary of the API key’s refusals', async () => {
      const found = await events('key-wrong-network', `api-key:${api.id}`);
      return found.length && found[0].count >= 5 ? found : undefined;
    });
    const forTsig = await waitFor('the summary of the TSIG key’s refusals', async () => {
      const found = await events('key-wrong-network', `tsig-key:${tsig.id}`);
      return found.length && found[0].count >= 2 ? found : undefined;
    });
    await sleep(1500); // another flush: nothing more comes
    expect(await events('key-wrong-network', `api-key:${api.id}`)).toEqual(forApi);
    expect(forApi).toHaveLength(1);
    expect(forApi[0]).toMatchObject({
      actorKeyType: 'api',
      actorKeyId: api.id,
      count: 5,
      sourceAddress: '127.0.0.1',
      detail: { message: expect.stringContaining('(allowedNetworks)') },
    });
    expect(forTsig).toHaveLength(1);
    expect(forTsig[0]).toMatchObject({ actorKeyType: 'tsig', actorKeyId: tsig.id, count: 2, sourceAddress: '127.0.0.1' });
    expect(await restEvents('key-wrong-network', `api-key:${api.id}`)).toEqual([
      expect.objectContaining({ kind: 'key-wrong-network', count: 5, source_address: '127.0.0.1' }),
    ]);
  });
});

describe('a change of a key', () => {
  it('an API key renamed and given an expiry: one api-key-changed event saying what changed; expired again later, recorded again', async () => {
    const api = await apiKey('to-change', { expiresAt: new Date(Date.now() - 60_000).toISOString() });
    await refusedOverHttp(api.secret, /this key expired at/);
    expect(await events('key-expired', `api-key:${api.id}`)).toHaveLength(1);

    const later = new Date(Date.now() + 86_400_000).toISOString();
    const update = `mutation($id: ID!, $input: UpdateApiKeyInput!) { updateApiKey(id: $id, input: $input) { id name policy { expiresAt } } }`;
    const changed = await app.gql(update, { id: api.id, input: { name: 'changed', policy: { expiresAt: later } } });
    expect(changed.errors).toBeUndefined();
    expect(changed.data.updateApiKey).toMatchObject({ name: 'changed', policy: { expiresAt: later } });
    // the new expiry holds at once in this process
    expect((await app.http.get('/api/domain/list').set('X-API-Key', api.secret)).status).toBe(200);
    // and this is the key's first use (the refusal before was none)
    expect(await events('api-key-first-used', `api-key:${api.id}`)).toHaveLength(1);

    const events1 = await events('api-key-changed', `api-key:${api.id}`);
    expect(events1).toHaveLength(1);
    expect(events1[0]).toMatchObject({ actorAdmin: true, detail: { name: 'changed', userId: Number(userId) } });
    expect(events1[0].detail.changes).toEqual({
      name: { before: 'to-change', after: 'changed' },
      expiresAt: { before: expect.any(String), after: later },
    });
    expect(JSON.stringify(events1)).not.toContain(api.secret);

    // nothing to change is a 4xx naming the input, and writes no event
    const nothing = await app.gql(update, { id: api.id, input: {} });
    expect(nothing.errors?.[0].extensions.details[0]).toMatchObject({ field: 'input', code: 'NOTHING_TO_CHANGE' });
    // a user's key cannot change another user's key
    const otherUser = await createUser(app, 'other@key-limits-audit.test');
    const other = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "other"}) { secret } }`, { u: otherUser });
    expect(errorCode(await app.gql(update, { id: api.id, input: { name: 'taken' } }, other.data.createApiKey.secret))).toBe(
      'API_KEY_NOT_FOUND',
    );
    expect(await events('api-key-changed', `api-key:${api.id}`)).toHaveLength(1);

    // expired once more under its new policy: a new fact, recorded once more
    const past = new Date(Date.now() - 1000).toISOString();
    expect((await app.gql(update, { id: api.id, input: { policy: { expiresAt: past } } })).errors).toBeUndefined();
    await refusedOverHttp(api.secret, /this key expired at/);
    await refusedOverHttp(api.secret, /this key expired at/);
    expect(await events('key-expired', `api-key:${api.id}`)).toHaveLength(2);
    expect(await events('api-key-changed', `api-key:${api.id}`)).toHaveLength(2);
  });

  it('a TSIG key’s policy changed over REST: one tsig-key-changed event; its rate set by the admin: api-key-changed', async () => {
    const tsig = await tsigKey('change.key-limits-audit.test', {});
    const res = await app.http
      .put(`/api/tsigkey/edit/${tsig.id}`)
      .set('X-API-Key', ADMIN_KEY)
      .send({ preset: 'ACME', policy: { allowed_networks: ['127.0.0.0/8'], idle_days: 30 } });
    expect(res.status).toBe(200);
    expect(res.body.policy).toMatchObject({ allowed_networks: ['127.0.0.0/8'], idle_days: 30 });
    const changed = await events('tsig-key-changed', `tsig-key:${tsig.id}`);
    expect(changed).toHaveLength(1);
    expect(changed[0].detail.changes).toEqual({
      allowedNetworks: { before: null, after: ['127.0.0.0/8'] },
      idleDays: { before: null, after: 30 },
    });
    expect(JSON.stringify(changed)).not.toContain(tsig.secret);
    // still usable from here: an UPDATE the ACME rules allow goes through
    const run = await nsupdate(dnsPort, tsig, [`zone ${ZONE}`, `update add _acme-challenge.c.${ZONE} 300 TXT "c"`, 'send']);
    expect(run.code).toBe(0);

    const api = await apiKey('rated', {});
    const rate = await app.gql(`mutation($id: ID!) { setApiKeyRate(id: $id, input: {ratePerSecond: 5}) { ratePerSecond } }`, {
      id: api.id,
    });
    expect(rate.errors).toBeUndefined();
    const rated = await events('api-key-changed', `api-key:${api.id}`);
    expect(rated).toHaveLength(1);
    expect(rated[0].detail).toEqual({ changes: { ratePerSecond: { before: null, after: 5 } } });
  });
});

describe('changing a key, least privilege', () => {
  it('a restricted key with mayManageKeys cannot widen a key by changing it, nor change a wider one; nothing is recorded', async () => {
    const manager = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: { userId, name: 'manager', preset: 'ONE_ZONE', zone: ZONE, policy: { mayManageKeys: true } },
    });
    expect(manager.errors).toBeUndefined();
    const managerKey = manager.data.createApiKey.secret;
    const narrow = await app.gql(
      `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { apiKey { id } } }`,
      { input: { userId, name: 'narrow', preset: 'READ_ONLY', zone: ZONE } },
      managerKey,
    );
    expect(narrow.errors).toBeUndefined();
    const narrowId = narrow.data.createApiKey.apiKey.id;
    const wide = await apiKey('wide', {});
    const update = `mutation($id: ID!, $input: UpdateApiKeyInput!) { updateApiKey(id: $id, input: $input) { id } }`;
    // to every zone with write access: more than the manager may do
    const widen = await app.gql(update, { id: narrowId, input: { policy: { rules: [{ access: 'WRITE' }] } } }, managerKey);
    expect(errorCode(widen)).toBe('FORBIDDEN_BY_POLICY');
    // an unrestricted key, even only renamed
    const rename = await app.gql(update, { id: wide.id, input: { name: 'mine now' } }, managerKey);
    expect(errorCode(rename)).toBe('FORBIDDEN_BY_POLICY');
    expect(rename.errors![0].message).toMatch(/may not change a key with more rights/);
    // within its own rights it may
    const narrower = await app.gql(update, { id: narrowId, input: { name: 'narrower', preset: 'ACME', zone: ZONE } }, managerKey);
    expect(narrower.errors).toBeUndefined();
    expect(await events('api-key-changed', `api-key:${wide.id}`)).toEqual([]);
    const changed = await events('api-key-changed', `api-key:${narrowId}`);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ actorAdmin: false, actorKeyName: 'manager' });
    expect(Object.keys(changed[0].detail.changes).sort()).toEqual(['name', 'preset', 'rules']);
  });
});

describe('a transfer refused by the key’s policy', () => {
  it('AXFR and IXFR of a zone outside a ONE_ZONE key: REFUSED, and one policy-refused row per key and minute', async () => {
    const other = `other.${ZONE}`;
    await createZone(app, userId, other);
    const made = await app.gql(`mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { id } } }`, {
      input: { userId, name: 'one-zone-transfer.key-limits-audit.test', preset: 'ONE_ZONE', zone: ZONE },
    });
    expect(made.errors).toBeUndefined();
    const key = { id: made.data.createTsigKey.tsigKey.id, secret: made.data.createTsigKey.secret };
    const transfer = (zone: string, qtype: string) =>
      runClient(
        findBinary('dig'),
        ['-p', String(dnsPort), '-y', `hmac-sha256:one-zone-transfer.key-limits-audit.test:${key.secret}`, '@127.0.0.1', zone, qtype],
        '',
      );
    await wellInsideAMinute();
    // the key's own zone: transferred
    const own = await transfer(ZONE, 'AXFR');
    expect(own.stdout).toMatch(new RegExp(`^${ZONE.replace(/\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+SOA\\s`, 'm'));
    // the user's other zone: refused by the key's rules, with the reason (EDE 18)
    for (const qtype of ['AXFR', 'IXFR=1']) {
      const refused = await transfer(other, qtype);
      expect(refused.stdout).not.toMatch(/\sIN\s+SOA\s/);
      expect(refused.stdout + refused.stderr).toMatch(/Transfer failed|status: REFUSED/);
    }
    const rows = await waitFor('the summary of the transfer refusals', async () => {
      const found = (await events('policy-refused')).filter((e) => e.actorKeyType === 'tsig' && String(e.actorKeyId) === String(key.id));
      return found.length && found[0].count >= 2 ? found : undefined;
    });
    await sleep(1500); // another flush: nothing more comes
    expect((await events('policy-refused')).filter((e) => e.actorKeyType === 'tsig' && String(e.actorKeyId) === String(key.id))).toEqual(
      rows,
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      kind: 'policy-refused',
      actorKeyName: 'one-zone-transfer.key-limits-audit.test',
      actorUserId: userId,
      count: 2,
      sourceAddress: '127.0.0.1',
      detail: { message: `zone: no rule lets this key read every type at every name of ${other}` },
    });
  });
});

describe('refused subscriptions', () => {
  it('a policy refusal and rate-limit hits over graphql-ws are summarised as on HTTP', async () => {
    const made = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { id } } }`, {
      input: { userId, name: 'ws-read-only', preset: 'READ_ONLY' },
    });
    const { secret, apiKey: key } = made.data.createApiKey;
    await wellInsideAMinute();
    const client = wsClient(secret);
    try {
      // a write over the socket: refused by the key's policy
      const write = await overWs(client, `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
        i: { zone: ZONE, owner: 'ws', type: 'A', ttl: 300, rdata: '192.0.2.1' },
      });
      expect(write[0].errors[0].extensions.code).toBe('FORBIDDEN_BY_POLICY');
      const refused = await waitFor('the policy refusal over the socket', async () => {
        const found = (await events('policy-refused')).filter((e) => String(e.actorKeyId) === String(key.id));
        return found.length ? found : undefined;
      });
      expect(refused).toHaveLength(1);
      expect(refused[0]).toMatchObject({ count: 1, detail: { message: expect.stringContaining('no rule lets this key') } });

      // held to one operation a second: the operations beyond it are refused, and counted
      const limited = await app.gql(
        `mutation($id: ID!) { setApiKeyRate(id: $id, input: {ratePerSecond: 1, rateBurst: 1}) { ratePerSecond } }`,
        { id: key.id },
      );
      expect(limited.errors).toBeUndefined();
      const answers = await Promise.all([0, 1, 2, 3].map(() => overWs(client, `{ domains(first: 1) { nodes { name } } }`)));
      const hits = answers.filter((a) => JSON.stringify(a).includes('RATE_LIMITED')).length;
      expect(hits).toBeGreaterThanOrEqual(2);
      await waitFor('the summary of the rate-limit hits over the socket', async () => {
        const found = (await events('rate-limited')).filter((e) => String(e.actorKeyId) === String(key.id));
        return found.length === 1 && found[0].count === hits ? true : undefined;
      });
    } finally {
      await client.dispose();
    }
  });
});
