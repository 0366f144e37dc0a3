/**
 * What the secondaries ask one process's DNS primary, heard by the workers of the others
 * (src/services/transfers/secondary-requests-relay.ts): two processes' parts, each on a Database of its own (its
 * own pool and LISTEN connection) on one real PostgreSQL, as two processes have them.
 */
import { Database } from '../../src/db/pool';
import { hearSecondaryRequests, relaySecondaryRequests } from '../../src/services/transfers/secondary-requests-relay';
import { SecondaryRequests } from '../../src/services/transfers/secondary-requests';
import { createTestDatabase } from '../support/test-db';
import { waitFor } from '../support/wait-for';

let database: { url: string; drop(): Promise<void> };
let dnsDb: Database;
let workerDb: Database;

beforeAll(async () => {
  database = await createTestDatabase();
  dnsDb = new Database({ connectionString: database.url, poolSize: 2 });
  workerDb = new Database({ connectionString: database.url, poolSize: 2 });
});

afterAll(async () => {
  await dnsDb?.close();
  await workerDb?.close();
  await database?.drop();
});

/** every request a process's listeners hear, as `address zone key` */
function heardBy(requests: SecondaryRequests): string[] {
  const heard: string[] = [];
  requests.listen((address, zone, keyName) => heard.push(`${address} ${zone} ${keyName ?? '-'}`));
  return heard;
}

test("a worker hears what another process's primary is asked, each request once, and sees the secondaries while it listens", async () => {
  const dnsProcess = new SecondaryRequests();
  const workerProcess = new SecondaryRequests();
  const heard = heardBy(workerProcess);
  expect(workerProcess.observing).toBe(false);
  const stopRelay = relaySecondaryRequests(dnsDb, dnsProcess);
  const stopHearing = await hearSecondaryRequests(workerDb, workerProcess);
  try {
    // its LISTEN connection listens: what the secondaries ask is seen, though no primary runs here
    expect(workerProcess.observing).toBe(true);
    // as the primary tells them: a dual-stack socket's IPv4 address, names in any case, a key's final dot
    dnsProcess.note('::ffff:192.0.2.7', 'Example.COM', 'Fleet-Key.');
    dnsProcess.note('2001:db8::53', 'example.net', undefined);
    // an SOA query and its IXFR within the interval: one request
    dnsProcess.note('2001:db8::53', 'example.net', undefined);
    await waitFor('the requests to be heard', async () => (heard.length >= 2 ? true : undefined));
    // one more, in a later notification: what came before it has come
    dnsProcess.note('192.0.2.7', 'last.example', undefined);
    await waitFor('the last request to be heard', async () => (heard.includes('192.0.2.7 last.example -') ? true : undefined));
    expect(heard).toEqual(['192.0.2.7 example.com fleet-key', '2001:db8::53 example.net -', '192.0.2.7 last.example -']);

    // more than one notification holds (8,000 octets): every one arrives
    heard.length = 0;
    const zones = Array.from({ length: 1500 }, (_, i) => `zone-${i}.with-a-longer-name.example`);
    for (const zone of zones) dnsProcess.note('192.0.2.8', zone, 'fleet-key');
    await waitFor('the 1,500 requests to be heard', async () => (heard.length >= zones.length ? true : undefined));
    expect(heard).toEqual(zones.map((zone) => `192.0.2.8 ${zone} fleet-key`));
  } finally {
    stopHearing();
    await stopRelay();
  }
  expect(workerProcess.observing).toBe(false);
}, 30_000);

test('a process with both roles hears its own primary once (in the process), and the others through PostgreSQL', async () => {
  const both = new SecondaryRequests();
  const other = new SecondaryRequests();
  const probe = new SecondaryRequests();
  const heard = heardBy(both);
  const heardByProbe = heardBy(probe);
  const stops = [relaySecondaryRequests(dnsDb, both), relaySecondaryRequests(workerDb, other)];
  const stopHearing = [await hearSecondaryRequests(dnsDb, both), await hearSecondaryRequests(workerDb, probe)];
  try {
    both.note('192.0.2.1', 'own.example', undefined);
    // its notification has gone out (a third process heard it); then one of the other's, after it
    await waitFor('the own request to reach PostgreSQL', async () => (heardByProbe.includes('192.0.2.1 own.example -') ? true : undefined));
    other.note('192.0.2.1', 'other.example', undefined);
    await waitFor("the other process's request to be heard", async () => (heard.includes('192.0.2.1 other.example -') ? true : undefined));
    // its own notification came back before the other's (commit order), and was skipped
    expect(heard).toEqual(['192.0.2.1 own.example -', '192.0.2.1 other.example -']);
  } finally {
    for (const stop of stopHearing) stop();
    for (const stop of stops) await stop();
  }
}, 30_000);

test('a request heard from another process is told to the listeners, not sent on again', async () => {
  const dnsProcess = new SecondaryRequests();
  const relaying = new SecondaryRequests();
  const heard = heardBy(relaying);
  const forwarded: string[] = [];
  // `relaying` runs a primary of its own too: what it is asked goes on, what it hears does not
  relaying.forward((address, zone) => forwarded.push(`${address} ${zone}`));
  const stopRelay = relaySecondaryRequests(dnsDb, dnsProcess);
  const stopHearing = await hearSecondaryRequests(workerDb, relaying);
  try {
    dnsProcess.note('192.0.2.9', 'heard.example', undefined);
    await waitFor('the request to be heard', async () => (heard.length ? true : undefined));
    expect(heard).toEqual(['192.0.2.9 heard.example -']);
    expect(forwarded).toEqual([]);
    relaying.note('192.0.2.9', 'asked-here.example', undefined);
    expect(forwarded).toEqual(['192.0.2.9 asked-here.example']);
  } finally {
    stopHearing();
    await stopRelay();
  }
}, 30_000);
