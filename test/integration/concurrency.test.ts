import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';

/**
 * Rules that must hold under concurrency are enforced by the database (unique indexes, the zone row lock),
 * not only by a check before an insert. These run real parallel requests against the real server.
 */
let app: TestApp;
let userId: string;

beforeAll(async () => {
  app = await startTestApp({ SERIAL_POLICY: 'increment' });
  userId = await createUser(app, 'race@example.org');
  await createZone(app, userId, 'race.test');
});
afterAll(async () => {
  await app?.close();
});

const serialOf = async (zone: string) =>
  (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: zone })).data.domain.serial as number;

test('20 parallel identical record creates give exactly one success', async () => {
  const input = { zone: 'race.test', owner: 'same', type: 'A', rdata: '192.0.2.10', ttl: 3600 };
  const results = await Promise.all(Array.from({ length: 20 }, () => app.gql(CREATE_RECORD, { input })));
  const ok = results.filter((r) => !r.errors);
  expect(ok).toHaveLength(1);
  expect(results.filter((r) => errorCode(r) === 'DUPLICATE_RECORD')).toHaveLength(19);
  const stored = await app.gql(`{ records(zone: "race.test", owner: "same") { totalCount } }`);
  expect(stored.data.records.totalCount).toBe(1);
});

test('20 parallel different creates in one zone all succeed, and the serial rises once per commit', async () => {
  const before = await serialOf('race.test');
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      app.gql(CREATE_RECORD, { input: { zone: 'race.test', owner: `host${i}`, type: 'A', rdata: `192.0.2.${100 + i}`, ttl: 3600 } }),
    ),
  );
  expect(results.filter((r) => r.errors)).toEqual([]);
  expect(await serialOf('race.test')).toBe(before + 20);
  // the journal holds one row per commit, with consecutive serials and nothing skipped
  const rows = await app.service.database.db.rows(
    `select serial_before, serial_after from changes where zone = 'race.test' and kind = 'zone-changed' and serial_before >= $1 order by serial_after`,
    [before],
  );
  expect(rows.map((r: any) => Number(r.serial_after))).toEqual(Array.from({ length: 20 }, (_, i) => before + i + 1));
  expect(rows.every((r: any) => Number(r.serial_after) === Number(r.serial_before) + 1)).toBe(true);
});

test('a CNAME and other data raced at one owner: the rules are decided on the zone as it is when written (RFC 1034 §3.6.2)', async () => {
  // changes are written only if the zone's serial is still the one their rules were checked against; a
  // change that lost the race is decided again, so no CNAME ends up beside other data
  const inputs = Array.from({ length: 16 }, (_, i) =>
    i % 2
      ? { zone: 'race.test', owner: 'alias', type: 'A', rdata: `192.0.2.${200 + i}`, ttl: 3600 }
      : { zone: 'race.test', owner: 'alias', type: 'CNAME', rdata: `target${i}.race.test.`, ttl: 3600 },
  );
  const results = await Promise.all(inputs.map((input) => app.gql(CREATE_RECORD, { input })));
  const stored = (await app.gql(`{ records(zone: "race.test", owner: "alias") { nodes { type } } }`)).data.records.nodes as {
    type: string;
  }[];
  const cnames = stored.filter((r) => r.type === 'CNAME').length;
  expect(cnames === 0 || stored.length === 1).toBe(true);
  expect(results.filter((r) => !r.errors)).toHaveLength(stored.length);
  expect(
    results
      .filter((r) => r.errors)
      .map(errorCode)
      .every((code) => code === 'CNAME_CONFLICT'),
  ).toBe(true);
});

test('concurrent creates of one zone name give one zone', async () => {
  const results = await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
        u: userId,
        z: i % 2 ? 'Contended.test.' : 'contended.test',
      }),
    ),
  );
  expect(results.filter((r) => !r.errors)).toHaveLength(1);
  expect(results.filter((r) => errorCode(r) === 'DUPLICATE_ZONE')).toHaveLength(9);
  const zones = await app.gql(`{ domains(name: "contended.test") { totalCount nodes { records(first: 10) { type } } } }`);
  expect(zones.data.domains.totalCount).toBe(1);
  expect(zones.data.domains.nodes[0].records).toHaveLength(4);
});

test('concurrent user creates with one e-mail in different cases give one user', async () => {
  const results = await Promise.all(
    ['dup@example.org', 'DUP@example.org', 'Dup@Example.org', 'dup@EXAMPLE.ORG'].map((email) =>
      app.gql(`mutation($e: String!) { createUser(input: {email: $e}) { id } }`, { e: email }),
    ),
  );
  expect(results.filter((r) => !r.errors)).toHaveLength(1);
  expect(results.filter((r) => errorCode(r) === 'DUPLICATE_EMAIL')).toHaveLength(3);
});

test('a failed change writes nothing: no record, no serial change, no journal row', async () => {
  const before = await serialOf('race.test');
  const journalBefore = await app.service.database.db.rows(`select count(*)::int as n from changes`);
  const res = await app.gql(CREATE_RECORD, { input: { zone: 'race.test', owner: 'host1', type: 'CNAME', rdata: 'x.example.', ttl: 3600 } });
  expect(errorCode(res)).toBe('CNAME_CONFLICT');
  expect(await serialOf('race.test')).toBe(before);
  const journalAfter = await app.service.database.db.rows(`select count(*)::int as n from changes`);
  expect(journalAfter[0].n).toBe(journalBefore[0].n);
});

test('creates and change sets of one zone queued together: each decided on the zone the ones before it left', async () => {
  const before = await serialOf('race.test');
  const SET = `mutation($c: [ZoneChangeInput!]!) { applyZoneChanges(zone: "race.test", changes: $c) { serial } }`;
  // ten creates and, racing them, ten sets that each remove one of the created records by its content
  const work = Array.from({ length: 10 }, (_, i) => [
    app.gql(CREATE_RECORD, { input: { zone: 'race.test', owner: `mix${i}`, type: 'TXT', rdata: `"v${i}"`, ttl: 3600 } }),
    app.gql(SET, {
      c: [
        { kind: 'REMOVE', owner: `mix${i}`, type: 'TXT', rdata: `"v${i}"` },
        { kind: 'ADD', owner: `gone${i}`, type: 'TXT', rdata: `"was v${i}"`, ttl: 3600 },
      ],
    }),
  ]).flat();
  const results = await Promise.all(work);
  const created = results.filter((_, i) => i % 2 === 0);
  const removed = results.filter((_, i) => i % 2 === 1);
  expect(created.every((r) => !r.errors)).toBe(true);
  expect(
    removed
      .filter((r) => r.errors)
      .map(errorCode)
      .every((code) => code === 'RECORD_NOT_FOUND'),
  ).toBe(true);
  const state = (await app.gql(`{ records(zone: "race.test", first: 1000) { nodes { owner } } }`)).data.records.nodes.map(
    (r: any) => r.owner,
  );
  for (let i = 0; i < 10; i++) {
    const setApplied = !removed[i].errors;
    // a set that applied removed its record and left its marker; one that was refused changed nothing
    expect([i, state.includes(`mix${i}`), state.includes(`gone${i}`)]).toEqual([i, !setApplied, setApplied]);
  }
  const applied = results.filter((r) => !r.errors).length;
  expect(await serialOf('race.test')).toBe(before + applied);
});
