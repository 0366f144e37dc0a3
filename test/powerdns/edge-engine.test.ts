/**
 * The PowerDNS HTTP API edge (docs/powerdns-api.md) writes through the same write engine as GraphQL and REST:
 * on the real service with its default settings (but for what a Knot secondary needs: the DNS
 * primary, the worker, the secondary, the fleet's TSIG key, a catalog), a PATCH of several rrsets is one
 * serial step and one journal row naming the key; Knot takes it on our NOTIFY, by IXFR; on a signed zone the
 * PATCH is signed in its step (the three verifiers the project uses pass, the new RRset has its RRSIG); a
 * user over its rate limit (the request gate) and a zone over its change rate (the write engine) get
 * PowerDNS's `{"error"}` with 429 and Retry-After, and the refused PATCHes write nothing; the history's undo
 * (`revertZone`) takes a PATCH back.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { createUser } from '../support/fixtures';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { dig, Knot, records, servedSerial, waitFor } from '../propagation/knot';

const CATALOG = 'catalog.zk-pdns-engine.test';
const KEY_NAME = 'zk-pdns-engine-key';
const SECRET = randomBytes(32).toString('base64');
const TSIG = { name: KEY_NAME, secret: SECRET };
const ZONES = '/api/v1/servers/localhost/zones';

let knot: Knot;
let app: TestApp;
let dnsPort: number;
let dir: string;
let userId: string;
let key: { id: string; secret: string };

const HISTORY = `query($z: String!) { domain(name: $z) { serial changes(first: 20) { totalCount nodes { id kind serialBefore serialAfter
  author { keyId keyName userId admin } added { owner type rdata ttl } removed { owner type rdata ttl } } } } }`;

/** the zone's serial and history, read with the admin key (which no user's rate limit binds) */
async function history(zone: string): Promise<{ serial: number; changes: { totalCount: number; nodes: any[] } }> {
  const res = await app.gql(HISTORY, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.domain;
}

/** the zone's records as sorted `owner type ttl rdata` lines, SOA aside, read with the admin key */
async function zoneRecords(zone: string): Promise<string[]> {
  const res = await app.gql(`query($z: String!) { domain(name: $z) { records { owner type rdata ttl } } }`, { z: zone });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return (res.data.domain.records as any[])
    .filter((r) => r.type !== 'SOA')
    .map((r) => `${r.owner} ${r.type} ${r.ttl} ${r.rdata}`)
    .sort();
}

/** the journal's records without the SOA, whose serial step every change holds */
const noSoa = (list: any[]) =>
  list
    .filter((r) => r.type !== 'SOA')
    .map((r) => `${r.owner} ${r.type} ${r.ttl} ${r.rdata}`)
    .sort();

async function makeKey(user: string, name: string): Promise<{ id: string; secret: string }> {
  const res = await app.gql(`mutation($u: ID!, $n: String!) { createApiKey(input: {userId: $u, name: $n}) { secret apiKey { id } } }`, {
    u: user,
    n: name,
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return { id: res.data.createApiKey.apiKey.id, secret: res.data.createApiKey.secret };
}

/** POST …/zones with the user's key: the zone with the default SOA and NS, and `rrsets` */
async function createZone(zone: string, rrsets: unknown[], secret = key.secret): Promise<number> {
  const res = await app.http
    .post(ZONES)
    .set('X-API-Key', secret)
    .send({ name: `${zone}.`, kind: 'Native', rrsets });
  expect(res.status).toBe(201);
  return res.body.serial;
}

const patch = (zone: string, rrsets: unknown[], secret = key.secret) =>
  app.http.patch(`${ZONES}/${zone}.`).set('X-API-Key', secret).set('content-type', 'application/json').send({ rrsets });

const rrset = (name: string, type: string, changetype: string, contents: string[] = [], ttl = 300) => ({
  name,
  type,
  ttl,
  changetype,
  records: contents.map((content) => ({ content, disabled: false })),
});

/** what Knot answers for a name and type: RCODE and sorted RDATA */
async function knotAnswer(name: string, type: string): Promise<{ status?: string; rdata: string[] }> {
  const result = await dig(['@127.0.0.1', '-p', String(knot.port), '+norec', name, type]);
  return {
    status: result.status,
    rdata: records(result)
      .filter((r) => r.type === type)
      .map((r) => r.rdata)
      .sort(),
  };
}

/** Knot's log lines about one zone, written after `mark` (a length of the log) */
const knotLines = (zone: string, mark: number) =>
  knot
    .log()
    .slice(mark)
    .split('\n')
    .filter((line) => line.includes(`[${zone}.]`));

const withKnotLog = async <T>(promise: Promise<T>): Promise<T> => {
  try {
    return await promise;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- knotd log (tail) ---\n${knot.log().split('\n').slice(-40).join('\n')}`, {
      cause: error,
    });
  }
};

async function knotServes(zone: string, serial: number): Promise<void> {
  await withKnotLog(
    waitFor(`Knot to serve ${zone} at serial ${serial}`, async () => ((await servedSerial(knot.port, zone)) === serial ? true : undefined)),
  );
}

/** a zone's transfer from a server (TSIG-signed from the primary) as a zone file, the closing SOA and the TSIG left out */
const transfer = async (zone: string, port: number, tsig: boolean): Promise<string> =>
  (await transferZone(port, tsig ? TSIG : undefined, zone, { expectContent: true })).text;

/** the three verifiers over a zone file; a CSK signs everything: dnssec-verify's -z (the KSK flag is not the key's role) */
const verifyAll = (zone: string, text: string, label: string): Promise<void> =>
  verifySignedZone(zone, join(dir, `${zone}-${label}.zone`), { text, csk: true });

/** the zone file's records as [owner, type, rdata], owners lower-cased and absolute */
const rows = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) => {
      const [owner, , , type, ...rest] = line.split(/\s+/);
      return { owner: owner.toLowerCase(), type, rdata: rest.join(' ') };
    });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-pdns-engine-'));
  ({ app, knot, dnsPort, userId } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: TSIG,
    user: 'edge-engine@example.org',
    // the zone's change rate, slower than the default 20 a second (the burst is the default 100): the rate test's
    // PATCHes empty the zone's bucket however slowly a loaded host writes them (over 2 a second), where at 20 a
    // second a host writing fewer than that never emptied it
    env: { ZONE_CHANGES_PER_SECOND: '2' },
  }));
  key = await makeKey(userId, 'pdns-client');
}, 60_000);

afterAll(async () => {
  await app?.close();
  await knot?.stop();
  if (dir && !process.env.KEEP) rmSync(dir, { recursive: true, force: true });
});

test('a PATCH of three rrsets is one serial step and one journal row naming the key; Knot takes it on our NOTIFY, by IXFR', async () => {
  const zone = 'notify.zk-pdns-engine.test';
  const created = await createZone(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.1']),
    rrset(`old.${zone}.`, 'A', 'REPLACE', ['192.0.2.9']),
  ]);
  // the secondary holds the zone (taken whole, a new member of the catalog) before the PATCH
  await knotServes(zone, created);
  expect((await knotAnswer(`old.${zone}`, 'A')).rdata).toEqual(['192.0.2.9']);
  const before = await history(zone);
  expect(before.serial).toBe(created);
  const mark = knot.log().length;
  const notifiesBefore = Number(
    new RegExp(`zonekeeper_notify_total\\{server="127\\.0\\.0\\.1:${knot.port}",outcome="answered"\\} (\\d+)`).exec(
      (await app.http.get('/metrics')).text,
    )?.[1] ?? 0,
  );

  const res = await patch(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.2', '192.0.2.3']),
    rrset(`new.${zone}.`, 'TXT', 'REPLACE', ['"from the edge"']),
    { name: `old.${zone}.`, type: 'A', changetype: 'DELETE' },
  ]);
  expect(res.status).toBe(204);

  // one serial step, one journal row with the whole change set, naming the key
  const after = await history(zone);
  expect(after.changes.totalCount).toBe(before.changes.totalCount + 1);
  const [row] = after.changes.nodes;
  expect(row).toMatchObject({ kind: 'zone-changed', serialBefore: created, serialAfter: after.serial });
  expect(after.serial).toBeGreaterThan(created);
  expect(row.author).toEqual({ keyId: key.id, keyName: 'pdns-client', userId, admin: false });
  expect(noSoa(row.added)).toEqual(['new TXT 300 "from the edge"', 'www A 300 192.0.2.2', 'www A 300 192.0.2.3']);
  expect(noSoa(row.removed)).toEqual(['old A 300 192.0.2.9', 'www A 300 192.0.2.1']);
  // the edge shows that serial
  expect((await app.http.get(`${ZONES}/${zone}.`).set('X-API-Key', key.secret)).body).toMatchObject({
    serial: after.serial,
    notified_serial: after.serial,
  });

  // Knot serves the change: its zone's SOA refresh is far off, so only our NOTIFY brings it this soon
  await knotServes(zone, after.serial);
  expect((await knotAnswer(`www.${zone}`, 'A')).rdata).toEqual(['192.0.2.2', '192.0.2.3']);
  expect((await knotAnswer(`new.${zone}`, 'TXT')).rdata).toEqual(['"from the edge"']);
  expect((await knotAnswer(`old.${zone}`, 'A')).status).toBe('NXDOMAIN');

  // Knot's own account: our NOTIFY reached it, and it took the step by IXFR from our primary, not AXFR
  const lines = await withKnotLog(
    waitFor('Knot to log the IXFR', async () => {
      const zoneLines = knotLines(zone, mark);
      return zoneLines.some((line) => /IXFR, incoming.*finished/.test(line)) ? zoneLines : undefined;
    }),
  );
  const why = `\n${lines.join('\n')}`;
  // our NOTIFY of the new serial, then Knot's IXFR from our primary (`serial old -> new`), not an AXFR
  const notified = lines.findIndex(
    (line) => line.includes('notify, incoming, remote 127.0.0.1@') && line.endsWith(`serial ${after.serial}`),
  );
  const ixfr = lines.findIndex((line) => line.includes(`IXFR, incoming, remote 127.0.0.1@${dnsPort}, started`));
  // (the IXFR follows a NOTIFY of ours: this one, or a late one of the zone's creation that found the new serial)
  const firstNotify = lines.findIndex((line) => line.includes('notify, incoming, remote 127.0.0.1@'));
  expect({ notified: notified >= 0, ixfrAfterNotify: ixfr > firstNotify && firstNotify >= 0, why }).toEqual({
    notified: true,
    ixfrAfterNotify: true,
    why,
  });
  expect({
    updated: lines.some((line) => line.includes(`zone updated`) && line.includes(`serial ${created} -> ${after.serial}`)),
    why,
  }).toEqual({
    updated: true,
    why,
  });
  // one step: no NOTIFY names a serial between the two (a late NOTIFY of the zone's creation may still come)
  const notifiedSerials = lines.filter((line) => line.includes('notify, incoming')).map((line) => Number(/serial (\d+)/.exec(line)?.[1]));
  expect({ serials: [...new Set(notifiedSerials)].filter((serial) => serial !== created), why }).toEqual({ serials: [after.serial], why });
  expect(lines.filter((line) => /AXFR, incoming|fallback to AXFR|failed|error/i.test(line))).toEqual([]);
  // and our worker counts the NOTIFY Knot answered
  const notifiesAfter = Number(
    new RegExp(`zonekeeper_notify_total\\{server="127\\.0\\.0\\.1:${knot.port}",outcome="answered"\\} (\\d+)`).exec(
      (await app.http.get('/metrics')).text,
    )?.[1] ?? 0,
  );
  expect(notifiesAfter).toBeGreaterThan(notifiesBefore);
}, 30_000);

test('a PATCH of a zone signed through the cryptokeys POST is signed in its step: the three verifiers pass, the new RRset has its RRSIG', async () => {
  const zone = 'signed.zk-pdns-engine.test';
  const created = await createZone(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.1']),
    rrset(`old.${zone}.`, 'TXT', 'REPLACE', ['"old"']),
  ]);
  await knotServes(zone, created);
  // DNSControl's AUTODNSSEC, PowerDNS-Admin's DNSSEC button
  const csk = await app.http
    .post(`${ZONES}/${zone}./cryptokeys`)
    .set('X-API-Key', key.secret)
    .send({ keytype: 'csk', active: true, published: true, algorithm: 'ECDSAP256SHA256' });
  expect(csk.status).toBe(201);
  expect((await app.http.get(`${ZONES}/${zone}.`).set('X-API-Key', key.secret)).body.dnssec).toBe(true);
  const signedSerial = (await history(zone)).serial;
  const before = (await history(zone)).changes.totalCount;
  const mark = knot.log().length;

  const res = await patch(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.2']),
    rrset(`new.deep.${zone}.`, 'A', 'REPLACE', ['192.0.2.7']),
    rrset(`_acme-challenge.${zone}.`, 'TXT', 'REPLACE', ['"token"'], 120),
    { name: `old.${zone}.`, type: 'TXT', changetype: 'DELETE' },
  ]);
  expect(res.status).toBe(204);
  const after = await history(zone);
  // one user change (signature-only steps stay out of the history), the key named
  expect(after.changes.totalCount).toBe(before + 1);
  expect(after.changes.nodes[0]).toMatchObject({ kind: 'zone-changed', serialBefore: signedSerial, serialAfter: after.serial });
  expect(after.changes.nodes[0].author).toMatchObject({ keyId: key.id, admin: false });

  // the primary's copy at the new serial
  const primary = await transfer(zone, dnsPort, true);
  const served = rows(primary);
  expect(Number(served[0].rdata.split(' ')[2])).toBe(after.serial);
  await verifyAll(zone, primary, 'primary');
  const signatures = (owner: string) =>
    served
      .filter((r) => r.owner === `${owner}.${zone}.` && r.type === 'RRSIG')
      .map((r) => r.rdata.split(' ')[0])
      .sort();
  // each new or changed RRset is signed; the NSEC chain reaches the new names
  expect(signatures('new.deep')).toEqual(['A', 'NSEC']);
  expect(signatures('_acme-challenge')).toEqual(['NSEC', 'TXT']);
  expect(signatures('www')).toEqual(['A', 'NSEC']);
  expect(served.filter((r) => r.owner === `www.${zone}.` && r.type === 'A').map((r) => r.rdata)).toEqual(['192.0.2.2']);
  // acme.sh's 120 is kept as sent (ALLOWED_TTLS_BEYOND_REST takes any TTL by default), and that is the TTL signed
  // (the RRSIG's original TTL)
  expect(primary).toMatch(new RegExp(`^_acme-challenge\\.${zone.replace(/\./g, '\\.')}\\.\\s+120\\s+IN\\s+TXT`, 'm'));
  expect(
    served.filter((r) => r.owner === `_acme-challenge.${zone}.` && r.rdata.startsWith('TXT ')).map((r) => r.rdata.split(' ')[3]),
  ).toEqual(['120']);
  // the deleted RRset is gone with its signatures and its NSEC
  expect(served.filter((r) => r.owner === `old.${zone}.`)).toEqual([]);

  // Knot takes the signed step by IXFR, and its copy verifies too and is the same zone
  await knotServes(zone, after.serial);
  const lines = await withKnotLog(
    waitFor('Knot to log the IXFR', async () => {
      const zoneLines = knotLines(zone, mark);
      return zoneLines.some((line) => line.includes('zone updated') && line.includes(`-> ${after.serial},`)) ? zoneLines : undefined;
    }),
  );
  expect(lines.some((line) => line.includes(`IXFR, incoming, remote 127.0.0.1@${dnsPort}, finished`))).toBe(true);
  expect(lines.filter((line) => /AXFR, incoming|fallback to AXFR|failed|error/i.test(line))).toEqual([]);
  const secondary = await transfer(zone, knot.port, false);
  await verifyAll(zone, secondary, 'knot');
  const sorted = (text: string) =>
    rows(text)
      .map((r) => `${r.owner} ${r.type} ${r.rdata}`)
      .sort();
  expect(sorted(secondary)).toEqual(sorted(primary));
}, 40_000);

test('over its rate limit a user gets 429 {"error"} with Retry-After, and the refused PATCHes write nothing', async () => {
  const zone = 'rate.zk-pdns-engine.test';
  const limited = await createUser(app, 'edge-rate@example.org');
  const limitedKey = await makeKey(limited, 'rate-client');
  await createZone(zone, [], limitedKey.secret);
  // 2 requests at once, 1 a second, for this user only
  const set = await app.gql(
    `mutation($id: ID!, $input: UserLimitsInput!) { setUserLimits(id: $id, input: $input) { effective { ratePerSecond rateBurst } } }`,
    { id: limited, input: { ratePerSecond: 1, rateBurst: 2 } },
  );
  expect(set.errors).toBeUndefined();
  expect(set.data.setUserLimits.effective).toEqual({ ratePerSecond: 1, rateBurst: 2 });
  const add = (owner: string, address: string) => patch(zone, [rrset(`${owner}.${zone}.`, 'A', 'REPLACE', [address])], limitedKey.secret);
  const snapshot = async () => ({ serial: (await history(zone)).serial, records: await zoneRecords(zone) });
  /** a full bucket: it refills a token a second */
  const refill = () => new Promise((resolve) => setTimeout(resolve, 2100));
  const expectRefusal = (answer: Awaited<ReturnType<typeof add>>) => {
    expect(answer.status).toBe(429);
    // PowerDNS's error shape, with when to come back and where the user stands
    expect(answer.body).toEqual({ error: expect.stringMatching(/^too many requests for this user; try again in \d+ s$/) });
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
    expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(answer.headers['ratelimit-policy']).toContain('"user";q=2;w=2');
  };

  // the bucket emptied by two reads, then a PATCH: refused, serial and records as they were. A token comes
  // back a second after the reads: on a loaded machine the PATCH may find it, and is then sent again
  let lone!: Awaited<ReturnType<typeof add>>;
  let state!: Awaited<ReturnType<typeof snapshot>>;
  for (let attempt = 0; attempt < 3; attempt++) {
    await refill();
    state = await snapshot();
    for (let i = 0; i < 2; i++) await app.http.get('/api/v1/servers/localhost').set('X-API-Key', limitedKey.secret);
    lone = await add(`lone${attempt}`, '192.0.2.99');
    if (lone.status !== 204) break;
  }
  expectRefusal(lone);
  expect(await snapshot()).toEqual(state);

  // five PATCHes at once on a full bucket, each adding its own record: the bucket holds two
  await refill();
  const before = await history(zone);
  const recordsBefore = await zoneRecords(zone);
  const answers = await Promise.all([0, 1, 2, 3, 4].map((i) => add(`h${i}`, `192.0.2.${i + 1}`)));
  const statuses = answers.map((a) => a.status);
  expect(statuses.every((s) => s === 204 || s === 429)).toBe(true);
  const served = [0, 1, 2, 3, 4].filter((i) => statuses[i] === 204);
  const refused = [0, 1, 2, 3, 4].filter((i) => statuses[i] === 429);
  // two tokens, and at most one more refilled while the five arrived
  expect(served.length).toBeGreaterThanOrEqual(2);
  expect(served.length).toBeLessThanOrEqual(3);
  for (const i of refused) expectRefusal(answers[i]);
  // what was served is one step each, by the key; what was refused is nowhere: not in the records, not in the journal
  const after = await history(zone);
  expect(after.changes.totalCount).toBe(before.changes.totalCount + served.length);
  const steps = after.changes.nodes.slice(0, served.length);
  expect(steps.every((row) => row.author.keyId === limitedKey.id)).toBe(true);
  expect(steps[served.length - 1].serialBefore).toBe(before.serial);
  expect(steps[0].serialAfter).toBe(after.serial);
  const servedRecords = served.map((i) => `h${i} A 300 192.0.2.${i + 1}`);
  expect(steps.flatMap((row) => noSoa(row.added)).sort()).toEqual(servedRecords.sort());
  expect(await zoneRecords(zone)).toEqual([...recordsBefore, ...servedRecords].sort());

  // after Retry-After, the PATCH refused first is served
  await new Promise((resolve) => setTimeout(resolve, 1000 * Number(answers[refused[0]].headers['retry-after']) + 100));
  expect((await add('lone', '192.0.2.99')).status).toBe(204);
  expect(await zoneRecords(zone)).toContain('lone A 300 192.0.2.99');
}, 40_000);

test("the history's undo (revertZone) takes a PATCH back as a new change; the PATCH's journal row names the key", async () => {
  const zone = 'undo.zk-pdns-engine.test';
  await createZone(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.1'], 3600),
    rrset(`mail.${zone}.`, 'MX', 'REPLACE', ['10 mx.example.net.']),
  ]);
  const before = await history(zone);
  const recordsBefore = await zoneRecords(zone);
  const rrsetsOf = async () =>
    ((await app.http.get(`${ZONES}/${zone}.`).set('X-API-Key', key.secret)).body.rrsets as any[])
      .filter((r) => r.type !== 'SOA')
      .map((r) => `${r.name} ${r.type} ${r.ttl} ${r.records.map((x: any) => x.content).join('|')}`)
      .sort();
  const edgeBefore = await rrsetsOf();

  const res = await patch(zone, [
    rrset(`www.${zone}.`, 'A', 'REPLACE', ['192.0.2.50'], 300),
    rrset(`mail.${zone}.`, 'MX', 'REPLACE', []),
    rrset(`added.${zone}.`, 'AAAA', 'REPLACE', ['2001:db8::1']),
  ]);
  expect(res.status).toBe(204);
  const patched = await history(zone);
  const [row] = patched.changes.nodes;
  expect(row).toMatchObject({ kind: 'zone-changed', serialBefore: before.serial, serialAfter: patched.serial });
  expect(row.author).toEqual({ keyId: key.id, keyName: 'pdns-client', userId, admin: false });
  expect(noSoa(row.added)).toEqual(['added AAAA 300 2001:db8::1', 'www A 300 192.0.2.50']);
  expect(noSoa(row.removed)).toEqual(['mail MX 300 10 mx.example.net.', 'www A 3600 192.0.2.1']);
  // the REST history lists the same row
  const rest = await app.http.get(`/api/domain/changes/${zone}`).set('X-API-Key', key.secret);
  expect(rest.status).toBe(200);
  expect(rest.body[0].id).toBe(row.id);

  // the undo, by the same user (its own key), from the serial the PATCH made
  const revert = await app.gql(
    `mutation($z: String!, $t: Serial!, $e: Serial) { revertZone(zone: $z, toSerial: $t, expectSerial: $e) { serial } }`,
    { z: zone, t: before.serial, e: patched.serial },
    key.secret,
  );
  expect(revert.errors).toBeUndefined();
  const reverted = await history(zone);
  expect(revert.data.revertZone.serial).toBe(reverted.serial);
  expect(reverted.serial).toBeGreaterThan(patched.serial);
  expect(await zoneRecords(zone)).toEqual(recordsBefore);
  expect(await rrsetsOf()).toEqual(edgeBefore);
  // the undo is a change of its own, the PATCH's inverse, by the key that asked for it; the PATCH's row stays
  expect(reverted.changes.totalCount).toBe(patched.changes.totalCount + 1);
  const [undo, patchRow] = reverted.changes.nodes;
  expect(undo).toMatchObject({ serialBefore: patched.serial, serialAfter: reverted.serial });
  expect(undo.author).toMatchObject({ keyId: key.id, admin: false });
  expect(noSoa(undo.added)).toEqual(noSoa(row.removed));
  expect(noSoa(undo.removed)).toEqual(noSoa(row.added));
  expect(patchRow.id).toBe(row.id);
  // and the secondary follows the undo
  await knotServes(zone, reverted.serial);
  expect((await knotAnswer(`www.${zone}`, 'A')).rdata).toEqual(['192.0.2.1']);
  expect((await knotAnswer(`added.${zone}`, 'AAAA')).status).toBe('NXDOMAIN');
}, 30_000);

test('over the zone\'s change rate (the write engine\'s limit, ZONE_CHANGES_PER_SECOND: here 2 a second, 100 at once) a PATCH is 429 {"error"} with Retry-After, and writes nothing', async () => {
  const zone = 'zone-rate.zk-pdns-engine.test';
  const busy = await createUser(app, 'edge-zone-rate@example.org');
  const busyKey = await makeKey(busy, 'busy-client');
  await createZone(zone, [], busyKey.secret);
  const before = await history(zone);
  const recordsBefore = await zoneRecords(zone);
  // batches of PATCHes at once (within the user's queue of 100 and bucket of 500), until the zone's bucket is empty
  const answers: { owner: string; status: number; body: any; retryAfter?: string }[] = [];
  for (let batch = 0; batch < 8 && !answers.some((a) => a.status === 429); batch++) {
    const owners = Array.from({ length: 50 }, (_, i) => `b${batch}-${i}`);
    const results = await Promise.all(
      owners.map((owner) => patch(zone, [rrset(`${owner}.${zone}.`, 'A', 'REPLACE', ['192.0.2.8'])], busyKey.secret)),
    );
    results.forEach((res, i) =>
      answers.push({ owner: owners[i], status: res.status, body: res.body, retryAfter: res.headers['retry-after'] }),
    );
  }
  const served = answers.filter((a) => a.status === 204);
  const refused = answers.filter((a) => a.status === 429);
  expect(answers.filter((a) => a.status !== 204 && a.status !== 429)).toEqual([]);
  expect(refused.length).toBeGreaterThan(0);
  // at least the zone's burst was served before the first refusal
  expect(served.length).toBeGreaterThanOrEqual(100);
  for (const answer of refused) {
    expect(answer.body).toEqual({ error: expect.stringMatching(/^too many changes for this zone; try again in \d+ s$/) });
    expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1);
  }
  // each served PATCH one step by the key; the refused ones nowhere
  const after = await app.gql(`query($z: String!) { domain(name: $z) { serial changes(first: 1) { totalCount } } }`, { z: zone });
  expect(after.data.domain.changes.totalCount).toBe(before.changes.totalCount + served.length);
  const ownersNow = new Set((await zoneRecords(zone)).map((line) => line.split(' ')[0]));
  expect(refused.filter((a) => ownersNow.has(a.owner)).map((a) => a.owner)).toEqual([]);
  expect(served.filter((a) => !ownersNow.has(a.owner)).map((a) => a.owner)).toEqual([]);
  expect((await zoneRecords(zone)).length).toBe(recordsBefore.length + served.length);
}, 40_000);
