/**
 * Steering's rules by client network and by country (docs/steering.md, «Rules by network and country»), proven
 * with the released octoDNS (1.22, octodns-powerdns 1.2) and Debian's BIND as a secondary with views.
 *
 * octoDNS syncs a dynamic record with a `subnets` rule (the office network, 127.0.2.0/24 here), a `geos` rule
 * (EU-DE) and the catch-all; the second sync plans nothing. Each rule became a view of steering's own: the subnets
 * view's networks are the rule's, the geos view's are the IPtoASN database's for DE (thousands of blocks). BIND,
 * configured from the views' printed blocks (and an operator's view for everyone else), answers a query from the
 * office network the office pool, one from elsewhere the catch-all pool, and one in the DE view (chosen by the
 * view's key, as a NOTIFY is: no address of DE is on this machine's loopback) the DE pool. When the office pool's
 * members die, the office view falls back to the pool's fallback while the rest keeps its answer, and comes back.
 *
 * The same rules are made without octoDNS: through REST (sharing the office view), the CLI and GraphQL; what views
 * cannot express (networks overlapping without being the same) is refused with 422 naming the rules. In a signed
 * zone, the rule's view's zone verifies (dnssec-verify, ldns-verify-zone, kzonecheck) at its first overlay and after
 * a transition.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTsigKey, createUser, createUserKey, createZone } from '../support/fixtures';
import { namedConfFrom, startNamed } from '../support/bind-secondary';
import { octodnsSync, octodnsVenv } from '../support/octodns';
import { Endpoint } from '../support/steering-endpoints';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { dig, freePort, records } from './knot';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { rangesToCidrs } from '../../src/dns/networks';
import { geoCountries, networksOfCountries } from '../../src/services/steering/country-networks';

const ZONE = 'rules.test.';
const CATALOG = 'catalog.rules.test';
const OFFICE = '127.0.2.0/24';
const OFFICE_SOURCE = '127.0.2.7';
const ELSEWHERE_SOURCE = '127.0.3.9';

const ZONE_YAML = `---
'':
  - {type: A, value: 192.0.2.1}
www:
  type: A
  values: [192.0.2.10]
  dynamic:
    pools:
      main:
        values:
          - {value: 192.0.2.10}
      office:
        values:
          - {value: 198.51.100.20}
          - {value: 198.51.100.21}
        fallback: office-backup
      office-backup:
        values:
          - {value: 198.51.100.30}
      germany:
        values:
          - {value: 203.0.113.40}
    rules:
      - {pool: office, subnets: ['${OFFICE}']}
      - {pool: germany, geos: [EU-DE]}
      - {pool: main}
`;

let app: TestApp;
let dnsPort: number;
let bindPort: number;
let named: { log(): string; stop(): Promise<void> } | undefined;
let work: string;
let userId: string;
let userKey: string;
/** the office pool's members' endpoint, and everyone else's */
const officeEndpoint = new Endpoint();
const otherEndpoint = new Endpoint();
/** the views of steering's own, by their networks' text */
const steeringViews = new Map<string, { id: string; name: string; networks: string[]; tsigKeyName: string }>();
const secrets = new Map<string, string>();

const sync = (doit: boolean) => octodnsSync(path.join(work, 'config.yaml'), doit, { ZONEKEEPER_KEY: userKey });

/** the A records BIND answers at a name, asked from `source`, or signed with a view's key */
async function bindA(name: string, from: { source: string } | { key: string }): Promise<string[]> {
  const args = 'source' in from ? ['-b', from.source] : ['-b', '127.0.0.1', '-y', `hmac-sha256:${from.key}:${secrets.get(from.key)}`];
  const result = await dig([...args, '@127.0.0.1', '-p', String(bindPort), '+norec', '+noauthority', '+noadditional', name, 'A']);
  return records(result)
    .filter((r) => r.type === 'A')
    .map((r) => r.rdata)
    .sort();
}

const untilBind = (what: string, name: string, from: { source: string } | { key: string }, wanted: string[], timeoutMs = 60_000) =>
  waitFor(
    what,
    async () => {
      const got = await bindA(name, from).catch(() => undefined);
      return JSON.stringify(got) === JSON.stringify(wanted) ? got : undefined;
    },
    timeoutMs,
  );

beforeAll(async () => {
  dnsPort = await freePort();
  bindPort = await freePort();
  await Promise.all([officeEndpoint.start(), otherEndpoint.start()]);
  [app] = await Promise.all([
    startTestApp({
      ROLES: 'api,dns,worker',
      DNS_LISTEN: `127.0.0.1:${dnsPort}`,
      TRANSFER_ALLOW: '127.0.0.1/32',
      CATALOG_ZONE: CATALOG,
      SERIAL_POLICY: 'increment',
      // the record's addresses are documentation addresses; the test points their checks at loopback endpoints
      STEERING_ALLOW_NETWORKS: '192.0.2.0/24,198.51.100.0/24,203.0.113.0/24,127.0.0.0/8',
      // two probes in a row decide, each given most of its second: on a loaded host one slow answer must not
      // move a check, or its down, up and down again count as flapping and pin it down for five minutes
      STEERING_CHECK_INTERVAL: '1',
      STEERING_CHECK_TIMEOUT_MS: '900',
      STEERING_FALL: '2',
      STEERING_RISE: '2',
      STEERING_HOLD: '1',
    }),
    octodnsVenv(),
  ]);
  userId = await createUser(app, 'rules@rules.test');
  userKey = await createUserKey(app, userId);
  work = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-steering-rules-'));
  mkdirSync(path.join(work, 'zones'));
  writeFileSync(path.join(work, 'zones', `${ZONE}yaml`), ZONE_YAML);
  const url = new URL(app.baseUrl);
  writeFileSync(
    path.join(work, 'config.yaml'),
    `providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: ${path.join(work, 'zones')}\n    enforce_order: false\n` +
      `  zonekeeper:\n    class: octodns_powerdns.PowerDnsProvider\n    host: ${url.hostname}\n    port: ${url.port}\n    scheme: http\n` +
      // the first rule by country reads the country database (about a second of a core; more on a loaded shared
      // machine): octodns-powerdns's own timeout (5 s) is raised for the load, not for the service
      `    api_key: env/ZONEKEEPER_KEY\n    enable_dynamic: true\n    timeout: 30\n` +
      `zones:\n  ${ZONE}:\n    sources: [config]\n    targets: [zonekeeper]\n`,
  );
  buildOnce();
}, 180_000);

afterAll(async () => {
  await named?.stop();
  await Promise.all([app?.close(), officeEndpoint.stop(), otherEndpoint.stop()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('octoDNS syncs a subnets rule and a geos rule; the second sync plans nothing; each rule is a view of its networks', async () => {
  const first = await sync(true);
  expect(first).toMatch(/Summary: Creates=2, Updates=0, Deletes=0/);
  const second = await sync(false);
  expect(second).toMatch(/No changes were planned/);
  expect(second).not.toMatch(/Summary:|\* {3}(Create|Update|Delete) /);

  const views = await app.gql(`{ views { id name networks precedence tsigKeyName steeringNetworks } }`);
  expect(views.errors).toBeUndefined();
  for (const view of views.data.views) if (view.steeringNetworks) steeringViews.set(view.steeringNetworks, view);
  expect([...steeringViews.keys()].sort()).toEqual([OFFICE, 'EU-DE']);
  expect(steeringViews.get(OFFICE)!.networks).toEqual([OFFICE]);
  // the DE view's networks are the country database's for DE, whole
  const germany = steeringViews.get('EU-DE')!;
  expect(germany.networks.length).toBeGreaterThan(1000);
  expect(germany.networks).toEqual(rangesToCidrs(networksOfCountries(['DE'])));

  const rrsets = await app.gql(
    `query($n: String) { domain(name: $n) { steeredRrsets { owner pools { members { value } } rules { subnets geos view pools { members { value } } } } } }`,
    { n: ZONE },
    userKey,
  );
  expect(rrsets.errors).toBeUndefined();
  const values = (pools: { members: { value: string }[] }[]) => pools.map((pool) => pool.members.map((m) => m.value));
  const [www] = rrsets.data.domain.steeredRrsets;
  expect(values(www.pools)).toEqual([['192.0.2.10']]);
  expect(www.rules.map((r: any) => ({ ...r, pools: values(r.pools) }))).toEqual([
    { subnets: [OFFICE], geos: [], view: steeringViews.get(OFFICE)!.name, pools: [['198.51.100.20', '198.51.100.21'], ['198.51.100.30']] },
    { subnets: [], geos: ['EU-DE'], view: germany.name, pools: [['203.0.113.40']] },
  ]);
}, 180_000);

test('BIND, configured from the printed views, answers each network its rule’s pool and everyone else the catch-all; a dead pool falls back inside its view', async () => {
  // the checks octoDNS's record made (HTTPS to each address) pointed at this test's endpoints, by the operator
  const checks = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { id name address } } }`, { n: ZONE });
  for (const check of checks.data.domain.steeringChecks) {
    const endpoint = check.address.startsWith('198.51.100.2') ? officeEndpoint : otherEndpoint;
    const updated = await app.gql(`mutation($id: ID!, $i: SteeringCheckInput!) { updateSteeringCheck(id: $id, input: $i) { id } }`, {
      id: check.id,
      i: { name: check.name, protocol: 'http', address: '127.0.0.1', port: endpoint.port, path: '/health' },
    });
    expect(updated.errors).toBeUndefined();
  }

  // everyone else: a view of the operator's after steering's, serving the base zone (the catch-all)
  const rest = await createTsigKey(app, null, 'rest-key');
  const created = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
    i: { name: 'rest', tsigKeyId: rest.id, networks: ['0.0.0.0/0'], precedence: 100, notify: [`127.0.0.1:${bindPort}`] },
  });
  expect(created.errors).toBeUndefined();
  secrets.set(rest.name, rest.secret);
  // steering's views: their secondary to NOTIFY is the operator's to give; their keys' secrets are read as any key's
  for (const view of steeringViews.values()) {
    const updated = await app.gql(`mutation($id: ID!, $i: ViewUpdateInput!) { updateView(id: $id, input: $i) { id } }`, {
      id: view.id,
      i: { notify: [`127.0.0.1:${bindPort}`] },
    });
    expect(updated.errors).toBeUndefined();
    const key = await fetch(`${app.baseUrl}/api/v1/servers/localhost/tsigkeys/${view.tsigKeyName}`, {
      headers: { 'X-API-Key': ADMIN_KEY },
    });
    expect(key.status).toBe(200);
    secrets.set(view.tsigKeyName, ((await key.json()) as { key: string }).key);
  }

  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-rules-bind-'));
  const blocks: string[] = [];
  for (const view of [...steeringViews.values(), { name: 'rest', tsigKeyName: rest.name }]) {
    const printed = await runCli(app.baseUrl, ['view', 'secondary-config', view.name, `127.0.0.1:${dnsPort}`]);
    expect(printed).toMatchObject({ code: 0, err: '' });
    blocks.push(
      printed.out
        .replace(`<the key's secret, as given when it was made>`, secrets.get(view.tsigKeyName)!)
        .replace(/file "catalog-/, `file "${dir}/catalog-`),
    );
  }
  // the DE view's match-clients holds every block of the country
  expect(blocks[1]).toContain(`${steeringViews.get('EU-DE')!.networks[0]};`);
  named = await startNamed(dir, namedConfFrom(blocks, dir, bindPort, '  notify no;\n  min-refresh-time 1;\n  min-retry-time 1;'));

  const office = { source: OFFICE_SOURCE };
  const elsewhere = { source: ELSEWHERE_SOURCE };
  const germany = { key: steeringViews.get('EU-DE')!.tsigKeyName };
  await untilBind('the office view to answer the office pool', `www.${ZONE}`, office, ['198.51.100.20', '198.51.100.21'], 60_000);
  await untilBind('the rest to answer the catch-all pool', `www.${ZONE}`, elsewhere, ['192.0.2.10']);
  await untilBind('the DE view to answer the DE pool', `www.${ZONE}`, germany, ['203.0.113.40']);
  // the name without rules is the base's in every view
  expect(await bindA(ZONE, office)).toEqual(['192.0.2.1']);

  // the office pool's members die: the office view falls back to the pool's fallback, the others keep theirs
  officeEndpoint.failing = true;
  await untilBind('the office view to fall back', `www.${ZONE}`, office, ['198.51.100.30']);
  expect(await bindA(`www.${ZONE}`, elsewhere)).toEqual(['192.0.2.10']);
  expect(await bindA(`www.${ZONE}`, germany)).toEqual(['203.0.113.40']);
  // and they come back
  officeEndpoint.failing = false;
  await untilBind('the office pool to be served again', `www.${ZONE}`, office, ['198.51.100.20', '198.51.100.21']);
  // the catch-all's members die: the rest falls back to the record's own values (the backup) only there
  otherEndpoint.failing = true;
  await untilBind('the DE pool, down, to fall back to the backup', `www.${ZONE}`, germany, ['192.0.2.10']);
  expect(await bindA(`www.${ZONE}`, office)).toEqual(['198.51.100.20', '198.51.100.21']);
  otherEndpoint.failing = false;

  // the second sync after all that still plans nothing: the LUA record reads back as written
  expect(await sync(false)).toMatch(/No changes were planned/);
}, 300_000);

test('REST, the CLI and GraphQL make the same rules without octoDNS; overlapping networks are refused naming the rules', async () => {
  const rest = (method: string, pathname: string, body?: unknown) =>
    fetch(`${app.baseUrl}/api/domain/steering/${ZONE}${pathname}`, {
      method,
      headers: { 'X-API-Key': userKey, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  // REST: a rule of the office network shares the office view
  const put = await rest('PUT', '/rrset/api/A', {
    pools: [{ members: [{ value: '192.0.2.50' }] }],
    rules: [{ subnets: [OFFICE], pools: [{ members: [{ value: '198.51.100.50' }] }] }],
  });
  expect(put.status).toBe(200);
  const created = (await put.json()) as { rules: { subnets: string[]; view: string }[] };
  expect(created.rules).toEqual([expect.objectContaining({ subnets: [OFFICE], view: steeringViews.get(OFFICE)!.name })]);
  await untilBind('the office view to answer the REST rule', `api.${ZONE}`, { source: OFFICE_SOURCE }, ['198.51.100.50']);
  await untilBind('the rest to answer the REST record', `api.${ZONE}`, { source: ELSEWHERE_SOURCE }, ['192.0.2.50']);

  // networks overlapping another RRset's rule without being the same: refused, naming the rule and the view
  const overlapping = await rest('PUT', '/rrset/api/A', {
    pools: [{ members: [{ value: '192.0.2.50' }] }],
    rules: [{ subnets: ['127.0.2.128/25'], pools: [{ members: [{ value: '198.51.100.51' }] }] }],
  });
  expect(overlapping.status).toBe(422);
  const refusal = (await overlapping.json()) as { error: string; message: string };
  expect(refusal.error).toBe('STEERING_RULES_OVERLAP');
  expect(refusal.message).toContain(`rules[0]: its networks overlap those of view ${steeringViews.get(OFFICE)!.name}`);

  // the CLI: the RRset's rules from a file, a continent this time (a view of its own)
  const file = path.join(work, 'rules.json');
  writeFileSync(file, JSON.stringify([{ geos: ['OC'], pools: [{ members: [{ value: '198.51.100.60' }] }] }]));
  const cli = await runCli(app.baseUrl, ['--json', 'steering', 'set-rules', ZONE, 'api', 'A', file], { ZONEKEEPER_API_KEY: userKey });
  expect(cli).toMatchObject({ code: 0, err: '' });
  const viaCli = JSON.parse(cli.out) as { rules: { geos: string[]; view: string }[] };
  expect(viaCli.rules).toEqual([expect.objectContaining({ geos: ['OC'], view: expect.stringMatching(/^steering-/) })]);
  // the office rule is gone from every RRset but www: its view stays (www's rule uses it); OC's is new
  const oc = await app.gql(`{ views { name networks steeringNetworks } }`);
  const ocView = oc.data.views.find((v: { steeringNetworks: string | null }) => v.steeringNetworks === 'OC');
  expect(ocView.networks).toEqual(rangesToCidrs(networksOfCountries(geoCountries('OC')!)));
  expect(oc.data.views.map((v: { steeringNetworks: string | null }) => v.steeringNetworks)).toContain(OFFICE);

  // GraphQL: two rules of one RRset whose networks overlap, and two with the same networks and other pools
  const create = (rules: unknown[]) =>
    app.gql(
      `mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`,
      { z: ZONE, i: { owner: 'gql', type: 'A', pools: [{ members: [{ value: '192.0.2.70' }] }], rules } },
      userKey,
    );
  const pool = (value: string) => [{ members: [{ value }] }];
  const nested = await create([
    { subnets: ['10.0.0.0/8'], pools: pool('198.51.100.71') },
    { subnets: ['10.1.0.0/16'], pools: pool('198.51.100.72') },
  ]);
  expect(nested.errors?.[0].extensions.code).toBe('STEERING_RULES_OVERLAP');
  expect(nested.errors?.[0].message).toMatch(/rules\[0\] and rules\[1\]: their networks overlap/);
  const same = await create([
    { geos: ['EU-DE'], pools: pool('198.51.100.71') },
    { geos: ['EU-DE'], pools: pool('198.51.100.72') },
  ]);
  expect(same.errors?.[0].extensions.code).toBe('STEERING_RULES_OVERLAP');
  expect(same.errors?.[0].message).toMatch(/rules\[0\] and rules\[1\] name the same networks with different pools/);
  // a province is not in the country database
  const province = await create([{ geos: ['NA-US-CA'], pools: pool('198.51.100.71') }]);
  expect(province.errors?.[0].extensions.code).toBe('INVALID_INPUT');
  expect(province.errors?.[0].message).toMatch(/rules\[0\]\.geos\[0\]/);
  // taken: a rule of the DE view (shared with www's)
  const taken = await create([{ geos: ['eu-de'], pools: pool('198.51.100.73') }]);
  expect(taken.errors).toBeUndefined();
  await untilBind('the DE view to answer the GraphQL rule', `gql.${ZONE}`, { key: steeringViews.get('EU-DE')!.tsigKeyName }, [
    '198.51.100.73',
  ]);
  await untilBind('the rest to answer its catch-all', `gql.${ZONE}`, { source: ELSEWHERE_SOURCE }, ['192.0.2.70']);

  // a view of steering's own is its rules': the operator neither deletes it nor changes its networks
  const deleted = await app.gql(`mutation($id: ID!) { deleteView(id: $id) }`, { id: steeringViews.get(OFFICE)!.id });
  expect(deleted.errors?.[0].extensions.code).toBe('VIEW_STEERED');
}, 120_000);

test("a signed zone's rule view is signed with the zone's keys, at its first overlay and at each transition", async () => {
  const zone = 'signed.rules.test';
  await createZone(app, userId, zone);
  const enabled = await app.gql(`mutation($i: EnableDnssecInput!) { enableDnssec(input: $i) { state } }`, { i: { zone, denial: 'NSEC' } });
  expect(enabled.errors).toBeUndefined();
  const check = await app.gql(`mutation($z: String!, $i: SteeringCheckInput!) { createSteeringCheck(zone: $z, input: $i) { id } }`, {
    z: zone,
    i: { name: 'office', protocol: 'http', address: '127.0.0.1', port: officeEndpoint.port, path: '/health' },
  });
  expect(check.errors).toBeUndefined();
  const created = await app.gql(`mutation($z: String!, $i: SteeredRrsetInput!) { createSteeredRrset(zone: $z, input: $i) { id } }`, {
    z: zone,
    i: {
      owner: 'app',
      type: 'A',
      pools: [{ members: [{ value: '192.0.2.80' }] }],
      rules: [
        {
          subnets: [OFFICE],
          pools: [
            { members: [{ value: '198.51.100.80', checkId: check.data.createSteeringCheck.id }] },
            { members: [{ value: '198.51.100.81' }] },
          ],
        },
      ],
    },
  });
  expect(created.errors).toBeUndefined();
  const view = steeringViews.get(OFFICE)!;
  const key = { name: view.tsigKeyName, secret: secrets.get(view.tsigKeyName)! };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-rules-signed-'));
  try {
    const verified = async (label: string, wanted: string) =>
      waitFor(`the office view's zone to serve ${wanted}`, async () => {
        const { text } = await transferZone(dnsPort, key, zone, { expectContent: true });
        if (!new RegExp(`^app\\.${zone.replace(/\./g, '\\.')}\\.\\s+\\d+\\s+IN\\s+A\\s+${wanted.replace(/\./g, '\\.')}$`, 'm').test(text))
          return undefined;
        await verifySignedZone(zone, path.join(dir, `${label}.zone`), { text });
        return text;
      });
    const first = await verified('first', '198.51.100.80');
    // the base answers the catch-all, signed too
    const base = await transferZone(dnsPort, undefined, zone, { expectContent: true });
    expect(base.text).toMatch(/^app\.signed\.rules\.test\.\s+\d+\s+IN\s+A\s+192\.0\.2\.80$/m);
    await verifySignedZone(zone, path.join(dir, 'base.zone'), { text: base.text });
    expect(first).not.toMatch(/192\.0\.2\.80/);
    // the rule's first pool dies: the view's zone moves to its fallback, signed again
    officeEndpoint.failing = true;
    await verified('fallback', '198.51.100.81');
  } finally {
    officeEndpoint.failing = false;
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
