/**
 * lego's PowerDNS provider (Debian's lego, `--dns pdns`) against Zonekeeper's PowerDNS API, on the DEFAULT
 * settings: with an API key made with the ACME preset for one zone (docs/least-privilege.md), it gets a
 * certificate for the zone and a wildcard under it from the pebble ACME server, which validates DNS-01 through
 * our primary. lego reads only PDNS_API_URL and PDNS_API_KEY here (its TTL stays its default, 120, which the
 * PowerDNS API keeps as sent). The same key cannot read or change another zone of the same user, nor add an A record.
 * Debian packages: lego, pebble, openssl, bind9-dnsutils.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createZone } from '../support/fixtures';
import { Pebble, runProcess, startPebble } from '../support/pebble';
import { startTestApp, TestApp } from '../support/test-app';
import { dig, findBinary, freePort, records } from '../propagation/knot';

const ZONE = 'lego-pdns.test';
const OTHER_ZONE = 'other-pdns.test';
const ZONES = '/api/v1/servers/localhost/zones';

let app: TestApp;
let dnsPort: number;
let work: string;
let pebble: Pebble;
let acmeKey: string;

async function txtAt(name: string): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name, 'TXT']);
  return records(result)
    .filter((r) => r.type === 'TXT')
    .map((r) => r.rdata);
}

async function serialOf(zone: string): Promise<number> {
  const res = await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain.serial;
}

beforeAll(async () => {
  dnsPort = await freePort();
  // defaults on purpose: ALLOWED_TTLS is what a fresh install has
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  const userId = await createUser(app, 'certs@lego-pdns.test');
  await createZone(app, userId, ZONE);
  await createZone(app, userId, OTHER_ZONE);
  const created = await app.gql(
    `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret apiKey { policy { preset } } } }`,
    { input: { userId, name: 'lego', preset: 'ACME', zone: ZONE } },
  );
  if (created.errors) throw new Error(JSON.stringify(created.errors));
  expect(created.data.createApiKey.apiKey.policy.preset).toBe('ACME');
  acmeKey = created.data.createApiKey.secret;
  work = mkdtempSync(path.join(os.tmpdir(), 'zk-lego-pdns-'));
  pebble = await startPebble(work, dnsPort);
}, 90_000);

afterAll(async () => {
  pebble?.stop();
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test("lego's pdns provider gets a certificate for a zone and its wildcard with a one-zone ACME key", async () => {
  const dir = path.join(work, 'lego');
  const run = await runProcess(
    findBinary('lego'),
    [
      '--server',
      pebble.url,
      '--accept-tos',
      '--email',
      'certs@lego-pdns.test',
      '--path',
      dir,
      // two challenges at one name (_acme-challenge.lego-pdns.test): lego REPLACEs the rrset with both
      '--domains',
      ZONE,
      '--domains',
      `*.${ZONE}`,
      '--dns',
      'pdns',
      // lego finds the zone and checks the record with these resolvers: our primary, not the internet's
      '--dns.resolvers',
      `127.0.0.1:${dnsPort}`,
      // it would then ask the zone's name servers (ns1.example.net., on the internet) for the record
      '--dns.disable-cp',
      'run',
    ],
    { LEGO_CA_CERTIFICATES: pebble.caFile, PDNS_API_URL: app.baseUrl, PDNS_API_KEY: acmeKey },
  );
  const certificate = path.join(dir, 'certificates', `${ZONE}.crt`);
  expect({ code: run.code, issued: existsSync(certificate), log: run.code === 0 ? '' : run.output.slice(-3000) }).toEqual({
    code: 0,
    issued: true,
    log: '',
  });
  const names = execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName', '-in', certificate]).toString();
  expect(names).toContain(`DNS:${ZONE}`);
  expect(names).toContain(`DNS:*.${ZONE}`);
  // lego cleaned up both challenges
  expect(await txtAt(`_acme-challenge.${ZONE}`)).toEqual([]);
}, 150_000);

test('the same key cannot see or change another zone of its user', async () => {
  const headers = { 'X-API-Key': acmeKey, 'content-type': 'application/json' };
  const list = await fetch(`${app.baseUrl}${ZONES}`, { headers });
  expect(list.status).toBe(200);
  expect(((await list.json()) as { name: string }[]).map((z) => z.name)).toEqual([`${ZONE}.`]);
  const get = await fetch(`${app.baseUrl}${ZONES}/${OTHER_ZONE}.`, { headers });
  expect(get.status).toBe(404);
  const before = await serialOf(OTHER_ZONE);
  const patch = await fetch(`${app.baseUrl}${ZONES}/${OTHER_ZONE}.`, {
    method: 'PATCH',
    headers,
    body: JSON.stringify({
      rrsets: [
        {
          name: `_acme-challenge.${OTHER_ZONE}.`,
          type: 'TXT',
          ttl: 120,
          changetype: 'REPLACE',
          records: [{ content: '"not-yours"', disabled: false }],
        },
      ],
    }),
  });
  expect([403, 404]).toContain(patch.status);
  expect(await serialOf(OTHER_ZONE)).toBe(before);
  expect(await txtAt(`_acme-challenge.${OTHER_ZONE}`)).toEqual([]);
}, 60_000);

test('the same key cannot add an A record to its own zone (refused, nothing written)', async () => {
  const before = await serialOf(ZONE);
  const res = await fetch(`${app.baseUrl}${ZONES}/${ZONE}.`, {
    method: 'PATCH',
    headers: { 'X-API-Key': acmeKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      rrsets: [{ name: `www.${ZONE}.`, type: 'A', ttl: 300, changetype: 'REPLACE', records: [{ content: '192.0.2.1', disabled: false }] }],
    }),
  });
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ error: expect.any(String) });
  expect(await serialOf(ZONE)).toBe(before);
}, 60_000);
