/**
 * A zone's status at a secondary follows what the secondary asks for (worker/duties/status-checks.ts): a server
 * that lagged long has its next check of the zone minutes away (a backed-off schedule), so a zone it has since taken
 * was shown behind until then. When the secondary asks the primary for the zone (its refresh: an SOA query, then a
 * transfer), that check is brought forward to a second later, and the checks after it come seconds apart again (a
 * secondary may serve what it took only at its next load of its zones). Here the secondary is the test itself at 127.0.0.1,
 * where SECONDARIES names a port nothing answers on: the check that follows the question is seen by its attempt.
 */
import { createUser } from '../support/fixtures';
import { startTestApp, TestApp } from '../support/test-app';
import { dig, freePort, sleep, waitFor } from './knot';

let app: TestApp;
let dnsPort: number;
let secondary: string;
const db = () => app.service.database.db;

beforeAll(async () => {
  [dnsPort, secondary] = await Promise.all([freePort(), freePort().then((port) => `127.0.0.1:${port}`)]);
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}`, SECONDARIES: secondary });
  const userId = await createUser(app, 'status-follows@example.com');
  for (const zone of ['asked.status-follows.test', 'unasked.status-follows.test']) {
    const made = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: userId,
      z: zone,
    });
    expect(made.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  await app?.close();
});

/** the zone's status row at the secondary: its attempts and how long until its next check, in seconds */
async function statusOf(zone: string): Promise<{ attempts: number; dueIn: number } | undefined> {
  const [row] = await db().rows<{ attempts: number; due_in: number }>(
    `select s.attempts, extract(epoch from s.next_check_at - now())::float8 as due_in
       from zone_server_status s join domains d on d.id = s.domain_id where d.name = $1 and s.server = $2`,
    [zone, secondary],
  );
  return row && { attempts: row.attempts, dueIn: row.due_in };
}

test('a zone the secondary asks for is checked there within seconds, not at its backed-off time', async () => {
  const zones = ['asked.status-follows.test', 'unasked.status-follows.test'];
  for (const zone of zones) await waitFor(`${zone}'s status row`, () => statusOf(zone), 20_000);
  // both lagged long: their next checks an hour away, as a backed-off schedule leaves them (set again until no
  // check that was under way, a second at most against a port that answers nothing, wrote over it)
  await waitFor(
    "both zones' next checks an hour away",
    async () => {
      await db().rows(
        `update zone_server_status s set attempts = 25, next_check_at = now() + interval '1 hour'
           from domains d where d.id = s.domain_id and d.name = any($1::text[])`,
        [zones],
      );
      await sleep(1500);
      const both = await Promise.all(zones.map(statusOf));
      return both.every((status) => status?.attempts === 25 && status.dueIn > 3000) ? true : undefined;
    },
    30_000,
  );
  // the secondary's refresh of one of them: its SOA query, from 127.0.0.1
  expect((await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', zones[0], 'SOA'])).status).toBe('NOERROR');
  const checked = await waitFor(
    `${zones[0]} checked again`,
    async () => {
      const status = await statusOf(zones[0]);
      return status && status.attempts >= 13 && status.attempts < 25 ? status : undefined;
    },
    15_000,
  );
  // nothing answers there: the check failed; the ask brought its attempts back to 12, so the checks after it come
  // seconds apart (410 ms, 655 ms, 1 s, ...), not at the backed-off time an hour away
  expect(checked.attempts).toBeLessThanOrEqual(15);
  expect(checked.dueIn).toBeLessThan(3);
  // the zone not asked for keeps its schedule
  const unasked = await statusOf(zones[1]);
  expect(unasked!.attempts).toBe(25);
  expect(unasked!.dueIn).toBeGreaterThan(3000);
}, 60_000);
