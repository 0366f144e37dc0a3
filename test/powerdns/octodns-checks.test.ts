/**
 * What an operator sets on the checks of an octoDNS dynamic record survives every sync (docs/steering.md, «octoDNS's
 * dynamic records»): the released octoDNS 1.22.0 with octodns-powerdns 1.2.0 (test/support/octodns.ts) syncs a
 * dynamic record to Zonekeeper's PowerDNS API; a check corrected through GraphQL (`updateSteeringCheck`) keeps
 * its settings when a later sync adds a value to the pool, the new member's check takes the zone's defaults
 * (`setSteeringDefaults`), and a third sync plans nothing. A PowerDNS-API PATCH of the record with a value
 * removed keeps the other members' checks as they are, and the removed member's check goes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createUserKey } from '../support/fixtures';
import { octodnsSync, octodnsVenv, powerDnsProvider } from '../support/octodns';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'keep.test.';
const CHECK_FIELDS = 'id name protocol address port host path statusMin statusMax bodyContains verifyTls intervalSeconds status since';

/** the zone's YAML with the dynamic record's first pool holding `primary` */
const zoneYaml = (primary: string[]) => `---
'':
  - {type: A, value: 192.0.2.1}
www:
  type: A
  values: [${primary.join(', ')}]
  dynamic:
    pools:
      primary:
        values:
${primary.map((value) => `          - {value: ${value}}`).join('\n')}
        fallback: secondary
      secondary:
        values:
          - {value: 198.51.100.10}
    rules:
      - pool: primary
`;

/** what the operator corrected on the first member's check */
const CORRECTED = {
  protocol: 'http',
  port: 8080,
  host: 'health.keep.test',
  path: '/healthz',
  statusMin: 200,
  statusMax: 204,
  bodyContains: 'alive',
  verifyTls: false,
  intervalSeconds: 5,
};

/** the zone's defaults for new members' checks */
const DEFAULTS = {
  protocol: 'https',
  port: 8443,
  host: 'probe.keep.test',
  path: '/ready',
  statusMin: 200,
  statusMax: 299,
  bodyContains: 'ready',
  verifyTls: false,
  intervalSeconds: 7,
};

/** octoDNS's default health check, what a member's check has unless the zone's defaults say otherwise */
const OCTODNS_DEFAULT = {
  protocol: 'https',
  port: 443,
  host: 'www.keep.test',
  path: '/_dns',
  statusMin: 200,
  statusMax: 399,
  bodyContains: null,
  verifyTls: false,
  intervalSeconds: null,
};

let app: TestApp;
let work: string;
let userKey: string;

type Check = typeof CORRECTED & { id: string; name: string; address: string; status: string; since: string };

function sync(doit: boolean): Promise<string> {
  return octodnsSync(path.join(work, 'config.yaml'), doit, { ZONEKEEPER_KEY: userKey });
}

/** the zone's checks by the address they probe */
async function checksByAddress(): Promise<Map<string, Check>> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { ${CHECK_FIELDS} } } }`, { n: ZONE }, userKey);
  expect(res.errors).toBeUndefined();
  return new Map((res.data.domain.steeringChecks as Check[]).map((c) => [c.address, c]));
}

const settingsOf = ({ protocol, port, host, path, statusMin, statusMax, bodyContains, verifyTls, intervalSeconds }: Check) => ({
  protocol,
  port,
  host,
  path,
  statusMin,
  statusMax,
  bodyContains,
  verifyTls,
  intervalSeconds,
});

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-octodns-checks-'));
  // the dynamic record's addresses are documentation addresses: its checks may name them
  [app] = await Promise.all([startTestApp({ STEERING_ALLOW_NETWORKS: '192.0.2.0/24,198.51.100.0/24' }), octodnsVenv()]);
  userKey = await createUserKey(app, await createUser(app, 'octodns@keep.test'));
  mkdirSync(path.join(work, 'zones'));
  writeFileSync(path.join(work, 'zones', `${ZONE}yaml`), zoneYaml(['192.0.2.10', '192.0.2.11']));
  writeFileSync(
    path.join(work, 'config.yaml'),
    `providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: ${path.join(work, 'zones')}\n    enforce_order: false\n` +
      `  zonekeeper:\n${powerDnsProvider(app.baseUrl, 'ZONEKEEPER_KEY')}    enable_dynamic: true\n` +
      `zones:\n  ${ZONE}:\n    sources: [config]\n    targets: [zonekeeper]\n`,
  );
}, 120_000);

afterAll(async () => {
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('a corrected check keeps its settings through a sync that adds a value; the new member takes the zone’s defaults', async () => {
  expect(await sync(true)).toMatch(/Summary: Creates=2, Updates=0, Deletes=0/);
  const first = await checksByAddress();
  expect([...first.keys()].sort()).toEqual(['192.0.2.10', '192.0.2.11', '198.51.100.10']);
  for (const check of first.values()) expect(settingsOf(check)).toEqual(OCTODNS_DEFAULT);

  // the operator corrects the first member's check, and sets the zone's defaults for members to come
  const target = first.get('192.0.2.10')!;
  const corrected = await app.gql(
    `mutation($id: ID!, $i: SteeringCheckInput!) { updateSteeringCheck(id: $id, input: $i) { ${CHECK_FIELDS} } }`,
    { id: target.id, i: { name: target.name, address: target.address, ...CORRECTED } },
    userKey,
  );
  expect(corrected.errors).toBeUndefined();
  expect(settingsOf(corrected.data.updateSteeringCheck)).toEqual(CORRECTED);
  const defaults = await app.gql(
    `mutation($z: String!, $i: SteeringDefaultsInput!) { setSteeringDefaults(zone: $z, input: $i) { protocol port host path statusMin statusMax bodyContains verifyTls intervalSeconds } }`,
    { z: ZONE, i: DEFAULTS },
    userKey,
  );
  expect(defaults.errors).toBeUndefined();
  expect(defaults.data.setSteeringDefaults).toEqual(DEFAULTS);
  const before = await checksByAddress();

  // a value added to the pool in the YAML, synced: octoDNS replaces the LUA record
  writeFileSync(path.join(work, 'zones', `${ZONE}yaml`), zoneYaml(['192.0.2.10', '192.0.2.11', '192.0.2.12']));
  expect(await sync(true)).toMatch(/Summary: Creates=0, Updates=1, Deletes=0/);
  const after = await checksByAddress();
  // the members that stayed: their checks untouched, the corrected one's settings and state as they were
  for (const address of ['192.0.2.10', '192.0.2.11', '198.51.100.10']) expect(after.get(address)).toEqual(before.get(address));
  expect(settingsOf(after.get('192.0.2.10')!)).toEqual(CORRECTED);
  expect(settingsOf(after.get('192.0.2.11')!)).toEqual(OCTODNS_DEFAULT);
  // the new member: the zone's defaults
  expect(after.get('192.0.2.12')).toMatchObject({ ...DEFAULTS, address: '192.0.2.12', status: 'unknown' });

  // and the next sync plans nothing
  const third = await sync(false);
  expect(third).toMatch(/No changes were planned/);
  expect(third).not.toMatch(/Summary:|\* {3}(Create|Update|Delete) /);
}, 180_000);

test('a PowerDNS-API PATCH with a value removed keeps the other members’ checks as they are', async () => {
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(`${app.baseUrl}/api/v1/servers/localhost${pathname}`, {
      ...init,
      headers: { 'X-API-Key': userKey, 'Content-Type': 'application/json' },
    });
  const read = await api(`/zones/${ZONE}?rrset_name=www.${ZONE}&rrset_type=LUA`);
  const [lua] = ((await read.json()) as { rrsets: { ttl: number; records: { content: string }[] }[] }).rrsets;
  // the record as octoDNS wrote it, its marker's pools without 192.0.2.11
  const marker = /;-- octodns-dynamic:v1:([A-Za-z0-9_=-]+)/.exec(lua.records[0].content)![1];
  const dynamic = JSON.parse(Buffer.from(marker, 'base64url').toString('utf8')) as {
    pools: Record<string, { values: { value: string }[] }>;
  };
  dynamic.pools.primary.values = dynamic.pools.primary.values.filter((v) => v.value !== '192.0.2.11');
  const content = `A ";-- octodns-dynamic:v1:${Buffer.from(JSON.stringify(dynamic)).toString('base64url')}\nreturn pickwhashed({{1, '192.0.2.10'}, {1, '192.0.2.12'}, {1, '198.51.100.10'}})"`;

  const before = await checksByAddress();
  const patched = await api(`/zones/${ZONE}`, {
    method: 'PATCH',
    body: JSON.stringify({
      rrsets: [{ name: `www.${ZONE}`, type: 'LUA', ttl: lua.ttl, changetype: 'REPLACE', records: [{ content, disabled: false }] }],
    }),
  });
  expect(patched.status).toBe(204);
  const after = await checksByAddress();
  expect([...after.keys()].sort()).toEqual(['192.0.2.10', '192.0.2.12', '198.51.100.10']);
  for (const address of after.keys()) expect(after.get(address)).toEqual(before.get(address));
  expect(settingsOf(after.get('192.0.2.10')!)).toEqual(CORRECTED);
  expect(settingsOf(after.get('192.0.2.12')!)).toEqual(DEFAULTS);
}, 60_000);
