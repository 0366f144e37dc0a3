/**
 * Disabled records end to end (docs/powerdns-api.md): PowerDNS-Admin's toggle, a PATCH that REPLACEs the rrset
 * with one record `disabled: true`, on a signed zone. The disabled record is kept and shown (the PowerDNS API's
 * `disabled: true`, GraphQL's Domain.disabledRecords) and is in nothing the primary serves: not in its answers,
 * its AXFR or its IXFR, and not signed (the zone as transferred passes dnssec-verify, whose RRSIGs would not
 * match an RRset that held it). Enabled through GraphQL it is served again; the history shows both toggles, and
 * an undo of the enabling disables it again. Then how the change kinds meet disabled records (a zone created
 * with one, EXTEND, PRUNE, ADD, REMOVE, DISABLE, ENABLE, createRecord), and the quota that bounds them.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey } from '../support/fixtures';
import { dig, freePort, records } from '../propagation/knot';

const run = promisify(execFile);
const ZONE = 'disabled.zk.test';
const ZONES = '/api/v1/servers/localhost/zones';
const KEY_NAME = 'zk-disabled-key';
const SECRET = randomBytes(32).toString('base64');

let app: TestApp;
let dnsPort: number;
let key: string;
let userId: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-disabled-'));
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}`, TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}` });
  userId = await createUser(app, 'owner@disabled.zk.test');
  key = await createUserKey(app, userId);
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function gqlOk<T = any>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await app.gql<T>(query, variables);
  expect(res.errors).toBeUndefined();
  return res.data as T;
}

const patch = (rrsets: unknown[]) => app.http.patch(`${ZONES}/${ZONE}.`).set('X-API-Key', key).send({ rrsets });
const www = (disabled91: boolean) => ({
  name: `www.${ZONE}.`,
  type: 'A',
  ttl: 300,
  changetype: 'REPLACE',
  records: [
    { content: '192.0.2.90', disabled: false },
    { content: '192.0.2.91', disabled: disabled91 },
  ],
});

const at = () => ['@127.0.0.1', '-p', String(dnsPort), '+norec'];
const tsig = () => ['-y', `hmac-sha256:${KEY_NAME}:${SECRET}`];

/** the addresses the primary answers for www */
async function servedAddresses(): Promise<string[]> {
  return records(await dig([...at(), `www.${ZONE}`, 'A']))
    .filter((r) => r.type === 'A')
    .map((r) => r.rdata)
    .sort();
}

/** the zone's AXFR from the primary as zone-file lines (TSIG aside), checked by dnssec-verify */
async function verifiedAxfr(label: string): Promise<string[]> {
  const axfr = await dig([...tsig(), ...at(), ZONE, 'AXFR', '+nocomments', '+nostats']);
  const lines = axfr.lines.filter((line) => line.split(/\s+/)[3] !== 'TSIG');
  expect(lines.length).toBeGreaterThan(3);
  const file = join(dir, `${label}.zone`);
  writeFileSync(file, `${lines.slice(0, -1).join('\n')}\n`);
  await run('dnssec-verify', ['-o', ZONE, file]);
  return lines;
}

const serial = async () => (await gqlOk(`query($z: String!) { domain(name: $z) { serial } }`, { z: ZONE })).domain.serial as number;

/** the zone as GraphQL shows it: served www addresses, disabled records, the newest history entry */
async function graphqlView() {
  const data = await gqlOk(
    `query($z: String!) { domain(name: $z) {
      records(owner: "www", type: "A") { rdata }
      disabledRecords { owner type rdata ttl }
      changes(first: 1) { nodes { added { rdata toggled } removed { rdata toggled } } }
    } }`,
    { z: ZONE },
  );
  const entry = data.domain.changes.nodes[0];
  const ofType = (list: { rdata: string; toggled: boolean }[]) => list.filter((r) => r.rdata.startsWith('192.0.2.'));
  return {
    served: data.domain.records.map((r: any) => r.rdata).sort(),
    disabled: data.domain.disabledRecords,
    added: ofType(entry.added),
    removed: ofType(entry.removed),
  };
}

async function powerDnsWww() {
  const zone = await app.http.get(`${ZONES}/${ZONE}.`).set('X-API-Key', key);
  expect(zone.status).toBe(200);
  return zone.body.rrsets.find((r: any) => r.name === `www.${ZONE}.` && r.type === 'A');
}

test('a record disabled through the PowerDNS API is kept and shown, and not served, transferred or signed; enabled through GraphQL it is back', async () => {
  const created = await app.http
    .post(ZONES)
    .set('X-API-Key', key)
    .send({ name: `${ZONE}.`, kind: 'Native', nameservers: [`ns1.${ZONE}.`], rrsets: [www(false)] });
  expect(created.status).toBe(201);
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { state } }`, { z: ZONE });
  expect(await servedAddresses()).toEqual(['192.0.2.90', '192.0.2.91']);
  const beforeDisable = await serial();

  // PowerDNS-Admin's toggle: the rrset again, the second record disabled
  expect((await patch([www(true)])).status).toBe(204);
  const disabledAt = await serial();
  expect(disabledAt).toBeGreaterThan(beforeDisable);
  expect(await servedAddresses()).toEqual(['192.0.2.90']);
  const axfr = await verifiedAxfr('disabled');
  expect(axfr.join('\n')).not.toContain('192.0.2.91');
  expect(axfr.join('\n')).toContain('192.0.2.90');
  // IXFR from the serial before: the record's deletion, no addition of it
  const ixfr = await dig([...tsig(), ...at(), ZONE, `IXFR=${beforeDisable}`, '+nocomments', '+nostats']);
  const ixfrLines = ixfr.lines.filter((line) => line.includes('192.0.2.91'));
  expect(ixfrLines).toHaveLength(1);
  const deletion = ixfr.lines.findIndex((line) => line.includes('192.0.2.91'));
  const soas = ixfr.lines.map((line, i) => (line.split(/\s+/)[3] === 'SOA' ? i : -1)).filter((i) => i >= 0);
  // RFC 1995 §4: the old SOA, the deletions, the new SOA, the additions: the record sits among the deletions
  expect(deletion).toBeGreaterThan(soas[1]);
  expect(deletion).toBeLessThan(soas[2]);
  // shown disabled, in PowerDNS's shape and in GraphQL's
  expect((await powerDnsWww()).records).toEqual([
    { content: '192.0.2.90', disabled: false },
    { content: '192.0.2.91', disabled: true },
  ]);
  let view = await graphqlView();
  expect(view.served).toEqual(['192.0.2.90']);
  expect(view.disabled).toEqual([{ owner: 'www', type: 'A', rdata: '192.0.2.91', ttl: 300 }]);
  expect(view.removed).toEqual([{ rdata: '192.0.2.91', toggled: true }]);
  expect(view.added).toEqual([]);

  // enabled through GraphQL: served, transferred and signed again
  await gqlOk(
    `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: ENABLE, owner: "www", type: "A", rdata: "192.0.2.91"}]) { serial } }`,
    {
      z: ZONE,
    },
  );
  expect(await servedAddresses()).toEqual(['192.0.2.90', '192.0.2.91']);
  expect((await verifiedAxfr('enabled')).join('\n')).toContain('192.0.2.91');
  expect((await powerDnsWww()).records).toEqual([
    { content: '192.0.2.90', disabled: false },
    { content: '192.0.2.91', disabled: false },
  ]);
  view = await graphqlView();
  expect(view.served).toEqual(['192.0.2.90', '192.0.2.91']);
  expect(view.disabled).toEqual([]);
  expect(view.added).toEqual([{ rdata: '192.0.2.91', toggled: true }]);

  // the undo of the enabling disables the record again: kept, not deleted
  await gqlOk(`mutation($z: String!, $s: Serial!) { revertZone(zone: $z, toSerial: $s) { serial } }`, { z: ZONE, s: disabledAt });
  expect(await servedAddresses()).toEqual(['192.0.2.90']);
  view = await graphqlView();
  expect(view.disabled).toEqual([{ owner: 'www', type: 'A', rdata: '192.0.2.91', ttl: 300 }]);
  expect(view.removed).toEqual([{ rdata: '192.0.2.91', toggled: true }]);

  // DISABLE through GraphQL, by content: the last served record of the rrset goes too, and both are kept
  await gqlOk(
    `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: DISABLE, owner: "www", type: "A", rdata: "192.0.2.90"}]) { serial } }`,
    {
      z: ZONE,
    },
  );
  expect(await servedAddresses()).toEqual([]);
  await verifiedAxfr('all-disabled');
  // an rrset of disabled records only is shown with its TTL, as PowerDNS shows it
  expect(await powerDnsWww()).toMatchObject({
    ttl: 300,
    records: [
      { content: '192.0.2.90', disabled: true },
      { content: '192.0.2.91', disabled: true },
    ],
  });

  // a DELETE of the rrset deletes its disabled records: nothing served changes, so the serial stays
  const beforeDelete = await serial();
  expect((await patch([{ name: `www.${ZONE}.`, type: 'A', changetype: 'DELETE' }])).status).toBe(204);
  expect(await serial()).toBe(beforeDelete);
  expect(await powerDnsWww()).toBeUndefined();
  expect((await graphqlView()).disabled).toEqual([]);
}, 60_000);

test('a zone created with a disabled record keeps it; EXTEND, PRUNE, ADD and REMOVE meet disabled records as documented', async () => {
  const zone = 'disabled-sets.zk.test';
  const sets = (rrsets: unknown[]) => app.http.patch(`${ZONES}/${zone}.`).set('X-API-Key', key).send({ rrsets });
  const rrset = (changetype: string, content: string, disabled: boolean) => ({
    name: `a.${zone}.`,
    type: 'A',
    ttl: 300,
    changetype,
    records: [{ content, disabled }],
  });
  const shown = async () => {
    const read = await app.http.get(`${ZONES}/${zone}.`).set('X-API-Key', key);
    expect(read.status).toBe(200);
    return read.body.rrsets.find((r: any) => r.name === `a.${zone}.` && r.type === 'A')?.records ?? [];
  };
  const served = async () =>
    records(await dig([...at(), `a.${zone}`, 'A']))
      .filter((r) => r.type === 'A')
      .map((r) => r.rdata)
      .sort();

  const created = await app.http
    .post(ZONES)
    .set('X-API-Key', key)
    .send({ name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`], rrsets: [rrset('REPLACE', '192.0.2.1', true)] });
  expect(created.status).toBe(201);
  expect(await shown()).toEqual([{ content: '192.0.2.1', disabled: true }]);
  expect(await served()).toEqual([]);

  // EXTEND leaves a record it holds as it is (served or not) and adds what the rrset lacks in the state given
  expect((await sets([rrset('EXTEND', '192.0.2.1', false)])).status).toBe(204);
  expect((await sets([rrset('EXTEND', '192.0.2.2', true)])).status).toBe(204);
  expect((await sets([rrset('EXTEND', '192.0.2.3', false)])).status).toBe(204);
  expect(await shown()).toEqual([
    { content: '192.0.2.1', disabled: true },
    { content: '192.0.2.2', disabled: true },
    { content: '192.0.2.3', disabled: false },
  ]);
  expect(await served()).toEqual(['192.0.2.3']);

  // PRUNE takes a record in either state
  expect((await sets([rrset('PRUNE', '192.0.2.2', false)])).status).toBe(204);
  expect((await shown()).map((r: any) => r.content)).toEqual(['192.0.2.1', '192.0.2.3']);

  // the same content served and disabled in one set is refused, naming the rrset
  const both = await sets([
    {
      name: `a.${zone}.`,
      type: 'A',
      ttl: 300,
      changetype: 'REPLACE',
      records: [{ content: '192.0.2.1', disabled: true }, { content: '192.0.2.1' }],
    },
  ]);
  expect(both.status).toBe(422);
  expect(both.body.error).toMatch(/^RRset a\.disabled-sets\.zk\.test\. IN A: .*both served and disabled/);

  // through GraphQL: an ADD of a disabled record enables it, a REMOVE by content deletes a disabled one
  const apply = (changes: unknown[]) =>
    gqlOk(
      `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { added { rdata toggled } removed { rdata toggled } } }`,
      {
        z: zone,
        c: changes,
      },
    );
  const enabled = await apply([{ kind: 'ADD', owner: 'a', type: 'A', ttl: 300, rdata: '192.0.2.1' }]);
  expect(enabled.applyZoneChanges.added).toEqual([{ rdata: '192.0.2.1', toggled: true }]);
  expect(await served()).toEqual(['192.0.2.1', '192.0.2.3']);
  await apply([{ kind: 'ADD', owner: 'a', type: 'A', ttl: 300, rdata: '192.0.2.4', disabled: true }]);
  await apply([{ kind: 'REMOVE', owner: 'a', type: 'A', rdata: '192.0.2.4' }]);
  expect((await shown()).map((r: any) => `${r.content} ${r.disabled}`)).toEqual(['192.0.2.1 false', '192.0.2.3 false']);

  // createRecord of a record kept disabled serves it and keeps it no longer (a record is served or disabled)
  await apply([{ kind: 'DISABLE', owner: 'a', type: 'A', rdata: '192.0.2.3' }]);
  expect(await served()).toEqual(['192.0.2.1']);
  await gqlOk(`mutation($z: String!) { createRecord(input: {zone: $z, owner: "a", type: "A", rdata: "192.0.2.3", ttl: 300}) { id } }`, {
    z: zone,
  });
  expect(await served()).toEqual(['192.0.2.1', '192.0.2.3']);
  expect(await shown()).toEqual([
    { content: '192.0.2.1', disabled: false },
    { content: '192.0.2.3', disabled: false },
  ]);

  // an ACME key reads and writes its challenge TXT only: disabling another record is refused and changes nothing
  const acme = await app.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, {
    i: { userId, name: 'acme', preset: 'ACME', zone },
  });
  const acmeKey: string = acme.data.createApiKey.secret;
  const refused = await app.http
    .patch(`${ZONES}/${zone}.`)
    .set('X-API-Key', acmeKey)
    .send({ rrsets: [rrset('REPLACE', '192.0.2.1', true)] });
  expect(refused.status).toBe(403);
  expect(refused.body.error).toContain(`RRset a.${zone}. IN A`);
  const byGraphql = await app.gql(
    `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: DISABLE, owner: "a", type: "A", rdata: "192.0.2.1"}]) { serial } }`,
    { z: zone },
    acmeKey,
  );
  // a record the key may not read is not in the zone for it (docs/least-privilege.md)
  expect(byGraphql.errors?.[0].extensions?.code).toBe('RECORD_NOT_FOUND');
  expect(await served()).toEqual(['192.0.2.1', '192.0.2.3']);

  // ENABLE of a record the zone does not keep is refused
  const missing = await app.gql(
    `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: ENABLE, owner: "a", type: "A", rdata: "192.0.2.9"}]) { serial } }`,
    { z: zone },
  );
  expect(missing.errors?.[0].extensions?.code).toBe('RECORD_NOT_FOUND');
}, 60_000);

test("a user's disabled records are held to MAX_RECORDS_PER_ZONE apart from the served ones", async () => {
  const small = await startTestApp({ MAX_RECORDS_PER_ZONE: '4' });
  try {
    const own = await createUserKey(small, await createUser(small, 'quota@disabled.zk.test'));
    const zone = 'disabled-quota.zk.test';
    const created = await small.http
      .post(ZONES)
      .set('X-API-Key', own)
      .send({ name: `${zone}.`, kind: 'Native', nameservers: [`ns1.${zone}.`] });
    expect(created.status).toBe(201);
    const disabledSet = (count: number) =>
      small.http
        .patch(`${ZONES}/${zone}.`)
        .set('X-API-Key', own)
        .send({
          rrsets: [
            {
              name: `off.${zone}.`,
              type: 'A',
              ttl: 300,
              changetype: 'REPLACE',
              records: Array.from({ length: count }, (_, i) => ({ content: `192.0.2.${i + 1}`, disabled: true })),
            },
          ],
        });
    const over = await disabledSet(5);
    expect(over.status).toBe(403);
    expect(over.body.error).toMatch(/maxRecordsPerZone: the quota of 4 disabled records in zone disabled-quota\.zk\.test/);
    expect((await disabledSet(4)).status).toBe(204);
    const read = await small.http.get(`${ZONES}/${zone}.`).set('X-API-Key', own);
    expect(read.body.rrsets.find((r: any) => r.name === `off.${zone}.`).records).toHaveLength(4);
  } finally {
    await small.close();
  }
}, 60_000);
