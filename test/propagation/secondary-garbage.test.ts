/**
 * A LOADED secondary zone whose primary starts answering garbage in its transfers («Bad input: a
 * secondary zone's primary that answers garbage ...: a clear status, nothing lost, no 5xx"; docs/transfers.md,
 * «Secondary zones»). The primary is the test's own (test/support/fake-primary.ts, as in
 * secondary-not-served.test.ts), with REFRESH and RETRY of 1 s so that refreshes come fast.
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
import { randomBytes } from 'node:crypto';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser } from '../support/fixtures';
import { defaultRecords, FakePrimary, frame, startFakePrimary } from '../support/fake-primary';
import { dig, freePort, records, waitFor } from './knot';

const ZONE = 'garbage-loaded.zk-garbage.test';
const OTHER_ZONE = 'someone-else.zk-other.test';

/** how the primary's transfers (AXFR and IXFR alike) are answered beside `serve`: the garbage of the header comment */
type Mode = 'random-octets' | 'truncated' | 'wrong-id' | 'other-question' | 'other-zone';

let app: TestApp;
let dnsPort: number;
let userId: string;
let primary: FakePrimary<Mode>;

/**
 * The primary (test/support/fake-primary.ts): REFRESH 1 s, RETRY 1 s, EXPIRE an hour (refreshes, and their
 * retries, come every second, the zone never expires); the zone holds an MX and a TXT beside its NS and A records.
 */
function fakePrimary(zone: string): Promise<FakePrimary<Mode>> {
  return startFakePrimary<Mode>({
    zone,
    timers: { refresh: 1, retry: 1, expire: 3600 },
    records: (serial, name) => [
      ...defaultRecords(serial, name),
      { owner: 'mail', type: 'MX', ttl: 300, rdata: `10 mx${serial}.${name}.` },
      { owner: 'txt', type: 'TXT', ttl: 300, rdata: `"serial ${serial}"` },
    ],
    answer: (transfer, mode) => {
      switch (mode) {
        case 'random-octets': {
          // a length prefix and that many random octets; its header's QDCOUNT made 65535 so that it never reads
          // as a message by chance (52 octets cannot hold 65535 questions)
          const octets = randomBytes(64);
          octets.writeUInt16BE(0xffff, 4);
          transfer.socket.end(frame(octets));
          return;
        }
        case 'truncated': {
          // a valid first message (the SOA and the records, not the last SOA), then a message whose prefix
          // announces more than is sent, and the connection closed
          const first = transfer.answer([transfer.soa(), ...transfer.records()]);
          const second = frame(transfer.answer([transfer.soa()]));
          transfer.socket.end(Buffer.concat([frame(first), second.subarray(0, 2 + 7)]));
          return;
        }
        case 'wrong-id':
          transfer.send(transfer.answer(transfer.whole(), { id: (transfer.request.id + 1) % 65536 }));
          return;
        case 'other-question':
          // our zone's records under the question of another zone: the answer to another query (RFC 5936 §2.2.1)
          transfer.send(transfer.answer(transfer.whole(), { question: OTHER_ZONE }));
          return;
        case 'other-zone':
          transfer.send(transfer.answer(transfer.whole(OTHER_ZONE), { question: OTHER_ZONE }));
          return;
      }
    },
  });
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
  // the last success before the garbage began: a refresh that found serial 1 current may have ended after the
  // copy was loaded (RFC 1996's SOA check is a success too), but none may end once every answer is garbage
  let lastSuccessAt: string | undefined;
  for (const { mode, what, lastError } of cases) {
    const askedBefore = primary.asked.length;
    const garbageFrom = Date.now();
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
    if (lastSuccessAt === undefined) {
      lastSuccessAt = failed.secondary.lastSuccessAt;
      expect(Date.parse(lastSuccessAt!)).toBeGreaterThanOrEqual(Date.parse(loaded.secondary.lastSuccessAt));
      // a refresh asked before the first garbage may still have been recording its success
      expect(Date.parse(lastSuccessAt!)).toBeLessThan(garbageFrom + 1000);
    }
    expect(failed.secondary.lastSuccessAt).toBe(lastSuccessAt);
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
