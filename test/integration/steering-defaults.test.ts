/**
 * A zone's steering defaults (docs/steering.md, «A zone's defaults for new members' checks») on each edge:
 * GraphQL's setSteeringDefaults and Domain.steeringDefaults, REST's PUT /domain/steering/{zone}/defaults and the
 * `defaults` of its GET, and the CLI's `steering defaults` and `steering set-defaults`. Bad defaults are refused
 * field by field as a check's settings are, and leave the defaults as they were; what is not given is unset.
 * That a sync keeps an operator's checks and gives a new member these defaults is proven with octoDNS itself
 * (test/powerdns/octodns-checks.test.ts).
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

const ZONE = 'defaults.zk-steering.test';
const FIELDS = 'protocol port host path statusMin statusMax bodyContains verifyTls intervalSeconds';
const SET = `mutation($z: String!, $i: SteeringDefaultsInput!) { setSteeringDefaults(zone: $z, input: $i) { ${FIELDS} } }`;
const NONE = {
  protocol: null,
  port: null,
  host: null,
  path: null,
  statusMin: null,
  statusMax: null,
  bodyContains: null,
  verifyTls: null,
  intervalSeconds: null,
};

let app: TestApp;
let userId: string;

async function defaults(key: string | null = ADMIN_KEY): Promise<typeof NONE> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { steeringDefaults { ${FIELDS} } } }`, { z: ZONE }, key);
  expect(res.errors).toBeUndefined();
  return res.data.domain.steeringDefaults;
}

beforeAll(async () => {
  buildOnce();
  app = await startTestApp();
  userId = await createUser(app, 'defaults@zk-steering.test');
  await createZone(app, userId, ZONE);
}, 300_000);

afterAll(async () => {
  await app?.close();
});

test('GraphQL: defaults are set as a whole, normalised, and read back; what is not given is unset', async () => {
  expect(await defaults()).toEqual(NONE);
  const set = await app.gql(SET, {
    z: ZONE,
    i: { protocol: 'HTTP', port: 8080, host: 'Probe.Example.', path: ' /ready ', intervalSeconds: 15 },
  });
  expect(set.errors).toBeUndefined();
  const expected = { ...NONE, protocol: 'http', port: 8080, host: 'Probe.Example', path: '/ready', intervalSeconds: 15 };
  expect(set.data.setSteeringDefaults).toEqual(expected);
  expect(await defaults()).toEqual(expected);

  // replaced whole: the port and the rest not given again are unset
  const replaced = await app.gql(SET, { z: ZONE, i: { statusMin: 200, statusMax: 299, bodyContains: 'ok', verifyTls: true } });
  expect(replaced.errors).toBeUndefined();
  expect(await defaults()).toEqual({ ...NONE, statusMin: 200, statusMax: 299, bodyContains: 'ok', verifyTls: true });

  expect((await app.gql(SET, { z: ZONE, i: {} })).errors).toBeUndefined();
  expect(await defaults()).toEqual(NONE);
});

test('GraphQL: bad defaults are refused naming the field, and change nothing', async () => {
  const kept = { ...NONE, protocol: 'https', port: 8443 };
  expect((await app.gql(SET, { z: ZONE, i: { protocol: 'https', port: 8443 } })).errors).toBeUndefined();
  const refusals: [Record<string, unknown>, string][] = [
    [{ protocol: 'external' }, 'protocol'],
    [{ protocol: 'ftp' }, 'protocol'],
    [{ protocol: 'tcp' }, 'port'],
    [{ port: 70000 }, 'port'],
    [{ protocol: 'tcp', port: 22, host: 'probe.example' }, 'host'],
    [{ protocol: 'tcp', port: 22, path: '/x' }, 'path'],
    [{ protocol: 'tcp', port: 22, bodyContains: 'ok' }, 'bodyContains'],
    [{ protocol: 'http', verifyTls: true }, 'verifyTls'],
    [{ path: 'no-slash' }, 'path'],
    [{ statusMin: 500 }, 'statusMin'],
    [{ statusMin: 200, statusMax: 700 }, 'statusMin'],
    [{ intervalSeconds: 0 }, 'intervalSeconds'],
    [{ intervalSeconds: 301 }, 'intervalSeconds'],
  ];
  for (const [input, field] of refusals) {
    const res = await app.gql(SET, { z: ZONE, i: input });
    expect({ input, code: errorCode(res), field: res.errors?.[0]?.extensions?.details?.[0]?.field }).toEqual({
      input,
      code: 'INVALID_INPUT',
      field,
    });
  }
  expect(await defaults()).toEqual(kept);
  expect(errorCode(await app.gql(SET, { z: 'nowhere.zk-steering.test', i: {} }))).toBe('ZONE_NOT_FOUND');
});

test('who may: a key that writes some record of the zone; another user’s key finds no zone', async () => {
  const own = await createUserKey(app, userId);
  expect((await app.gql(SET, { z: ZONE, i: { intervalSeconds: 20 } }, own)).errors).toBeUndefined();
  expect((await defaults(own)).intervalSeconds).toBe(20);
  const stranger = await createUserKey(app, await createUser(app, 'stranger@zk-steering.test'));
  expect(errorCode(await app.gql(SET, { z: ZONE, i: {} }, stranger))).toBe('ZONE_NOT_FOUND');
  expect((await defaults()).intervalSeconds).toBe(20);
});

test('REST: PUT …/defaults replaces them, GET shows them as defaults', async () => {
  const rest = (method: 'get' | 'put', path: string, body?: object) => {
    const req = app.http[method](`/api/domain/steering/${ZONE}${path}`).set('X-API-Key', ADMIN_KEY);
    return body ? req.send(body) : req;
  };
  const put = await rest('put', '/defaults', { protocol: 'tcp', port: 5432, interval_seconds: 30, verify_tls: 'false' });
  expect(put.status).toBe(200);
  const expected = {
    protocol: 'tcp',
    port: 5432,
    host: null,
    path: null,
    status_min: null,
    status_max: null,
    body_contains: null,
    verify_tls: false,
    interval_seconds: 30,
  };
  expect(put.body).toEqual(expected);
  const read = await rest('get', '');
  expect(read.status).toBe(200);
  expect(read.body.defaults).toEqual(expected);

  const bad = await rest('put', '/defaults', { protocol: 'tcp' });
  expect(bad.status).toBe(422);
  expect(bad.body.error).toBe('INVALID_INPUT');
  const gopher = await rest('put', '/defaults', { protocol: 'gopher' });
  expect([gopher.status, gopher.body.error]).toEqual([422, 'INVALID_INPUT']);
  expect((await rest('get', '')).body.defaults).toEqual(expected);
  expect((await app.http.put('/api/domain/steering/nowhere.zk-steering.test/defaults').set('X-API-Key', ADMIN_KEY).send({})).status).toBe(
    404,
  );

  const openapi = await app.http.get('/api/openapi.json');
  expect(Object.keys(openapi.body.paths)).toContain('/api/domain/steering/{zone}/defaults');
});

test('the CLI: steering set-defaults and defaults', async () => {
  const cli = (args: string[]) => runCli(app.baseUrl, args);
  const set = await cli([
    '--json',
    'steering',
    'set-defaults',
    ZONE,
    '--protocol',
    'https',
    '--port',
    '8443',
    '--host',
    'health.example',
    '--path',
    '/healthz',
    '--status',
    '200-204',
    '--body',
    'alive',
    '--verify-tls',
    '--interval',
    '12',
  ]);
  expect(set.code).toBe(0);
  const expected = {
    protocol: 'https',
    port: 8443,
    host: 'health.example',
    path: '/healthz',
    statusMin: 200,
    statusMax: 204,
    bodyContains: 'alive',
    verifyTls: true,
    intervalSeconds: 12,
  };
  expect(JSON.parse(set.out)).toEqual(expected);
  expect(await defaults()).toEqual(expected);

  // a table: each setting, its value, and what applies where none is set
  const cleared = await cli(['steering', 'set-defaults', ZONE, '--path', '/up']);
  expect(cleared.code).toBe(0);
  const shown = await cli(['steering', 'defaults', ZONE]);
  expect(shown.code).toBe(0);
  expect(shown.out).toMatch(/path\s+\/up\s+\/up/);
  expect(shown.out).toMatch(/port\s+443 \(https\), 80 \(http\) \(the service's\)/);

  expect((await cli(['steering', 'set-defaults', ZONE, '--status', '200'])).code).toBe(2);
  expect((await cli(['steering', 'set-defaults', ZONE, '--port', 'many'])).code).toBe(2);
  const refused = await cli(['steering', 'set-defaults', ZONE, '--protocol', 'tcp']);
  expect(refused.code).toBe(1);
  expect(refused.err).toMatch(/port/);
  expect(await defaults()).toEqual({ ...NONE, path: '/up' });
});
