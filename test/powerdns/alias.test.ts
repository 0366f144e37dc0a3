/**
 * An ALIAS through the PowerDNS API (docs/powerdns-api.md, docs/templates-and-alias.md), on the service's
 * default settings but ALIAS_RESOLVERS (an ALIAS needs a resolver): a user's key PATCHes an apex ALIAS as
 * PowerDNS-Admin and octoDNS write it; the primary serves the target's addresses at the apex; the zone reads
 * back with the ALIAS and without the derived A/AAAA (as PowerDNS shows it, so a client that syncs the zone
 * never tries to delete them); the export writes the ALIAS; a DELETE takes the ALIAS and its addresses.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey } from '../support/fixtures';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { dig, freePort, records, waitFor } from '../propagation/knot';

const ZONE = 'pdns-alias.zk.test';
const TARGET_ZONE = 'cdn.pdns-target.test';
const TARGET = `www.${TARGET_ZONE}.`;
const ZONES = '/api/v1/servers/localhost/zones';

let dir: string;
let target: KnotPrimary;
let app: TestApp;
let dnsPort: number;
let key: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-pdns-alias-'));
  const lines = [
    `$ORIGIN ${TARGET_ZONE}.`,
    `@ 300 IN SOA ns.${TARGET_ZONE}. hostmaster.${TARGET_ZONE}. 1 3600 600 86400 60`,
    `@ 300 IN NS ns.${TARGET_ZONE}.`,
    `ns 300 IN A 127.0.0.1`,
    `www 300 IN A 192.0.2.44`,
    `www 300 IN AAAA 2001:db8::44`,
  ];
  writeFileSync(path.join(dir, 'target.zone'), `${lines.join('\n')}\n`);
  target = await startKnotPrimary([{ zone: TARGET_ZONE, file: path.join(dir, 'target.zone') }]);
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}`, ALIAS_RESOLVERS: `127.0.0.1:${target.port}` });
  key = await createUserKey(app, await createUser(app, 'owner@pdns-alias.zk.test'));
}, 60_000);

afterAll(async () => {
  await app?.close();
  await target?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const patch = (rrsets: unknown[]) => app.http.patch(`${ZONES}/${ZONE}.`).set('X-API-Key', key).send({ rrsets });
const apexAddresses = async () => {
  const at = ['@127.0.0.1', '-p', String(dnsPort), '+norec'];
  const served = [...records(await dig([...at, ZONE, 'A'])), ...records(await dig([...at, ZONE, 'AAAA']))];
  return served.filter((r) => r.name === `${ZONE}.` && (r.type === 'A' || r.type === 'AAAA')).map((r) => `${r.type} ${r.rdata}`);
};

test('an apex ALIAS PATCHed through the PowerDNS API is served flattened, read back as the ALIAS alone, and deleted whole', async () => {
  const created = await app.http
    .post(ZONES)
    .set('X-API-Key', key)
    .send({ name: `${ZONE}.`, kind: 'Native', nameservers: ['ns1.pdns-alias.zk.test.'] });
  expect(created.status).toBe(201);
  const alias = { name: `${ZONE}.`, type: 'ALIAS', ttl: 300, changetype: 'REPLACE', records: [{ content: TARGET, disabled: false }] };
  expect((await patch([alias])).status).toBe(204);

  await waitFor('the primary to serve the target’s addresses at the apex', async () => {
    const served = (await apexAddresses()).sort();
    return JSON.stringify(served) === JSON.stringify(['A 192.0.2.44', 'AAAA 2001:db8::44']) ? true : undefined;
  });

  // read back as PowerDNS shows an ALIAS: the ALIAS, not the addresses the service derived from it
  const zone = await app.http.get(`${ZONES}/${ZONE}.`).set('X-API-Key', key);
  expect(zone.status).toBe(200);
  const apex = zone.body.rrsets.filter((r: any) => r.name === `${ZONE}.`).map((r: any) => r.type);
  expect(apex).toContain('ALIAS');
  expect(apex).not.toContain('A');
  expect(apex).not.toContain('AAAA');
  expect(zone.body.rrsets.find((r: any) => r.type === 'ALIAS').records).toEqual([{ content: TARGET, disabled: false }]);
  const exported = await app.http.get(`${ZONES}/${ZONE}./export`).set('X-API-Key', key);
  expect(exported.text).toMatch(/^@ 300 IN ALIAS www\.cdn\.pdns-target\.test\.$/m);

  // a person's A beside the ALIAS is refused as the zone rule says, naming the rrset; nothing written
  const beside = await patch([{ name: `${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1' }] }]);
  expect(beside.status).toBe(422);
  expect(beside.body.error).toContain(`RRset ${ZONE}. IN A`);

  // the ALIAS deleted: its addresses go with it
  expect((await patch([{ name: `${ZONE}.`, type: 'ALIAS', changetype: 'DELETE' }])).status).toBe(204);
  await waitFor('the apex addresses to go', async () => ((await apexAddresses()).length === 0 ? true : undefined));
});
