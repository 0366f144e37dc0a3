/**
 * A LOADED secondary zone whose primary starts answering garbage in its transfers (issue #41, «Bad input: a
 * secondary zone's primary that answers garbage ...: a clear status, nothing lost, no 5xx"; docs/transfers.md,
 * «Secondary zones»). The primary is the test's own (a UDP and TCP server writing messages with the wire module,
 * as in secondary-not-served.test.ts), with REFRESH and RETRY of 1 s so that refreshes come fast.
 *
 * The zone takes serial 1 and is IN_SYNC; then the primary's SOA says serial 2 while its transfers (the IXFR, and
 * the AXFR the worker falls back to) send:
 *
 * - (a) a TCP length prefix followed by random octets
 * - (b) a valid first message (the SOA and some records), then a message cut short and the connection closed
 * - (c) a whole zone under another message ID, and a whole zone of another zone (the right ID)
 *
 * After each: the zone is RETRYING with a lastError naming the primary and what it did wrong; the copy served is
 * unchanged (our DNS edge answers serial 1 and its records, GraphQL and REST list them); the API's reads answer
 * 200 meanwhile; the history has no new row. Finally the primary answers properly: serial 2, IN_SYNC, one new row.
 * (Garbage on UDP for a zone never loaded: secondary-zones.test.ts; garbage mid-AXFR on axfr() alone:
 * transfer-in.test.ts.)
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../support/fixtures';
import { encodeMessage, FLAG, outgoingRecord, readWireMessage } from '../../src/dns/wire';
import { dig, freePort, records, waitFor } from './knot';

const ZONE = 'garbage-loaded.zk-garbage.test';
const OTHER_ZONE = 'someone-else.zk-other.test';
const AXFR = 252;
const IXFR = 251;

type Mode = 'serve' | 'random-octets' | 'truncated' | 'wrong-id' | 'other-question' | 'other-zone';

let app: TestApp;
let dnsPort: number;
let userId: string;
let primary: FakePrimary;

/**
 * A primary of one zone, no TSIG. `soaSerial` is what its SOA answers (UDP) say, `zoneSerial` what its transfers
 * hold (www A 192.0.2.<zoneSerial>); `mode` how its transfers (AXFR and IXFR alike, IXFR answered in AXFR form)
 * are answered: `serve` properly, the others with the garbage of the header comment.
 */
interface FakePrimary {
  port: number;
  soaSerial: number;
  zoneSerial: number;
  mode: Mode;
  /** the transfers asked, with the mode they were answered in */
  asked: { type: string; mode: Mode }[];
  close(): Promise<void>;
}

type Rr = { owner: string; type: string; ttl: number; rdata: string };

async function fakePrimary(zone: string): Promise<FakePrimary> {
  const port = await freePort();
  const soa = (name: string, serial: number): Rr => ({
    owner: '@',
    type: 'SOA',
    ttl: 300,
    // REFRESH 1 s, RETRY 1 s, EXPIRE an hour: refreshes (and their retries) come every second, the zone never expires
    rdata: `ns1.${name}. hostmaster.${name}. ${serial} 1 1 3600 300`,
  });
  const zoneRecords = (name: string, serial: number): Rr[] => [
    { owner: '@', type: 'NS', ttl: 300, rdata: `ns1.${name}.` },
    { owner: 'ns1', type: 'A', ttl: 300, rdata: '192.0.2.53' },
    { owner: 'www', type: 'A', ttl: 300, rdata: `192.0.2.${serial}` },
    { owner: 'mail', type: 'MX', ttl: 300, rdata: `10 mx${serial}.${name}.` },
    { owner: 'txt', type: 'TXT', ttl: 300, rdata: `"serial ${serial}"` },
  ];
  const answer = (id: number, type: number, name: string, answers: Rr[], question = name) =>
    encodeMessage({
      id,
      flags: FLAG.QR | FLAG.AA,
      questions: [{ name: question, type, klass: 1 }],
      answers: answers.map((r) => outgoingRecord(name, r)),
    });
  const framed = (message: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    return Buffer.concat([length, message]);
  };
  const udp = dgram.createSocket('udp4');
  udp.on('message', (message, peer) => {
    const request = readWireMessage(message);
    udp.send(answer(request.id, 6, zone, [soa(zone, primary.soaSerial)]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => udp.bind(port, '127.0.0.1', () => resolve()));
  const tcp = net.createServer((socket) => {
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let answered = false;
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (answered || buffered.length < 2 || buffered.length < 2 + buffered.readUInt16BE(0)) return;
      answered = true;
      const request = readWireMessage(buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
      const type = request.questions[0].type;
      const mode = primary.mode;
      primary.asked.push({ type: type === IXFR ? 'IXFR' : type === AXFR ? 'AXFR' : String(type), mode });
      const serial = primary.zoneSerial;
      const whole = (id: number, name: string) =>
        answer(id, type, name, [soa(name, serial), ...zoneRecords(name, serial), soa(name, serial)]);
      switch (mode) {
        case 'serve':
          socket.end(framed(whole(request.id, zone)));
          return;
        case 'random-octets': {
          // a length prefix and that many random octets; its header's QDCOUNT made 65535 so that it never reads
          // as a message by chance (52 octets cannot hold 65535 questions)
          const octets = randomBytes(64);
          octets.writeUInt16BE(0xffff, 4);
          socket.end(framed(octets));
          return;
        }
        case 'truncated': {
          // a valid first message (the SOA and the records, not the last SOA), then a message whose prefix
          // announces more than is sent, and the connection closed
          const first = answer(request.id, type, zone, [soa(zone, serial), ...zoneRecords(zone, serial)]);
          const second = framed(answer(request.id, type, zone, [soa(zone, serial)]));
          socket.end(Buffer.concat([framed(first), second.subarray(0, 2 + 7)]));
          return;
        }
        case 'wrong-id':
          socket.end(framed(whole((request.id + 1) % 65536, zone)));
          return;
        case 'other-question':
          // our zone's records under the question of another zone: the answer to another query (RFC 5936 §2.2.1)
          socket.end(
            framed(answer(request.id, type, zone, [soa(zone, serial), ...zoneRecords(zone, serial), soa(zone, serial)], OTHER_ZONE)),
          );
          return;
        case 'other-zone':
          socket.end(framed(whole(request.id, OTHER_ZONE)));
          return;
      }
    });
  });
  await new Promise<void>((resolve) => tcp.listen(port, '127.0.0.1', () => resolve()));
  const primary: FakePrimary = {
    port,
    soaSerial: 1,
    zoneSerial: 1,
    mode: 'serve',
    asked: [],
    async close() {
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
      await new Promise<void>((resolve) => udp.close(() => resolve()));
    },
  };
  return primary;
}

const STATUS = `query($z: String) { domain(name: $z) {
  serial
  records { owner type rdata }
  changes(first: 10) { totalCount nodes { serialAfter author { keyName } } }
  secondary { state lastError transfers lastSuccessAt } } }`;
async function status(): Promise<any> {
  const res = await app.gql(STATUS, { z: ZONE });
  // no 5xx, no error, whatever the primary does
  expect(res.status).toBe(200);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}

const sortedRecords = (domain: any): string[] =>
  domain.records
    .filter((r: any) => r.type !== 'SOA')
    .map((r: any) => `${r.owner} ${r.type} ${r.rdata}`)
    .sort();

/** what our DNS edge serves of the zone: the SOA's serial and the RRsets asked */
async function served(): Promise<{ serial: number | undefined; www: string[]; mx: string[]; txt: string[] }> {
  const soa = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', ZONE, 'SOA']);
  expect(soa.status).toBe('NOERROR');
  const rdata = async (name: string, type: string) => {
    const result = await dig(['@127.0.0.1', '-p', String(dnsPort), '+norec', name, type]);
    expect(result.status).toBe('NOERROR');
    return records(result)
      .filter((r) => r.type === type && r.name === `${name}.`)
      .map((r) => r.rdata)
      .sort();
  };
  const soaRecord = records(soa).find((r) => r.type === 'SOA');
  return {
    serial: soaRecord ? Number(soaRecord.rdata.split(/\s+/)[2]) : undefined,
    www: await rdata(`www.${ZONE}`, 'A'),
    mx: await rdata(`mail.${ZONE}`, 'MX'),
    txt: await rdata(`txt.${ZONE}`, 'TXT'),
  };
}

/** the API's reads of the zone, GraphQL aside (status()): REST's domain and its changes, and the domain list */
async function restReads(): Promise<{ domain: any; changes: any[] }> {
  const auth = { 'X-API-Key': ADMIN_KEY };
  const domain = await app.http.get(`/api/domain/list/zone/${ZONE}`).set(auth);
  const changes = await app.http.get(`/api/domain/changes/${ZONE}`).set(auth);
  const list = await app.http.get('/api/domain/list').set(auth);
  expect([domain.status, changes.status, list.status]).toEqual([200, 200, 200]);
  return { domain: domain.body, changes: changes.body };
}

beforeAll(async () => {
  dnsPort = await freePort();
  app = await startTestApp({ ROLES: 'api,dns,worker', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'customer@zk-garbage.test');
  primary = await fakePrimary(ZONE);
}, 60_000);

afterAll(async () => {
  await primary?.close();
  await app?.close();
});

test('a loaded secondary zone whose primary sends garbage in its transfers: RETRYING with the reason, nothing lost, no 5xx; then serial 2', async () => {
  const started = Date.now();
  // (1) the zone takes serial 1 and is IN_SYNC
  const created = await app.gql(
    `mutation($u: ID!, $z: String!, $p: [ServerInput!]) { createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id kind } }`,
    { u: userId, z: ZONE, p: [{ address: '127.0.0.1', port: primary.port }] },
  );
  expect(created.errors).toBeUndefined();
  expect(created.data.createDomain.kind).toBe('SECONDARY');
  const loaded = await waitFor('the zone IN_SYNC at serial 1', async () => {
    const current = await status();
    return current.secondary.state === 'IN_SYNC' && current.serial === 1 ? current : undefined;
  });
  const servedAt1 = {
    serial: 1,
    www: ['192.0.2.1'],
    mx: [`10 mx1.${ZONE}.`],
    txt: ['"serial 1"'],
  };
  const recordsAt1 = [`@ NS ns1.${ZONE}.`, `mail MX 10 mx1.${ZONE}.`, 'ns1 A 192.0.2.53', 'txt TXT "serial 1"', 'www A 192.0.2.1'].sort();
  expect(sortedRecords(loaded)).toEqual(recordsAt1);
  expect(loaded.secondary).toMatchObject({ lastError: null, transfers: 1 });
  await waitFor('our DNS edge to serve serial 1', async () => ((await served()).serial === 1 ? true : undefined));
  expect(await served()).toEqual(servedAt1);
  const historyAt1 = loaded.changes.totalCount;
  expect(historyAt1).toBeGreaterThanOrEqual(1);
  expect(loaded.changes.nodes[0]).toMatchObject({ serialAfter: 1, author: { keyName: `transfer from 127.0.0.1#${primary.port} (AXFR)` } });
  const restAt1 = await restReads();

  // (2) the SOA says serial 2; the transfers send garbage, one kind after the other
  const from = `127.0.0.1:${primary.port}`;
  const cases: { mode: Mode; what: string; lastError: RegExp }[] = [
    { mode: 'random-octets', what: '(a) a length prefix and random octets', lastError: new RegExp(`^${from} sent a malformed message: `) },
    {
      mode: 'truncated',
      what: '(b) a valid first message, then one cut short and the connection closed',
      lastError: new RegExp(`^${from} closed the connection before the transfer's last SOA$`),
    },
    {
      mode: 'wrong-id',
      what: '(c) a whole zone under another message ID',
      lastError: new RegExp(`^${from} answered with another message ID$`),
    },
    {
      mode: 'other-question',
      what: '(c) our zone under the question of another zone',
      lastError: new RegExp(`^${from} answered a question for ${OTHER_ZONE.replace(/\./g, '\\.')}\\., not ${ZONE.replace(/\./g, '\\.')}$`),
    },
    {
      mode: 'other-zone',
      what: '(c) a whole zone of another zone',
      lastError: new RegExp(`^${from} answered a question for ${OTHER_ZONE.replace(/\./g, '\\.')}\\., not ${ZONE.replace(/\./g, '\\.')}$`),
    },
  ];
  primary.zoneSerial = 2;
  const askedAt1 = primary.asked.length;
  for (const { mode, what, lastError } of cases) {
    const askedBefore = primary.asked.length;
    primary.mode = mode;
    primary.soaSerial = 2;
    const failed = await waitFor(`${what}: RETRYING with its reason`, async () => {
      const current = await status();
      // API reads meanwhile: 200, the copy as it was
      const rest = await restReads();
      expect(rest.domain).toEqual(restAt1.domain);
      expect(rest.changes).toEqual(restAt1.changes);
      const askedInMode = primary.asked.slice(askedBefore).filter((a) => a.mode === mode);
      // the worker's own fall-back: the IXFR fails, then the AXFR; lastError is the AXFR's
      const both = askedInMode.some((a) => a.type === 'IXFR') && askedInMode.some((a) => a.type === 'AXFR');
      return both && current.secondary.state === 'RETRYING' && lastError.test(current.secondary.lastError ?? '') ? current : undefined;
    });
    console.log(`${what}: lastError = ${JSON.stringify(failed.secondary.lastError)}`);
    expect(failed.secondary.lastError).toContain(from);
    // nothing lost: the copy, its serial and its history as they were
    expect(failed.serial).toBe(1);
    expect(sortedRecords(failed)).toEqual(recordsAt1);
    expect(failed.changes.totalCount).toBe(historyAt1);
    expect(failed.changes.nodes).toEqual(loaded.changes.nodes);
    expect(failed.secondary.transfers).toBe(1);
    expect(failed.secondary.lastSuccessAt).toBe(loaded.secondary.lastSuccessAt);
    expect(await served()).toEqual(servedAt1);
  }
  // every transfer asked meanwhile was answered with garbage: the serial 1 kept is not a transfer that never came
  expect(primary.asked.slice(askedAt1).every((a) => a.mode !== 'serve')).toBe(true);

  // (3) the primary answers properly again: serial 2, IN_SYNC, one new row in the history
  primary.mode = 'serve';
  const synced = await waitFor('the zone IN_SYNC at serial 2', async () => {
    const current = await status();
    return current.secondary.state === 'IN_SYNC' && current.serial === 2 ? current : undefined;
  });
  expect(synced.secondary).toMatchObject({ lastError: null, transfers: 2 });
  expect(sortedRecords(synced)).toEqual(
    [`@ NS ns1.${ZONE}.`, `mail MX 10 mx2.${ZONE}.`, 'ns1 A 192.0.2.53', 'txt TXT "serial 2"', 'www A 192.0.2.2'].sort(),
  );
  expect(synced.changes.totalCount).toBe(historyAt1 + 1);
  // the IXFR is answered in AXFR form by this primary: taken whole
  expect(synced.changes.nodes[0]).toMatchObject({
    serialAfter: 2,
    author: { keyName: `transfer from 127.0.0.1#${primary.port} (IXFR, whole)` },
  });
  await waitFor('our DNS edge to serve serial 2', async () => ((await served()).serial === 2 ? true : undefined));
  expect(await served()).toEqual({ serial: 2, www: ['192.0.2.2'], mx: [`10 mx2.${ZONE}.`], txt: ['"serial 2"'] });
  console.log(`secondary-garbage: ${Date.now() - started} ms from createDomain to serial 2`);
}, 60_000);
