/**
 * Secondary zones' refreshes are claimed as slots free (docs/transfers.md, «At once»), with primaries of the
 * test's own (a UDP and TCP server writing messages with the wire module, so that it can trickle a transfer):
 *
 * - one customer's primary that trickles its transfers (its SOA says there is a newer serial, then its IXFR sends
 *   a byte a second: never idle long enough to be cut, up to the transfer's 120 s) holds one of the worker's
 *   slots, not the worker: another customer's zone whose primary NOTIFYs us meanwhile takes its change within
 *   5 s (before: not until the stuck refresh ended, the worker waiting for its whole batch)
 * - the stuck refresh's lease is renewed while it lasts (`lease_until` moves forward, the same transfer still
 *   under way), so no other worker claims the zone and refreshes it a second time at once (before: the lease
 *   set at the claim, 150 s, whatever the refresh's length)
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../support/fixtures';
import { encodeMessage, FLAG, OPCODE, outgoingRecord, readWireMessage } from '../../src/dns/wire';
import { freePort, waitFor } from './knot';

const AXFR = 252;
const IXFR = 251;

let app: TestApp;
let dnsPort: number;
let userId: string;
const primaries: FakePrimary[] = [];

/**
 * A primary of one zone, no TSIG. `soaSerial` is what its SOA answers (UDP) say, `zoneSerial` what its transfers
 * hold (www A 192.0.2.<zoneSerial>); `mode`: `serve` answers AXFR and IXFR with the whole zone (IXFR in AXFR form),
 * `trickle` takes a transfer's request and sends a byte of it a second (the connection stays open: `stalled`).
 */
interface FakePrimary {
  zone: string;
  port: number;
  soaSerial: number;
  zoneSerial: number;
  mode: 'serve' | 'trickle';
  /** the transfers asked, in order ('AXFR', 'IXFR') */
  asked: string[];
  stalled: Set<net.Socket>;
  /** sends a NOTIFY for the zone to our DNS edge from 127.0.0.1 (one of the zone's primaries); answers its RCODE */
  notify(): Promise<number>;
  close(): Promise<void>;
}

async function fakePrimary(zone: string, timers: { refresh: number; retry: number; expire: number }): Promise<FakePrimary> {
  const port = await freePort();
  const soa = (serial: number) => ({
    owner: '@',
    type: 'SOA',
    ttl: 300,
    rdata: `ns1.${zone}. hostmaster.${zone}. ${serial} ${timers.refresh} ${timers.retry} ${timers.expire} 300`,
  });
  const zoneRecords = (serial: number) => [
    { owner: '@', type: 'NS', ttl: 300, rdata: `ns1.${zone}.` },
    { owner: 'ns1', type: 'A', ttl: 300, rdata: '192.0.2.53' },
    { owner: 'www', type: 'A', ttl: 300, rdata: `192.0.2.${serial}` },
  ];
  const answer = (id: number, type: number, answers: { owner: string; type: string; ttl: number; rdata: string }[]) =>
    encodeMessage({
      id,
      flags: FLAG.QR | FLAG.AA,
      questions: [{ name: zone, type, klass: 1 }],
      answers: answers.map((r) => outgoingRecord(zone, r)),
    });
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, peer) => {
    const request = readWireMessage(message);
    if (request.flags & FLAG.QR) return; // the answer to our NOTIFY: see notify()
    udp.send(answer(request.id, 6, [soa(primary.soaSerial)]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', () => resolve()));
  const trickles = new Set<NodeJS.Timeout>();
  const tcp = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.on('close', () => primary.stalled.delete(socket));
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      const request = readWireMessage(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      const type = request.questions[0].type;
      primary.asked.push(type === IXFR ? 'IXFR' : type === AXFR ? 'AXFR' : String(type));
      if (primary.mode === 'trickle') {
        // a message of 65,535 octets announced, and a byte of it a second: under the transfer's 10 s idle limit
        primary.stalled.add(socket);
        socket.write(Buffer.from([0xff, 0xff]));
        const trickle = setInterval(() => (socket.destroyed ? clearInterval(trickle) : socket.write(Buffer.alloc(1))), 1000);
        trickles.add(trickle);
        socket.on('close', () => {
          clearInterval(trickle);
          trickles.delete(trickle);
        });
        return;
      }
      const serial = primary.zoneSerial;
      const message = answer(request.id, type, [soa(serial), ...zoneRecords(serial), soa(serial)]);
      const length = Buffer.alloc(2);
      length.writeUInt16BE(message.length);
      socket.end(Buffer.concat([length, message]));
    });
  });
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', () => resolve()));
  const primary: FakePrimary = {
    zone,
    port,
    soaSerial: 1,
    zoneSerial: 1,
    mode: 'serve',
    asked: [],
    stalled: new Set(),
    async notify() {
      const socket = dgram.createSocket('udp4');
      try {
        await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
        const id = Math.floor(Math.random() * 65536);
        const message = encodeMessage({
          id,
          flags: (OPCODE.NOTIFY << 11) | FLAG.AA,
          questions: [{ name: zone, type: 6, klass: 1 }],
          answers: [outgoingRecord(zone, soa(primary.soaSerial))],
        });
        let rcode: number | undefined;
        socket.on('message', (raw) => {
          if (readWireMessage(raw).id === id) rcode = raw.readUInt16BE(2) & 0xf;
        });
        socket.send(message, dnsPort, '127.0.0.1');
        return await waitFor(`the answer to the NOTIFY for ${zone}`, () => rcode, 5000);
      } finally {
        socket.close();
      }
    },
    async close() {
      for (const trickle of trickles) clearInterval(trickle);
      for (const socket of primary.stalled) socket.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
  primaries.push(primary);
  return primary;
}

const STATUS = `query($z: String) { domain(name: $z) { serial secondary { state lastError transfers } } }`;
async function status(zone: string): Promise<any> {
  const res = await app.gql(STATUS, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}

const CREATE_SECONDARY = `mutation($u: ID!, $z: String!, $p: [ServerInput!]) {
  createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id kind } }`;
async function createSecondary(zone: string, port: number): Promise<string> {
  const created = await app.gql(CREATE_SECONDARY, { u: userId, z: zone, p: [{ address: '127.0.0.1', port }] });
  expect(created.errors).toBeUndefined();
  return created.data.createDomain.id;
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
  const aId = await createSecondary(a.zone, a.port);
  await createSecondary(b.zone, b.port);
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
    expect(await b.notify()).toBe(0); // NOERROR: taken, the zone due now
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
