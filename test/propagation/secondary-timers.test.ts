/**
 * A secondary zone's SOA timers (RFC 1035 §3.3.13, docs/transfers.md), each with a customer's BIND as the
 * primary (test/support/bind-primary.ts) and the zone served by our own primary's DNS edge:
 *
 * - REFRESH alone: BIND's NOTIFYs go to a socket of the test's, never to us; a change on BIND is taken at the
 *   zone's next REFRESH all the same
 * - RETRY: BIND stopped after a transfer, before the EXPIRE: the status says RETRYING and the zone is still
 *   served; BIND back on its port, the zone is IN_SYNC again
 * - EXPIRE much shorter than RETRY: BIND stopped, the zone is EXPIRED and no longer served within moments of its
 *   expiry, not at the next RETRY (an hour later)
 */
import dgram from 'node:dgram';
import { startTestApp, TestApp } from '../support/test-app';
import { createSecondary, createTsigKey, createUser } from '../support/fixtures';
import { KeyArg, nsupdate } from '../support/update-clients';
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
  await createSecondary(app, userId, zone, [{ address: '127.0.0.1', port: bind.port, tsigKeyName: key.name }]);
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

test('a change on the primary is taken on the REFRESH timer alone, with no NOTIFY to us', async () => {
  const zone = 'refresh-only.zk.test';
  // BIND's NOTIFYs (at its start, after the change) go to this socket, never to our DNS edge
  const sink = dgram.createSocket('udp4');
  let notifies = 0;
  sink.on('message', () => notifies++);
  await new Promise<void>((resolve) => sink.bind(0, '127.0.0.1', () => resolve()));
  try {
    const bind = await bindPrimary(zone, { refresh: 2, retry: 1, expire: 3600 }, { notifyPort: sink.address().port });
    await secondaryOf(zone, bind);
    const update = await nsupdate(bind.port, key, [`zone ${zone}`, `update add new.${zone} 300 A 192.0.2.2`, 'send']);
    expect(update.code).toBe(0);
    await waitFor(`new.${zone} served`, async () => ((await served(`new.${zone}`)).includes('192.0.2.2') ? true : undefined));
    expect((await status(zone)).serial).toBe(2);
    // BIND did notify, only elsewhere: the change came by the timer
    await waitFor('BIND to have sent a NOTIFY to the sink', () => (notifies > 0 ? true : undefined));
    const history = await app.gql(
      `query($z: String) { domain(name: $z) { changes(first: 1) { nodes { serialAfter author { keyName } } } } }`,
      { z: zone },
    );
    expect(history.data.domain.changes.nodes[0]).toMatchObject({
      serialAfter: 2,
      author: { keyName: `transfer from 127.0.0.1#${bind.port} (IXFR)` },
    });
  } finally {
    sink.close();
  }
});

test('the primary unreachable before the EXPIRE: RETRYING and still served; the primary back: IN_SYNC', async () => {
  const zone = 'retrying.zk.test';
  const timers = { refresh: 2, retry: 1, expire: 3600 };
  const bind = await bindPrimary(zone, timers);
  await secondaryOf(zone, bind);
  await bind.stop();
  const retrying = await reaches(zone, 'RETRYING');
  expect(retrying.secondary.lastError).toMatch(new RegExp(`127\\.0\\.0\\.1.*${bind.port}`));
  expect(Date.parse(retrying.secondary.expiresAt)).toBeGreaterThan(Date.now() + 3000_000);
  expect(await served(`www.${zone}`)).toEqual(['192.0.2.1']);
  // still retrying (and served) after more RETRYs
  const attempts = Date.parse(retrying.secondary.nextRefreshAt);
  await waitFor('another retry', async () => {
    const current = await status(zone);
    return Date.parse(current.secondary.nextRefreshAt) > attempts ? current : undefined;
  });
  expect((await status(zone)).secondary.state).toBe('RETRYING');
  expect(await served(`www.${zone}`)).toEqual(['192.0.2.1']);

  await bindPrimary(zone, timers, { port: bind.port });
  const back = await reaches(zone, 'IN_SYNC');
  expect(back.secondary.lastError).toBeNull();
  expect(back.serial).toBe(1);
  expect(await served(`www.${zone}`)).toEqual(['192.0.2.1']);
});

test('an EXPIRE much shorter than the RETRY: the zone is EXPIRED and not served at its expiry, not a RETRY later', async () => {
  const zone = 'short-expire.zk.test';
  // an hour's RETRY: before the fix, the first failed refresh put the next attempt an hour away, past the EXPIRE
  const bind = await bindPrimary(zone, { refresh: 2, retry: 3600, expire: 5 });
  await secondaryOf(zone, bind);
  await bind.stop();
  const expired = await reaches(zone, 'EXPIRED');
  const seenAt = Date.now();
  // expired at the expiry: within a poll (1 s) of it, whatever the refresh due then does, with room for a busy machine
  expect(seenAt - Date.parse(expired.secondary.expiresAt)).toBeLessThan(5000);
  const refused = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `www.${zone}`, 'A']);
  expect(refused.status).toBe('REFUSED');
  // and it stays so: once the refresh due at the expiry has failed (it may still be under way when the zone
  // expires), the next attempt is a RETRY away, not a poll away
  const later = await waitFor('the refresh due at the expiry to have failed', async () => {
    const current = await status(zone);
    return Date.parse(current.secondary.nextRefreshAt) > Date.now() + 3000_000 ? current : undefined;
  });
  expect(later.secondary.state).toBe('EXPIRED');
  expect(later.secondary.lastError).toMatch(/127\.0\.0\.1/);
  // events out (docs/events.md): the zone's creation, its expiry once, and the failed transfers
  const feed = await app.http.get('/api/events').query({ limit: 1000 }).set('X-API-Key', app.settings.apiKey!);
  const types: string[] = feed.body.events.filter((e: { zone: string }) => e.zone === zone).map((e: { type: string }) => e.type);
  expect(types[0]).toBe('zone.created');
  expect(types.filter((t) => t === 'zone.expired')).toHaveLength(1);
  expect(types).toContain('zone.transfer_failed');
});
