import { Client } from 'pg';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode, zoneEventsUntil } from '../support/fixtures';

/**
 * Change sets. All or nothing, the rules checked on the zone as it will be, one serial step
 * and one journal row per set, expectSerial for optimistic concurrency, every problem at once with its change.
 */
const APPLY = `mutation($zone: String!, $changes: [ZoneChangeInput!]!, $expectSerial: Serial) {
  applyZoneChanges(zone: $zone, changes: $changes, expectSerial: $expectSerial) {
    zone serialBefore serial added { owner type rdata ttl } removed { owner type rdata ttl } } }`;

let app: TestApp;
let userId: string;
beforeAll(async () => {
  app = await startTestApp();
  userId = await createUser(app, 'sets@example.org');
});
afterAll(async () => app.close());

const zoneRecords = async (zone: string) => {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { serial records { id owner type rdata ttl } } }`, { z: zone });
  return res.data.domain as { serial: number; records: { id: string; owner: string; type: string; rdata: string; ttl: number }[] };
};

/** the journal rows of a zone, straight from the database: one per committed change */
async function journalRows(zone: string): Promise<number> {
  const client = new Client({ connectionString: app.service.settings.databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(`select count(*)::int as n from changes where zone = $1 and kind = 'zone-changed'`, [zone]);
    return rows[0].n;
  } finally {
    await client.end();
  }
}

test('a set applies whole: one serial step, one journal row, the diff in the answer', async () => {
  await createZone(app, userId, 'set1.example');
  const before = await zoneRecords('set1.example');
  const journal = await journalRows('set1.example');
  const res = await app.gql(APPLY, {
    zone: 'set1.example',
    changes: [
      { kind: 'ADD', owner: 'mail', type: 'A', rdata: '192.0.2.25', ttl: 3600 },
      { kind: 'ADD', owner: '@', type: 'MX', rdata: '10 mail', ttl: 3600 },
      { kind: 'ADD', owner: '@', type: 'TXT', rdata: '"v=spf1 mx -all"', ttl: 3600 },
    ],
  });
  expect(res.errors).toBeUndefined();
  const result = res.data.applyZoneChanges;
  expect(result.serialBefore).toBe(before.serial);
  expect(result.serial).toBeGreaterThan(before.serial);
  expect(result.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort()).toEqual([
    '@ MX 10 mail.set1.example.',
    '@ TXT "v=spf1 mx -all"',
    'mail A 192.0.2.25',
  ]);
  expect(result.removed).toEqual([]);
  const after = await zoneRecords('set1.example');
  expect(after.serial).toBe(result.serial);
  expect(after.records.length).toBe(before.records.length + 3);
  expect(await journalRows('set1.example')).toBe(journal + 1);
});

test('a CNAME replaces the A records of its owner in one set; REPLACE_RRSET swaps an MX set', async () => {
  await createZone(app, userId, 'set2.example');
  for (const rdata of ['192.0.2.1', '192.0.2.2'])
    await app.gql(CREATE_RECORD, { input: { zone: 'set2.example', owner: 'app', type: 'A', rdata, ttl: 3600 } });
  await app.gql(CREATE_RECORD, { input: { zone: 'set2.example', owner: '@', type: 'MX', rdata: '10 old-mx.example.net.', ttl: 3600 } });
  const res = await app.gql(APPLY, {
    zone: 'set2.example',
    changes: [
      { kind: 'REPLACE_RRSET', owner: 'app', type: 'A', rdatas: [] },
      { kind: 'ADD', owner: 'app', type: 'CNAME', rdata: 'lb.example.net.', ttl: 3600 },
      { kind: 'REPLACE_RRSET', owner: '@', type: 'MX', ttl: 3600, rdatas: ['10 mx1.example.net.', '20 mx2.example.net.'] },
    ],
  });
  expect(res.errors).toBeUndefined();
  const records = (await zoneRecords('set2.example')).records.map((r) => `${r.owner} ${r.type} ${r.rdata}`);
  expect(records).toEqual(expect.arrayContaining(['app CNAME lb.example.net.', '@ MX 10 mx1.example.net.', '@ MX 20 mx2.example.net.']));
  expect(records.filter((r) => r.startsWith('app A') || r.includes('old-mx'))).toEqual([]);
  expect(res.data.applyZoneChanges.removed.length).toBe(3);
});

test('EXTEND_RRSET adds what the RRset lacks and PRUNE_RRSET removes what it holds, the rest staying', async () => {
  await createZone(app, userId, 'set-extend.example');
  await app.gql(CREATE_RECORD, { input: { zone: 'set-extend.example', owner: 'ns', type: 'A', rdata: '192.0.2.1', ttl: 3600 } });
  const res = await app.gql(APPLY, {
    zone: 'set-extend.example',
    changes: [
      { kind: 'EXTEND_RRSET', owner: 'ns', type: 'A', ttl: 3600, rdatas: ['192.0.2.1', '192.0.2.2'] },
      { kind: 'PRUNE_RRSET', owner: 'www', type: 'CNAME', rdatas: ['set-extend.example.', 'absent.example.net.'] },
    ],
  });
  expect(res.errors).toBeUndefined();
  // 192.0.2.1 was there: only .2 is added; the CNAME the zone was made with goes, the absent target is no matter
  expect(res.data.applyZoneChanges.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)).toEqual(['ns A 192.0.2.2']);
  expect(res.data.applyZoneChanges.removed.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)).toEqual(['www CNAME set-extend.example.']);
  const records = (await zoneRecords('set-extend.example')).records.map((r) => `${r.owner} ${r.type} ${r.rdata}`);
  expect(records.filter((r) => r.startsWith('ns A'))).toEqual(['ns A 192.0.2.1', 'ns A 192.0.2.2']);
});

test('a set that changes nothing writes nothing: no serial step, no journal row or history entry, no event (GraphQL and REST)', async () => {
  await createZone(app, userId, 'set-same.example');
  const made = await app.gql(CREATE_RECORD, { input: { zone: 'set-same.example', owner: 'ns', type: 'A', rdata: '192.0.2.1', ttl: 3600 } });
  expect(made.errors).toBeUndefined();
  const HISTORY = `query($z: String!) { domain(name: $z) { serial changes(first: 100) { totalCount } } }`;
  const before = (await app.gql(HISTORY, { z: 'set-same.example' })).data.domain;
  const journal = await journalRows('set-same.example');
  const cursor = (await zoneEventsUntil(app, 'set-same.example', before.serial)).next;
  const sets = [
    [{ kind: 'EXTEND_RRSET', owner: 'ns', type: 'A', ttl: 3600, rdatas: ['192.0.2.1'] }],
    [{ kind: 'REPLACE_RRSET', owner: 'ns', type: 'A', ttl: 3600, rdatas: ['192.0.2.1'] }],
    [
      { kind: 'REMOVE', owner: 'ns', type: 'A', rdata: '192.0.2.1' },
      { kind: 'ADD', owner: 'ns', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
    ],
    [{ kind: 'PRUNE_RRSET', owner: 'absent', type: 'A', rdatas: ['192.0.2.9'] }],
  ];
  for (const changes of sets) {
    const res = await app.gql(APPLY, { zone: 'set-same.example', changes });
    expect(res.errors).toBeUndefined();
    expect(res.data.applyZoneChanges).toEqual({
      zone: 'set-same.example',
      serialBefore: before.serial,
      serial: before.serial,
      added: [],
      removed: [],
    });
  }
  const rest = await app.http.post('/api/domain/changes/set-same.example').set('X-API-Key', ADMIN_KEY).send({ changes: sets[1] });
  expect(rest.status).toBe(200);
  expect(rest.body).toMatchObject({ serialBefore: before.serial, serial: before.serial, added: [], removed: [] });
  expect((await app.gql(HISTORY, { z: 'set-same.example' })).data.domain).toEqual(before);
  expect(await journalRows('set-same.example')).toBe(journal);
  // the feed shows what does change the zone (the TTL here), and nothing of the sets above
  const changed = await app.gql(APPLY, {
    zone: 'set-same.example',
    changes: [{ kind: 'REPLACE_RRSET', owner: 'ns', type: 'A', ttl: 7200, rdatas: ['192.0.2.1'] }],
  });
  expect(changed.data.applyZoneChanges.serial).toBeGreaterThan(before.serial);
  const { events } = await zoneEventsUntil(app, 'set-same.example', changed.data.applyZoneChanges.serial, cursor);
  expect(events.map((e) => [e.type, e.data.serial])).toEqual([['zone.changed', changed.data.applyZoneChanges.serial]]);
  expect(await journalRows('set-same.example')).toBe(journal + 1);
});

test('REMOVE by id and by content, REPLACE by id', async () => {
  await createZone(app, userId, 'set3.example');
  const a = await app.gql(CREATE_RECORD, { input: { zone: 'set3.example', owner: 'a', type: 'A', rdata: '192.0.2.1', ttl: 3600 } });
  const b = await app.gql(CREATE_RECORD, { input: { zone: 'set3.example', owner: 'b', type: 'A', rdata: '192.0.2.2', ttl: 3600 } });
  await app.gql(CREATE_RECORD, { input: { zone: 'set3.example', owner: 'c', type: 'TXT', rdata: '"gone"', ttl: 3600 } });
  const res = await app.gql(APPLY, {
    zone: 'set3.example',
    changes: [
      { kind: 'REMOVE', id: a.data.createRecord.id },
      { kind: 'REMOVE', owner: 'c.set3.example.', type: 'txt', rdata: '"gone"' },
      { kind: 'REPLACE', id: b.data.createRecord.id, owner: 'b', type: 'A', rdata: '192.0.2.22', ttl: 3600 },
    ],
  });
  expect(res.errors).toBeUndefined();
  const records = (await zoneRecords('set3.example')).records.map((r) => `${r.owner} ${r.type} ${r.rdata}`);
  expect(records).toContain('b A 192.0.2.22');
  expect(records.filter((r) => /^(a|c) /.test(r) || r === 'b A 192.0.2.2')).toEqual([]);
});

test('every problem at once, each naming its change; nothing written', async () => {
  await createZone(app, userId, 'set4.example');
  await app.gql(CREATE_RECORD, { input: { zone: 'set4.example', owner: 'www2', type: 'A', rdata: '192.0.2.1', ttl: 3600 } });
  const before = await zoneRecords('set4.example');
  const invalid = await app.gql(APPLY, {
    zone: 'set4.example',
    changes: [
      { kind: 'ADD', owner: 'ok', type: 'A', rdata: '192.0.2.9', ttl: 3600 },
      { kind: 'ADD', owner: 'bad', type: 'A', rdata: '300.0.0.1', ttl: 3600 },
      { kind: 'ADD', owner: 'bad2', type: 'MX', ttl: 3600 },
      { kind: 'REPLACE', owner: 'x', type: 'A', rdata: '192.0.2.3', ttl: 3600 },
    ],
  });
  expect(invalid.status).toBe(200);
  expect(errorCode(invalid)).toBe('INVALID_RDATA');
  const fields = invalid.errors![0].extensions.details.map((d: any) => d.field);
  expect(fields).toEqual(expect.arrayContaining(['changes[1].rdata', 'changes[2].rdata', 'changes[3].id']));
  expect(fields.some((f: string) => f.startsWith('changes[0]'))).toBe(false);

  // a rule broken in the middle of the set: a CNAME beside the A that stays
  const conflict = await app.gql(APPLY, {
    zone: 'set4.example',
    changes: [
      { kind: 'ADD', owner: 'fine', type: 'A', rdata: '192.0.2.10', ttl: 3600 },
      { kind: 'ADD', owner: 'www2', type: 'CNAME', rdata: 'elsewhere.example.net.', ttl: 3600 },
      { kind: 'ADD', owner: 'fine2', type: 'A', rdata: '192.0.2.11', ttl: 3600 },
    ],
  });
  expect(errorCode(conflict)).toBe('CNAME_CONFLICT');
  expect(conflict.errors![0].message).toBe('An A record already exist with that owner');
  expect(conflict.errors![0].extensions.details[0].field).toBe('changes[1].type');
  expect(await zoneRecords('set4.example')).toEqual(before);
});

test('expectSerial: applies at that serial, and a replay gets 409 SERIAL_MISMATCH with the current serial', async () => {
  await createZone(app, userId, 'set5.example');
  const { serial } = await zoneRecords('set5.example');
  const changes = [{ kind: 'ADD', owner: 'once', type: 'A', rdata: '192.0.2.1', ttl: 3600 }];
  const first = await app.gql(APPLY, { zone: 'set5.example', changes, expectSerial: serial });
  expect(first.errors).toBeUndefined();
  const replay = await app.gql(APPLY, { zone: 'set5.example', changes, expectSerial: serial });
  expect(errorCode(replay)).toBe('SERIAL_MISMATCH');
  expect(replay.errors![0].extensions.details[0].current).toBe(first.data.applyZoneChanges.serial);
  expect((await zoneRecords('set5.example')).records.filter((r) => r.owner === 'once').length).toBe(1);
});

test('bad sets: empty, unknown kind, too many, a record of another zone or another user', async () => {
  await createZone(app, userId, 'set6.example');
  const other = await createUser(app, 'other-sets@example.org');
  await createZone(app, other, 'theirs.example');
  const theirs = await app.gql(CREATE_RECORD, { input: { zone: 'theirs.example', owner: 't', type: 'A', rdata: '192.0.2.1', ttl: 3600 } });
  const before = await zoneRecords('set6.example');

  expect(errorCode(await app.gql(APPLY, { zone: 'set6.example', changes: [] }))).toBe('INVALID_INPUT');
  const unknownKind = await app.gql(APPLY, {
    zone: 'set6.example',
    changes: [{ kind: 'UPSERT', owner: 'x', type: 'A', rdata: '192.0.2.1', ttl: 3600 }],
  });
  expect(unknownKind.status).toBe(400);
  const tooMany = await app.gql(APPLY, {
    zone: 'set6.example',
    changes: Array.from({ length: app.service.settings.maxChangesPerSet + 1 }, (_, i) => ({
      kind: 'ADD',
      owner: `h${i}`,
      type: 'A',
      rdata: '192.0.2.1',
      ttl: 3600,
    })),
  });
  expect(errorCode(tooMany)).toBe('CHANGE_SET_TOO_LARGE');
  expect(tooMany.errors![0].message).toContain(String(app.service.settings.maxChangesPerSet));
  // another zone's record, with the admin key: not in this zone
  const foreign = await app.gql(APPLY, { zone: 'set6.example', changes: [{ kind: 'REMOVE', id: theirs.data.createRecord.id }] });
  expect(errorCode(foreign)).toBe('RECORD_NOT_FOUND');
  // a user's key cannot reach another user's zone at all
  const key = await createUserKey(app, userId);
  const scoped = await app.gql(APPLY, { zone: 'theirs.example', changes: [{ kind: 'REMOVE', id: theirs.data.createRecord.id }] }, key);
  expect(errorCode(scoped)).toBe('ZONE_NOT_FOUND');
  expect(await zoneRecords('set6.example')).toEqual(before);
  expect((await zoneRecords('theirs.example')).records.some((r) => r.owner === 't')).toBe(true);
});

test('REST: POST /api/domain/changes/:zone with a JSON body, the same rules', async () => {
  await createZone(app, userId, 'set7.example');
  const H = { 'X-API-Key': ADMIN_KEY };
  const ok = await app.http
    .post('/api/domain/changes/set7.example')
    .set(H)
    .send({ changes: [{ kind: 'ADD', owner: 'r', type: 'A', rdata: '192.0.2.7', ttl: 3600 }] });
  expect(ok.status).toBe(200);
  expect(ok.body.added).toEqual([{ owner: 'r', type: 'A', rdata: '192.0.2.7', ttl: 3600 }]);
  const stale = await app.http
    .post('/api/domain/changes/set7.example')
    .set(H)
    .send({ expectSerial: ok.body.serialBefore, changes: [{ kind: 'ADD', owner: 'r2', type: 'A', rdata: '192.0.2.8', ttl: 3600 }] });
  expect(stale.status).toBe(409);
  expect(stale.body.error).toBe('SERIAL_MISMATCH');
  const badKind = await app.http
    .post('/api/domain/changes/set7.example')
    .set(H)
    .send({ changes: [{ kind: 'NOPE' }] });
  expect(badKind.status).toBe(422);
  expect(badKind.body.error).toBe('INVALID_INPUT');
  const notList = await app.http.post('/api/domain/changes/set7.example').set(H).type('form').send({ changes: 'x' });
  expect(notList.status).toBe(422);
  expect(notList.body.details[0].code).toBe('NOT_A_LIST');
});

test("REPLACE_RRSET: the RRset's owner read once for its records still warns for each record (and not at a plain owner)", async () => {
  await createZone(app, userId, 'warn-rrset.example');
  const res = await app.gql(APPLY, {
    zone: 'warn-rrset.example',
    changes: [
      { kind: 'REPLACE_RRSET', owner: 'plain', type: 'A', ttl: 3600, rdatas: ['192.0.2.1'] },
      { kind: 'REPLACE_RRSET', owner: 'odd#name', type: 'A', ttl: 3600, rdatas: ['192.0.2.2', '192.0.2.3'] },
    ],
  });
  expect(res.errors).toBeUndefined();
  expect(res.data.applyZoneChanges.added.map((r: any) => `${r.owner} ${r.rdata}`).sort()).toEqual([
    'odd\\035name 192.0.2.2',
    'odd\\035name 192.0.2.3',
    'plain 192.0.2.1',
  ]);
  expect(res.body.extensions.warnings).toEqual([
    { field: 'changes[1].owner', code: 'NAME_NOT_HOSTNAME', message: expect.stringContaining('"odd\\\\035name"') },
    { field: 'changes[1].owner', code: 'NAME_NOT_HOSTNAME', message: expect.stringContaining('"odd\\\\035name"') },
  ]);
});

const UPDATE_RECORD = `mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id owner type rdata ttl } }`;

test('the same write twice steps the serial once: a change set, a record edit (GraphQL and REST); one journal row, one event each', async () => {
  await createZone(app, userId, 'set-twice.example');
  const made = await app.gql(CREATE_RECORD, {
    input: { zone: 'set-twice.example', owner: 'web', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
  });
  expect(made.errors).toBeUndefined();
  const id = made.data.createRecord.id;
  const start = (await zoneRecords('set-twice.example')).serial;
  const cursor = (await zoneEventsUntil(app, 'set-twice.example', start)).next;
  const journal = await journalRows('set-twice.example');

  const set = {
    zone: 'set-twice.example',
    changes: [{ kind: 'REPLACE_RRSET', owner: 'mx', type: 'A', ttl: 3600, rdatas: ['192.0.2.25'] }],
  };
  const first = (await app.gql(APPLY, set)).data.applyZoneChanges;
  expect(first.serial).toBeGreaterThan(start);
  const second = await app.gql(APPLY, set);
  expect(second.errors).toBeUndefined();
  expect(second.data.applyZoneChanges).toMatchObject({ serialBefore: first.serial, serial: first.serial, added: [], removed: [] });

  const edit = { zone: 'set-twice.example', owner: 'web', type: 'A', rdata: '192.0.2.2', ttl: 3600 };
  const edited = await app.gql(UPDATE_RECORD, { id, input: edit });
  expect(edited.errors).toBeUndefined();
  const afterEdit = (await zoneRecords('set-twice.example')).serial;
  expect(afterEdit).toBeGreaterThan(first.serial);
  // the same edit again, by GraphQL and by REST (the owner and type written otherwise, the same record): refused as
  // an edit that changes nothing (DUPLICATE_RECORD), and nothing written
  const again = await app.gql(UPDATE_RECORD, { id, input: { ...edit, owner: 'web.set-twice.example.' } });
  expect(errorCode(again)).toBe('DUPLICATE_RECORD');
  const rest = await app.http
    .put(`/api/record/edit/${id}`)
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: 'set-twice.example', owner: 'web.set-twice.example.', rtype: 'a', rdata: '192.0.2.2', ttl: 3600 });
  expect(rest.status).toBe(409);
  expect((await zoneRecords('set-twice.example')).serial).toBe(afterEdit);
  expect(await journalRows('set-twice.example')).toBe(journal + 2);
  // the feed: the two steps and nothing else, up to a last change that shows it moved on
  const last = (await app.gql(APPLY, { ...set, changes: [{ ...set.changes[0], rdatas: ['192.0.2.26'] }] })).data.applyZoneChanges.serial;
  const { events } = await zoneEventsUntil(app, 'set-twice.example', last, cursor);
  expect(events.map((e) => [e.type, e.data.serial])).toEqual([
    ['zone.changed', first.serial],
    ['zone.changed', afterEdit],
    ['zone.changed', last],
  ]);
});

const PLAN = `mutation($zone: String!, $changes: [ZoneChangeInput!]!, $expectSerial: Serial) {
  applyZoneChanges(zone: $zone, changes: $changes, expectSerial: $expectSerial, dryRun: true) {
    zone serialBefore serial dryRun added { owner type rdata ttl } removed { owner type rdata ttl }
    rrsets { owner type before { rdata ttl } after { rdata ttl } }
    disabledAdded { owner type rdata } disabledRemoved { owner type rdata } warnings { field code message } } }`;

test('a dry run answers the plan (each RRset before and after, the serial it would make, the warnings) and writes nothing', async () => {
  await createZone(app, userId, 'set-plan.example');
  for (const rdata of ['192.0.2.1', '192.0.2.2'])
    await app.gql(CREATE_RECORD, { input: { zone: 'set-plan.example', owner: 'app', type: 'A', rdata, ttl: 3600 } });
  const before = await zoneRecords('set-plan.example');
  const journal = await journalRows('set-plan.example');
  const changes = [
    { kind: 'REPLACE_RRSET', owner: 'app', type: 'A', ttl: 3600, rdatas: ['192.0.2.2', '192.0.2.3'] },
    // an in-zone MX target that does not exist: a warning, not a refusal
    { kind: 'ADD', owner: '@', type: 'MX', rdata: '10 nowhere', ttl: 3600 },
    { kind: 'ADD', owner: 'old', type: 'TXT', rdata: '"kept"', ttl: 3600, disabled: true },
  ];
  const res = await app.gql(PLAN, { zone: 'set-plan.example', changes });
  expect(res.errors).toBeUndefined();
  const plan = res.data.applyZoneChanges;
  expect(plan).toMatchObject({ zone: 'set-plan.example', serialBefore: before.serial, dryRun: true });
  expect(plan.serial).toBeGreaterThan(before.serial);
  expect(plan.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort()).toEqual([
    '@ MX 10 nowhere.set-plan.example.',
    'app A 192.0.2.3',
  ]);
  expect(plan.removed.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)).toEqual(['app A 192.0.2.1']);
  expect(plan.rrsets).toEqual([
    {
      owner: 'app',
      type: 'A',
      before: [
        { rdata: '192.0.2.1', ttl: 3600 },
        { rdata: '192.0.2.2', ttl: 3600 },
      ],
      after: [
        { rdata: '192.0.2.2', ttl: 3600 },
        { rdata: '192.0.2.3', ttl: 3600 },
      ],
    },
    { owner: '@', type: 'MX', before: [], after: [{ rdata: '10 nowhere.set-plan.example.', ttl: 3600 }] },
  ]);
  expect(plan.disabledAdded).toEqual([{ owner: 'old', type: 'TXT', rdata: '"kept"' }]);
  expect(plan.disabledRemoved).toEqual([]);
  expect(plan.warnings.map((w: any) => w.code)).toContain('TARGET_MISSING');
  // nothing written: the records, the serial, the journal, the disabled records as they were
  expect(await zoneRecords('set-plan.example')).toEqual(before);
  expect(await journalRows('set-plan.example')).toBe(journal);
  const disabled = await app.gql(`query($z: String!) { domain(name: $z) { disabledRecords { owner } } }`, { z: 'set-plan.example' });
  expect(disabled.data.domain.disabledRecords).toEqual([]);

  // the write of the same set makes what the plan said (its serial aside: the clock may have moved it)
  const applied = (await app.gql(APPLY, { zone: 'set-plan.example', changes })).data.applyZoneChanges;
  expect(applied.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort()).toEqual(
    plan.added.map((r: any) => `${r.owner} ${r.type} ${r.rdata}`).sort(),
  );
  expect(applied.removed).toEqual(plan.removed);
  // and a plan of it again plans nothing: the same serial, no RRset
  const again = (await app.gql(PLAN, { zone: 'set-plan.example', changes: [changes[0]] })).data.applyZoneChanges;
  expect(again).toMatchObject({ serialBefore: applied.serial, serial: applied.serial, added: [], removed: [], rrsets: [], dryRun: true });

  // a dry run is refused as the write would be, naming the change
  const refused = await app.gql(PLAN, {
    zone: 'set-plan.example',
    changes: [{ kind: 'ADD', owner: 'app', type: 'CNAME', rdata: 'x.example.net.', ttl: 3600 }],
  });
  expect(errorCode(refused)).toBe(
    errorCode(
      await app.gql(APPLY, {
        zone: 'set-plan.example',
        changes: [{ kind: 'ADD', owner: 'app', type: 'CNAME', rdata: 'x.example.net.', ttl: 3600 }],
      }),
    ),
  );
  expect(refused.errors![0].extensions.details[0].field).toMatch(/^changes\[0\]/);
  // a write answers dryRun false
  const write = await app.gql(`mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { dryRun } }`, {
    z: 'set-plan.example',
    c: [{ kind: 'ADD', owner: 'b', type: 'A', rdata: '192.0.2.9', ttl: 3600 }],
  });
  expect(write.data.applyZoneChanges.dryRun).toBe(false);
});

test('REST: ?dry_run=true beside the documented path answers the plan and writes nothing; without it the path answers as before', async () => {
  await createZone(app, userId, 'set-rest-plan.example');
  const before = await zoneRecords('set-rest-plan.example');
  const body = { changes: [{ kind: 'ADD', owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 3600 }] };
  const plan = await app.http.post('/api/domain/changes/set-rest-plan.example?dry_run=true').set('X-API-Key', ADMIN_KEY).send(body);
  expect(plan.status).toBe(200);
  expect(plan.body).toMatchObject({
    zone: 'set-rest-plan.example',
    serialBefore: before.serial,
    dryRun: true,
    added: [{ owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 3600 }],
    removed: [],
    rrsets: [{ owner: 'www2', type: 'A', before: [], after: [{ owner: 'www2', type: 'A', rdata: '192.0.2.7', ttl: 3600 }] }],
    disabledAdded: [],
    disabledRemoved: [],
  });
  expect(plan.body.serial).toBeGreaterThan(before.serial);
  expect(await zoneRecords('set-rest-plan.example')).toEqual(before);
  const wrong = await app.http.post('/api/domain/changes/set-rest-plan.example?dry_run=maybe').set('X-API-Key', ADMIN_KEY).send(body);
  expect(wrong.status).toBe(422);
  // the documented answer, without the parameter (and with dry_run=false): the five fields it always had
  for (const path of ['/api/domain/changes/set-rest-plan.example', '/api/domain/changes/set-rest-plan.example?dry_run=false']) {
    const res = await app.http
      .post(path)
      .set('X-API-Key', ADMIN_KEY)
      .send({ changes: [{ ...body.changes[0], rdata: path.includes('?') ? '192.0.2.8' : '192.0.2.7' }] });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['added', 'removed', 'serial', 'serialBefore', 'zone']);
  }
  expect(
    (await zoneRecords('set-rest-plan.example')).records
      .filter((r) => r.owner === 'www2')
      .map((r) => r.rdata)
      .sort(),
  ).toEqual(['192.0.2.7', '192.0.2.8']);
});
