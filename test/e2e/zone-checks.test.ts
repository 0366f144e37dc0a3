/**
 * Zone checks through the API: a single record's write that makes an MX point at an alias, or a delegation
 * without its glue, is refused as a change set's plan refuses it (docs/changes.md), and one with a warning is
 * written with it (GraphQL `extensions.warnings`); an import reports the same in its warnings (and a
 * dry run shows the SOA's change with the records'), and `checkZone` (GraphQL, REST) lists a whole zone's. A change
 * set's warnings are kept with its history entry (GraphQL `Domain.changes`, REST `GET /api/domain/changes/{zone}`),
 * and a key that may not read the RRset sees none; `Domain.strictChecks` and `Domain.requiredApprovals` read the
 * zone's settings.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';

const ZONE = 'checks.zk.test';
let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'owner@checks.zk.test');
  await createZone(app, userId, ZONE);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const codes = (res: any) => (res.body.extensions?.warnings ?? []).map((w: any) => w.code);

test('a record whose target is an alias is refused as a change set would be; a target not there is written, with a warning', async () => {
  // the new zone's www is a CNAME to the apex
  const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: '@', type: 'MX', rdata: `10 www.${ZONE}.`, ttl: 3600 } });
  expect(res.errors?.[0].extensions.code).toBe('ZONE_RULE_VIOLATION');
  expect(res.errors?.[0].extensions.details.map((d: any) => [d.field, d.code, d.severity])).toEqual([
    ['rdata', 'TARGET_IS_CNAME', 'error'],
  ]);
  const warned = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: '@', type: 'MX', rdata: `10 mail.${ZONE}.`, ttl: 3600 } });
  expect(warned.errors).toBeUndefined();
  expect(codes(warned)).toEqual(['TARGET_MISSING']);
});

test('a delegation without its glue is refused, naming it, by a change set and a single record write alike', async () => {
  const apply = `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`;
  const res = await app.gql(apply, {
    z: ZONE,
    c: [
      { kind: 'ADD', owner: 'fine', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
      { kind: 'ADD', owner: 'sub', type: 'NS', rdata: `ns.sub.${ZONE}.`, ttl: 3600 },
    ],
  });
  expect(res.errors?.[0].extensions.code).toBe('ZONE_RULE_VIOLATION');
  expect(res.errors?.[0].extensions.details.map((d: any) => [d.field, d.code, d.severity])).toEqual([
    ['changes[1].rdata', 'GLUE_MISSING', 'error'],
  ]);
  expect(codes(await app.gql(apply, { z: ZONE, c: [{ kind: 'ADD', owner: 'fine', type: 'A', rdata: '192.0.2.1', ttl: 3600 }] }))).toEqual(
    [],
  );
  // one policy of findings (docs/changes.md): a plan's error refuses a single record's write too
  const single = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'sub', type: 'NS', rdata: `ns.sub.${ZONE}.`, ttl: 3600 } });
  expect(single.errors?.[0].extensions.details.map((d: any) => [d.field, d.code, d.severity])).toEqual([
    ['rdata', 'GLUE_MISSING', 'error'],
  ]);
  // its glue first, then the delegation: written
  expect(
    (await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'ns.sub', type: 'A', rdata: '192.0.2.53', ttl: 3600 } })).errors,
  ).toBeUndefined();
  const glued = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'sub', type: 'NS', rdata: `ns.sub.${ZONE}.`, ttl: 3600 } });
  expect(glued.errors).toBeUndefined();
  expect(codes(glued)).toEqual([]);
});

test("checkZone lists the whole zone's warnings (GraphQL and REST alike)", async () => {
  const gql = await app.gql(`query($z: String!) { checkZone(zone: $z) { zone serial warnings { owner type code } } }`, { z: ZONE });
  expect(gql.errors).toBeUndefined();
  expect(gql.data.checkZone.warnings).toEqual([{ owner: '@', type: 'MX', code: 'TARGET_MISSING' }]);
  const rest = await app.http.get(`/api/domain/check/${ZONE}`).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body.warnings.map((w: any) => w.code)).toEqual(['TARGET_MISSING']);
});

test("an import dry run shows the SOA's change and the zone checks' warnings", async () => {
  const res = await app.gql(
    `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE, dryRun: true) { serial addedRecords removedRecords warnings { code message } } }`,
    { z: ZONE, t: `$ORIGIN ${ZONE}.\ncn 3600 IN CNAME gone.${ZONE}.\nmx 3600 IN MX 10 www.${ZONE}.\n` },
  );
  expect(res.errors).toBeUndefined();
  const result = res.data.importZone;
  expect(result.addedRecords).toEqual(
    expect.arrayContaining([
      expect.stringMatching(new RegExp(`^${ZONE}\\. 3600 IN SOA .* ${result.serial} 3600 1800 604800 86400$`)),
      `cn.${ZONE}. 3600 IN CNAME gone.${ZONE}.`,
    ]),
  );
  expect(result.removedRecords).toEqual([expect.stringMatching(new RegExp(`^${ZONE}\\. 3600 IN SOA `))]);
  expect(result.warnings.map((w: any) => w.code)).toEqual(expect.arrayContaining(['TARGET_MISSING', 'TARGET_IS_CNAME']));
});

test("a change set's warnings are kept with its change and read from the history (GraphQL, REST); a key that may not read the RRset sees none", async () => {
  const apply = `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`;
  const warned = await app.gql(apply, {
    z: ZONE,
    c: [
      { kind: 'ADD', owner: 'kept', type: 'CNAME', rdata: `nowhere.${ZONE}.`, ttl: 3600 },
      { kind: 'ADD', owner: 'plain', type: 'A', rdata: '192.0.2.7', ttl: 3600 },
    ],
  });
  expect(warned.errors).toBeUndefined();
  expect(codes(warned)).toEqual(['TARGET_MISSING']);
  const clean = await app.gql(apply, { z: ZONE, c: [{ kind: 'ADD', owner: 'plain2', type: 'A', rdata: '192.0.2.8', ttl: 3600 }] });
  expect(codes(clean)).toEqual([]);

  const history = `query($z: String!) { domain(name: $z) { changes(first: 2) { nodes { serialAfter findings { code severity owner type rfc message } } } } }`;
  const nodes = (await app.gql(history, { z: ZONE })).data.domain.changes.nodes;
  expect(nodes.map((n: any) => n.serialAfter)).toEqual([clean.data.applyZoneChanges.serial, warned.data.applyZoneChanges.serial]);
  const finding = {
    code: 'TARGET_MISSING',
    severity: 'warning',
    owner: 'kept',
    type: 'CNAME',
    rfc: 'RFC 1034 §3.6.2',
    message: expect.stringMatching(/nowhere\.checks\.zk\.test\..*no such name/),
  };
  expect(nodes.map((n: any) => n.findings)).toEqual([[], [finding]]);

  // REST's history route answers the same
  const rest = await app.http.get(`/api/domain/changes/${ZONE}?first=2`).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body.map((c: any) => c.findings)).toEqual([[], [finding]]);

  // a key that reads the A records alone sees none of the CNAME's records, nor what its change was warned of
  const created = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId, name: 'a-only', policy: { rules: [{ zone: ZONE, types: ['A'], access: 'READ' }] } },
  });
  expect(created.errors).toBeUndefined();
  const narrow = await app.gql(history, { z: ZONE }, created.data.createApiKey.secret);
  expect(narrow.errors).toBeUndefined();
  expect(narrow.data.domain.changes.nodes.map((n: any) => n.findings)).toEqual([[], []]);
});

test("Domain.strictChecks and Domain.requiredApprovals read the zone's settings, for a list of zones too", async () => {
  const read = async () => {
    const res = await app.gql(
      `query($z: String!) { domain(name: $z) { strictChecks requiredApprovals } domains(first: 10) { nodes { name strictChecks requiredApprovals } } }`,
      { z: ZONE },
    );
    expect(res.errors).toBeUndefined();
    return { one: res.data.domain, listed: res.data.domains.nodes.find((n: any) => n.name === ZONE) };
  };
  expect(await read()).toEqual({
    one: { strictChecks: false, requiredApprovals: 0 },
    listed: { name: ZONE, strictChecks: false, requiredApprovals: 0 },
  });
  expect((await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: true) }`, { z: ZONE })).errors).toBeUndefined();
  expect((await app.gql(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 3) }`, { z: ZONE })).errors).toBeUndefined();
  expect(await read()).toEqual({
    one: { strictChecks: true, requiredApprovals: 3 },
    listed: { name: ZONE, strictChecks: true, requiredApprovals: 3 },
  });
});
