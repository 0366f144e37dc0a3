/**
 * The plan's "in use" guard (docs/analytics.md, src/services/zones/in-use-guard.ts): a change set that deletes or
 * replaces an RRset the secondaries answered within ANALYTICS_IN_USE_DAYS (or twice its TTL) is answered
 * RRSET_IN_USE, a delegation still queried below it DELEGATION_IN_USE, an RRset not seen queried while the
 * coverage had a gap RRSET_USE_UNKNOWN; the findings are kept in the history, and a zone with strictChecks refuses
 * an RRset in use until forced. The traffic is written through the collector's own write (`writeTally`).
 */
import { startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createZone, errorCode } from '../support/fixtures';
import { waitFor } from '../support/wait-for';
import { writeTally, type CountRow, type CoverageRow } from '../../src/repositories/query-analytics';

const PLAN = `mutation($zone: String!, $changes: [ZoneChangeInput!]!, $dryRun: Boolean, $force: Boolean) {
  applyZoneChanges(zone: $zone, changes: $changes, dryRun: $dryRun, force: $force) { serial warnings { code owner type level message } } }`;

let app: TestApp;
let userId: string;
const zone = 'inuse.example';
let zoneId: number;
beforeAll(async () => {
  app = await startTestApp({ ANALYTICS_IN_USE_DAYS: '1' });
  userId = await createUser(app, 'inuse@example.org');
  zoneId = Number(await createZone(app, userId, zone));
  const records = [
    { owner: 'web', type: 'A', rdata: '192.0.2.1' },
    { owner: 'quiet', type: 'A', rdata: '192.0.2.2' },
    { owner: 'sub', type: 'NS', rdata: 'ns1.elsewhere.example.' },
    { owner: 'oldsub', type: 'NS', rdata: 'ns1.elsewhere.example.' },
    { owner: 'api', type: 'A', rdata: '192.0.2.3' },
  ];
  for (const r of records) {
    const res = await app.gql(CREATE_RECORD, { input: { zone, ...r, ttl: 300 } });
    expect(res.errors).toBeUndefined();
  }
});
afterAll(() => app?.close());

const MINUTE = 60_000;
const minuteOf = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;
const db = () => app.service.database.db;

/** a secondary connected every minute from `fromMs` ago until now, as the collector writes it */
async function covered(secondary: string, fromMs: number) {
  const now = Date.now();
  const coverage: CoverageRow[] = [];
  for (let minute = minuteOf(now - fromMs); minute <= now; minute += MINUTE)
    coverage.push({ secondary, minute, firstAt: minute, coveredMs: MINUTE, frames: 1, answers: 1, unmatched: 0, malformed: 0, dropped: 0 });
  await writeTally(db(), [], coverage, new Date(now));
}

async function queried(owner: string, type: string, agoMs: number) {
  const at = Date.now() - agoMs;
  const count: CountRow = { zoneId, minute: minuteOf(at), owner, type, rcode: 0, secondary: 'ns1', count: 3, lastAt: at };
  await writeTally(db(), [count], [], new Date());
}

const dryRun = async (changes: object[]) => {
  const res = await app.gql(PLAN, { zone, changes, dryRun: true });
  expect(res.errors).toBeUndefined();
  return res.data.applyZoneChanges.warnings as { code: string; owner: string; type: string; level: string; message: string }[];
};
const inUseCodes = (warnings: { code: string; owner: string; type: string }[]) =>
  warnings.filter((w) => /_IN_USE$|_USE_UNKNOWN$/.test(w.code)).map((w) => `${w.code} ${w.owner} ${w.type}`);
const deleteRrset = (owner: string, type: string) => ({ kind: 'REPLACE_RRSET', owner, type, rdatas: [] });

test('without a collector that ever reported, a plan says nothing of use', async () => {
  expect(inUseCodes(await dryRun([deleteRrset('web', 'A')]))).toEqual([]);
});

test('a queried RRset is in use to a plan that deletes or replaces it; an unqueried one is not', async () => {
  // ns1 connected for the whole day's window; web asked a minute ago, api two days ago (outside the window)
  await covered('ns1', 25 * 3600_000);
  await queried('web', 'A', MINUTE);
  await queried('api', 'A', 2 * 86_400_000);
  // the guard reads again whether a collector reported at most every 10 s: wait for it to see ns1
  const warnings = await waitFor(
    'the plan to see the collector',
    async () => {
      const found = await dryRun([deleteRrset('web', 'A')]);
      return found.length ? found : undefined;
    },
    60_000,
    500,
  );
  expect(inUseCodes(warnings)).toEqual(['RRSET_IN_USE web A']);
  expect(warnings[0].level).toBe('WARNING');
  expect(warnings[0].message).toContain('deleted while still queried');
  // a replacement of it too; the quiet name and the one last asked two days ago are not in use
  const replaced = await dryRun([{ kind: 'REPLACE_RRSET', owner: 'web', type: 'A', ttl: 300, rdatas: ['192.0.2.9'] }]);
  expect(inUseCodes(replaced)).toEqual(['RRSET_IN_USE web A']);
  expect(replaced[0].message).toContain('replaced while still queried');
  expect(inUseCodes(await dryRun([deleteRrset('quiet', 'A'), deleteRrset('api', 'A')]))).toEqual([]);
  // a set that only adds removes nothing: no finding
  expect(inUseCodes(await dryRun([{ kind: 'ADD', owner: 'web', type: 'A', rdata: '192.0.2.10', ttl: 300 }]))).toEqual([]);
});

test('a delegation still queried below it is in use; one nobody asks for is not', async () => {
  await queried('host.sub', 'A', 5 * MINUTE);
  const warnings = await dryRun([deleteRrset('sub', 'NS'), deleteRrset('oldsub', 'NS')]);
  expect(inUseCodes(warnings)).toEqual(['DELEGATION_IN_USE sub NS']);
  expect(warnings.find((w) => w.code === 'DELEGATION_IN_USE')!.message).toContain('names at or below it are still queried');
});

test("a person's single-record delete and edit are plans too: a queried record's removal is told and kept in the history", async () => {
  const history = async () => {
    const res = await app.gql(
      `query($z: String!) { domain(name: $z) { serial changes(first: 1) { nodes { findings { code owner type } } } } }`,
      {
        z: zone,
      },
    );
    expect(res.errors).toBeUndefined();
    return res.data.domain as { serial: number; changes: { nodes: { findings: { code: string; owner: string; type: string }[] }[] } };
  };
  const made = await app.gql(CREATE_RECORD, { input: { zone, owner: 'single', type: 'A', rdata: '192.0.2.20', ttl: 300 } });
  expect(made.errors).toBeUndefined();
  const id = made.data.createRecord.id as string;
  await queried('single', 'A', MINUTE);
  // an edit of the queried record replaces its RRset: told, kept with the write; the record keeps its id
  const edited = await app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id rdata } }`, {
    id,
    input: { zone, owner: 'single', type: 'A', rdata: '192.0.2.21', ttl: 300 },
  });
  expect(edited.errors).toBeUndefined();
  expect(edited.data.updateRecord).toEqual({ id, rdata: '192.0.2.21' });
  expect(edited.body.extensions?.warnings?.map((w: any) => w.code)).toEqual(['RRSET_IN_USE']);
  expect((await history()).changes.nodes[0].findings).toEqual([{ code: 'RRSET_IN_USE', owner: 'single', type: 'A' }]);
  // the same edit again changes nothing: refused as the record API refuses it, nothing written
  const before = (await history()).serial;
  const again = await app.gql(`mutation($id: ID!, $input: RecordInput!) { updateRecord(id: $id, input: $input) { id } }`, {
    id,
    input: { zone, owner: 'single', type: 'A', rdata: '192.0.2.21', ttl: 300 },
  });
  expect(errorCode(again)).toBe('DUPLICATE_RECORD');
  expect((await history()).serial).toBe(before);
  // its deletion is told too, and kept
  const removed = await app.gql(`mutation($id: ID!) { removeRecord(id: $id) { id } }`, { id });
  expect(removed.errors).toBeUndefined();
  expect(removed.body.extensions?.warnings?.map((w: any) => w.code)).toEqual(['RRSET_IN_USE']);
  expect((await history()).changes.nodes[0].findings).toEqual([{ code: 'RRSET_IN_USE', owner: 'single', type: 'A' }]);
});

test('the finding is kept in the history; a zone with strictChecks refuses it until forced', async () => {
  const res = await app.gql(PLAN, { zone, changes: [{ kind: 'REPLACE_RRSET', owner: 'web', type: 'A', ttl: 300, rdatas: ['192.0.2.7'] }] });
  expect(res.errors).toBeUndefined();
  const history = await app.gql(
    `query($z: String!) { domain(name: $z) { changes(first: 1) { nodes { findings { code severity owner type message } } } } }`,
    {
      z: zone,
    },
  );
  expect(history.errors).toBeUndefined();
  expect(history.data.domain.changes.nodes[0].findings.map((f: any) => `${f.code} ${f.severity} ${f.owner} ${f.type}`)).toEqual([
    'RRSET_IN_USE warning web A',
  ]);

  const strict = await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: true) }`, { z: zone });
  expect(strict.errors).toBeUndefined();
  const change = [deleteRrset('web', 'A')];
  const refused = await app.gql(PLAN, { zone, changes: change, force: false });
  expect(errorCode(refused)).toBe('CHANGE_NEEDS_FORCE');
  expect(refused.errors![0].extensions.details.map((d: any) => `${d.code} ${d.owner} ${d.type}`)).toEqual(['RRSET_IN_USE web A']);
  expect(refused.errors![0].message).toContain('send it again with force');
  // the dry run answers the same refusal; an unqueried RRset passes
  expect(errorCode(await app.gql(PLAN, { zone, changes: change, dryRun: true, force: false }))).toBe('CHANGE_NEEDS_FORCE');
  expect(inUseCodes(await dryRun([deleteRrset('quiet', 'A')]))).toEqual([]);
  const forced = await app.gql(PLAN, { zone, changes: change, force: true });
  expect(forced.errors).toBeUndefined();
  const records = await app.gql(`query($z: String!) { domain(name: $z) { records { owner type } } }`, { z: zone });
  expect(records.data.domain.records.some((r: any) => r.owner === 'web')).toBe(false);
  const unstrict = await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: false) }`, { z: zone });
  expect(unstrict.errors).toBeUndefined();
});

test('where a secondary was not connected for part of the window, an unqueried RRset cannot be told unused', async () => {
  // ns2 first seen two hours ago, connected only for its last half hour
  const now = Date.now();
  await writeTally(
    db(),
    [],
    [
      {
        secondary: 'ns2',
        minute: minuteOf(now - 2 * 3600_000),
        firstAt: now - 2 * 3600_000,
        coveredMs: 1000,
        frames: 1,
        answers: 1,
        unmatched: 0,
        malformed: 0,
        dropped: 0,
      },
    ],
    new Date(),
  );
  await covered('ns2', 30 * MINUTE);
  const warnings = await dryRun([deleteRrset('quiet', 'A')]);
  expect(inUseCodes(warnings)).toEqual(['RRSET_USE_UNKNOWN quiet A']);
  expect(warnings[0].message).toContain('cannot be told');
});
