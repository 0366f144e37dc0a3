/**
 * What a client that builds on GraphQL needs (docs/graphql.md): every write and every zoneChanged event answers
 * what it touched as objects a normalised cache merges (records with their ids, the zone with its id, serial and
 * recordCount) and the ids of the records it deleted, each matching what a fresh read of the zone answers; a
 * typed record input's problems at the fields a form shows (`data.mx.preference`); a lookup that answers null
 * for a zone that is not there, beside the query's other fields; the limits an operation is held to, as a
 * query, matching what a refusal says.
 */
import { Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';
import { waitUntil } from '../support/wait-for';

let app: TestApp;
let userId: string;
let userKey: string;
const ZONE = 'cache.example';

beforeAll(async () => {
  app = await startTestApp({ ALLOWED_TTLS: 'any' });
  userId = await createUser(app, 'cache@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
});
afterAll(async () => app?.close());

const ZONE_FIELDS = 'id serial recordCount';
const RECORD_FIELDS = 'id owner type rdata ttl';

/** the zone and its records as a fresh read answers them: what a client's cache must end up holding */
async function freshRead(): Promise<{ id: string; serial: number; recordCount: number; records: any[] }> {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { ${ZONE_FIELDS} records { ${RECORD_FIELDS} } } }`, { z: ZONE });
  expect(res.errors).toBeUndefined();
  return res.data.domain;
}

/** every record a write or an event answered is the fresh read's record of that id, field for field */
function expectAmongFresh(records: any[], fresh: { records: any[] }) {
  const byId = new Map(fresh.records.map((r) => [r.id, r]));
  for (const record of records) expect(byId.get(record.id)).toEqual(record);
}

const APPLY = `mutation($zone: String!, $changes: [ZoneChangeInput!]!) {
  applyZoneChanges(zone: $zone, changes: $changes) {
    serial added { owner type rdata }
    domain { ${ZONE_FIELDS} }
    change { serialAfter removedRecordIds records { ${RECORD_FIELDS} } }
  }
}`;

test('applyZoneChanges, createRecord, updateRecord and removeRecord answer records with ids and the zone as a fresh read does', async () => {
  // a change set: its records with ids (the SOA's serial step among them), the zone as it left it
  const applied = await app.gql(APPLY, {
    zone: ZONE,
    changes: [
      { kind: 'ADD', owner: 'a', type: 'A', rdata: '192.0.2.1', ttl: 300 },
      { kind: 'ADD', owner: 'b', type: 'A', rdata: '192.0.2.2', ttl: 300 },
    ],
  });
  expect(applied.errors).toBeUndefined();
  const result = applied.data.applyZoneChanges;
  let fresh = await freshRead();
  expect(result.domain).toEqual({ id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount });
  expect(result.change.serialAfter).toBe(fresh.serial);
  expect(result.change.removedRecordIds).toEqual([]);
  expect(result.change.records.map((r: any) => `${r.owner} ${r.type}`).sort()).toEqual(['@ SOA', 'a A', 'b A']);
  expectAmongFresh(result.change.records, fresh);
  const a = result.change.records.find((r: any) => r.owner === 'a');

  // one record: created, then edited in place (it keeps its id); each answers the zone as the write left it
  const created = await app.gql(
    `mutation($input: RecordInput!) { createRecord(input: $input) { ${RECORD_FIELDS} domain { ${ZONE_FIELDS} } } }`,
    { input: { zone: ZONE, owner: 'c', type: 'TXT', ttl: 300, rdata: '"one"' } },
  );
  expect(created.errors).toBeUndefined();
  fresh = await freshRead();
  const { domain: createdZone, ...createdRecord } = created.data.createRecord;
  expect(createdZone).toEqual({ id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount });
  expectAmongFresh([createdRecord], fresh);

  const updated = await app.gql(
    `mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { ${RECORD_FIELDS} domain { ${ZONE_FIELDS} } } }`,
    { id: createdRecord.id, input: { zone: ZONE, owner: 'c', type: 'TXT', ttl: 600, rdata: '"two"' } },
  );
  expect(updated.errors).toBeUndefined();
  fresh = await freshRead();
  const { domain: updatedZone, ...updatedRecord } = updated.data.updateRecord;
  expect(updatedRecord.id).toBe(createdRecord.id);
  expect(updatedZone).toEqual({ id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount });
  expectAmongFresh([updatedRecord], fresh);

  // the delete's new payload: the deleted id and the zone
  const removed = await app.gql(`mutation($id: ID!) { removeRecord(id: $id) { id domain { ${ZONE_FIELDS} } } }`, { id: a.id });
  expect(removed.errors).toBeUndefined();
  fresh = await freshRead();
  expect(removed.data.removeRecord).toEqual({ id: a.id, domain: { id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount } });
  expect(fresh.records.map((r) => r.id)).not.toContain(a.id);

  // a set that deletes by id answers that id to evict; the record it adds comes with its id
  const b = result.change.records.find((r: any) => r.owner === 'b');
  const replaced = await app.gql(APPLY, {
    zone: ZONE,
    changes: [
      { kind: 'REMOVE', id: b.id },
      { kind: 'ADD', owner: 'd', type: 'A', rdata: '192.0.2.4', ttl: 300 },
    ],
  });
  expect(replaced.errors).toBeUndefined();
  fresh = await freshRead();
  expect(replaced.data.applyZoneChanges.change.removedRecordIds).toEqual([b.id]);
  expect(replaced.data.applyZoneChanges.domain).toEqual({ id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount });
  expectAmongFresh(replaced.data.applyZoneChanges.change.records, fresh);
  expect(replaced.data.applyZoneChanges.change.records.map((r: any) => r.owner).sort()).toEqual(['@', 'd']);
  // the history shows the same entry the write answered
  const history = await app.gql(
    `query($z: String!) { domain(name: $z) { changes(first: 1) { nodes { removedRecordIds records { id } } } } }`,
    {
      z: ZONE,
    },
  );
  expect(history.data.domain.changes.nodes[0]).toEqual({
    removedRecordIds: [b.id],
    records: replaced.data.applyZoneChanges.change.records.map((r: any) => ({ id: r.id })),
  });
});

test('two writes in one operation each answer the zone as that write left it', async () => {
  const res = await app.gql(
    `mutation($one: RecordInput!, $two: RecordInput!) {
      one: createRecord(input: $one) { domain { serial recordCount } }
      two: createRecord(input: $two) { domain { serial recordCount } }
    }`,
    {
      one: { zone: ZONE, owner: 'm1', type: 'A', ttl: 300, rdata: '192.0.2.11' },
      two: { zone: ZONE, owner: 'm2', type: 'A', ttl: 300, rdata: '192.0.2.12' },
    },
  );
  expect(res.errors).toBeUndefined();
  const fresh = await freshRead();
  expect(res.data.two.domain).toEqual({ serial: fresh.serial, recordCount: fresh.recordCount });
  expect(res.data.one.domain.recordCount).toBe(fresh.recordCount - 1);
  expect(res.data.one.domain.serial).toBeLessThan(fresh.serial);
});

test('a zoneChanged event carries records with ids, the deleted ids and the zone, as a fresh read answers them', async () => {
  const client: Client = createClient({
    url: app.baseUrl.replace('http', 'ws') + '/graphql',
    webSocketImpl: WebSocket,
    connectionParams: { 'x-api-key': userKey },
    retryAttempts: 0,
    lazy: false,
  });
  try {
    const events: any[] = [];
    const errors: any[] = [];
    client.subscribe(
      {
        query: `subscription($zone: String!) { zoneChanged(zone: $zone) {
          domain { ${ZONE_FIELDS} } change { serialAfter removedRecordIds records { ${RECORD_FIELDS} } }
        } }`,
        variables: { zone: ZONE },
      },
      { next: (value) => events.push(value), error: (error) => errors.push(error), complete: () => undefined },
    );
    await waitUntil('the subscription registered', () => app.service.services.liveUpdates.subscriberCount() >= 1);
    const target = (await freshRead()).records.find((r) => r.owner === 'd');
    const applied = await app.gql(
      APPLY,
      {
        zone: ZONE,
        changes: [
          { kind: 'REMOVE', id: target.id },
          { kind: 'ADD', owner: 'e', type: 'AAAA', rdata: '2001:db8::e', ttl: 300 },
        ],
      },
      userKey,
    );
    expect(applied.errors).toBeUndefined();
    await waitUntil('the event', () => events.length >= 1 || errors.length > 0);
    expect(errors).toEqual([]);
    const event = events[0].data.zoneChanged;
    const fresh = await freshRead();
    expect(event.domain).toEqual({ id: fresh.id, serial: fresh.serial, recordCount: fresh.recordCount });
    expect(event.change.serialAfter).toBe(fresh.serial);
    expect(event.change.removedRecordIds).toEqual([target.id]);
    expect(event.change.records.map((r: any) => r.owner).sort()).toEqual(['@', 'e']);
    expectAmongFresh(event.change.records, fresh);
    // the event lists what the write's own answer lists: one rule for both
    expect(event.change).toEqual(applied.data.applyZoneChanges.change);
  } finally {
    await client.dispose();
  }
});

test('a typed MX input: each problem at its field, the top-level code agreeing with them', async () => {
  const res = await app.gql(`mutation($input: RecordInput!) { createRecord(input: $input) { id } }`, {
    input: { zone: ZONE, owner: 'mx', type: 'MX', ttl: 300, data: { mx: { preference: 70000, exchange: 'mail..x' } } },
  });
  expect(res.status).toBe(200);
  const details: any[] = res.errors?.[0]?.extensions?.details ?? [];
  expect(details.map((d) => d.field).sort()).toEqual(['data.mx.exchange', 'data.mx.preference']);
  expect(details.find((d) => d.field === 'data.mx.preference').code).toBe('MX_PREFERENCE_RANGE');
  for (const detail of details) expect(detail.message.startsWith(`${detail.field}:`)).toBe(true);
  // the top-level code names the kind every detail is of: RDATA, wherever in `data` it points
  expect(errorCode(res)).toBe('INVALID_RDATA');
  // as it names a problem of text RDATA
  const text = await app.gql(`mutation($input: RecordInput!) { createRecord(input: $input) { id } }`, {
    input: { zone: ZONE, owner: 'mx', type: 'MX', ttl: 300, rdata: '70000 mail..x' },
  });
  expect(errorCode(text)).toBe('INVALID_RDATA');
  expect(text.errors![0].extensions.details.map((d: any) => d.code)).toEqual(details.map((d) => d.code));
});

test('findDomain answers null for a zone that is not there, beside the query’s other fields', async () => {
  const res = await app.gql(
    `{ missing: findDomain(name: "not-there.example") { id } here: findDomain(name: "${ZONE}") { name } operationLimits { maxDepth } }`,
  );
  expect(res.errors).toBeUndefined();
  expect(res.data).toEqual({ missing: null, here: { name: ZONE }, operationLimits: { maxDepth: expect.any(Number) } });
  // another user's zone is not there for a user's key either
  const other = await createUser(app, 'other-cache@example.org');
  await createZone(app, other, 'other-cache.example');
  const hidden = await app.gql(`{ findDomain(name: "other-cache.example") { id } }`, undefined, userKey);
  expect(hidden.data).toEqual({ findDomain: null });
  // `domain` beside it still refuses, and takes the whole data with it
  const strict = await app.gql(`{ domain(name: "not-there.example") { id } }`);
  expect(errorCode(strict)).toBe('ZONE_NOT_FOUND');
});

test('operationLimits answers the figures a cost refusal and a depth refusal say', async () => {
  const limits = (await app.gql(`{ operationLimits { maxCost maxDepth maxPageSize defaultPageSize } }`)).data.operationLimits;
  expect(limits).toEqual({
    maxCost: app.settings.graphqlMaxComplexity,
    maxDepth: app.settings.graphqlMaxDepth,
    maxPageSize: app.settings.maxPageSize,
    defaultPageSize: 100,
  });
  const costly = await app.gql(`{ domains(first: ${limits.maxPageSize}) { nodes { records(first: ${limits.maxPageSize}) { id } } } }`);
  expect(errorCode(costly)).toBe('QUERY_TOO_COMPLEX');
  expect(costly.errors![0].extensions.limits).toEqual(limits);
  const maxComplexity = costly.errors![0].extensions.details.find((d: any) => d.code === 'MAX_COMPLEXITY');
  expect(maxComplexity.limit).toBe(limits.maxCost);
  // nine levels of fields, one more than the default depth
  const deep = await app.gql(
    `{ users(first: 1) { nodes { domains(first: 1) { user { domains(first: 1) { user { domains(first: 1) { user { email } } } } } } } } }`,
  );
  expect(errorCode(deep)).toBe('QUERY_TOO_COMPLEX');
  expect(deep.errors![0].extensions.limits).toEqual(limits);
  expect(deep.errors![0].extensions.details[0]).toMatchObject({ code: 'MAX_DEPTH', limit: limits.maxDepth });
});

test('createDomain without userId makes the zone for the user of the key; an admin key names the user', async () => {
  const made = await app.gql(`mutation { createDomain(input: { zone: "own-key.example" }) { name user { id } } }`, undefined, userKey);
  expect(made.errors).toBeUndefined();
  expect(made.data.createDomain).toEqual({ name: 'own-key.example', user: { id: userId } });
  const admin = await app.gql(`mutation { createDomain(input: { zone: "no-user.example" }) { name } }`);
  expect(errorCode(admin)).toBe('INVALID_INPUT');
  expect(admin.errors![0].extensions.details[0]).toMatchObject({ field: 'userId', code: 'REQUIRED' });
});

test('enums beside the strings: dnssecStatus, a finding’s level, a change’s entryKind', async () => {
  const zone = await app.gql(`query($z: String!) { domain(name: $z) { dnssecState dnssecStatus dnssec { state status } } }`, { z: ZONE });
  expect(zone.errors).toBeUndefined();
  expect(zone.data.domain).toEqual({
    dnssecState: 'unsigned',
    dnssecStatus: 'UNSIGNED',
    dnssec: { state: 'unsigned', status: 'UNSIGNED' },
  });
  const listed = await app.gql(`{ domains(name: "${ZONE}") { nodes { dnssecState dnssecStatus } } }`);
  expect(listed.data.domains.nodes).toEqual([{ dnssecState: 'unsigned', dnssecStatus: 'UNSIGNED' }]);
  // an MX whose exchange in the zone has no address: a zone check's warning, in a dry run and kept with the change
  const changes = [{ kind: 'ADD', owner: 'mail-less', type: 'MX', rdata: '10 nowhere', ttl: 300 }];
  const dry = await app.gql(
    `mutation($zone: String!, $changes: [ZoneChangeInput!]!) { applyZoneChanges(zone: $zone, changes: $changes, dryRun: true) { warnings { code severity level } } }`,
    { zone: ZONE, changes },
  );
  expect(dry.errors).toBeUndefined();
  const warnings = dry.data.applyZoneChanges.warnings.filter((w: any) => w.severity !== null);
  expect(warnings.length).toBeGreaterThan(0);
  for (const w of warnings) expect(w.level).toBe(w.severity.toUpperCase());
  const applied = await app.gql(
    `mutation($zone: String!, $changes: [ZoneChangeInput!]!) { applyZoneChanges(zone: $zone, changes: $changes) { change { kind entryKind findings { code severity level } } } }`,
    { zone: ZONE, changes },
  );
  expect(applied.errors).toBeUndefined();
  const { change } = applied.data.applyZoneChanges;
  expect({ kind: change.kind, entryKind: change.entryKind }).toEqual({ kind: 'zone-changed', entryKind: 'ZONE_CHANGED' });
  expect(change.findings.length).toBeGreaterThan(0);
  for (const f of change.findings) expect(f.level).toBe(f.severity.toUpperCase());
});

test('the zone list’s cursors are opaque and bound to their order; edges beside nodes', async () => {
  for (const name of ['c1.example', 'c2.example', 'c3.example']) await createZone(app, userId, name);
  const PAGE = `query($after: String, $order: DomainOrder) { domains(first: 2, after: $after, orderBy: $order) {
    nodes { id name } edges { cursor node { id name } } pageInfo { hasNextPage endCursor } } }`;
  const all = (await app.gql(`{ domains(first: 100, orderBy: NAME) { nodes { name } } }`)).data.domains.nodes.map((z: any) => z.name);
  const first = (await app.gql(PAGE, { order: 'NAME' })).data.domains;
  expect(first.nodes.map((z: any) => z.name)).toEqual(all.slice(0, 2));
  // the Relay shape: each node with its cursor, the last one's the page's endCursor
  expect(first.edges.map((e: any) => e.node)).toEqual(first.nodes);
  expect(first.edges[1].cursor).toBe(first.pageInfo.endCursor);
  expect(first.pageInfo.endCursor).not.toMatch(/^\d+$/);
  const second = await app.gql(PAGE, { order: 'NAME', after: first.pageInfo.endCursor });
  expect(second.errors).toBeUndefined();
  expect(second.data.domains.nodes.map((z: any) => z.name)).toEqual(all.slice(2, 4));
  expect((await app.gql(PAGE, { order: 'NAME', after: first.edges[0].cursor })).data.domains.nodes.map((z: any) => z.name)).toEqual(
    all.slice(1, 3),
  );
  // a cursor of one order given to another is refused, naming both
  const mismatch = await app.gql(PAGE, { order: 'RECORDS', after: first.pageInfo.endCursor });
  expect(errorCode(mismatch)).toBe('INVALID_INPUT');
  expect(mismatch.errors![0].extensions.details[0]).toMatchObject({ field: 'after', code: 'CURSOR_ORDER_MISMATCH' });
  expect(mismatch.errors![0].extensions.details[0].message).toContain('NAME');
  const garbage = await app.gql(PAGE, { order: 'NAME', after: 'bm90LWEtY3Vyc29y' });
  expect(garbage.errors![0].extensions.details[0]).toMatchObject({ field: 'after', code: 'INVALID_CURSOR' });
  // an id, as the cursors were before, still pages
  const byId = await app.gql(PAGE, { after: first.nodes[0].id });
  expect(byId.errors).toBeUndefined();
  // the lists in id order: edges too, their cursors opaque as well (an id is still taken as `after`)
  const records = (
    await app.gql(`{ records(zone: "${ZONE}", first: 2) { nodes { id } edges { cursor node { id } } pageInfo { endCursor } } }`)
  ).data.records;
  expect(records.edges.map((edge: any) => edge.node)).toEqual(records.nodes);
  expect(records.edges[1].cursor).toBe(records.pageInfo.endCursor);
  for (const edge of records.edges) expect(edge.cursor).not.toMatch(/^\d+$/);
});

test('a restricted key sees in a change only the records and deleted ids its rules let it read', async () => {
  const made = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId, name: 'mx-only', policy: { rules: [{ zone: ZONE, types: ['MX'], access: 'WRITE' }] } },
  });
  expect(made.errors).toBeUndefined();
  const mxOnly: string = made.data.createApiKey.secret;
  const before = await freshRead();
  const txt = before.records.find((r) => r.type === 'TXT');
  // a change of a TXT record (which the key may not read) and an MX record (which it may), by the admin key
  const applied = await app.gql(APPLY, {
    zone: ZONE,
    changes: [
      { kind: 'REMOVE', id: txt.id },
      { kind: 'ADD', owner: 'lp', type: 'MX', rdata: '10 mail.example.net.', ttl: 300 },
    ],
  });
  expect(applied.errors).toBeUndefined();
  expect(applied.data.applyZoneChanges.change.removedRecordIds).toEqual([txt.id]);
  const seen = await app.gql(
    `query($z: String!) { domain(name: $z) { changes(first: 1) { nodes { removedRecordIds records { owner type } } } } }`,
    { z: ZONE },
    mxOnly,
  );
  expect(seen.errors).toBeUndefined();
  expect(seen.data.domain.changes.nodes[0]).toEqual({ removedRecordIds: [], records: [{ owner: 'lp', type: 'MX' }] });
});
