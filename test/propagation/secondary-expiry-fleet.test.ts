/**
 * A secondary zone that expires (docs/transfers.md, «Secondary zones», States), seen from our own fleet: a
 * customer's BIND as the zone's primary (test/support/bind-primary.ts), our Knot secondary taking the zone
 * through the catalog (RFC 9432). BIND stopped: once our status says EXPIRED, the zone has left the catalog and
 * Knot stops serving it within moments (the catalog member's removal, RFC 9432 §5.3), not at Knot's own expiry
 * (its EXPIRE timer runs from its last refresh from us, and we kept answering while RETRYING). BIND back: the
 * zone is IN_SYNC, rejoins the catalog, and Knot serves it again.
 */
import { TestApp } from '../support/test-app';
import { startWithKnotFleet } from '../support/knot-fleet';
import { createSecondary, createTsigKey, createUser } from '../support/fixtures';
import { KeyArg } from '../support/update-clients';
import { BindPrimary, startBindPrimary } from '../support/bind-primary';
import { waitFor } from '../support/wait-for';
import { dig, Knot, records } from './knot';

const ZONE = 'expiring-sec.zk-fleet.test';
const CATALOG = 'catalog.zk-fleet.test';
/**
 * EXPIRE long enough to tell the catalog's removal from Knot's own expiry: Knot refreshes from us every 2 s
 * (REFRESH) and we answer until we expire, so its own EXPIRE would end at least EXPIRE − 2 s after ours
 */
const TIMERS = { refresh: 2, retry: 1, expire: 12 };
/** how soon after our EXPIRED Knot must have dropped the zone: far less than Knot's own expiry (10 s or more) */
const FLEET_DROP_MS = 4000;

let app: TestApp;
let knot: Knot;
let dnsPort: number;
let userId: string;
let key: KeyArg;
const primaries: BindPrimary[] = [];

/** the A records at `name` a server serves (none when it does not serve the zone) and the RCODE */
async function answer(port: number, name: string): Promise<{ status: string | undefined; a: string[] }> {
  const result = await dig(['@127.0.0.1', '-p', String(port), '+norec', name, 'A']);
  const a = records(result)
    .filter((r) => r.type === 'A' && r.name === `${name}.`)
    .map((r) => r.rdata)
    .sort();
  return { status: result.status, a };
}

/** the member PTR our primary's catalog has for zone `id` (none when the catalog does not list it) */
async function catalogMember(id: string): Promise<string[]> {
  const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', `z${id}.zones.${CATALOG}`, 'PTR']);
  return records(result)
    .filter((r) => r.type === 'PTR')
    .map((r) => r.rdata);
}

const STATUS = `query($z: String) { domain(name: $z) { serial secondary { state lastError expiresAt } } }`;
async function status(): Promise<any> {
  const res = await app.gql(STATUS, { z: ZONE });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}
const reaches = (state: string, timeoutMs?: number) =>
  waitFor(
    `${ZONE} ${state}`,
    async () => {
      const current = await status();
      return current.secondary.state === state ? current : undefined;
    },
    timeoutMs,
  );

async function bindPrimary(port?: number): Promise<BindPrimary> {
  const bind = await startBindPrimary({
    zone: ZONE,
    records: [`@ NS ns1.${ZONE}.`, 'ns1 A 192.0.2.53', 'www A 192.0.2.1'],
    soa: { serial: 1, ...TIMERS },
    notifyPort: dnsPort,
    tsig: key,
    port,
  });
  primaries.push(bind);
  return bind;
}

beforeAll(async () => {
  ({ app, knot, dnsPort } = await startWithKnotFleet(CATALOG, 'zk-fleet-expiry'));
  userId = await createUser(app, 'customer@zk-fleet.test');
  key = await createTsigKey(app, userId, 'customer-fleet-key');
}, 60_000);

afterAll(async () => {
  for (const bind of primaries) await bind.stop();
  await app?.close();
  await knot?.stop();
});

test('an expired secondary zone leaves the catalog and the fleet stops serving it; BIND back, the fleet serves it again', async () => {
  const bind = await bindPrimary();
  const id = await createSecondary(app, userId, ZONE, [{ address: '127.0.0.1', port: bind.port, tsigKeyName: key.name }]);
  await reaches('IN_SYNC');
  await waitFor('Knot to serve the zone', async () =>
    (await answer(knot.port, `www.${ZONE}`)).a.includes('192.0.2.1') ? true : undefined,
  );

  await bind.stop();
  const expired = await reaches('EXPIRED', 30_000);
  const expiredSeenAt = Date.now();
  expect(expired.secondary.lastError).toMatch(/127\.0\.0\.1/);
  expect((await answer(dnsPort, `www.${ZONE}`)).status).toBe('REFUSED');
  // our catalog no longer lists it (the step that removed it is what Knot takes by IXFR)
  expect(await catalogMember(id)).toEqual([]);
  // Knot drops it: REFUSED, it holds no such zone any more (the member's removal). Knot's own expiry, which is
  // what happened before the zone left the catalog on expiry, answers SERVFAIL instead, about EXPIRE later.
  // (Knot refuses queries for the catalog zone itself: its copy of the catalog cannot be read back by DNS.)
  const dropped = await waitFor(
    'Knot to stop serving the zone',
    async () => {
      const knotAnswer = await answer(knot.port, `www.${ZONE}`);
      return knotAnswer.status !== 'NOERROR' ? knotAnswer : undefined;
    },
    FLEET_DROP_MS + 6000,
    100,
  );
  const droppedAfter = Date.now() - expiredSeenAt;
  expect(dropped.a).toEqual([]);
  expect(dropped.status).toBe('REFUSED');
  // well before Knot's own EXPIRE (which started at its last refresh from us, at most REFRESH before our expiry)
  expect(droppedAfter).toBeLessThan(FLEET_DROP_MS);

  await bindPrimary(bind.port);
  const back = await reaches('IN_SYNC', 30_000);
  expect(back.secondary.lastError).toBeNull();
  expect((await answer(dnsPort, `www.${ZONE}`)).a).toEqual(['192.0.2.1']);
  expect(await catalogMember(id)).toEqual([`${ZONE}.`]);
  await waitFor(
    'Knot to serve the zone again',
    async () => ((await answer(knot.port, `www.${ZONE}`)).a.includes('192.0.2.1') ? true : undefined),
    15_000,
    100,
  );
}, 120_000);
