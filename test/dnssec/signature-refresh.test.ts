/**
 * A signed zone left alone carries new signatures before the old ones expire: with accelerated timings
 * (signatures valid 60 s, refreshed 30 s before expiry, 5 s of jitter), the worker re-signs the due RRsets in
 * steps of the signer's own, the zone passes dnssec-verify at every read (it checks validity against the
 * clock), and no signature served is ever past its expiration. The history shows none of those steps.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp } from '../support/test-app';
import { freePort } from '../propagation/knot';
import { transferZone } from '../support/signed-zone-checks';
import { waitFor } from '../support/wait-for';

const run = promisify(execFile);
const ZONE = 'refresh.zk-signed.test';
const KEY_NAME = 'zk-refresh-key';
const SECRET = randomBytes(32).toString('base64');

let app: TestApp;
let dnsPort: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-refresh-'));
  dnsPort = await freePort();
  app = await startTestApp({
    ROLES: 'api,dns,worker',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    TSIG_KEY: `${KEY_NAME}:hmac-sha256:${SECRET}`,
    DNSSEC_SIGNATURE_VALIDITY: '60',
    DNSSEC_SIGNATURE_REFRESH: '30',
    DNSSEC_SIGNATURE_JITTER: '5',
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** the zone as the primary transfers it, and the expirations of its RRSIGs (seconds since the epoch) */
async function transfer(): Promise<{ text: string; serial: number; expirations: number[] }> {
  const { text, serial } = await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, ZONE);
  const expirations = text
    .split('\n')
    .filter((line) => line.split(/\s+/)[3] === 'RRSIG')
    .map((line) => {
      const t = line.split(/\s+/)[8];
      return Date.UTC(+t.slice(0, 4), +t.slice(4, 6) - 1, +t.slice(6, 8), +t.slice(8, 10), +t.slice(10, 12), +t.slice(12, 14)) / 1000;
    });
  return { text, serial, expirations };
}

async function verify(text: string, label: string): Promise<void> {
  const file = join(dir, `${label}.zone`);
  writeFileSync(file, text);
  await run('dnssec-verify', ['-o', ZONE, file]);
}

it('re-signs a zone left alone before its signatures expire, in steps the history does not show', async () => {
  const user = await app.gql(`mutation { createUser(input: {email: "refresh@example.com"}) { id } }`);
  await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
    u: user.data.createUser.id,
    z: ZONE,
  });
  for (const owner of ['a', 'b', 'c.d']) {
    const res = await app.gql(`mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
      i: { zone: ZONE, owner, type: 'A', ttl: 300, rdata: '192.0.2.1' },
    });
    expect(res.errors).toBeUndefined();
  }
  const enabled = await app.gql(`mutation { enableDnssec(input: {zone: "${ZONE}"}) { enabled } }`);
  expect(enabled.errors).toBeUndefined();
  const first = await transfer();
  await verify(first.text, 'first');
  const firstExpiry = Math.min(...first.expirations);
  // within the validity, less the jitter: 55 to 60 s from now
  expect(firstExpiry - Date.now() / 1000).toBeGreaterThan(50);

  // the refresh comes 30 s before the first expiry; until then and after, every read verifies and no served
  // signature has expired
  const refreshed = await waitFor(
    'the signatures refreshed',
    async () => {
      const now = await transfer();
      expect(Math.min(...now.expirations)).toBeGreaterThan(Date.now() / 1000);
      return Math.min(...now.expirations) > firstExpiry ? now : undefined;
    },
    50_000,
    1000,
  );
  expect(Date.now() / 1000).toBeLessThan(firstExpiry);
  expect(refreshed.serial).not.toBe(first.serial);
  await verify(refreshed.text, 'refreshed');
  // every signature of the zone was re-made, not only some
  expect(refreshed.expirations.length).toBe(first.expirations.length);

  const history = await app.gql(`query { domain(name: "${ZONE}") { changes(first: 50) { nodes { kind } } } }`);
  expect(history.data.domain.changes.nodes.map((n: any) => n.kind)).not.toContain('zone-signed');
}, 90_000);
