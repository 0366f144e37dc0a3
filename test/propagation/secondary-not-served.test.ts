/**
 * Secondary zones that are not served (docs/transfers.md, «Secondary zones»; docs/propagation.md, «Status»), with
 * a primary of the test's own (test/support/fake-primary.ts, so that it can hold a transfer open or answer an
 * IXFR with our own serial) and our Knot secondary taking the zones through the
 * catalog (RFC 9432):
 *
 * - EXPIRE passing while a refresh is still under way (the primary's SOA says there is a newer serial, then its
 *   IXFR and AXFR send nothing): the zone is EXPIRED, REFUSED and out of the catalog within a poll of its
 *   expiry, while the refresh is still waiting; before, only once that refresh failed (10 s without data for
 *   the IXFR, then for the AXFR). The refresh then working serves it again, and it rejoins the catalog
 * - propagation status: the expired zone says pending with the reason (before: in_sync, Knot answering REFUSED);
 *   a zone never transferred (its primary dead) is not counted in `zonekeeper_secondary_zones_behind` (before:
 *   counted for as long as it was not served)
 * - a refresh whose IXFR finds us current (the SOA query said otherwise) is not a transfer: `transfers` stays
 */
import { ADMIN_KEY, TestApp } from '../support/test-app';
import { startWithKnotFleet } from '../support/knot-fleet';
import { createSecondary, createUser } from '../support/fixtures';
import { FakePrimary, startFakePrimary } from '../support/fake-primary';
import { dig, freePort, Knot, records, waitFor } from './knot';

const CATALOG = 'catalog.zk-not-served.test';

let app: TestApp;
let knot: Knot;
let dnsPort: number;
let userId: string;
const primaries: FakePrimary<Mode>[] = [];

/**
 * The primary's modes beside `serve` (test/support/fake-primary.ts): `stall` takes a transfer's request and sends
 * nothing (the connection stays open: `stalled`), `ixfr-current` answers IXFR with the single SOA at `zoneSerial`
 * (RFC 1995 §4: "you are current") and AXFR as `serve`.
 */
type Mode = 'stall' | 'ixfr-current';

async function fakePrimary(zone: string, timers: { refresh: number; retry: number; expire: number }): Promise<FakePrimary<Mode>> {
  const primary = await startFakePrimary<Mode>({
    zone,
    timers,
    answer: (transfer, mode) => {
      if (mode === 'stall') transfer.stall();
      else if (transfer.type === 'IXFR') transfer.send(transfer.answer([transfer.soa()]));
      else transfer.serve();
    },
  });
  primaries.push(primary);
  return primary;
}

/** the A records at `name` a server serves (none when it does not serve the zone) and the RCODE */
async function answerOf(port: number, name: string): Promise<{ status: string | undefined; a: string[] }> {
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

const STATUS = `query($z: String) { domain(name: $z) {
  serial
  secondary { state lastError transfers expiresAt lastSuccessAt }
  propagation { state message servers { server state servedSerial error } } } }`;
async function status(zone: string): Promise<any> {
  const res = await app.gql(STATUS, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}
const reaches = (zone: string, state: string, timeoutMs?: number) =>
  waitFor(
    `${zone} ${state}`,
    async () => {
      const current = await status(zone);
      return current.secondary.state === state ? current : undefined;
    },
    timeoutMs,
  );

/** `zonekeeper_secondary_zones_behind` for our Knot, as /metrics says it */
async function zonesBehind(): Promise<number> {
  const res = await app.http.get('/metrics').set('X-API-Key', ADMIN_KEY);
  expect(res.status).toBe(200);
  const line = res.text.split('\n').find((l) => l.startsWith(`zonekeeper_secondary_zones_behind{server="127.0.0.1:${knot.port}"}`));
  if (!line) throw new Error(`no zonekeeper_secondary_zones_behind for Knot in:\n${res.text}`);
  return Number(line.split(' ').pop());
}

beforeAll(async () => {
  ({ app, knot, dnsPort } = await startWithKnotFleet(CATALOG, 'zk-not-served'));
  userId = await createUser(app, 'customer@zk-not-served.test');
}, 60_000);

afterAll(async () => {
  for (const primary of primaries) await primary.close();
  await app?.close();
  await knot?.stop();
});

test('EXPIRE passing while a refresh is under way: EXPIRED, REFUSED and out of the catalog at once; the refresh working: served again', async () => {
  const zone = 'stalled-refresh.zk-not-served.test';
  // REFRESH 1 s: a refresh starts within a second of the primary stalling, well before the EXPIRE (4 s)
  const primary = await fakePrimary(zone, { refresh: 1, retry: 1, expire: 4 });
  const id = await createSecondary(app, userId, zone, [{ address: '127.0.0.1', port: primary.port }]);
  await reaches(zone, 'IN_SYNC');
  await waitFor('Knot to serve the zone', async () =>
    (await answerOf(knot.port, `www.${zone}`)).a.includes('192.0.2.1') ? true : undefined,
  );
  await waitFor('the propagation to say in_sync', async () => ((await status(zone)).propagation.state === 'in_sync' ? true : undefined));

  // a newer serial on the SOA, and then transfers that send nothing: the refresh waits (IXFR, then AXFR)
  primary.soaSerial = 2;
  primary.zoneSerial = 2;
  primary.mode = 'stall';
  try {
    await waitFor('a refresh to wait on the stalled transfer', () => (primary.stalled.size > 0 ? true : undefined));
    const expiresAt = Date.parse((await status(zone)).secondary.expiresAt);
    const expired = await reaches(zone, 'EXPIRED', 40_000);
    const late = Date.now() - expiresAt;
    console.log(`EXPIRED seen ${late} ms after expiresAt, with the refresh still under way: ${primary.stalled.size > 0}`);
    // the refresh is still waiting for its transfer: the expiry did not wait for it to fail
    expect(primary.stalled.size).toBeGreaterThan(0);
    // within a poll (1 s) of the expiry, with room for a loaded machine (before: the refresh's failure, 20 s on)
    expect(late).toBeLessThan(3000);
    expect(expired.serial).toBe(1);
    expect((await answerOf(dnsPort, `www.${zone}`)).status).toBe('REFUSED');
    expect(await catalogMember(id)).toEqual([]);
    // the propagation says it is not served, whatever the status rows found before (Knot served serial 1)
    expect(expired.propagation.state).toBe('pending');
    expect(expired.propagation.message).toMatch(/^not served: the secondary zone EXPIRED/);
    expect(expired.propagation.servers).toEqual([
      { server: `127.0.0.1:${knot.port}`, state: 'pending', servedSerial: 1, error: 'the zone is not served (an expired secondary zone)' },
    ]);
    await waitFor('Knot to stop serving the zone', async () => {
      const knotAnswer = await answerOf(knot.port, `www.${zone}`);
      return knotAnswer.status === 'REFUSED' ? true : undefined;
    });
  } finally {
    // the primary answers again (also when an assertion failed: the stalled refresh would hold up the next tests)
    primary.mode = 'serve';
    for (const socket of primary.stalled) socket.destroy();
  }

  // the primary answers again (above): the stalled IXFR is cut, the AXFR that follows works, and the zone is served again
  const back = await reaches(zone, 'IN_SYNC');
  expect(back.serial).toBe(2);
  expect(back.secondary.transfers).toBe(2);
  expect((await answerOf(dnsPort, `www.${zone}`)).a).toEqual(['192.0.2.2']);
  expect(await catalogMember(id)).toEqual([`${zone}.`]);
  await waitFor('Knot to serve the zone again', async () =>
    (await answerOf(knot.port, `www.${zone}`)).a.includes('192.0.2.2') ? true : undefined,
  );
  await waitFor('the propagation to say in_sync again', async () =>
    (await status(zone)).propagation.state === 'in_sync' ? true : undefined,
  );
}, 120_000);

test('a zone never transferred (its primary dead) is not counted behind, and its status says why', async () => {
  const zone = 'never-taken.zk-not-served.test';
  // nothing listens there: every refresh fails, the zone stays PENDING
  const dead = await freePort();
  const id = await createSecondary(app, userId, zone, [{ address: '127.0.0.1', port: dead }]);
  const pending = await waitFor(`${zone} to have failed a refresh`, async () => {
    const current = await status(zone);
    return current.secondary.lastError ? current : undefined;
  });
  expect(pending.secondary.state).toBe('PENDING');
  // the status row our worker keeps for Knot says it does not serve the zone (it is refused it): behind, before
  const row = await waitFor('a status row for the zone that is not in sync', async () => {
    const [found] = await app.service.database.db.rows<{ state: string }>(
      `select state from zone_server_status where domain_id = $1 and server = $2 and attempts > 0 and state <> 'in_sync'`,
      [id, `127.0.0.1:${knot.port}`],
    );
    return found;
  });
  expect(row.state).not.toBe('in_sync');
  expect(await zonesBehind()).toBe(0);
  const current = await status(zone);
  expect(current.propagation.state).toBe('pending');
  expect(current.propagation.message).toMatch(/^not served: a secondary zone not transferred from its primaries yet/);
  expect(current.propagation.servers.map((s: any) => s.error)).toEqual(['the zone is not served (a secondary zone not transferred yet)']);
}, 60_000);

test('a refresh whose IXFR finds us current is not a transfer: transfers stays', async () => {
  const zone = 'ixfr-current.zk-not-served.test';
  const primary = await fakePrimary(zone, { refresh: 1, retry: 1, expire: 3600 });
  await createSecondary(app, userId, zone, [{ address: '127.0.0.1', port: primary.port }]);
  const first = await reaches(zone, 'IN_SYNC');
  expect(first.secondary.transfers).toBe(1);
  // the SOA query says serial 2, the IXFR answers the single SOA at ours (1): nothing to take
  primary.soaSerial = 2;
  primary.mode = 'ixfr-current';
  const since = Date.parse(first.secondary.lastSuccessAt);
  const asked = primary.asked.length;
  await waitFor('two refreshes that asked IXFR and found the zone current', async () => {
    const current = await status(zone);
    const ixfrs = primary.asked.slice(asked).filter((a) => a.type === 'IXFR').length;
    return ixfrs >= 2 && Date.parse(current.secondary.lastSuccessAt) > since && current.secondary.state === 'IN_SYNC' ? current : undefined;
  });
  const after = await status(zone);
  expect(primary.asked.slice(asked).map((a) => a.type)).not.toContain('AXFR');
  expect(after.serial).toBe(1);
  expect(after.secondary.transfers).toBe(1);
}, 60_000);
