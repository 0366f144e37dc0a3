/**
 * octoDNS (the released octodns 1.22.0 and octodns-powerdns 1.2.0) syncs one YAML zone to Debian's PowerDNS 4.7 and
 * to Zonekeeper's PowerDNS API (default settings, a user's key as the PowerDNS API key): `octodns-sync --doit`
 * creates the zone on both, and a second `octodns-sync` plans nothing on either. The zone holds what a migration
 * carries and what PowerDNS reads back in its own text: a 2048-bit DKIM key (one string of 410 octets, which
 * PowerDNS cuts at 255), a DS, a TLSA and an SSHFP (digests PowerDNS reads back in lower case), a LOC (`1.00m`)
 * and an HTTPS with alpn (`alpn=h2,h3`), beside ordinary records, one of them with `ttl: 60` (kept as 60:
 * ALLOWED_TTLS_BEYOND_REST takes any TTL by default, so no sync plans `300 -> 60`). What the two servers read back
 * of it is compared too, text for text, TTLs included.
 *
 * The wheels are the released ones of ../shared/tools/wheels, in a venv kept for the next run (test/support/octodns.ts).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createUserKey } from '../support/fixtures';
import { octodnsSync, octodnsVenv, powerDnsProvider } from '../support/octodns';
import { startPowerDns, PowerDnsServer } from '../support/powerdns-server';
import { startTestApp, TestApp } from '../support/test-app';

const ZONE = 'octo.test.';

/** a 2048-bit RSA key's DKIM record as a sender publishes it: 410 octets, `;` escaped as octoDNS wants it in YAML */
const DKIM = `v=DKIM1\\; k=rsa\\; p=${Buffer.from(Array.from({ length: 294 }, (_, i) => (i * 37) % 256)).toString('base64')}`;

const ZONE_YAML = `---
'':
  - type: A
    values: [192.0.2.1, 192.0.2.2]
  - type: MX
    values:
      - {exchange: mail.octo.test., preference: 10}
  - type: TXT
    values: [v=spf1 mx -all]
www: {type: CNAME, value: octo.test.}
mail: {type: A, value: 192.0.2.25}
short: {type: A, ttl: 60, value: 192.0.2.60}
v6: {type: AAAA, value: '2001:db8::1'}
default._domainkey: {type: TXT, value: '${DKIM}'}
sub:
  - {type: NS, values: [ns1.example.net., ns2.example.net.]}
  - type: DS
    value: {key_tag: 60485, algorithm: 13, digest_type: 2, digest: ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789}
_443._tcp:
  type: TLSA
  value: {certificate_usage: 3, selector: 1, matching_type: 1, certificate_association_data: ${'AB'.repeat(32)}}
host:
  - type: SSHFP
    value: {algorithm: 4, fingerprint_type: 2, fingerprint: ${'CD'.repeat(32)}}
  - type: LOC
    value: {lat_degrees: 51, lat_minutes: 30, lat_seconds: 12.748, lat_direction: N, long_degrees: 0, long_minutes: 7,
      long_seconds: 39.611, long_direction: W, altitude: 0, size: 1, precision_horz: 10000, precision_vert: 10}
svc:
  type: HTTPS
  value: {svcpriority: 1, targetname: ., svcparams: {alpn: [h2, h3], port: '443'}}
_sip._tcp:
  type: SRV
  value: {priority: 10, weight: 60, port: 5060, target: sip.octo.test.}
`;

/**
 * A dynamic record (two pools, the first falling back to the second, `ttl: 60` as for a failover record) synced to
 * Zonekeeper alone, with enable_dynamic: octodns-powerdns writes it as one LUA record carrying the
 * octodns-dynamic:v1 marker, its TTL kept as the A record's
 */
const DYNAMIC_ZONE = 'dyn.test.';
const DYNAMIC_ZONE_YAML = `---
'':
  - {type: A, value: 192.0.2.1}
www:
  type: A
  ttl: 60
  values: [192.0.2.10, 192.0.2.11]
  dynamic:
    pools:
      primary:
        values:
          - {value: 192.0.2.10}
          - {value: 192.0.2.11}
        fallback: secondary
      secondary:
        values:
          - {value: 198.51.100.10}
    rules:
      - pool: primary
`;

let powerDns: PowerDnsServer;
let app: TestApp;
let work: string;
let userKey: string;

/** `octodns-sync` of the zone to both servers (`--doit` applies the plan), its output (octoDNS logs to stderr) */
function sync(doit: boolean, config = 'config.yaml'): Promise<string> {
  return octodnsSync(path.join(work, config), doit, { POWERDNS_KEY: powerDns.apiKey, ZONEKEEPER_KEY: userKey });
}

/** a server's rrsets of the zone, `<name> <ttl> <type> <content>` each, read back through its PowerDNS API */
async function readBack(baseUrl: string, key: string): Promise<string[]> {
  const res = await fetch(`${baseUrl}/api/v1/servers/localhost/zones/${ZONE}`, { headers: { 'X-API-Key': key } });
  expect(res.status).toBe(200);
  const zone = (await res.json()) as { rrsets: { name: string; ttl: number; type: string; records: { content: string }[] }[] };
  return (
    zone.rrsets
      // the SOA (each server's serial) and the apex NS (PowerDNS makes the zone without NS, Zonekeeper with its defaults)
      .filter((set) => set.type !== 'SOA' && !(set.type === 'NS' && set.name === ZONE))
      .flatMap((set) => set.records.map((r) => `${set.name} ${set.ttl} ${set.type} ${r.content}`))
      .sort()
  );
}

beforeAll(async () => {
  work = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-octodns-'));
  // the dynamic record's addresses are documentation addresses: its checks may name them
  [powerDns, app] = await Promise.all([
    startPowerDns(),
    startTestApp({ STEERING_ALLOW_NETWORKS: '192.0.2.0/24,198.51.100.0/24' }),
    octodnsVenv(),
  ]);
  userKey = await createUserKey(app, await createUser(app, 'octodns@octo.test'));
  mkdirSync(path.join(work, 'zones'));
  writeFileSync(path.join(work, 'zones', `${ZONE}yaml`), ZONE_YAML);
  writeFileSync(
    path.join(work, 'config.yaml'),
    `providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: ${path.join(work, 'zones')}\n    enforce_order: false\n` +
      `  powerdns:\n${powerDnsProvider(powerDns.baseUrl, 'POWERDNS_KEY')}  zonekeeper:\n${powerDnsProvider(app.baseUrl, 'ZONEKEEPER_KEY')}` +
      `zones:\n  ${ZONE}:\n    sources: [config]\n    targets: [powerdns, zonekeeper]\n`,
  );
  writeFileSync(path.join(work, 'zones', `${DYNAMIC_ZONE}yaml`), DYNAMIC_ZONE_YAML);
  writeFileSync(
    path.join(work, 'config-dynamic.yaml'),
    `providers:\n  config:\n    class: octodns.provider.yaml.YamlProvider\n    directory: ${path.join(work, 'zones')}\n    enforce_order: false\n` +
      `  zonekeeper:\n${powerDnsProvider(app.baseUrl, 'ZONEKEEPER_KEY')}    enable_dynamic: true\n` +
      `zones:\n  ${DYNAMIC_ZONE}:\n    sources: [config]\n    targets: [zonekeeper]\n`,
  );
}, 120_000);

afterAll(async () => {
  await Promise.all([powerDns?.stop(), app?.close()]);
  if (work) rmSync(work, { recursive: true, force: true });
});

test('octoDNS creates the zone on PowerDNS and on Zonekeeper, and its second run plans nothing on either', async () => {
  const first = await sync(true);
  // both targets took the whole zone (the zone created by octoDNS's POST, as octodns-powerdns does it)
  expect(first.match(/Summary: Creates=15, Updates=0, Deletes=0/g)).toHaveLength(2);
  expect(first).toMatch(/PowerDnsProvider\[zonekeeper\] _apply: {3}creating zone=octo\.test\./);

  const second = await sync(false);
  expect(second).toMatch(/No changes were planned/);
  expect(second).not.toMatch(/Summary:|\* {3}(Create|Update|Delete) /);

  // and each reads the zone back in the same text (the DKIM key one string, digests in lower case, `1.00m`, `alpn=h2,h3`)
  const [fromPowerDns, fromZonekeeper] = await Promise.all([readBack(powerDns.baseUrl, powerDns.apiKey), readBack(app.baseUrl, userKey)]);
  // PowerDNS keeps octoDNS's `\;` as octoDNS wrote it, Zonekeeper the octets (`;`), which octoDNS escapes again when it
  // reads them: the one difference of text (docs/powerdns-api.md)
  expect(fromZonekeeper).toEqual(fromPowerDns.map((line) => line.replace(/\\;/g, ';')));
  expect(fromZonekeeper).toContain(`default._domainkey.${ZONE} 3600 TXT "${DKIM.replace(/\\;/g, ';')}"`);
  expect(fromZonekeeper).toContain(`short.${ZONE} 60 A 192.0.2.60`);
}, 120_000);

describe('octoDNS dynamic records (a LUA record carrying the octodns-dynamic:v1 marker)', () => {
  const api = (pathname: string, init: RequestInit = {}) =>
    fetch(`${app.baseUrl}/api/v1/servers/localhost${pathname}`, {
      ...init,
      headers: { 'X-API-Key': userKey, 'Content-Type': 'application/json' },
    });

  test('the first sync creates the steered record, the second plans nothing, and the zone serves the first pool', async () => {
    const config = (await (await api('/config')).json()) as { name: string; value: string }[];
    expect(config).toContainEqual({ type: 'ConfigSetting', name: 'enable-lua-records', value: 'yes' });

    const first = await sync(true, 'config-dynamic.yaml');
    expect(first).toMatch(/Summary: Creates=2, Updates=0, Deletes=0/);
    const second = await sync(false, 'config-dynamic.yaml');
    expect(second).toMatch(/No changes were planned/);
    expect(second).not.toMatch(/Summary:|\* {3}(Create|Update|Delete) /);

    // the PowerDNS API shows the LUA record as written, in place of the A RRset it serves
    const zone = (await (await api(`/zones/${DYNAMIC_ZONE}`)).json()) as {
      rrsets: { name: string; type: string; ttl: number; records: { content: string }[] }[];
    };
    const atWww = zone.rrsets.filter((set) => set.name === `www.${DYNAMIC_ZONE}`);
    expect(atWww.map((set) => `${set.type} ${set.ttl}`)).toEqual(['LUA 60']);
    expect(atWww[0].records).toHaveLength(1);
    expect(atWww[0].records[0].content).toMatch(/^A ";-- octodns-dynamic:v1:[A-Za-z0-9_=-]+\n/);

    // one check per address, octoDNS's default health check: HTTPS, port 443, path /_dns, the record's name as Host
    const steering = await app.gql(
      `query($n: String) { domain(name: $n) { steeringChecks { protocol address port host path } steeredRrsets { owner type pools { members { value } } backup } } }`,
      { n: DYNAMIC_ZONE },
    );
    const checks = steering.data.domain.steeringChecks
      .map((c: { address: string }) => c)
      .sort((a: any, b: any) => (a.address < b.address ? -1 : 1));
    expect(checks).toEqual(
      ['192.0.2.10', '192.0.2.11', '198.51.100.10'].map((address) => ({
        protocol: 'https',
        address,
        port: 443,
        host: 'www.dyn.test',
        path: '/_dns',
      })),
    );
    expect(steering.data.domain.steeredRrsets).toEqual([
      {
        owner: 'www',
        type: 'A',
        pools: [{ members: [{ value: '192.0.2.10' }, { value: '192.0.2.11' }] }, { members: [{ value: '198.51.100.10' }] }],
        backup: ['192.0.2.10', '192.0.2.11'],
      },
    ]);

    // the zone serves the first pool's values (no check has failed), as data
    const exported = await (await api(`/zones/${DYNAMIC_ZONE}/export`, { headers: {} })).text();
    const served = exported
      .split('\n')
      .filter((line) => /^www\s/.test(line))
      .map((line) => line.trim().split(/\s+/).slice(2).join(' '))
      .sort();
    expect(served).toEqual(['IN A 192.0.2.10', 'IN A 192.0.2.11']);
  }, 120_000);

  test('LUA content written byte for byte is read back byte for byte; other LUA and overlapping rules are refused', async () => {
    const payload = { pools: { only: { values: [{ value: '192.0.2.20', weight: 1 }] } }, rules: [{ pool: 'only' }] };
    const marker = Buffer.from(JSON.stringify(payload)).toString('base64url');
    const content = `A ";-- octodns-dynamic:v1:${marker}\nreturn pickwhashed({{1, '192.0.2.20'}})"`;
    const patch = (rrset: Record<string, unknown>) =>
      api(`/zones/${DYNAMIC_ZONE}`, { method: 'PATCH', body: JSON.stringify({ rrsets: [{ changetype: 'REPLACE', ttl: 300, ...rrset }] }) });

    const written = await patch({ name: `api.${DYNAMIC_ZONE}`, type: 'LUA', records: [{ content, disabled: false }] });
    expect(written.status).toBe(204);
    const read = await api(`/zones/${DYNAMIC_ZONE}?rrset_name=api.${DYNAMIC_ZONE}&rrset_type=LUA`);
    const sets = ((await read.json()) as { rrsets: { type: string; ttl: number; records: { content: string }[] }[] }).rrsets;
    expect(sets).toEqual([expect.objectContaining({ type: 'LUA', ttl: 300, records: [{ content, disabled: false }] })]);
    const withApi = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { address } } }`, { n: DYNAMIC_ZONE });
    expect(withApi.data.domain.steeringChecks.map((c: { address: string }) => c.address)).toContain('192.0.2.20');

    const plainLua = await patch({
      name: `lua.${DYNAMIC_ZONE}`,
      type: 'LUA',
      records: [{ content: 'A "ifportup(443, {\'192.0.2.1\'})"', disabled: false }],
    });
    expect(plainLua.status).toBe(422);
    expect(((await plainLua.json()) as { error: string }).error).toMatch(/only octoDNS dynamic records are taken/);

    // rules whose networks overlap without being the same: views (chosen by the asker's address) cannot keep their order
    const overlapping = {
      pools: {
        ...payload.pools,
        wide: { values: [{ value: '192.0.2.30', weight: 1 }] },
        narrow: { values: [{ value: '192.0.2.31', weight: 1 }] },
      },
      rules: [{ pool: 'wide', subnets: ['10.0.0.0/8'] }, { pool: 'narrow', subnets: ['10.1.0.0/16'] }, { pool: 'only' }],
    };
    const overlappingContent = `A ";-- octodns-dynamic:v1:${Buffer.from(JSON.stringify(overlapping)).toString('base64url')}\nreturn 1"`;
    const byOverlap = await patch({
      name: `geo.${DYNAMIC_ZONE}`,
      type: 'LUA',
      records: [{ content: overlappingContent, disabled: false }],
    });
    expect(byOverlap.status).toBe(422);
    expect(((await byOverlap.json()) as { error: string }).error).toMatch(/rules\[0\] and rules\[1\]: their networks overlap/);

    // deleted: the served A RRset goes with it
    const deleted = await api(`/zones/${DYNAMIC_ZONE}`, {
      method: 'PATCH',
      body: JSON.stringify({ rrsets: [{ changetype: 'DELETE', name: `api.${DYNAMIC_ZONE}`, type: 'LUA' }] }),
    });
    expect(deleted.status).toBe(204);
    const exported = await (await api(`/zones/${DYNAMIC_ZONE}/export`)).text();
    expect(exported).not.toMatch(/^api\s/m);
    // and its check, which nothing follows any more (checks do not outlive their records)
    const left = await app.gql(`query($n: String) { domain(name: $n) { steeringChecks { address } } }`, { n: DYNAMIC_ZONE });
    expect(left.data.domain.steeringChecks.map((c: { address: string }) => c.address)).not.toContain('192.0.2.20');
  }, 60_000);
});
