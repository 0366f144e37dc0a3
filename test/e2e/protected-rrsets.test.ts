import { freePort } from '../support/free-port';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { nsupdate } from '../support/update-clients';
import { waitFor } from '../support/wait-for';

/**
 * A plan's checks, the safety threshold and protected RRsets through the edges (docs/changes.md): a locked RRset
 * refuses GraphQL, REST, the PowerDNS API, an import, a revert and DNS UPDATE (REFUSED with EDE 18) until it is
 * unlocked; a check's error refuses a change set, its warning is kept; force passes the threshold. One service.
 */
const ZONE = 'locked.test';
let app: TestApp;
let dnsPort: number;
let key: { name: string; algorithm: string; secret: string };
let userId: string;
beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'locks@example.org');
  await createZone(app, userId, ZONE);
  const made = await app.gql(`mutation($u: ID!) { createTsigKey(input: {userId: $u, name: "locks-key"}) { secret } }`, { u: userId });
  key = { name: 'locks-key', algorithm: 'hmac-sha256', secret: made.data.createTsigKey.secret };
});
afterAll(async () => app.close());

const APPLY = `mutation($z: String!, $c: [ZoneChangeInput!]!, $d: Boolean, $f: Boolean) {
  applyZoneChanges(zone: $z, changes: $c, dryRun: $d, force: $f) { serial warnings { code severity owner type rfc } } }`;
const apply = (changes: unknown[], options: { dryRun?: boolean; force?: boolean } = {}) =>
  app.gql(APPLY, { z: ZONE, c: changes, d: options.dryRun, f: options.force });
const add = (owner: string, type: string, rdata: string) => ({ kind: 'ADD', owner, type, rdata, ttl: 300 });
const lock = (owner: string, type: string, verb = 'lockRrset') =>
  app.gql(
    `mutation($z: String!, $o: String!, $t: String!) { ${verb}(zone: $z, owner: $o, type: $t) ${verb === 'lockRrset' ? '{ owner type lockedBy }' : ''} }`,
    {
      z: ZONE,
      o: owner,
      t: type,
    },
  );
const serial = async () => (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: ZONE })).data.domain.serial as number;

test('a check that is an error refuses the set; a warning is answered with severity and RFC', async () => {
  const refused = await apply([add('host', 'A', '192.0.2.1'), add('alias', 'CNAME', 'host'), add('@', 'MX', '10 alias')]);
  expect(errorCode(refused)).toBe('ZONE_RULE_VIOLATION');
  expect(refused.errors![0].extensions.details).toEqual([
    expect.objectContaining({
      field: 'changes[2].rdata',
      code: 'TARGET_IS_CNAME',
      severity: 'error',
      owner: '@',
      type: 'MX',
      rfc: 'RFC 2181 §10.3',
    }),
  ]);
  const warned = await apply([add('@', 'MX', '10 nothere')], { dryRun: true });
  expect(warned.data.applyZoneChanges.warnings).toEqual([
    { code: 'TARGET_MISSING', severity: 'warning', owner: '@', type: 'MX', rfc: 'RFC 1034 §3.6.2' },
  ]);
  // strictChecks: the same set is refused
  await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: true) }`, { z: ZONE });
  expect(errorCode(await apply([add('@', 'MX', '10 nothere')]))).toBe('ZONE_RULE_VIOLATION');
  await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: false) }`, { z: ZONE });
});

test('the apex NS and a large delete ask to be forced at GraphQL and REST, not at the PowerDNS API', async () => {
  const ns = { kind: 'REPLACE_RRSET', owner: '@', type: 'NS', rdatas: ['ns1.example.net.', 'ns9.example.net.'], ttl: 3600 };
  expect(errorCode(await apply([ns]))).toBe('CHANGE_NEEDS_FORCE');
  expect(errorCode(await apply([ns], { dryRun: true, force: true }))).toBeUndefined();
  const rest = await app.http
    .post(`/api/domain/changes/${ZONE}`)
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .send({ changes: [ns] });
  expect(rest.body).toMatchObject({ code: 409, error: 'CHANGE_NEEDS_FORCE' });
  const forced = await app.http
    .post(`/api/domain/changes/${ZONE}?force=true`)
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .send({ changes: [ns] });
  expect([forced.status, forced.body.error]).toEqual([200, undefined]);
  // twelve records, five deleted in one set
  await apply(Array.from({ length: 10 }, (_, i) => add(`h${i}`, 'A', `192.0.2.${i + 10}`)));
  const five = Array.from({ length: 5 }, (_, i) => ({ kind: 'REPLACE_RRSET', owner: `h${i}`, type: 'A', rdatas: [] }));
  expect(errorCode(await apply(five))).toBe('CHANGE_NEEDS_FORCE');
  const pdns = await app.http
    .patch(`/api/v1/servers/localhost/zones/${ZONE}.`)
    .set('X-API-Key', 'test-admin-key-0123456789abcdef')
    .send({ rrsets: five.map((c) => ({ name: `${c.owner}.${ZONE}.`, type: 'A', changetype: 'DELETE' })) });
  expect(pdns.status).toBe(204);
});

test('a locked RRset refuses every edge, in the audit log, until it is unlocked', async () => {
  await apply([add('@', 'MX', '10 mx.example.net.')]);
  const locked = await lock('@', 'MX');
  expect(locked.data.lockRrset).toEqual({ owner: '@', type: 'MX', lockedBy: expect.any(String) });
  const listed = await app.gql(`query($z: String!) { domain(name: $z) { protectedRrsets { owner type } } }`, { z: ZONE });
  expect(listed.data.domain.protectedRrsets).toEqual([{ owner: '@', type: 'MX' }]);
  const before = await serial();
  const admin = 'test-admin-key-0123456789abcdef';

  // GraphQL: a change set (naming its change), a dry run, a record's create
  const set = await apply([add('t', 'TXT', '"x"'), add('@', 'MX', '20 mx2.example.net.')]);
  expect([errorCode(set), set.errors![0].extensions.details[0].field]).toEqual(['RRSET_PROTECTED', 'changes[1]']);
  expect(errorCode(await apply([add('@', 'MX', '20 mx2.example.net.')], { dryRun: true }))).toBe('RRSET_PROTECTED');
  const created = await app.gql(`mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
    i: { zone: ZONE, owner: '@', type: 'MX', rdata: '30 mx3.example.net.', ttl: 300 },
  });
  expect(errorCode(created)).toBe('RRSET_PROTECTED');
  // REST
  const rest = await app.http
    .post('/api/record/add')
    .set('X-API-Key', admin)
    .send({ zone: ZONE, owner: '@', rtype: 'MX', rdata: '30 mx3.example.net.', ttl: 300 });
  expect(rest.body).toMatchObject({ code: 409, error: 'RRSET_PROTECTED' });
  // the PowerDNS API
  const pdns = await app.http
    .patch(`/api/v1/servers/localhost/zones/${ZONE}.`)
    .set('X-API-Key', admin)
    .send({ rrsets: [{ name: `${ZONE}.`, type: 'MX', changetype: 'DELETE' }] });
  expect(pdns.status).toBe(409);
  // an import that drops it, and a revert to before it was there
  const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
    z: ZONE,
    t: `@ 300 IN MX 40 mx4.example.net.\n`,
  });
  expect(errorCode(imported)).toBe('RRSET_PROTECTED');
  const reverted = await app.gql(`mutation($z: String!, $s: Serial!) { revertZone(zone: $z, toSerial: $s) { serial } }`, {
    z: ZONE,
    s: before - 1,
  });
  expect(errorCode(reverted)).toBe('RRSET_PROTECTED');
  // DNS UPDATE: REFUSED, with the Extended DNS Error Prohibited (RFC 8914)
  const update = await nsupdate(dnsPort, key, ['zone ' + ZONE, `update add ${ZONE} 300 MX 50 mx5.example.net.`, 'send'], { debug: true });
  expect(`${update.stdout}${update.stderr}`).toMatch(/REFUSED/);
  expect(`${update.stdout}${update.stderr}`).toMatch(/EDE: 18 \(Prohibited\)/);
  // other RRsets are written as ever, and nothing of the MX moved
  expect(errorCode(await apply([add('t', 'TXT', '"y"')]))).toBeUndefined();
  const mx = await app.gql(`query($z: String!) { domain(name: $z) { records(type: "MX") { rdata } } }`, { z: ZONE });
  expect(mx.data.domain.records.map((r: any) => r.rdata)).toEqual(['10 mx.example.net.']);

  expect((await lock('@', 'MX', 'unlockRrset')).data.unlockRrset).toBe(true);
  expect(errorCode(await apply([add('@', 'MX', '20 mx2.example.net.')]))).toBeUndefined();
  const audit = await app.gql(`query($z: String!) { auditEvents(first: 10, zone: $z) { nodes { kind detail } } }`, { z: ZONE });
  const rrsetEvents = audit.data.auditEvents.nodes.filter((e: any) => e.kind.startsWith('rrset-'));
  expect(rrsetEvents.map((e: any) => [e.kind, e.detail])).toEqual([
    ['rrset-unlocked', { owner: '@', type: 'MX', serial: expect.any(Number) }],
    ['rrset-locked', { owner: '@', type: 'MX', serial: before }],
  ]);
});

test('the REST hot path (record add, decided on what the process last saw of the zone) is refused once the RRset is locked', async () => {
  const admin = 'test-admin-key-0123456789abcdef';
  const addA = (rdata: string) =>
    app.http.post('/api/record/add').set('X-API-Key', admin).send({ zone: ZONE, owner: 'head', rtype: 'A', rdata, ttl: 300 });
  // two writes at the owner, then a lock (another process's head is held to it by its write's proof, zone-writes.ts)
  expect((await addA('192.0.2.1')).status).toBeLessThan(300);
  expect((await addA('192.0.2.2')).status).toBeLessThan(300);
  await lock('head', 'A');
  expect((await addA('192.0.2.3')).body).toMatchObject({ code: 409, error: 'RRSET_PROTECTED' });
  expect((await lock('head', 'A', 'unlockRrset')).data.unlockRrset).toBe(true);
  expect((await addA('192.0.2.3')).status).toBeLessThan(300);
});

describe("a zone's rules (docs/changes.md, «A zone's rules»)", () => {
  const RULES_ZONE = 'rules.locked.test';
  let ownKey: string;
  beforeAll(async () => {
    await createZone(app, userId, RULES_ZONE);
    // the account's own unrestricted key: it may set every rule of its zones (the admin key passes review anyway)
    ownKey = await createUserKey(app, userId);
  });
  const rule = (mutation: string, variables: Record<string, unknown> = {}) =>
    app.gql(
      `mutation($z: String!${Object.keys(variables)
        .map((v) => `, $${v}: ${v === 'approvals' ? 'Int!' : v === 'strict' ? 'Boolean!' : 'String!'}`)
        .join('')}) { ${mutation} }`,
      { z: RULES_ZONE, ...variables },
      ownKey,
    );
  const zoneSerial = async () =>
    (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: RULES_ZONE })).data.domain.serial as number;

  test('every change of them is an audit row and a zone.rules_changed event, read over GraphQL and REST; a call that changes nothing records nothing', async () => {
    const serial = await zoneSerial();
    const feed = await app.gql(`query { events(types: ["zone.rules_changed"], limit: 1000) { next } }`);
    const cursor = feed.data.events.next as string;
    expect(errorCode(await rule('setZoneStrictChecks(zone: $z, strict: $strict)', { strict: true }))).toBeUndefined();
    expect(errorCode(await rule('setZoneStrictChecks(zone: $z, strict: $strict)', { strict: true }))).toBeUndefined();
    expect(errorCode(await rule('setZoneRequiredApprovals(zone: $z, approvals: $approvals)', { approvals: 2 }))).toBeUndefined();
    expect(errorCode(await rule('setZoneRequiredApprovals(zone: $z, approvals: $approvals)', { approvals: 2 }))).toBeUndefined();
    expect(errorCode(await rule('setZoneRequiredApprovals(zone: $z, approvals: $approvals)', { approvals: 0 }))).toBeUndefined();
    expect(errorCode(await rule('setZoneStrictChecks(zone: $z, strict: $strict)', { strict: false }))).toBeUndefined();
    expect(errorCode(await rule('lockRrset(zone: $z, owner: $o, type: $t) { owner }', { o: 'www', t: 'A' }))).toBeUndefined();
    expect(errorCode(await rule('unlockRrset(zone: $z, owner: $o, type: $t)', { o: 'www', t: 'A' }))).toBeUndefined();
    expect(errorCode(await rule('unlockRrset(zone: $z, owner: $o, type: $t)', { o: 'www', t: 'A' }))).toBeUndefined();
    // no rule steps the serial: each names the serial the zone had
    expect(await zoneSerial()).toBe(serial);

    const expected = [
      ['strict-checks-changed', { before: false, after: true, serial }],
      ['required-approvals-changed', { before: 0, after: 2, serial }],
      ['required-approvals-changed', { before: 2, after: 0, serial }],
      ['strict-checks-changed', { before: true, after: false, serial }],
      ['rrset-locked', { owner: 'www', type: 'A', serial }],
      ['rrset-unlocked', { owner: 'www', type: 'A', serial }],
    ];
    const audit = await app.gql(
      `query($z: String!) { auditEvents(first: 20, zone: $z) { nodes { kind detail actorKeyName actorUserId subject } } }`,
      { z: RULES_ZONE },
    );
    const nodes = [...audit.data.auditEvents.nodes].reverse();
    expect(nodes.map((e: any) => [e.kind, e.detail])).toEqual(expected);
    expect(nodes.every((e: any) => e.actorKeyName === 'test' && e.actorUserId === userId && e.subject === `zone:${RULES_ZONE}`)).toBe(true);
    // REST: the same rows, by kind
    for (const kind of ['strict-checks-changed', 'required-approvals-changed']) {
      const rest = await app.http.get(`/api/audit?kind=${kind}`).set('X-API-Key', 'test-admin-key-0123456789abcdef');
      expect(rest.status).toBe(200);
      const ours = rest.body.filter((e: any) => e.subject === `zone:${RULES_ZONE}`).reverse();
      expect(ours.map((e: any) => [e.kind, e.detail, e.actor_key_name])).toEqual(
        expected.filter(([k]) => k === kind).map(([k, d]) => [k, d, 'test']),
      );
    }

    // the event feed: GraphQL and REST answer the same events, in order, to the zone's owner
    // (the feed serves an event once every older transaction has ended: waited for, bounded)
    const told = await waitFor('the zone.rules_changed events', async () => {
      const events = await app.gql(
        `query($a: String) { events(after: $a, types: ["zone.rules_changed"]) { events { type zone data } } }`,
        { a: cursor },
        ownKey,
      );
      const ours = events.data.events.events.filter((e: any) => e.zone === RULES_ZONE);
      return ours.length >= 6 ? ours : undefined;
    });
    const author = { keyId: expect.any(Number), keyName: 'test', userId: Number(userId) };
    expect(told.map((e: any) => e.data)).toEqual([
      { zone: RULES_ZONE, serial, rule: 'strictChecks', before: false, after: true, author },
      { zone: RULES_ZONE, serial, rule: 'requiredApprovals', before: 0, after: 2, author },
      { zone: RULES_ZONE, serial, rule: 'requiredApprovals', before: 2, after: 0, author },
      { zone: RULES_ZONE, serial, rule: 'strictChecks', before: true, after: false, author },
      { zone: RULES_ZONE, serial, rule: 'protectedRrset', owner: 'www', type: 'A', before: false, after: true, author },
      { zone: RULES_ZONE, serial, rule: 'protectedRrset', owner: 'www', type: 'A', before: true, after: false, author },
    ]);
    const rest = await app.http.get(`/api/events?types=zone.rules_changed&after=${cursor}`).set('X-API-Key', ownKey);
    expect(rest.status).toBe(200);
    expect(rest.body.events.filter((e: any) => e.zone === RULES_ZONE).map((e: any) => [e.type, e.data])).toEqual(
      told.map((e: any) => [e.type, e.data]),
    );
  });

  test('on a zone under review its rules change as ever: a lock taken before review began is lifted by its owner, records stay refused', async () => {
    await app.gql(
      `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial } }`,
      { z: RULES_ZONE, c: [add('@', 'MX', '10 mx.example.net.')] },
      ownKey,
    );
    expect(errorCode(await rule('lockRrset(zone: $z, owner: $o, type: $t) { owner }', { o: '@', t: 'MX' }))).toBeUndefined();
    expect(errorCode(await rule('setZoneRequiredApprovals(zone: $z, approvals: $approvals)', { approvals: 1 }))).toBeUndefined();

    const unlocked = await rule('unlockRrset(zone: $z, owner: $o, type: $t)', { o: '@', t: 'MX' });
    expect([errorCode(unlocked), unlocked.data?.unlockRrset]).toEqual([undefined, true]);
    const locked = await rule('lockRrset(zone: $z, owner: $o, type: $t) { owner type }', { o: '@', t: 'NS' });
    expect([errorCode(locked), locked.data?.lockRrset]).toEqual([undefined, { owner: '@', type: 'NS' }]);
    const strict = await rule('setZoneStrictChecks(zone: $z, strict: $strict)', { strict: true });
    expect([errorCode(strict), strict.data?.setZoneStrictChecks]).toEqual([undefined, true]);
    // a record is still a change request's
    const created = await app.gql(
      `mutation($i: RecordInput!) { createRecord(input: $i) { id } }`,
      { i: { zone: RULES_ZONE, owner: 'x', type: 'A', rdata: '192.0.2.9', ttl: 300 } },
      ownKey,
    );
    expect(errorCode(created)).toBe('ZONE_UNDER_REVIEW');
    const audit = await app.gql(`query($z: String!) { auditEvents(first: 3, zone: $z) { nodes { kind } } }`, { z: RULES_ZONE });
    expect(audit.data.auditEvents.nodes.map((e: any) => e.kind)).toEqual(['strict-checks-changed', 'rrset-locked', 'rrset-unlocked']);
    await rule('setZoneRequiredApprovals(zone: $z, approvals: $approvals)', { approvals: 0 });
  });
});
