/**
 * Unsigning a zone without breaking it (RFC 8078 §4) and the parent's DS checked at its servers (RFC 7344 §4.1,
 * RFC 7583 §3.3.1), with accelerated timings (TTLs of 2 s, a propagation delay of 1 s, a check every second):
 *
 * - a child whose parent is a Zonekeeper zone: disabling publishes the DS-delete CDS/CDNSKEY, the zone stays
 *   signed (dnssec-verify passes), the parent's DS goes at once, and after the DS TTL plus the delay the child
 *   is unsigned;
 * - a child whose parent is elsewhere, served by a real Knot (DNSSEC_PARENT_DS_SERVERS): enabling waits until
 *   Knot serves the DS (asked over UDP, and over TCP when the answer is truncated), and disabling completes only
 *   once Knot no longer serves it;
 * - a child whose parent's servers do not answer for it: the operator's confirmations move it on;
 * - the key-roll tick's due-zone query reads its partial indexes (EXPLAIN).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { ADMIN_KEY, TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { randomBytes } from 'node:crypto';
import { Knot, servedSerial } from '../propagation/knot';
import { transferZone, verifySignedZone } from '../support/signed-zone-checks';
import { startUnbound, Unbound } from '../support/unbound';
import { KnotPrimary, startKnotPrimary } from '../support/knot-primary';
import { sleep, waitFor } from '../support/wait-for';
import { zonesWithKeyWorkQuery } from '../../src/repositories/dnssec';

const PARENT = 'zk-parent.test';
const CHILD = `child.${PARENT}`;
const EXTERNAL_PARENT = 'elsewhere.test';
const EXTERNAL_CHILD = `ext.${EXTERNAL_PARENT}`;
const LONE = 'lone.zk-nowhere.test';

const KEY_NAME = 'zk-disable-key';
const SECRET = randomBytes(32).toString('base64');
const CATALOG = 'catalog.zk-disable.test';

let app: TestApp;
let knot: KnotPrimary;
/** the service's secondary, which the validating resolver asks */
let secondary: Knot;
let unbound: Unbound | undefined;
let dnsPort: number;
let dir: string;
let parentSerial = 1;

const DNSSEC_FIELDS = `enabled state ds disableAt keys { keyTag role state dnskey }
  parentDs { inZonekeeper waitingFor seenAt checkedAt nextCheckAt lastCheck { at want expected confirmed servers { server ok ds ttl transport error } } }`;

/** the external parent's zone file as Knot serves it, with `ds` at the child's delegation */
function writeExternalParent(ds: string[]): void {
  const file = join(dir, `${EXTERNAL_PARENT}.zone`);
  writeFileSync(
    file,
    `$ORIGIN ${EXTERNAL_PARENT}.\n@ 2 IN SOA ns1 hostmaster ${parentSerial++} 7200 3600 1209600 2\n@ 2 IN NS ns1\nns1 2 IN A 192.0.2.1\n` +
      `ext 2 IN NS ns1.ext\nns1.ext 2 IN A 192.0.2.3\n${ds.map((d) => `ext 2 IN DS ${d}\n`).join('')}`,
  );
}

const zoneFile = (zone: string, extra = '') =>
  `$ORIGIN ${zone}.\n@ 2 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 2\n@ 2 IN NS ns1.${zone}.\nns1 2 IN A 192.0.2.1\nwww 2 IN A 192.0.2.2\n${extra}`;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-disable-'));
  writeExternalParent([]);
  knot = await startKnotPrimary([{ zone: EXTERNAL_PARENT, file: join(dir, `${EXTERNAL_PARENT}.zone`) }]);
  let userId: string;
  ({
    app,
    knot: secondary,
    dnsPort,
    userId,
  } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    env: {
      ALLOWED_TTLS: 'any',
      DNSSEC_PROPAGATION_DELAY: '1',
      DNSSEC_PARENT_DS_SERVERS: `127.0.0.1:${knot.port}`,
      DNSSEC_PARENT_DS_CHECK_INTERVAL: '1',
    },
    user: 'disable@example.com',
  }));
  for (const [zone, extra] of [
    [PARENT, `child 2 IN NS ns1.${CHILD}.\nns1.child 2 IN A 192.0.2.3\n`],
    // a wildcard: each poll asks a name of its own, which no cache holds, so every poll reaches the secondary
    [CHILD, '* 2 IN A 192.0.2.9\n'],
    [EXTERNAL_CHILD, ''],
    [LONE, ''],
  ]) {
    const created = await app.gql(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, {
      u: userId,
      z: zone,
    });
    expect(created.errors).toBeUndefined();
    const imported = await app.gql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, {
      z: zone,
      t: zoneFile(zone, extra),
    });
    expect(imported.errors).toBeUndefined();
  }
}, 60_000);

afterAll(async () => {
  for (const poller of [...pollers]) await poller.stop();
  await unbound?.stop();
  await app?.close();
  await secondary?.stop();
  await knot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function status(zone: string): Promise<any> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { dnssec { ${DNSSEC_FIELDS} } } }`, { z: zone });
  expect(res.errors).toBeUndefined();
  return res.data.domain.dnssec;
}

/** the key events of the swap that made `keyTag` active: the new key's and the old one's retirement */
async function swapEvents(zone: string, keyTag: number): Promise<{ keyTag: number; fromState: string; toState: string; reason: string }[]> {
  const res = await app.gql(
    `query($z: String!) { domain(name: $z) { dnssecEvents(first: 100) { nodes { keyTag role fromState toState reason } } } }`,
    { z: zone },
  );
  expect(res.errors).toBeUndefined();
  const nodes = res.data.domain.dnssecEvents.nodes.filter((e: any) => e.role === 'KSK');
  const swap = nodes.find((e: any) => e.keyTag === keyTag && e.toState === 'active');
  const retired = nodes.find((e: any) => e.toState === 'retired' && e.keyTag !== keyTag);
  return [swap, retired].map((e: any) => e && { keyTag: e.keyTag, fromState: e.fromState, toState: e.toState, reason: e.reason });
}

async function mutate(mutation: string, variables: Record<string, unknown>): Promise<any> {
  const res = await app.gql(mutation, variables);
  expect(res.errors).toBeUndefined();
  return Object.values(res.data)[0];
}

/** the child's DS RRset as the Zonekeeper parent holds it */
async function parentDs(): Promise<string[]> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { records(owner: "child") { type rdata } } }`, { z: PARENT });
  expect(res.errors).toBeUndefined();
  return res.data.domain.records.filter((r: any) => r.type === 'DS').map((r: any) => r.rdata);
}

/** the zone as the primary serves it by AXFR */
async function transfer(zone: string): Promise<string> {
  return (await transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, zone)).text;
}

/**
 * The zone as served, through BIND's dnssec-verify, ldns's ldns-verify-zone and Knot's kzonecheck: each throws
 * (or says otherwise) when a signature, the chain or the CDS/CDNSKEY are wrong
 */
async function verify(zone: string, label: string): Promise<string> {
  const text = await transfer(zone);
  await verifySignedZone(zone, join(dir, `${zone}-${label}.zone`), { text });
  return text;
}

/** waits until the secondary serves the zone at the primary's serial */
async function secondaryCaughtUp(zone: string): Promise<void> {
  const res = await app.gql(`query($z: String) { domain(name: $z) { serial } }`, { z: zone });
  const serial = res.data.domain.serial;
  await waitFor(
    `${zone} at serial ${serial} on the secondary`,
    async () => ((await servedSerial(secondary.port, zone)) === serial ? true : undefined),
    30_000,
  );
}

/**
 * Asks the validating resolver for a new name under the child (a wildcard answers it) every 100 ms until
 * stopped: not one answer may be SERVFAIL (a DS the resolver holds with no signature below it would be
 * bogus); answers the AD flags seen.
 */
function pollResolver(zone: string): { stop(): Promise<{ ad: boolean[]; failures: string[] }> } {
  let running = true;
  const ad: boolean[] = [];
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      try {
        const answer = await unbound!.query(`poll${ad.length + failures.length}.${zone}`, 'A');
        if (answer.rcode !== 'NOERROR') failures.push(`${new Date().toISOString()} ${answer.rcode}`);
        else ad.push(answer.ad);
      } catch (error) {
        // no answer at all (dig timed out) is a failure too, reported with the others at stop
        failures.push(`${new Date().toISOString()} ${(error as Error).message.split('\n')[0]}`);
      }
      await sleep(Math.max(0, 100 - (Date.now() - started)));
    }
  })();
  const poller = {
    async stop() {
      running = false;
      await loop;
      pollers.delete(poller);
      if (failures.length) failures.push(unbound!.log().split('\n').slice(-20).join('\n'));
      return { ad, failures };
    },
  };
  pollers.add(poller);
  return poller;
}
/** the pollers still running: a test that failed before it stopped its poller leaves it to afterAll */
const pollers = new Set<{ stop(): Promise<unknown> }>();

/** a DNSKEY/CDNSKEY or DS/CDS RDATA as dig prints it (the key or digest in chunks) in one piece, as the API gives it */
const keyRdata = (rdata: string) => {
  const [flags, protocol, algorithm, ...key] = rdata.split(' ');
  return `${flags} ${protocol} ${algorithm} ${key.join('')}`;
};
/** the apex's DNSKEY, CDNSKEY or CDS records as served, each key or digest in one piece */
const apexKeys = (text: string, zone: string, type: string) => apexRdata(text, zone, type).map(keyRdata);

/** the SOA serial of a zone's text */
const soaSerial = (text: string, zone: string) => apexRdata(text, zone, 'SOA')[0].split(' ')[2];

/** the apex's records of a type as served (RDATA, blanks collapsed) */
const apexRdata = (text: string, zone: string, type: string) =>
  text
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${zone}.` && f[3] === type)
    .map((f) => f.slice(4).join(' '));

it('a child of a Zonekeeper parent: disabling publishes the DS-delete CDS/CDNSKEY, the DS goes, then the child is unsigned', async () => {
  for (const zone of [PARENT, CHILD]) await mutate(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: zone });
  const signed = await status(CHILD);
  expect(signed.parentDs).toMatchObject({ inZonekeeper: true, waitingFor: 'NOTHING', seenAt: expect.any(String) });
  expect(await parentDs()).toHaveLength(1);
  // a validating resolver anchored at the parent's DS reaches the child through the Knot secondary
  for (const zone of [PARENT, CHILD]) await secondaryCaughtUp(zone);
  unbound = await startUnbound({
    trustAnchors: [{ zone: PARENT, ds: [(await status(PARENT)).ds[0]] }],
    stubs: [
      { zone: PARENT, port: secondary.port },
      { zone: CHILD, port: secondary.port },
    ],
  });
  const first = await unbound.query(`www.${CHILD}`, 'A');
  expect({ rcode: first.rcode, ad: first.ad }).toEqual({ rcode: 'NOERROR', ad: true });
  const poller = pollResolver(CHILD);

  const disabling = await mutate(`mutation($z: String!) { disableDnssec(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: CHILD });
  const started = Date.now();
  expect(disabling).toMatchObject({ enabled: true, state: 'disabling', ds: [] });
  // a disabling zone's keys do not roll (asked at once: the zone is unsigned 3 s after it began disabling, and the
  // verifiers below can take longer than that on a busy machine)
  const roll = await app.gql(`mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { state } }`, { z: CHILD });
  expect(roll.errors?.[0]?.extensions?.code).toBe('DNSSEC_DISABLING');
  // the parent is here: its DS went at once, and the child goes unsigned after the DS TTL (2 s) + the delay (1 s)
  expect(await parentDs()).toEqual([]);
  expect(new Date(disabling.disableAt).getTime()).toBeGreaterThanOrEqual(started + 2000);
  // still signed, and valid, with the RFC 8078 §4 DS-delete pair alone in the CDS and CDNSKEY RRsets
  const text = await verify(CHILD, 'disabling');
  expect(apexRdata(text, CHILD, 'CDS')).toEqual(['0 0 0 00']);
  expect(apexRdata(text, CHILD, 'CDNSKEY')).toEqual(['0 3 0 AA==']);
  expect(apexRdata(text, CHILD, 'DNSKEY')).toHaveLength(2);
  // the parent still verifies without the DS
  await verify(PARENT, 'without-child-ds');

  const unsigned = await waitFor(
    'the child to go unsigned',
    async () => {
      const s = await status(CHILD);
      return s.state === 'unsigned' ? s : undefined;
    },
    30_000,
    100,
  );
  expect(Date.now()).toBeGreaterThanOrEqual(new Date(disabling.disableAt).getTime());
  expect(unsigned).toMatchObject({ enabled: false, keys: [], parentDs: null, disableAt: null });
  expect(await transfer(CHILD)).not.toMatch(/\s(RRSIG|NSEC|DNSKEY|CDS|CDNSKEY)\s/);
  // the resolver never saw the chain broken: validated answers, then (the DS gone, the child unsigned)
  // insecure ones, never a SERVFAIL
  await secondaryCaughtUp(CHILD);
  await sleep(3000);
  const { ad, failures } = await poller.stop();
  expect(failures).toEqual([]);
  // asked all along (every 100 ms for at least the 3 s just waited and the wait for the disable); a loaded machine
  // makes each query slower, so the count asked is a floor that proves the poller ran through, not a timing bar
  expect(ad.length).toBeGreaterThan(15);
  expect(ad[0]).toBe(true);
  expect(ad[ad.length - 1]).toBe(false);
}, 90_000);

it('a child whose parent is elsewhere: the DS is seen at the parent’s server (enabled, KSK roll), and the disable completes once it is gone', async () => {
  const enabled = await mutate(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { ${DNSSEC_FIELDS} } }`, { z: EXTERNAL_CHILD });
  expect(enabled.parentDs).toMatchObject({ inZonekeeper: false, waitingFor: 'DS_PUBLICATION', seenAt: null });
  // the worker asks Knot: an authoritative answer without the DS, not yet confirmed
  const waiting = await waitFor('a first check at the parent’s server', async () => {
    const s = await status(EXTERNAL_CHILD);
    return s.parentDs.lastCheck ? s : undefined;
  });
  expect(waiting.parentDs.waitingFor).toBe('DS_PUBLICATION');
  expect(waiting.parentDs.lastCheck).toMatchObject({
    want: 'present',
    confirmed: false,
    expected: [enabled.ds[0]],
    servers: [{ server: `127.0.0.1:${knot.port}`, ok: true, ds: [], transport: 'udp', error: null }],
  });

  // the DS at the parent, with other keys' DS beside it (an RRset over 512 octets: the UDP answer is
  // truncated, so the check asks again over TCP); SHA-384 of our key counts as well as SHA-256
  const others = Array.from({ length: 9 }, (_, i) => `${40000 + i} 13 4 ${'AB'.repeat(47)}${String(10 + i)}`);
  writeExternalParent([enabled.ds[1], ...others]);
  await knot.reload();
  const seen = await waitFor(
    'the DS to be seen at the parent',
    async () => {
      const s = await status(EXTERNAL_CHILD);
      return s.parentDs.waitingFor === 'NOTHING' ? s : undefined;
    },
    30_000,
    100,
  );
  expect(seen.parentDs.seenAt).toEqual(expect.any(String));
  expect(seen.parentDs.nextCheckAt).toBeNull();
  expect(seen.parentDs.lastCheck).toMatchObject({ want: 'present', confirmed: true });
  expect(seen.parentDs.lastCheck.servers[0]).toMatchObject({ ok: true, transport: 'tcp', ttl: 2 });
  expect(seen.parentDs.lastCheck.servers[0].ds).toHaveLength(10);

  // a KSK roll (double-DS): the new key waits until the parent's server serves its DS beside the old one
  const rolled = await mutate(`mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { ${DNSSEC_FIELDS} } }`, {
    z: EXTERNAL_CHILD,
  });
  const generated = rolled.keys.find((k: any) => k.state === 'generated');
  const newDs = rolled.ds.find((d: string) => d.startsWith(`${generated.keyTag} 13 2 `));
  expect(rolled.parentDs.waitingFor).toBe('DS_PUBLICATION');
  // every serial of the roll passes the three verifiers, kzonecheck's CDS/CDNSKEY check too: while the parent
  // should hold a DS of a key outside the DNSKEY RRset, the zone publishes no CDS/CDNSKEY (docs/dnssec.md,
  // «CDS and CDNSKEY»), so a parent that follows them is asked for nothing
  const generatedText = await verify(EXTERNAL_CHILD, 'roll-generated');
  expect(apexKeys(generatedText, EXTERNAL_CHILD, 'DNSKEY')).not.toContain(generated.dnskey);
  expect(apexRdata(generatedText, EXTERNAL_CHILD, 'CDS')).toEqual([]);
  expect(apexRdata(generatedText, EXTERNAL_CHILD, 'CDNSKEY')).toEqual([]);
  const rollWaiting = await waitFor('a check that sees only the old DS', async () => {
    const s = await status(EXTERNAL_CHILD);
    return s.parentDs.lastCheck?.expected.length === 2 && !s.parentDs.lastCheck.confirmed ? s : undefined;
  });
  expect(rollWaiting.parentDs.lastCheck.expected).toContain(newDs);
  await sleep(2500);
  expect((await status(EXTERNAL_CHILD)).keys.find((k: any) => k.keyTag === generated.keyTag).state).toBe('generated');
  writeExternalParent([enabled.ds[1], newDs]);
  await knot.reload();
  const swapped = await waitFor(
    'the new KSK to take over once its DS is seen',
    async () => {
      const s = await status(EXTERNAL_CHILD);
      return s.keys.find((k: any) => k.keyTag === generated.keyTag).state === 'active' ? s : undefined;
    },
    30_000,
    100,
  );
  expect(swapped.parentDs).toMatchObject({ waitingFor: 'NOTHING', lastCheck: { confirmed: true } });
  // the worker saw the DS served by the parent's servers, no one confirmed it: the swap says ds-seen
  const oldKsk = rolled.keys.find((k: any) => k.role === 'KSK' && k.state === 'active');
  expect(await swapEvents(EXTERNAL_CHILD, generated.keyTag)).toEqual([
    { keyTag: generated.keyTag, fromState: 'generated', toState: 'active', reason: 'ds-seen' },
    { keyTag: oldKsk.keyTag, fromState: 'active', toState: 'retired', reason: 'ds-seen' },
  ]);
  // swapped: the old DS stays at the parent until the old DNSKEY has left the caches, and still no CDS
  const swappedText = await verify(EXTERNAL_CHILD, 'roll-swapped');
  expect(apexKeys(swappedText, EXTERNAL_CHILD, 'DNSKEY')).toContain(generated.dnskey);
  expect(apexRdata(swappedText, EXTERNAL_CHILD, 'CDS')).toEqual([]);
  // the old DS withdrawn (the DNSKEY TTL plus the delay later): CDS/CDNSKEY name the new key alone
  const old = rolled.keys.find((k: any) => k.role === 'KSK' && k.state === 'active');
  await waitFor(
    'the old KSK to be removed',
    async () => ((await status(EXTERNAL_CHILD)).keys.find((k: any) => k.keyTag === old.keyTag).state === 'removed' ? true : undefined),
    30_000,
    100,
  );
  const withdrawnText = await verify(EXTERNAL_CHILD, 'roll-withdrawn');
  expect(apexKeys(withdrawnText, EXTERNAL_CHILD, 'CDS')).toEqual([newDs]);
  expect(apexKeys(withdrawnText, EXTERNAL_CHILD, 'CDNSKEY')).toEqual([generated.dnskey]);
  // the serials of the three steps, each verified above
  expect(new Set([generatedText, swappedText, withdrawnText].map((t) => soaSerial(t, EXTERNAL_CHILD))).size).toBe(3);

  const disabling = await mutate(`mutation($z: String!) { disableDnssec(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: EXTERNAL_CHILD });
  expect(disabling).toMatchObject({ state: 'disabling', disableAt: null, parentDs: { waitingFor: 'DS_REMOVAL' } });
  const text = await verify(EXTERNAL_CHILD, 'disabling');
  expect(apexRdata(text, EXTERNAL_CHILD, 'CDS')).toEqual(['0 0 0 00']);
  // the parent still serves the DS: checks go on, the zone stays signed
  await waitFor('a check that sees the DS still there', async () => {
    const s = await status(EXTERNAL_CHILD);
    return s.parentDs.lastCheck?.want === 'absent' && !s.parentDs.lastCheck.confirmed ? true : undefined;
  });
  await sleep(3000);
  expect((await status(EXTERNAL_CHILD)).state).toBe('disabling');
  await verify(EXTERNAL_CHILD, 'still-disabling');

  writeExternalParent([]);
  await knot.reload();
  const removedAt = Date.now();
  const unsigned = await waitFor(
    'the child to go unsigned once the DS is gone',
    async () => {
      const s = await status(EXTERNAL_CHILD);
      return s.state === 'unsigned' ? s : undefined;
    },
    30_000,
    100,
  );
  // not before the DS TTL (2 s, as the parent served it) plus the delay
  expect(Date.now() - removedAt).toBeGreaterThanOrEqual(3000);
  expect(unsigned.enabled).toBe(false);
  expect(await transfer(EXTERNAL_CHILD)).not.toMatch(/\s(RRSIG|NSEC|DNSKEY|CDS|CDNSKEY)\s/);
}, 90_000);

it('a parent whose servers do not answer for the zone: the check says why, and the operator’s confirmations move it on', async () => {
  await mutate(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: LONE });
  const refused = await waitFor('a check of a zone Knot does not serve', async () => {
    const s = await status(LONE);
    return s.parentDs.lastCheck ? s : undefined;
  });
  expect(refused.parentDs.lastCheck).toMatchObject({ confirmed: false, servers: [{ ok: false, error: 'answered REFUSED' }] });
  const confirmed = await mutate(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  expect(confirmed.parentDs).toMatchObject({ waitingFor: 'NOTHING', seenAt: expect.any(String), nextCheckAt: null });
  const again = await app.gql(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { state } }`, { z: LONE });
  expect(again.errors?.[0]?.extensions?.code).toBe('DNSSEC_NOTHING_TO_CONFIRM');

  // a KSK roll while the checks keep failing: the operator's word lets the swap run, and it says ds-confirmed
  // (the worker's checks are configured here, but they saw nothing)
  const rolled = await mutate(`mutation($z: String!) { rollDnssecKey(zone: $z, role: KSK) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  const generated = rolled.keys.find((k: any) => k.state === 'generated');
  const oldKsk = rolled.keys.find((k: any) => k.role === 'KSK' && k.state === 'active');
  await mutate(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { state } }`, { z: LONE });
  await waitFor(
    'the swap after the confirmation',
    async () => ((await status(LONE)).keys.find((k: any) => k.keyTag === generated.keyTag).state === 'active' ? true : undefined),
    30_000,
    100,
  );
  expect(await swapEvents(LONE, generated.keyTag)).toEqual([
    { keyTag: generated.keyTag, fromState: 'generated', toState: 'active', reason: 'ds-confirmed' },
    { keyTag: oldKsk.keyTag, fromState: 'active', toState: 'retired', reason: 'ds-confirmed' },
  ]);

  // REST: DELETE without force starts the disable
  const rest = await app.http.delete(`/api/domain/dnssec/${LONE}`).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body).toMatchObject({ state: 'disabling', disable_at: null, parent_ds: { waiting_for: 'DS_REMOVAL', in_zonekeeper: false } });
  const early = await app.gql(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { state } }`, { z: LONE });
  expect(early.errors?.[0]?.extensions?.code).toBe('DNSSEC_NOTHING_TO_CONFIRM');
  const removed = await mutate(`mutation($z: String!) { confirmDnssecDsRemoved(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  expect(removed).toMatchObject({ state: 'disabling', disableAt: expect.any(String) });
  await waitFor('the zone to go unsigned after the confirmation', async () =>
    (await status(LONE)).state === 'unsigned' ? true : undefined,
  );

  // signed again, its DS never seen at the parent's servers nor confirmed: with DNSSEC_PARENT_DS_SERVERS set, they
  // are what says no DS is there (a parent may take one from the CDS by itself), so the disable waits for them
  const fresh = await mutate(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  expect(fresh.parentDs).toMatchObject({ waitingFor: 'DS_PUBLICATION', seenAt: null });
  const waiting = await mutate(`mutation($z: String!) { disableDnssec(zone: $z) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  expect(waiting).toMatchObject({ state: 'disabling', parentDs: { waitingFor: 'DS_REMOVAL' } });
  await mutate(`mutation($z: String!) { disableDnssec(zone: $z, force: true) { enabled } }`, { z: LONE });

  // force: unsigned in the same call, whatever the parent holds
  await mutate(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: LONE });
  const forced = await mutate(`mutation($z: String!) { disableDnssec(zone: $z, force: true) { ${DNSSEC_FIELDS} } }`, { z: LONE });
  expect(forced).toMatchObject({ enabled: false, state: 'unsigned' });
}, 60_000);

it('the key-roll tick’s due-zone query reads its partial indexes', async () => {
  const client = new Client({ connectionString: app.settings.databaseUrl });
  await client.connect();
  try {
    // many keys with nothing planned (the usual), a few with an event: the index holds only the few
    const [{ id }] = (await client.query(`select id from domains where name = $1`, [PARENT])).rows;
    await client.query(
      `insert into dnssec_keys (domain_id, role, algorithm, key_tag, dnskey, sealed_private_key, state, active_at, next_event, next_event_at)
       select $1, 'ZSK', 13, g % 65536, 'x', '\\x00', case when g % 2 = 0 then 'removed' else 'active' end, now(),
              case when g % 1000 = 0 then 'remove' end, case when g % 1000 = 0 then now() + interval '1 day' end
         from generate_series(1, 20000) g`,
      [id],
    );
    await client.query('analyze dnssec_keys');
    const query = zonesWithKeyWorkQuery({ zsk: 30 * 86400, ksk: 0 }, 20);
    const plan = (await client.query(`explain ${query.text}`, query.params)).rows.map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/dnssec_keys_next_event_index/);
    expect(plan).toMatch(/dnssec_keys_lifetime_index/);
    expect(plan).not.toMatch(/Seq Scan on dnssec_keys/);
  } finally {
    await client.query(`delete from dnssec_keys where dnskey = 'x'`);
    await client.end();
  }
}, 30_000);
