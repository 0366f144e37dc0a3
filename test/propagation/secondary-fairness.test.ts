/**
 * Secondary zones' refreshes are claimed as slots free (docs/transfers.md, «At once»), with primaries of the
 * test's own (test/support/fake-primary.ts, so that it can trickle a transfer):
 *
 * - one customer's primary that trickles its transfers (its SOA says there is a newer serial, then its IXFR sends
 *   a byte a second: never idle long enough to be cut, up to the transfer's 120 s) holds one of the worker's
 *   slots, not the worker: another customer's zone whose primary NOTIFYs us meanwhile takes its change within
 *   5 s (before: not until the stuck refresh ended, the worker waiting for its whole batch)
 * - the stuck refresh's lease is renewed while it lasts (`lease_until` moves forward, the same transfer still
 *   under way), so no other worker claims the zone and refreshes it a second time at once (before: the lease
 *   set at the claim, 150 s, whatever the refresh's length)
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createSecondary, createUser } from '../support/fixtures';
import { FakePrimary, startFakePrimary } from '../support/fake-primary';
import { freePort, waitFor } from './knot';

let app: TestApp;
let dnsPort: number;
let userId: string;
const primaries: FakePrimary<'trickle'>[] = [];

/**
 * A primary of one zone (test/support/fake-primary.ts) with a mode beside `serve`: `trickle` takes a transfer's
 * request and sends a byte of it a second (the connection stays open: `stalled`).
 */
async function fakePrimary(zone: string, timers: { refresh: number; retry: number; expire: number }): Promise<FakePrimary<'trickle'>> {
  const primary = await startFakePrimary<'trickle'>({
    zone,
    timers,
    answer: (transfer) => {
      // a message of 65,535 octets announced, and a byte of it a second: under the transfer's 10 s idle limit
      const { socket } = transfer;
      transfer.stall();
      socket.write(Buffer.from([0xff, 0xff]));
      const trickle = setInterval(() => (socket.destroyed ? clearInterval(trickle) : socket.write(Buffer.alloc(1))), 1000);
      socket.on('close', () => clearInterval(trickle));
    },
  });
  primaries.push(primary);
  return primary;
}

const STATUS = `query($z: String) { domain(name: $z) { serial secondary { state lastError transfers } } }`;
async function status(zone: string): Promise<any> {
  const res = await app.gql(STATUS, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}

/** the zone's lease as the database holds it (null: not claimed) */
async function leaseOf(id: string): Promise<Date | null> {
  const [row] = await app.service.database.db.rows<{ lease_until: Date | null }>(
    'select lease_until from secondary_zone_state where domain_id = $1',
    [id],
  );
  return row.lease_until === null ? null : new Date(row.lease_until);
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'customer@zk-fairness.test');
}, 60_000);

afterAll(async () => {
  for (const primary of primaries) await primary.close();
  await app?.close();
});

test("a primary trickling its transfers holds one slot: another zone's NOTIFY is taken within 5 s, and the stuck zone's lease is renewed", async () => {
  // A: refreshed every second, so its refresh starts as soon as its primary trickles
  const a = await fakePrimary('trickling.zk-fairness.test', { refresh: 1, retry: 1, expire: 3600 });
  // B: an hour's REFRESH: only the NOTIFY brings its change
  const b = await fakePrimary('notified.zk-fairness.test', { refresh: 3600, retry: 3600, expire: 86400 });
  const aId = await createSecondary(app, userId, a.zone, [{ address: '127.0.0.1', port: a.port }]);
  await createSecondary(app, userId, b.zone, [{ address: '127.0.0.1', port: b.port }]);
  for (const zone of [a.zone, b.zone])
    await waitFor(`${zone} IN_SYNC at serial 1`, async () => {
      const current = await status(zone);
      return current.secondary.state === 'IN_SYNC' && current.serial === 1 ? true : undefined;
    });

  // A's primary: a newer serial on its SOA, then an IXFR that trickles (never idle for 10 s: up to 120 s)
  a.soaSerial = 2;
  a.zoneSerial = 2;
  a.mode = 'trickle';
  try {
    await waitFor("A's refresh to be stuck in its IXFR", () => (a.stalled.size > 0 ? true : undefined));
    const askedWhileStuck = a.asked.length;
    const claimedLease = await leaseOf(aId);
    expect(claimedLease).not.toBeNull();

    // B's primary changes and NOTIFYs us, while A's refresh is stuck
    b.soaSerial = 2;
    b.zoneSerial = 2;
    const notifiedAt = Date.now();
    expect(await b.notify(dnsPort)).toBe(0); // NOERROR: taken, the zone due now
    await waitFor("B's change to be taken after its NOTIFY", async () => ((await status(b.zone)).serial === 2 ? true : undefined), 20_000);
    const taken = Date.now() - notifiedAt;
    console.log(`B's change taken ${taken} ms after its NOTIFY, with A's refresh stuck: ${a.stalled.size > 0}`);
    // A's refresh was still under way: B did not wait for it (before: until it ended, up to the transfer's 120 s)
    expect(a.stalled.size).toBe(1);
    expect(taken).toBeLessThan(5000);

    // A's lease moves forward while its refresh is stuck in the same transfer (renewed every 10 s)
    const renewed = await waitFor(
      "A's lease to be renewed",
      async () => {
        const lease = await leaseOf(aId);
        return lease && lease.getTime() > claimedLease!.getTime() + 1000 ? lease : undefined;
      },
      20_000,
      250,
    );
    console.log(`A's lease renewed by ${renewed.getTime() - claimedLease!.getTime()} ms while stuck`);
    // the same refresh: nothing else asked of A's primary, one transfer open, no other claim
    expect(a.asked.length).toBe(askedWhileStuck);
    expect(a.stalled.size).toBe(1);
    expect((await status(a.zone)).serial).toBe(1);
  } finally {
    // the primary answers again (also when an assertion failed: the stuck refresh would hold up the app's stop)
    a.mode = 'serve';
    for (const socket of a.stalled) socket.destroy();
  }

  // the trickling IXFR cut, the AXFR that follows works: A takes its change, and its lease is let go
  await waitFor('A IN_SYNC at serial 2', async () => {
    const current = await status(a.zone);
    return current.secondary.state === 'IN_SYNC' && current.serial === 2 ? true : undefined;
  });
  expect((await status(b.zone)).secondary.transfers).toBe(2);
}, 90_000);
