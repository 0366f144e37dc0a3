/**
 * A secondary zone's SOA timers (RFC 1035 §3.3.13, docs/transfers.md), each with a customer's BIND as the
 * primary (test/support/bind-primary.ts) and the zone served by our own primary's DNS edge:
 *
 * - EXPIRE much shorter than RETRY: BIND stopped, the zone is EXPIRED and no longer served within moments of its
 *   expiry, not at the next RETRY (an hour later)
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createTsigKey, createUser } from '../support/fixtures';
import { KeyArg } from '../support/update-clients';
import { BindPrimary, startBindPrimary } from '../support/bind-primary';
import { waitFor } from '../support/wait-for';
import { dig, freePort, records } from './knot';

let app: TestApp;
let dnsPort: number;
let userId: string;
let key: KeyArg;
const primaries: BindPrimary[] = [];

/** the A records at `name` our primary serves (none when it does not serve the zone) */
async function served(name: string): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name, 'A']);
  return records(result)
    .filter((r) => r.type === 'A' && r.name === `${name}.`)
    .map((r) => r.rdata)
    .sort();
}

const STATUS = `query($z: String) { domain(name: $z) { serial secondary { state lastError transfers expiresAt nextRefreshAt } } }`;
async function status(zone: string): Promise<any> {
  const res = await app.gql(STATUS, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}
const reaches = (zone: string, state: string) =>
  waitFor(`${zone} ${state}`, async () => {
    const current = await status(zone);
    return current.secondary.state === state ? current : undefined;
  });

const CREATE_SECONDARY = `mutation($u: ID!, $z: String!, $p: [ServerInput!]) {
  createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id kind } }`;

/** a BIND primary of `zone` with the given timers, its NOTIFYs sent to `notifyPort` (ours unless given) */
async function bindPrimary(
  zone: string,
  soa: { refresh: number; retry: number; expire: number },
  options: { notifyPort?: number; port?: number } = {},
): Promise<BindPrimary> {
  const bind = await startBindPrimary({
    zone,
    records: [`@ NS ns1.${zone}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1'],
    soa: { serial: 1, ...soa },
    notifyPort: options.notifyPort ?? dnsPort,
    tsig: key,
    port: options.port,
  });
  primaries.push(bind);
  return bind;
}

/** the secondary zone created with `bind` as its primary, once it is transferred and served */
async function secondaryOf(zone: string, bind: BindPrimary): Promise<void> {
  const created = await app.gql(CREATE_SECONDARY, {
    u: userId,
    z: zone,
    p: [{ address: '127.0.0.1', port: bind.port, tsigKeyName: key.name }],
  });
  expect(created.errors).toBeUndefined();
  await reaches(zone, 'IN_SYNC');
  await waitFor(`www.${zone} served`, async () => ((await served(`www.${zone}`)).includes('192.0.2.1') ? true : undefined));
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'customer@zk-timers.test');
  key = await createTsigKey(app, userId, 'customer-timers-key');
}, 60_000);

afterAll(async () => {
  for (const bind of primaries) await bind.stop();
  await app?.close();
});

test('an EXPIRE much shorter than the RETRY: the zone is EXPIRED and not served at its expiry, not a RETRY later', async () => {
  const zone = 'short-expire.zk.test';
  // an hour's RETRY: before the fix, the first failed refresh put the next attempt an hour away, past the EXPIRE
  const bind = await bindPrimary(zone, { refresh: 2, retry: 3600, expire: 5 });
  await secondaryOf(zone, bind);
  await bind.stop();
  const expired = await reaches(zone, 'EXPIRED');
  const seenAt = Date.now();
  expect(expired.secondary.lastError).toMatch(/127\.0\.0\.1/);
  // noticed at the expiry: a poll (1 s) and a failed SOA query (2 s at most) after it, with room for a busy machine
  expect(seenAt - Date.parse(expired.secondary.expiresAt)).toBeLessThan(5000);
  const refused = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `www.${zone}`, 'A']);
  expect(refused.status).toBe('REFUSED');
  // and it stays so: the next attempt is a RETRY away, not a poll away
  const later = await status(zone);
  expect(later.secondary.state).toBe('EXPIRED');
  expect(Date.parse(later.secondary.nextRefreshAt)).toBeGreaterThan(Date.now() + 3000_000);
});
