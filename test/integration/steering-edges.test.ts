/**
 * Steering's other ways in (docs/steering.md), on one service with its worker's prober: external checks whose
 * status is reported (a report moves the served records before it answers, damping holds it as it holds a
 * probed check, a lease that runs out takes it down with no report, and a key reports only what it may write),
 * the REST paths beside the documented ones, and the CLI's `steering` commands.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { waitFor } from '../support/wait-for';

const ZONE = 'edges.zk-steering.test';

let app: TestApp;
let userId: string;

const CREATE_CHECK = `mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id name protocol status address port leaseUntil } }`;
const CREATE_RRSET = `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id served } }`;
const REPORT = `mutation($id: ID!, $up: Boolean!, $l: Int, $m: String) { reportSteeringStatus(id: $id, up: $up, leaseSeconds: $l, message: $m) { status lastOk lastError leaseUntil } }`;

async function served(owner: string, type = 'A'): Promise<string[]> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { records(first: 100) { owner type rdata } } }`, { z: ZONE });
  return res.data.domain.records
    .filter((r: any) => r.owner === owner && r.type === type)
    .map((r: any) => r.rdata)
    .sort();
}

async function externalCheck(name: string): Promise<string> {
  const res = await app.gql(CREATE_CHECK, { z: ZONE, i: { name, protocol: 'external' } });
  expect(res.errors).toBeUndefined();
  expect(res.data.createSteeringCheck).toMatchObject({ protocol: 'external', status: 'unknown', address: '', port: 0, leaseUntil: null });
  return res.data.createSteeringCheck.id;
}

/** a steered A RRset at `owner`: the member following `checkId` first, 192.0.2.99 as the fallback pool */
async function steer(owner: string, checkId: string, value: string): Promise<string> {
  const res = await app.gql(CREATE_RRSET, {
    z: ZONE,
    i: { owner, type: 'A', pools: [{ members: [{ value, checkId }] }, { members: [{ value: '192.0.2.99' }] }] },
  });
  expect(res.errors).toBeUndefined();
  return res.data.createSteeredRrset.id;
}

beforeAll(async () => {
  buildOnce();
  app = await startTestApp({ ROLES: 'api,worker', STEERING_CHECK_INTERVAL: '1', STEERING_CHECK_TIMEOUT_MS: '500' });
  userId = await createUser(app, 'edges@zk-steering.test');
  await createZone(app, userId, ZONE);
}, 300_000);

afterAll(async () => {
  await app?.close();
});

test('an external check: a report moves the served records before it answers, and damping holds it as a probe’s', async () => {
  const checkId = await externalCheck('pushed');
  await steer('ext', checkId, '192.0.2.10');
  // not reported yet: unknown, its member served (its reporter has STEERING_EXTERNAL_LEASE to report)
  expect(await served('ext')).toEqual(['192.0.2.10']);

  const down = await app.gql(REPORT, { id: checkId, up: false, l: 60, m: 'drained for maintenance' });
  expect(down.errors).toBeUndefined();
  expect(down.data.reportSteeringStatus).toMatchObject({ status: 'down', lastOk: false, lastError: 'drained for maintenance' });
  expect(new Date(down.data.reportSteeringStatus.leaseUntil).getTime()).toBeGreaterThan(Date.now() + 50_000);
  expect(await served('ext')).toEqual(['192.0.2.99']);

  // back up (the first decision of a new check was no change: it is not held)...
  const up = await app.gql(REPORT, { id: checkId, up: true });
  expect(up.data.reportSteeringStatus).toMatchObject({ status: 'up', lastOk: true, lastError: null });
  expect(await served('ext')).toEqual(['192.0.2.10']);
  // ...and a change is held 30 s: reported down at once, it stays up, still served
  const held = await app.gql(REPORT, { id: checkId, up: false });
  expect(held.data.reportSteeringStatus).toMatchObject({ status: 'up', lastOk: false, lastError: 'reported down' });
  expect(await served('ext')).toEqual(['192.0.2.10']);

  // out of range, and a probed check's status is not reported
  expect(errorCode(await app.gql(REPORT, { id: checkId, up: true, l: 0 }))).toBe('INVALID_INPUT');
  const probed = await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'probed', protocol: 'tcp', address: '8.8.8.8', port: 53 } });
  expect(errorCode(await app.gql(REPORT, { id: probed.data.createSteeringCheck.id, up: true }))).toBe('STEERING_CHECK_NOT_EXTERNAL');
  expect(errorCode(await app.gql(CREATE_CHECK, { z: ZONE, i: { name: 'bad', protocol: 'external', address: '192.0.2.1' } }))).toMatch(
    /INVALID/,
  );
});

test('a lease that runs out takes the member out with no report: the prober notices it', async () => {
  const checkId = await externalCheck('leased');
  await steer('lease', checkId, '192.0.2.20');
  const up = await app.gql(REPORT, { id: checkId, up: true, l: 2 });
  expect(up.data.reportSteeringStatus).toMatchObject({ status: 'up', lastOk: true });
  expect(await served('lease')).toEqual(['192.0.2.20']);
  const gone = await waitFor(
    'the lease to run out and the fallback to be served',
    async () => ((await served('lease')).includes('192.0.2.99') ? true : undefined),
    10_000,
  );
  expect(gone).toBe(true);
  const check = await app.gql(`query($z: String) { domain(name: $z) { steeringChecks { name status lastOk lastError } } }`, { z: ZONE });
  expect(check.data.domain.steeringChecks.find((c: any) => c.name === 'leased')).toMatchObject({
    status: 'down',
    lastOk: false,
    lastError: expect.stringMatching(/lease ran out/),
  });
});

test('a key reports only for the RRsets it may write', async () => {
  const checkId = await externalCheck('policed');
  await steer('dyn.policed', checkId, '192.0.2.30');
  const mine = (
    await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: {
        userId,
        name: 'reporter',
        policy: {
          rules: [
            { zone: ZONE, access: 'READ' },
            { zone: ZONE, owner: 'dyn.*', access: 'WRITE' },
          ],
        },
      },
    })
  ).data.createApiKey.secret;
  const readOnly = (
    await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: { userId, name: 'reader', policy: { rules: [{ zone: ZONE, access: 'READ' }] } },
    })
  ).data.createApiKey.secret;
  expect(errorCode(await app.gql(REPORT, { id: checkId, up: false }, readOnly))).toMatch(/FORBIDDEN/);
  expect(await served('dyn.policed')).toEqual(['192.0.2.30']);
  const allowed = await app.gql(REPORT, { id: checkId, up: false }, mine);
  expect(allowed.errors).toBeUndefined();
  expect(await served('dyn.policed')).toEqual(['192.0.2.99']);
  // the check followed by an RRset the key may not write: refused
  await steer('web', checkId, '192.0.2.31');
  expect(errorCode(await app.gql(REPORT, { id: checkId, up: false }, mine))).toBe('FORBIDDEN_BY_POLICY');
});

test('REST beside the documented paths: read, steer, pause, report and unsteer, on the same services', async () => {
  const rest = (method: 'get' | 'put' | 'post' | 'delete', path: string, body?: object) => {
    const req = app.http[method](`/api/domain/steering/${ZONE}${path}`).set('X-API-Key', ADMIN_KEY);
    return body ? req.send(body) : req;
  };
  await externalCheck('rest-ext');
  const put = await rest('put', '/rrset/rest/A', {
    pools: [{ members: [{ value: '192.0.2.40', check: 'rest-ext' }, { value: '192.0.2.41' }] }, { members: [{ value: '192.0.2.99' }] }],
    ttl: 900,
  });
  expect(put.status).toBe(200);
  expect(put.body).toMatchObject({ owner: 'rest', type: 'A', ttl: 900, served: ['192.0.2.40', '192.0.2.41'] });
  expect(await served('rest')).toEqual(['192.0.2.40', '192.0.2.41']);
  // replaced, not a second one
  const replaced = await rest('put', '/rrset/rest/A', {
    pools: [{ members: [{ value: '192.0.2.40', check: 'rest-ext' }] }],
    backup: ['192.0.2.98'],
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body).toMatchObject({ id: put.body.id, served: ['192.0.2.40'], backup: ['192.0.2.98'] });
  expect((await rest('put', '/rrset/rest/A', { pools: [{ members: [{ value: '192.0.2.40', check: 'nope' }] }] })).body.error).toBe(
    'STEERING_CHECK_NOT_FOUND',
  );
  expect((await rest('put', '/rrset/rest/MX', { pools: [] })).status).toBe(422);

  const reported = await rest('post', '/check/rest-ext/status', { up: 'false', lease_seconds: 60, message: 'gone' });
  expect(reported.status).toBe(200);
  expect(reported.body).toMatchObject({ name: 'rest-ext', protocol: 'external', status: 'down', last_error: 'gone' });
  expect(reported.body.address).toBeUndefined();
  expect(await served('rest')).toEqual(['192.0.2.98']);

  const read = await rest('get', '');
  expect(read.status).toBe(200);
  const rrset = read.body.rrsets.find((r: any) => r.owner === 'rest');
  expect(rrset.served).toEqual(['192.0.2.98']);
  expect(rrset.pools[0].members[0]).toMatchObject({
    value: '192.0.2.40',
    check: 'rest-ext',
    status: 'down',
    healthy: false,
    last_error: 'gone',
  });
  expect(read.body.checks.map((c: any) => c.name)).toContain('rest-ext');

  const forced = await rest('post', '/rrset/rest/A/admin', { value: '192.0.2.40', admin: 'up' });
  expect(forced.status).toBe(200);
  expect(forced.body.served).toEqual(['192.0.2.40']);
  expect((await rest('post', '/rrset/rest/A/admin', { value: '192.0.2.40', admin: 'maybe' })).body.error).toBe('INVALID_INPUT');
  expect((await rest('delete', '/rrset/rest/A')).status).toBe(204);
  expect(await served('rest')).toEqual([]);
  expect((await rest('delete', '/rrset/rest/A')).status).toBe(404);
  expect((await app.http.get('/api/domain/steering/nowhere.zk-steering.test').set('X-API-Key', ADMIN_KEY)).status).toBe(404);

  // the OpenAPI document names the new paths
  const openapi = await app.http.get('/api/openapi.json');
  expect(openapi.status).toBe(200);
  expect(Object.keys(openapi.body.paths)).toContain('/api/domain/steering/{zone}/rrset/{owner}/{type}');
});

test('the CLI: steering list, show, set-member and report', async () => {
  const cli = (args: string[]) => runCli(app.baseUrl, args);
  const checkId = await externalCheck('cli-ext');
  await steer('cli', checkId, '192.0.2.50');
  const list = await cli(['steering', 'list', ZONE]);
  expect(list.code).toBe(0);
  expect(list.out).toMatch(/cli\s+A\s+1\s+192\.0\.2\.50\s+obey\s+true\s+true\s+cli-ext\s+unknown/);

  const report = await cli(['steering', 'report', ZONE, 'cli-ext', 'down', '--lease', '120', '--message', 'drained']);
  expect(report.code).toBe(0);
  expect(report.out).toMatch(/cli-ext\s+down/);
  expect(await served('cli')).toEqual(['192.0.2.99']);

  const show = await runCli(app.baseUrl, ['--json', 'steering', 'show', ZONE, `cli.${ZONE}.`, 'A']);
  expect(show.code).toBe(0);
  const shown = JSON.parse(show.out);
  expect(shown.served).toEqual(['192.0.2.99']);
  expect(shown.pools[0].members[0]).toMatchObject({
    value: '192.0.2.50',
    healthy: false,
    check: { name: 'cli-ext', status: 'down', lastError: 'drained' },
  });

  const paused = await cli(['steering', 'set-member', ZONE, 'cli', 'A', '192.0.2.99', 'down']);
  expect(paused.code).toBe(0);
  expect(paused.out).toMatch(/serves: \(nothing\)/);
  expect((await cli(['steering', 'set-member', ZONE, 'cli', 'A', '192.0.2.99', 'maybe'])).code).toBe(2);
  expect((await cli(['steering', 'report', ZONE, 'no-such-check', 'up'])).code).toBe(1);
  expect((await cli(['steering', 'show', ZONE, 'nothing-here', 'A'])).code).toBe(1);
});
