/**
 * ACME DNS-01 end to end on the DEFAULT settings (no ALLOWED_TTLS override: what a new user meets): the
 * pebble ACME server validates through our primary, and certbot's dns-rfc2136 plugin and lego's rfc2136
 * provider, each with its own default TTL (120, kept as sent: ALLOWED_TTLS_BEYOND_REST), get a certificate with a
 * TSIG key made through the API with the ACME preset (docs/least-privilege.md: TXT at _acme-challenge names
 * only), which cannot add an A record. A cert-manager-style update (TTL 60) lands with its TTL.
 * On a zone that requires two approvals of each change (docs/changes.md, «Review»), certbot still renews through
 * that key at once, while an unrestricted key's DNS UPDATE is refused.
 * All from Debian's packages: pebble, certbot + python3-certbot-dns-rfc2136, lego.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser, createZone } from '../support/fixtures';
import { KeyArg, nsupdate } from '../support/update-clients';
import { Pebble, runProcess, startPebble } from '../support/pebble';
import { dig, findBinary, freePort, records } from './knot';

const ZONE = 'acme-zk.test';

let app: TestApp;
let dnsPort: number;
let work: string;
let pebble: Pebble;
let pebbleUrl: string;
let caFile: string;
let key: KeyArg;
/** an unrestricted key of the same user, for the README's example (it adds an A record) */
let fullKey: KeyArg;

async function txtAt(name: string): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name, 'TXT']);
  return records(result)
    .filter((r) => r.type === 'TXT')
    .map((r) => r.rdata);
}

beforeAll(async () => {
  dnsPort = await freePort();
  // defaults on purpose: the TTL policies and the default records are what a fresh install has
  app = await startTestApp({ ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  const userId = await createUser(app, 'acme@acme-zk.test');
  await createZone(app, userId, ZONE);
  // the least privilege an ACME client needs: TXT at _acme-challenge names of this zone
  const acme = await app.gql(
    `mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { policy { preset } } } }`,
    { input: { userId, name: 'acme-client.acme-zk.test', preset: 'ACME', zone: ZONE } },
  );
  if (acme.errors) throw new Error(JSON.stringify(acme.errors));
  expect(acme.data.createTsigKey.tsigKey.policy.preset).toBe('ACME');
  key = { algorithm: 'hmac-sha256', name: 'acme-client.acme-zk.test', secret: acme.data.createTsigKey.secret };
  fullKey = await createTsigKey(app, userId, 'readme-client.acme-zk.test');

  work = mkdtempSync(path.join(os.tmpdir(), 'zk-acme-'));
  pebble = await startPebble(work, dnsPort);
  pebbleUrl = pebble.url;
  caFile = pebble.caFile;
}, 90_000);

afterAll(async () => {
  pebble?.stop();
  await app?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** certbot's dns-rfc2136 plugin asked for a certificate of `domain` with the ACME key: its run and the certificate's path */
async function certbot(name: string, domain: string) {
  const dir = path.join(work, name);
  const credentials = path.join(work, `${name}.ini`);
  writeFileSync(
    credentials,
    [
      'dns_rfc2136_server = 127.0.0.1',
      `dns_rfc2136_port = ${dnsPort}`,
      `dns_rfc2136_name = ${key.name}`,
      `dns_rfc2136_secret = ${key.secret}`,
      'dns_rfc2136_algorithm = HMAC-SHA256',
      '',
    ].join('\n'),
  );
  chmodSync(credentials, 0o600);
  const run = await runProcess(
    findBinary('certbot'),
    [
      'certonly',
      '--non-interactive',
      '--agree-tos',
      '--register-unsafely-without-email',
      '--server',
      pebbleUrl,
      '--dns-rfc2136',
      '--dns-rfc2136-credentials',
      credentials,
      // only how long certbot waits before asking pebble to validate; the TTL is certbot's own
      '--dns-rfc2136-propagation-seconds',
      '1',
      '--config-dir',
      path.join(dir, 'config'),
      '--work-dir',
      path.join(dir, 'work'),
      '--logs-dir',
      path.join(dir, 'logs'),
      '-d',
      domain,
    ],
    { REQUESTS_CA_BUNDLE: caFile },
  );
  const certificate = path.join(dir, 'config', 'live', domain, 'fullchain.pem');
  expect({ code: run.code, issued: existsSync(certificate), log: run.code === 0 ? '' : run.output.slice(-2000) }).toEqual({
    code: 0,
    issued: true,
    log: '',
  });
  return certificate;
}

test("certbot's dns-rfc2136 plugin, with its default TTL, gets a certificate through our primary", async () => {
  const domain = `certbot.${ZONE}`;
  const certificate = await certbot('certbot', domain);
  const subject = execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName', '-in', certificate]).toString();
  expect(subject).toContain(`DNS:${domain}`);
  // the plugin removed its challenge record again
  expect(await txtAt(`_acme-challenge.${domain}`)).toEqual([]);
}, 120_000);

test("lego's rfc2136 provider, with its default TTL, gets a certificate through our primary", async () => {
  const dir = path.join(work, 'lego');
  const domain = `lego.${ZONE}`;
  const run = await runProcess(
    findBinary('lego'),
    [
      '--server',
      pebbleUrl,
      '--accept-tos',
      '--email',
      'acme@acme-zk.test',
      '--path',
      dir,
      '--domains',
      domain,
      '--dns',
      'rfc2136',
      // lego looks up the zone and checks the record with these resolvers: our primary, not the internet's
      '--dns.resolvers',
      `127.0.0.1:${dnsPort}`,
      // lego would then ask the zone's name servers (ns1.example.net. here, on the internet) whether the record
      // has propagated: a test machine has no route there
      '--dns.disable-cp',
      'run',
    ],
    {
      LEGO_CA_CERTIFICATES: caFile,
      RFC2136_NAMESERVER: `127.0.0.1:${dnsPort}`,
      RFC2136_TSIG_ALGORITHM: 'hmac-sha256.',
      RFC2136_TSIG_KEY: key.name,
      RFC2136_TSIG_SECRET: key.secret,
    },
  );
  const certificate = path.join(dir, 'certificates', `${domain}.crt`);
  expect({ code: run.code, issued: existsSync(certificate), log: run.code === 0 ? '' : run.output.slice(-2000) }).toEqual({
    code: 0,
    issued: true,
    log: '',
  });
  expect(execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName', '-in', certificate]).toString()).toContain(`DNS:${domain}`);
  expect(await txtAt(`_acme-challenge.${domain}`)).toEqual([]);
}, 150_000);

test('a cert-manager-style update (TTL 60) is applied with its TTL, as sent', async () => {
  const name = `_acme-challenge.cm.${ZONE}`;
  const run = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update add ${name} 60 TXT "token-from-cert-manager"`, 'send']);
  expect(run).toMatchObject({ code: 0 });
  const res = await app.gql(`query($n: String) { domain(name: $n) { records(first: 100) { owner type rdata ttl } } }`, { n: ZONE });
  expect(res.errors).toBeUndefined();
  expect(res.data.domain.records.filter((r: any) => r.owner === '_acme-challenge.cm')).toEqual([
    { owner: '_acme-challenge.cm', type: 'TXT', rdata: '"token-from-cert-manager"', ttl: 60 },
  ]);
}, 60_000);

test('the ACME-preset key cannot add an A record (REFUSED, nothing written)', async () => {
  const before = await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: ZONE });
  const run = await nsupdate(dnsPort, key, [`zone ${ZONE}`, `update add host.${ZONE} 300 A 192.0.2.1`, 'send']);
  expect(run.code).not.toBe(0);
  expect(run.stdout + run.stderr).toContain('REFUSED');
  const after = await app.gql(`query($n: String) { domain(name: $n) { serial records(type: "A") { owner } } }`, { n: ZONE });
  expect(after.data.domain.serial).toBe(before.data.domain.serial);
  expect(after.data.domain.records).toEqual([]);
}, 60_000);

test("the README's nsupdate example runs as written on a fresh zone", async () => {
  const readme = readFileSync(path.join(__dirname, '../../README.md'), 'utf8');
  const block = /```sh\n\s*(nsupdate [^\n]*<<'EOF'\n[\s\S]*?\n\s*EOF)\n\s*```/.exec(readme);
  expect(block).not.toBeNull();
  const lines = block![1]
    .split('\n')
    .slice(1, -1)
    .map((line) => line.trim());
  // the README speaks of example.com on the default port; here the zone and port are the test's
  const script = lines.filter((line) => !line.startsWith('server ')).map((line) => line.replaceAll('example.com', ZONE));
  expect(script.some((line) => line.startsWith('update add'))).toBe(true);
  // the example adds an A record: an unrestricted key of the user (the ACME key may not)
  const run = await nsupdate(dnsPort, fullKey, script);
  expect(run).toMatchObject({ code: 0 });
}, 60_000);

test('on a zone that requires two approvals, certbot still renews at once through the ACME key; an unrestricted key is refused', async () => {
  const approvals = (n: number) =>
    app.gql(`mutation($z: String!, $n: Int!) { setZoneRequiredApprovals(zone: $z, approvals: $n) }`, { z: ZONE, n });
  expect((await approvals(2)).data.setZoneRequiredApprovals).toBe(2);
  try {
    // the zone is under review: a key that may write anything is refused, the policy named (EDE 18, Prohibited)
    const serial = (await app.gql(`query($n: String) { domain(name: $n) { serial } }`, { n: ZONE })).data.domain.serial;
    const refused = await nsupdate(dnsPort, fullKey, [`zone ${ZONE}`, `update add unreviewed.${ZONE} 300 A 192.0.2.9`, 'send'], {
      debug: true,
    });
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/requires 2 approvals/);
    // the key confined to `_acme-challenge` TXT is exempt: certbot adds its challenge, pebble validates, it removes it
    const domain = `review.${ZONE}`;
    const certificate = await certbot('certbot-review', domain);
    expect(execFileSync('openssl', ['x509', '-noout', '-ext', 'subjectAltName', '-in', certificate]).toString()).toContain(`DNS:${domain}`);
    expect(await txtAt(`_acme-challenge.${domain}`)).toEqual([]);
    // no change request was made of it: the challenge was written and removed directly
    const requests = await app.gql(`query($z: String!) { changeRequests(zone: $z) { id } }`, { z: ZONE });
    expect(requests.data.changeRequests).toEqual([]);
    const after = await app.gql(`query($n: String) { domain(name: $n) { serial records(type: "A") { owner } } }`, { n: ZONE });
    expect(after.data.domain.serial).not.toBe(serial);
    expect(after.data.domain.records.map((r: any) => r.owner)).not.toContain('unreviewed');
  } finally {
    await approvals(0);
  }
}, 120_000);
