/**
 * Key rollovers with accelerated timings (TTLs of 2 s, a propagation delay of 2 s; RFC 7583): a ZSK roll by
 * pre-publication and a KSK roll by double-DS of a zone whose parent is a Zonekeeper zone too. While each
 * roll runs, every serial the primary serves is transferred and must pass dnssec-verify, the parent's DS
 * RRset must always hold the DS of a key in the child's DNSKEY RRset, and a validating Unbound anchored at
 * the parent's DS asks the child through a Knot secondary every 100 ms: not one answer may be SERVFAIL or
 * lack AD (the chain of trust never breaks). The parent's DS follows by itself: both DS during the KSK roll,
 * the new one alone at its end.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { Knot, servedSerial } from '../propagation/knot';
import { waitFor } from '../support/wait-for';
import { startUnbound, Unbound } from '../support/unbound';
import { pollValidator, transferZone, verifySignedZone } from '../support/signed-zone-checks';

const run = promisify(execFile);
const PARENT = 'roll.zk-signed.test';
const CHILD = `child.${PARENT}`;
const KEY_NAME = 'zk-roll-key';
const SECRET = randomBytes(32).toString('base64');

const CATALOG = 'catalog.zk-roll.test';

let app: TestApp;
let knot: Knot;
let unbound: Unbound | undefined;
let dnsPort: number;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-roll-'));
  let userId: string;
  ({ app, knot, dnsPort, userId } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    // the accelerated timings of the issue: TTLs of seconds need a TTL policy that allows them
    env: { ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: '2' },
    user: 'roll@example.com',
  }));
  for (const zone of [PARENT, CHILD]) {
    const created = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: userId,
      z: zone,
    });
    expect(created.errors).toBeUndefined();
  }
  const zoneFile = (zone: string, extra: string) =>
    `$ORIGIN ${zone}.\n@ 2 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 2\n@ 2 IN NS ns1.${zone}.\nns1 2 IN A 192.0.2.1\nwww 2 IN A 192.0.2.2\n${extra}`;
  for (const [zone, extra] of [
    [PARENT, `child 2 IN NS ns1.${CHILD}.\nns1.child 2 IN A 192.0.2.3\n`],
    [CHILD, ''],
  ]) {
    const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
      z: zone,
      t: zoneFile(zone, extra),
    });
    expect(imported.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  await unbound?.stop();
  await app?.close();
  await knot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Key {
  keyTag: number;
  role: string;
  state: string;
}

/** the zone's keys and DS, and its committed serial when they were read */
async function keysOf(zone: string): Promise<{ keys: Key[]; ds: string[]; serial: number }> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { serial dnssec { keys { keyTag role state } ds } } }`, {
    z: zone,
  });
  expect(res.errors).toBeUndefined();
  return { ...res.data.domain.dnssec, serial: Number(res.data.domain.serial) };
}

/** the child's DS RRset as the parent holds it */
async function parentDs(): Promise<string[]> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { records(owner: "child") { type rdata } } }`, { z: PARENT });
  expect(res.errors).toBeUndefined();
  return res.data.domain.records.filter((r: any) => r.type === 'DS').map((r: any) => r.rdata);
}

const transfer = (zone: string) => transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, zone);

/**
 * Watches the child until `done` holds and the primary serves the serial committed then: each new serial is kept
 * and, once the roll is over, verified by dnssec-verify, ldns-verify-zone and kzonecheck (`verifySignedZone`: seconds
 * on a loaded machine, which at each look would let a step of these accelerated timings pass unseen), and the
 * parent's DS RRset must name a key tag of the child's published KSKs at every look. A failed check is kept, not
 * retried (waitFor retries what throws), and the watch fails with every one at its end. Answers the serials seen,
 * with the apex's CDS key tags at each.
 */
async function watchRoll(done: (keys: Key[]) => boolean): Promise<{ serial: number; cds: number[] }[]> {
  const serials: { serial: number; cds: number[] }[] = [];
  const texts: { serial: number; text: string }[] = [];
  const problems: string[] = [];
  const poller = pollValidator(unbound!, `www.${CHILD}`);
  await waitFor(
    'the roll to finish',
    async () => {
      const state = await keysOf(CHILD);
      const zone = await transfer(CHILD);
      if (!serials.some((s) => s.serial === zone.serial)) {
        serials.push({ serial: zone.serial, cds: apexTags(zone.text, 'CDS') });
        texts.push(zone);
      }
      const ds = await parentDs();
      const publishedKsks = state.keys
        .filter((k) => k.role === 'KSK' && ['active', 'published', 'ready'].includes(k.state))
        .map((k) => k.keyTag);
      if (!ds.some((d) => publishedKsks.includes(Number(d.split(' ')[0]))))
        problems.push(`the parent's DS ${JSON.stringify(ds)} names none of the published KSKs ${JSON.stringify(publishedKsks)}`);
      // the look that first reads the roll done can still transfer the serial before its last step's: the DNS
      // role loads a commit moments after it
      return done(state.keys) && zone.serial >= state.serial ? true : undefined;
    },
    60_000,
    250,
  );
  for (const zone of texts) {
    const file = join(dir, `${CHILD}-${zone.serial}.zone`);
    writeFileSync(file, zone.text);
    await verifySignedZone(CHILD, file).catch((error: Error) => problems.push(`serial ${zone.serial}: ${error.message}`));
  }
  // the secondary serves the last step too, and the resolver has asked past it
  await secondaryCaughtUp();
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const { asked, failures } = await poller.stop();
  expect(problems).toEqual([]);
  expect(failures).toEqual([]);
  expect(asked).toBeGreaterThan(20);
  return serials;
}

/** the key tags of the apex's CDS (or DNSKEY-like) records in a zone's text */
function apexTags(text: string, type: string): number[] {
  return text
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${CHILD}.` && f[3] === type)
    .map((f) => Number(f[4]))
    .sort((a, b) => a - b);
}

/** the serial a zone has now at the primary */
async function primarySerial(zone: string): Promise<number> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { serial } }`, { z: zone });
  return res.data.domain.serial;
}

/** waits until the Knot secondary serves both zones at the primary's serial */
async function secondaryCaughtUp(): Promise<void> {
  for (const zone of [PARENT, CHILD]) {
    const serial = await primarySerial(zone);
    await waitFor(
      `${zone} at serial ${serial} on the secondary`,
      async () => ((await servedSerial(knot.port, zone)) === serial ? true : undefined),
      30_000,
    );
  }
}

it('enabling the child puts its DS in the parent, with no human step', async () => {
  for (const zone of [PARENT, CHILD]) {
    const res = await app.gql(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: zone });
    expect(res.errors).toBeUndefined();
  }
  const child = await keysOf(CHILD);
  const ksk = child.keys.find((k) => k.role === 'KSK')!;
  expect(await parentDs()).toEqual([child.ds.find((d) => d.startsWith(`${ksk.keyTag} 13 2 `))]);
  // a validating resolver anchored at the parent's DS reaches the child through the parent's DS, both zones
  // served by the Knot secondary
  await secondaryCaughtUp();
  const parent = await keysOf(PARENT);
  unbound = await startUnbound({
    trustAnchors: [{ zone: PARENT, ds: [parent.ds[0]] }],
    stubs: [
      { zone: PARENT, port: knot.port },
      { zone: CHILD, port: knot.port },
    ],
  });
  const answer = await unbound.query(`www.${CHILD}`, 'A');
  expect({ rcode: answer.rcode, ad: answer.ad, log: answer.ad ? '' : unbound.log() }).toEqual({ rcode: 'NOERROR', ad: true, log: '' });
}, 60_000);

it('rolls the ZSK by pre-publication: published, active, the old one retired then removed', async () => {
  const before = (await keysOf(CHILD)).keys.find((k) => k.role === 'ZSK' && k.state === 'active')!;
  const started = await app.gql(`mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { keys { keyTag role state } } }`, {
    z: CHILD,
  });
  expect(started.errors).toBeUndefined();
  expect(started.data.rollDnssecKey.keys.filter((k: Key) => k.role === 'ZSK').map((k: Key) => k.state)).toEqual(['active', 'published']);
  const serials = await watchRoll((keys) => keys.some((k) => k.keyTag === before.keyTag && k.state === 'removed'));
  const after = (await keysOf(CHILD)).keys.filter((k) => k.role === 'ZSK' && k.state === 'active');
  expect(after).toHaveLength(1);
  expect(after[0].keyTag).not.toBe(before.keyTag);
  // publish, activate, remove: three steps at least, each served and verified; the CDS names the KSK throughout
  expect(serials.length).toBeGreaterThanOrEqual(3);
  const ksk = (await keysOf(CHILD)).keys.find((k) => k.role === 'KSK' && k.state === 'active')!;
  expect(serials.map((s) => s.cds)).toEqual(serials.map(() => [ksk.keyTag]));
}, 90_000);

it('rolls the KSK by double-DS: both DS at the parent, the swap, then the old DS withdrawn', async () => {
  const before = (await keysOf(CHILD)).keys.find((k) => k.role === 'KSK' && k.state === 'active')!;
  const started = await app.gql(`mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { keys { keyTag role state } } }`, {
    z: CHILD,
  });
  expect(started.errors).toBeUndefined();
  const generated = started.data.rollDnssecKey.keys.find((k: Key) => k.role === 'KSK' && k.state === 'generated');
  expect(generated).toBeDefined();
  // the parent holds both DS before the new key signs anything
  expect((await parentDs()).map((d) => Number(d.split(' ')[0])).sort()).toEqual([before.keyTag, generated.keyTag].sort());
  const serials = await watchRoll((keys) => keys.some((k) => k.keyTag === before.keyTag && k.state === 'removed'));
  expect((await parentDs()).map((d) => Number(d.split(' ')[0]))).toEqual([generated.keyTag]);
  // the new key generated, the swap, the old DS withdrawn: each step served and verified. While the DS the
  // parent should hold names a key outside the DNSKEY RRset (the new one before the swap, the old one after
  // it), no CDS is published; at the end the new key's alone (docs/dnssec.md, «CDS and CDNSKEY»)
  expect(serials.length).toBeGreaterThanOrEqual(3);
  expect(serials.slice(0, -1).map((s) => s.cds)).toEqual(serials.slice(0, -1).map(() => []));
  expect(serials[serials.length - 1].cds).toEqual([generated.keyTag]);
  // the key events of the roll: the swap waited for the new DS at the Zonekeeper parent (docs/dnssec.md, «Key events»)
  const events = await app.gql(
    `query($z: String) { domain(name: $z) { dnssecEvents(first: 4) { nodes { keyTag fromState toState reason } } } }`,
    {
      z: CHILD,
    },
  );
  expect(events.errors).toBeUndefined();
  expect([...events.data.domain.dnssecEvents.nodes].reverse()).toEqual([
    { keyTag: generated.keyTag, fromState: null, toState: 'generated', reason: 'rolled-by-hand' },
    { keyTag: before.keyTag, fromState: 'active', toState: 'retired', reason: 'ds-seen' },
    { keyTag: generated.keyTag, fromState: 'generated', toState: 'active', reason: 'ds-seen' },
    { keyTag: before.keyTag, fromState: 'retired', toState: 'removed', reason: 'scheduled' },
  ]);
  // the same steps as events out (docs/events.md): the new DS needed, the roll, the old DS removable; and the zone
  // propagated to the Knot secondary
  const feed = await app.http.get('/api/events').query({ limit: 1000 }).set('X-API-Key', app.settings.apiKey!);
  expect(feed.status).toBe(200);
  const ofChild: { type: string; data: any }[] = feed.body.events.filter((e: { zone: string }) => e.zone === CHILD);
  expect(ofChild.filter((e) => e.type.startsWith('dnssec.')).map((e) => [e.type, e.data.keyTag])).toEqual(
    expect.arrayContaining([
      ['dnssec.ds_required', generated.keyTag],
      ['dnssec.key_rolled', generated.keyTag],
      ['dnssec.ds_removable', before.keyTag],
    ]),
  );
  expect(ofChild.filter((e) => e.type === 'zone.propagated').length).toBeGreaterThan(0);
  const parent = await transfer(PARENT);
  const file = join(dir, `${PARENT}-after.zone`);
  writeFileSync(file, parent.text);
  await run('dnssec-verify', ['-o', PARENT, file]);
}, 90_000);
