/**
 * Steering's other ways in (docs/steering.md), on one service with its worker's prober and its DNS primary:
 * external checks whose status is reported (a report moves the served records before it answers, damping holds
 * it as it holds a probed check, a lease that runs out takes it down with no report, and a key reports only what
 * it may write), the REST paths beside the documented ones, the CLI's `steering` commands, and the served records
 * refused to every other write (RRSET_STEERED on each edge, DNS UPDATE's REFUSED with EDE 18) while steering's
 * own changes still move them.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createTsigKey, createUser, createZone, errorCode } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { Endpoint, servedA } from '../support/steering-endpoints';
import { nsupdate } from '../support/update-clients';
import { waitFor } from '../support/wait-for';

const ZONE = 'edges.zk-steering.test';
/** a zone without steering until the test steers one of its RRsets: a write there may be decided on its head */
const FAST_ZONE = 'fast.zk-steering.test';

let app: TestApp;
let userId: string;
let dnsPort: number;

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
  dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    STEERING_CHECK_INTERVAL: '1',
    STEERING_CHECK_TIMEOUT_MS: '500',
    STEERING_FALL: '2',
    STEERING_RISE: '2',
    STEERING_ALLOW_NETWORKS: '127.0.0.0/8',
  });
  userId = await createUser(app, 'edges@zk-steering.test');
  await createZone(app, userId, ZONE);
  await createZone(app, userId, FAST_ZONE);
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

test('a steered RRset’s served records are steering’s: every other write is refused, RRSET_STEERED, and steering still moves them', async () => {
  const gone = new Endpoint();
  const steady = new Endpoint();
  await gone.start();
  await steady.start();
  try {
    const tcpCheck = async (name: string, endpoint: Endpoint) => {
      const res = await app.gql(CREATE_CHECK, { z: ZONE, i: { name, protocol: 'tcp', address: '127.0.0.1', port: endpoint.port } });
      expect(res.errors).toBeUndefined();
      return res.data.createSteeringCheck.id as string;
    };
    const goneCheck = await tcpCheck('hand-gone', gone);
    const steadyCheck = await tcpCheck('hand-steady', steady);
    // two more that keep passing: the killed endpoint (and the test's unreachable 'probed') stay under half of all
    // probed checks, so the panic freeze holds nothing
    for (const n of [1, 2]) await tcpCheck(`hand-steady-${n}`, steady);
    const serial = async () => (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: ZONE })).data.domain.serial;
    const beforeSteering = await serial();
    const created = await app.gql(CREATE_RRSET, {
      z: ZONE,
      i: {
        owner: 'hand',
        type: 'A',
        ttl: 300,
        pools: [
          {
            members: [
              { value: '192.0.2.60', checkId: goneCheck },
              { value: '192.0.2.61', checkId: steadyCheck },
            ],
          },
        ],
      },
    });
    expect(created.errors).toBeUndefined();
    expect(await served('hand')).toEqual(['192.0.2.60', '192.0.2.61']);
    const before = await serial();
    const rows = (await app.gql(`query($z: String) { domain(name: $z) { records(first: 200) { id owner type rdata } } }`, { z: ZONE })).data
      .domain.records;
    const servedId = rows.find((r: any) => r.owner === 'hand' && r.rdata === '192.0.2.60').id;

    // GraphQL: a change set names its change (a dry run too), a record's create, edit and delete
    const APPLY = `mutation($z: String!, $c: [ZoneChangeInput!]!, $d: Boolean) { applyZoneChanges(zone: $z, changes: $c, dryRun: $d) { serial } }`;
    const set = await app.gql(APPLY, {
      z: ZONE,
      c: [
        { kind: 'ADD', owner: 'beside', type: 'TXT', rdata: '"x"', ttl: 300 },
        { kind: 'REPLACE_RRSET', owner: 'hand', type: 'A', rdatas: ['192.0.2.99'], ttl: 300 },
      ],
    });
    expect(errorCode(set)).toBe('RRSET_STEERED');
    expect(set.errors![0].extensions.details).toEqual([
      expect.objectContaining({ field: 'changes[1]', code: 'RRSET_STEERED', owner: 'hand', type: 'A' }),
    ]);
    expect(set.errors![0].message).toMatch(
      /hand A of edges\.zk-steering\.test is steered: .*change it through steering.*remove its steering definition first/,
    );
    const emptied = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'REPLACE_RRSET', owner: 'hand', type: 'A', rdatas: [] }], d: true });
    expect(errorCode(emptied)).toBe('RRSET_STEERED');
    const record = { zone: ZONE, owner: 'hand', type: 'A', rdata: '192.0.2.98', ttl: 300 };
    expect(errorCode(await app.gql(`mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, { i: record }))).toBe('RRSET_STEERED');
    expect(
      errorCode(
        await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id } }`, { id: servedId, i: record }),
      ),
    ).toBe('RRSET_STEERED');
    expect(errorCode(await app.gql(`mutation($id: ID!) { deleteRecord(id: $id) }`, { id: servedId }))).toBe('RRSET_STEERED');
    // REST: 409
    const rest = await app.http
      .post('/api/record/add')
      .set('X-API-Key', ADMIN_KEY)
      .send({ zone: ZONE, owner: 'hand', rtype: 'A', rdata: '192.0.2.97', ttl: 300 });
    expect([rest.status, rest.body.error]).toEqual([409, 'RRSET_STEERED']);
    const restDelete = await app.http.delete(`/api/record/delete/${servedId}`).set('X-API-Key', ADMIN_KEY);
    expect([restDelete.status, restDelete.body.error]).toEqual([409, 'RRSET_STEERED']);
    // the PowerDNS API's PATCH: 409, its message naming the RRset
    const pdns = await app.http
      .patch(`/api/v1/servers/localhost/zones/${ZONE}.`)
      .set('X-API-Key', ADMIN_KEY)
      .send({
        rrsets: [
          { name: `hand.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.96', disabled: false }] },
        ],
      });
    expect(pdns.status).toBe(409);
    expect(pdns.body.error).toMatch(/steered/);
    // an import with other records for the steered name; one with what it serves changes nothing and is taken
    const IMPORT = `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added removed } }`;
    expect(errorCode(await app.gql(IMPORT, { z: ZONE, t: 'hand 300 IN A 192.0.2.95\n' }))).toBe('RRSET_STEERED');
    const same = await app.gql(IMPORT, { z: ZONE, t: 'hand 300 IN A 192.0.2.60\nhand 300 IN A 192.0.2.61\n' });
    expect([same.errors, same.data?.importZone]).toEqual([undefined, { added: 0, removed: 0 }]);
    // a revert to before the RRset was steered would take its records away
    const reverted = await app.gql(`mutation($z: String!, $s: Serial!) { revertZone(zone: $z, toSerial: $s) { serial } }`, {
      z: ZONE,
      s: beforeSteering,
    });
    expect(errorCode(reverted)).toBe('RRSET_STEERED');
    // DNS UPDATE: REFUSED, with the Extended DNS Error 18 (Prohibited, RFC 8914) and the reason in its text
    const key = await createTsigKey(app, userId, 'edges-update-key');
    for (const line of [`update add hand.${ZONE} 300 A 192.0.2.94`, `update delete hand.${ZONE} A`]) {
      const update = await nsupdate(dnsPort, key, [`zone ${ZONE}`, line, 'send'], { debug: true });
      const told = `${update.stdout}${update.stderr}`;
      expect(told).toMatch(/REFUSED/);
      expect(told).toMatch(/EDE: 18 \(Prohibited\)/);
      expect(told).toMatch(/steered/);
    }
    // nothing of it moved; another type at its owner is another RRset, written as ever
    expect(await served('hand')).toEqual(['192.0.2.60', '192.0.2.61']);
    expect(await serial()).toBe(before);
    const txt = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'ADD', owner: 'hand', type: 'TXT', rdata: '"beside"', ttl: 300 }] });
    expect(txt.errors).toBeUndefined();

    // steering's own changes still move it: the prober takes the killed endpoint out, and the primary serves that
    await waitFor(
      'the checks to come up',
      async () => {
        const res = await app.gql(`query($z: String) { domain(name: $z) { steeringChecks { name status } } }`, { z: ZONE });
        const states = res.data.domain.steeringChecks.filter((c: any) => c.name.startsWith('hand-')).map((c: any) => c.status);
        return states.every((s: string) => s === 'up') ? true : undefined;
      },
      10_000,
    );
    await gone.stop();
    await waitFor('the killed endpoint to leave', async () => ((await served('hand')).length === 1 ? true : undefined), 10_000);
    expect(await served('hand')).toEqual(['192.0.2.61']);
    expect(await servedA(dnsPort, `hand.${ZONE}`)).toEqual(['192.0.2.61']);
    const history = await app.gql(
      `query($z: String) { domain(name: $z) { changes(first: 1) { nodes { serviceNote author { keyName } } } } }`,
      {
        z: ZONE,
      },
    );
    expect(history.data.domain.changes.nodes[0]).toEqual({ serviceNote: 'steering', author: null });
  } finally {
    await gone.stop();
    await steady.stop();
  }
}, 60_000);

test('the API’s hot path (a write decided on what the process last saw of a zone) is refused once the RRset is steered', async () => {
  const add = (rdata: string) =>
    app.http.post('/api/record/add').set('X-API-Key', ADMIN_KEY).send({ zone: FAST_ZONE, owner: 'head', rtype: 'A', rdata, ttl: 300 });
  // two writes at the owner in a zone with nothing steered: the second is decided on the zone's head
  expect((await add('192.0.2.1')).status).toBe(201);
  expect((await add('192.0.2.2')).status).toBe(201);
  const serial = async () => (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: FAST_ZONE })).data.domain.serial;
  const before = await serial();
  // steered to serve what it holds: no record moves, so the serial stays and a head of the zone would still match
  // it; the write's own proof (no steered RRset in the zone) sends it back to a read, which refuses it
  const steered = await app.gql(CREATE_RRSET, {
    z: FAST_ZONE,
    i: { owner: 'head', type: 'A', ttl: 300, pools: [{ members: [{ value: '192.0.2.1' }, { value: '192.0.2.2' }] }] },
  });
  expect(steered.errors).toBeUndefined();
  expect(await serial()).toBe(before);
  const refused = await add('192.0.2.3');
  expect([refused.status, refused.body.error]).toEqual([409, 'RRSET_STEERED']);
  // the zone's other RRsets are written as ever
  const other = await app.http
    .post('/api/record/add')
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: FAST_ZONE, owner: 'other', rtype: 'A', rdata: '192.0.2.4', ttl: 300 });
  expect(other.status).toBe(201);
});
