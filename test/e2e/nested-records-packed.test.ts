/**
 * `Domain.records` reads each zone's records as one packed text value (read-model.ts, recordsGroupedByDomain):
 * the answer must be exactly what a row-per-record read gives — every field, id order, `first` and filters per
 * zone — and a stored value holding one of the separators (a row written by hand, or before the canonical
 * forms) must neither forge a record nor lose one: its zone is read again row by row.
 */
import { Client } from 'pg';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { writeTally } from '../../src/repositories/query-analytics';

let app: TestApp;
let db: Client;
let userId: string;

beforeAll(async () => {
  app = await startTestApp();
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
  userId = await createUser(app, 'packed@example.org');
  await createZone(app, userId, 'plain.packed.test');
  await createZone(app, userId, 'record.packed.test');
  await createZone(app, userId, 'field.packed.test');
  for (const zone of ['plain.packed.test', 'record.packed.test', 'field.packed.test']) {
    for (const [owner, type, rdata] of [
      ['mail', 'MX', '10 mx.example.net.'],
      ['txt', 'TXT', '"a b" "c\\"d"'],
      ['a', 'A', '192.0.2.9'],
    ]) {
      const res = await app.gql(`mutation($r: RecordInput!) { createRecord(input: $r) { id } }`, {
        r: { zone, owner, type, rdata, ttl: 300 },
      });
      expect(res.errors).toBeUndefined();
    }
  }
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

const NESTED = `{ users(first: 10) { nodes { domains(first: 10) { name records(first: 100) { id owner type rdata ttl } } } } }`;

/** every zone's records as the rows in the table say, in id order */
async function storedRecords(): Promise<Record<string, { id: string; owner: string; type: string; rdata: string; ttl: number }[]>> {
  const { rows } = await db.query(
    `select d.name, r.id::text as id, r.owner, r.type, r.rdata, r.ttl from records r join domains d on d.id = r.domain_id where d.user_id = $1 order by r.id`,
    [userId],
  );
  const byZone: Record<string, any[]> = {};
  for (const row of rows) (byZone[row.name] ??= []).push({ id: row.id, owner: row.owner, type: row.type, rdata: row.rdata, ttl: row.ttl });
  return byZone;
}

async function answeredRecords() {
  const res = await app.gql(NESTED);
  expect(res.errors).toBeUndefined();
  const user = res.data.users.nodes.find((u: { domains: unknown[] }) => u.domains.length);
  return Object.fromEntries(user.domains.map((d: { name: string; records: unknown[] }) => [d.name.replace(/\.$/, ''), d.records]));
}

test('the nested answer is every stored record of every zone, field for field, in id order', async () => {
  const stored = await storedRecords();
  const answered = await answeredRecords();
  expect(Object.keys(answered).sort()).toEqual(['field.packed.test', 'plain.packed.test', 'record.packed.test']);
  for (const zone of Object.keys(answered)) expect(answered[zone]).toEqual(stored[zone]);
  expect(answered['plain.packed.test'].length).toBe(7);
});

test('stored values holding the separators are answered as stored, with no forged record', async () => {
  // each zone holds one kind of forgery, so that each of the split's two checks is needed on its own:
  // - an owner whose separators split its record into two well-formed ones (only the record count tells)
  await db.query(`update records set owner = 'x' || chr(31) || 'A' || chr(31) || '192.0.2.66' || chr(31) || '300' || chr(30) || '999' || chr(31) || 'evil'
    where owner = 'mail' and domain_id = (select id from domains where name = 'record.packed.test')`);
  // - an rdata with a field separator: a sixth field in its record (only the field count tells)
  await db.query(
    `update records set rdata = '192.0.2.1' || chr(31) || '1' where owner = 'a' and domain_id = (select id from domains where name = 'field.packed.test')`,
  );
  const stored = await storedRecords();
  const answered = await answeredRecords();
  for (const zone of ['record.packed.test', 'field.packed.test']) {
    expect(answered[zone]).toEqual(stored[zone]);
    expect(answered[zone].length).toBe(7);
  }
  expect(answered['record.packed.test'].some((r: { owner: string }) => r.owner.endsWith('\u001e999\u001fevil'))).toBe(true);
  expect(answered['record.packed.test'].some((r: { owner: string }) => r.owner === 'evil')).toBe(false);
  expect(answered['field.packed.test'].some((r: { rdata: string }) => r.rdata === '192.0.2.1\u001f1')).toBe(true);
  // the other zone of the same batch is unaffected
  expect(answered['plain.packed.test']).toEqual(stored['plain.packed.test']);
});

test("each record's counts, read with the packed records, or apart for a zone read row by row, are its RRset's", async () => {
  // the zone of a forged record (read row by row) and a plain one (packed), their TXT RRsets queried
  const { rows } = await db.query(`select id, name from domains where name in ('plain.packed.test', 'record.packed.test')`);
  const minute = Math.floor(Date.now() / 60_000) * 60_000 - 120_000;
  await writeTally(
    app.service.database.db,
    rows.map((zone, i) => ({
      zoneId: Number(zone.id),
      minute,
      owner: 'txt',
      type: 'TXT',
      rcode: 0,
      secondary: 'ns1',
      count: 3 + i,
      lastAt: minute + 1_234,
    })),
    [],
    new Date(),
  );
  const query = `{ users(first: 10) { nodes { domains(first: 10) { name records(first: 100) { owner type queryCount lastQueried } } } } }`;
  for (let run = 0; run < 2; run++) {
    // the first run on graphql-js, the second compiled, whose plain lists read the counts with the records
    const res = await app.gql(query);
    expect(res.errors).toBeUndefined();
    const zones = res.data.users.nodes.flatMap((u: { domains: unknown[] }) => u.domains);
    for (const zone of rows) {
      const records = zones.find((d: { name: string }) => d.name.replace(/\.$/, '') === zone.name).records;
      const i = rows.indexOf(zone);
      expect(records.find((r: { owner: string }) => r.owner === 'txt')).toEqual({
        owner: 'txt',
        type: 'TXT',
        queryCount: 3 + i,
        lastQueried: new Date(minute + 1_234).toISOString(),
      });
      expect(records.filter((r: { queryCount: number }) => r.queryCount > 0)).toHaveLength(1);
      expect(records.filter((r: { lastQueried: string | null }) => r.lastQueried !== null)).toHaveLength(1);
    }
  }
});

test('first and filters apply per zone, in id order, on both read paths', async () => {
  const res = await app.gql(
    `{ users(first: 10) { nodes { domains(first: 10) { name first2: records(first: 2) { id owner } mx: records(type: "MX", first: 100) { owner rdata } } } } }`,
  );
  expect(res.errors).toBeUndefined();
  const stored = await storedRecords();
  const user = res.data.users.nodes.find((u: { domains: unknown[] }) => u.domains.length);
  for (const domain of user.domains) {
    const zone = domain.name.replace(/\.$/, '');
    expect(domain.first2).toEqual(stored[zone].slice(0, 2).map(({ id, owner }) => ({ id, owner })));
    expect(domain.mx).toEqual(stored[zone].filter((r) => r.type === 'MX').map(({ owner, rdata }) => ({ owner, rdata })));
  }
});

test("a zone's page of records (the console's zone page) is read packed too: as stored, page by page, forged values included", async () => {
  const stored = await storedRecords();
  const pageOf = async (zone: string, first: number, after: string | null) => {
    const res = await app.gql(
      `query($zone: String!, $first: Int!, $after: String) { records(zone: $zone, first: $first, after: $after) {
        totalCount pageInfo { endCursor hasNextPage } nodes { id owner type rdata ttl zone permissions { edit delete } } } }`,
      { zone, first, after },
    );
    expect(res.errors).toBeUndefined();
    return res.data.records;
  };
  // the zones of the test before hold forged values (their text does not split: read row by row), the other not
  for (const zone of ['plain.packed.test', 'record.packed.test', 'field.packed.test']) {
    const whole = await pageOf(zone, 100, null);
    expect(whole.totalCount).toBe(stored[zone].length);
    expect(whole.nodes.map(({ id, owner, type, rdata, ttl }: Record<string, unknown>) => ({ id, owner, type, rdata, ttl }))).toEqual(
      stored[zone],
    );
    expect(whole.nodes.every((r: { zone: string }) => r.zone === zone)).toBe(true);
    // the SOA is the apex's, kept: never deletable; the records the test made are
    expect(whole.nodes.find((r: { type: string }) => r.type === 'SOA').permissions).toEqual({ edit: true, delete: false });
    expect(whole.nodes.find((r: { owner: string }) => r.owner === 'txt').permissions).toEqual({ edit: true, delete: true });
    const paged: unknown[] = [];
    let after: string | null = null;
    do {
      const next = await pageOf(zone, 2, after);
      paged.push(...next.nodes);
      after = next.pageInfo.hasNextPage ? next.pageInfo.endCursor : null;
    } while (after);
    expect(paged).toEqual(whole.nodes);
  }
});
