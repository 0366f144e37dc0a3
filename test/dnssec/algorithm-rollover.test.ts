/**
 * Algorithm rollovers with accelerated timings (TTLs of 2 s, a propagation delay of 2 s; RFC 6781 §4.1.4,
 * RFC 7583 §3.4, the conservative approach; docs/dnssec.md, «Algorithm rollover»), started by one call each.
 *
 * A child zone under a Zonekeeper parent rolls from RSASHA256 to ECDSAP256SHA256: every serial the primary
 * serves is transferred and passes dnssec-verify, ldns-verify-zone and kzonecheck; the SOA's signatures and the
 * DNSKEY RRset go through the conservative order (the new algorithm signs before its DNSKEY is published, and
 * signs no longer only after the old DNSKEY has gone); and a validating Unbound anchored at the parent's DS,
 * strict about algorithms (harden-algo-downgrade), asks the child through a Knot secondary every 100 ms, and a
 * second one the same through a BIND secondary: not one answer may be SERVFAIL or lack AD. Every serial BIND
 * serves is transferred from it, is the primary's copy of that serial, passes the three verifiers, and goes
 * through the same conservative order. The other pairs of the algorithms the service signs with roll on zones
 * whose parent is elsewhere (the new DS confirmed by hand), a CSK among them, verified at each serial.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestApp } from '../support/test-app';
import { startServiceWithKnot } from '../support/knot-fleet';
import { dig, freePort, Knot, servedSerial } from '../propagation/knot';
import { waitFor } from '../support/wait-for';
import { startUnbound, Unbound } from '../support/unbound';
import { BindSecondary, startBindSecondary } from '../support/bind-secondary';
import { pollValidator, transferZone, verifySignedZone } from '../support/signed-zone-checks';

const PARENT = 'algo.zk-signed.test';
const CHILD = `child.${PARENT}`;
const KEY_NAME = 'zk-algo-key';
const SECRET = randomBytes(32).toString('base64');
const CATALOG = 'catalog.zk-algo.test';
const NUMBERS: Record<string, number> = { RSASHA256: 8, ECDSAP256SHA256: 13, ED25519: 15 };

let app: TestApp;
let knot: Knot;
let unbound: Unbound | undefined;
let bind: BindSecondary;
let unboundBind: Unbound | undefined;
let dnsPort: number;
let dir: string;
let userId: string;

const zoneFile = (zone: string, extra = '') =>
  `$ORIGIN ${zone}.\n@ 2 IN SOA ns1.${zone}. hostmaster.${zone}. 1 7200 3600 1209600 2\n@ 2 IN NS ns1.${zone}.\nns1 2 IN A 192.0.2.1\nwww 2 IN A 192.0.2.2\n${extra}`;

async function gqlOk(query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const res = await app.gql(query, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data;
}

async function createZone(zone: string, extra = ''): Promise<void> {
  await gqlOk(`mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`, { u: userId, z: zone });
  await gqlOk(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t) { serial } }`, { z: zone, t: zoneFile(zone, extra) });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zk-algo-'));
  dnsPort = await freePort();
  // BIND takes the two zones of the first roll by name (no catalog), NOTIFYed like Knot
  bind = await startBindSecondary({ zones: [PARENT, CHILD], primaryPort: dnsPort, tsig: { name: KEY_NAME, secret: SECRET } });
  ({ app, knot, userId } = await startServiceWithKnot({
    catalog: CATALOG,
    tsig: { name: KEY_NAME, secret: SECRET },
    dnsPort,
    extraSecondaries: [`127.0.0.1:${bind.port}`],
    // each step waits a TTL (2 s) and this: long enough for a look at the roll (the status, two transfers) to
    // fall in every step on a loaded two-core host, where a look can take a few seconds
    env: { ALLOWED_TTLS: 'any', DNSSEC_PROPAGATION_DELAY: '3' },
    user: 'algo@example.com',
  }));
  await createZone(PARENT, `child 2 IN NS ns1.${CHILD}.\nns1.child 2 IN A 192.0.2.3\n`);
  await createZone(CHILD);
}, 60_000);

afterAll(async () => {
  await unbound?.stop();
  await unboundBind?.stop();
  await app?.close();
  await knot?.stop();
  await bind?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Key {
  keyTag: number;
  role: string;
  state: string;
  algorithm: string;
}

interface Status {
  keys: Key[];
  ds: string[];
  algorithmRoll: { from: string; to: string; step: string; nextStepAt: string | null } | null;
  parentDs: { waitingFor: string };
  /** the zone's committed serial when the status was read */
  serial: number;
}

async function statusOf(zone: string): Promise<Status> {
  const { domain } = await gqlOk(
    `query($z: String) { domain(name: $z) { serial dnssec { keys { keyTag role state algorithm } ds
       algorithmRoll { from to step nextStepAt } parentDs { waitingFor } } } }`,
    { z: zone },
  );
  return { ...domain.dnssec, serial: Number(domain.serial) };
}

/** the child's DS RRset as the parent holds it */
async function parentDs(): Promise<string[]> {
  const res = await gqlOk(`query($z: String) { domain(name: $z) { records(owner: "child") { type rdata } } }`, { z: PARENT });
  return res.domain.records.filter((r: any) => r.type === 'DS').map((r: any) => r.rdata);
}

const transfer = (zone: string) => transferZone(dnsPort, { name: KEY_NAME, secret: SECRET }, zone);

/** the algorithms of the apex's DNSKEY RRset and of the SOA's signatures in a zone's text, and the CDS's key tags */
function apexOf(zone: string, text: string): { dnskey: number[]; soaSigs: number[]; cds: number[] } {
  const apex = text
    .split('\n')
    .map((line) => line.split(/\s+/))
    .filter((f) => f[0] === `${zone}.`);
  const sorted = (values: number[]) => [...new Set(values)].sort((a, b) => a - b);
  return {
    dnskey: sorted(apex.filter((f) => f[3] === 'DNSKEY').map((f) => Number(f[6]))),
    soaSigs: sorted(apex.filter((f) => f[3] === 'RRSIG' && f[4] === 'SOA').map((f) => Number(f[5]))),
    cds: sorted(apex.filter((f) => f[3] === 'CDS').map((f) => Number(f[4]))),
  };
}

/**
 * Every serial the primary committed since `from`, each with its apex, read from one IXFR (RFC 1995 §4: the
 * changes one at a time, each as the old SOA, the RRs it deleted, the new SOA, the RRs it added). A step the
 * primary served for less than one look of the watch (a look is seconds on a loaded machine) is there too.
 */
async function servedSince(zone: string, from: { text: string; serial: number }): Promise<Watched['serials']> {
  const ixfr = await dig(
    [
      '-y',
      `hmac-sha256:${KEY_NAME}:${SECRET}`,
      '@127.0.0.1',
      '-p',
      String(dnsPort),
      zone,
      `IXFR=${from.serial}`,
      '+tcp',
      // a signed zone's steps, read while the lanes beside keep the cores busy: dig's 2 s is too short for the
      // transfer's first message there (the later +time is the one dig keeps)
      '+time=10',
      '+nocomments',
      '+nostats',
    ],
    30_000,
  );
  const rrs = ixfr.lines.map((line) => line.split(/\s+/)).filter((f) => f[3] !== 'TSIG');
  const isSoa = (i: number) => rrs[i]?.[3] === 'SOA';
  // the zone's RRs but its SOA, as dig writes them (an AXFR and an IXFR write an RR alike)
  const zoneRrs = new Set(
    from.text
      .split('\n')
      .map((line) => line.split(/\s+/))
      .filter((f) => f.length > 3 && f[3] !== 'SOA')
      .map((f) => f.join(' ')),
  );
  const serials: Watched['serials'] = [{ serial: from.serial, ...apexOf(zone, from.text) }];
  if (!isSoa(0) || !isSoa(1))
    throw new Error(`IXFR of ${zone} from ${from.serial}: not a sequence of changes (${ixfr.stdout.slice(0, 300)})`);
  // after the current SOA: changes until the closing current SOA, the last RR
  for (let i = 1; i < rrs.length - 1;) {
    if (!isSoa(i)) throw new Error(`IXFR of ${zone}: a change does not start with its old SOA at RR ${i}`);
    for (i++; i < rrs.length - 1 && !isSoa(i); i++) zoneRrs.delete(rrs[i].join(' '));
    if (!isSoa(i) || i === rrs.length - 1) throw new Error(`IXFR of ${zone}: a change has no new SOA after RR ${i}`);
    const serial = Number(rrs[i][6]);
    for (i++; i < rrs.length - 1 && !isSoa(i); i++) zoneRrs.add(rrs[i].join(' '));
    serials.push({ serial, ...apexOf(zone, [...zoneRrs].join('\n')) });
  }
  return serials;
}

interface Watched {
  /** the roll's steps as the status showed them, each once, in order */
  steps: string[];
  /** each served serial's apex: DNSKEY algorithms, SOA signature algorithms, CDS key tags */
  serials: { serial: number; dnskey: number[]; soaSigs: number[]; cds: number[] }[];
  /** the same for each serial the BIND secondary served (when watched), and how many were compared with the primary's copy */
  bindSerials: { serial: number; dnskey: number[]; soaSigs: number[]; cds: number[] }[];
  bindCompared: number;
}

/** a zone's text as a sorted list of its lines (the primary's and a secondary's AXFR order their records differently) */
const sortedLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.trim())
    .sort();

/**
 * Watches a zone's roll until it is over: each new serial is kept and, once the roll is over, verified by the
 * three verifiers (a failure kept, not retried), each step the status shows is noted, and `onStep` runs at each
 * look (the operator's part). The verifiers take seconds on a loaded machine, longer than a step of these
 * accelerated timings lasts: run at each look, they made the watch miss a whole step.
 * With `bind` (its port and its copy from before the roll), each new serial the BIND secondary serves is
 * transferred from it and verified the same way, and held against the primary's copy of that serial where the
 * watch transferred it too.
 */
async function watchRoll(
  zone: string,
  csk: boolean,
  initial: { text: string; serial: number },
  onStep: (status: Status) => Promise<void> = async () => {},
  bind?: { port: number; initial: { text: string; serial: number } },
): Promise<Watched> {
  const watched: Watched = {
    bindSerials: bind ? [{ serial: bind.initial.serial, ...apexOf(zone, bind.initial.text) }] : [],
    steps: [],
    serials: [{ serial: initial.serial, ...apexOf(zone, initial.text) }],
    bindCompared: 0,
  };
  const texts = new Map<number, string>([[initial.serial, initial.text]]);
  const problems: string[] = [];
  const toVerify: { served: { text: string; serial: number }; where: string }[] = [];
  const verify = (served: { text: string; serial: number }, where: string) => toVerify.push({ served, where });
  await waitFor(
    `the algorithm roll of ${zone} to finish`,
    async () => {
      const status = await statusOf(zone);
      const [served, atBind] = await Promise.all([
        transfer(zone),
        // a transfer from BIND that fails (dig's 2 s on a loaded machine) is tried again at the next look
        bind === undefined ? undefined : transferZone(bind.port, { name: KEY_NAME, secret: SECRET }, zone).catch(() => undefined),
      ]);
      if (!watched.serials.some((s) => s.serial === served.serial)) {
        watched.serials.push({ serial: served.serial, ...apexOf(zone, served.text) });
        texts.set(served.serial, served.text);
        verify(served, 'primary');
      }
      if (atBind && !watched.bindSerials.some((s) => s.serial === atBind.serial)) {
        watched.bindSerials.push({ serial: atBind.serial, ...apexOf(zone, atBind.text) });
        verify(atBind, 'bind');
        const primary = texts.get(atBind.serial);
        if (primary !== undefined) {
          watched.bindCompared++;
          if (JSON.stringify(sortedLines(primary)) !== JSON.stringify(sortedLines(atBind.text)))
            problems.push(`bind serial ${atBind.serial}: not the primary's copy of that serial`);
        }
      }
      const step = status.algorithmRoll?.step;
      if (step && watched.steps[watched.steps.length - 1] !== step) watched.steps.push(step);
      await onStep(status);
      // over once the roll has ended and the serial its last step committed is served by the primary and, when
      // watched, by BIND: the look that first reads the roll ended can still transfer the serial before it
      // (the DNS role loads a commit moments after it; BIND takes it by IXFR after the NOTIFY)
      // the zone's serial in a status is read by a statement before its keys' (one answer is not one snapshot):
      // a status that shows the roll ended can carry the serial before the last step's, so it is read again
      const lastSerial = status.algorithmRoll ? status.serial : (await statusOf(zone)).serial;
      const servedLast = served.serial >= lastSerial && (bind === undefined || (atBind?.serial ?? 0) >= lastSerial);
      return status.algorithmRoll || !servedLast ? undefined : true;
    },
    90_000,
    250,
  );
  // the order is read from every serial the primary committed, not only from those a look caught; each caught one
  // must be among them with the same apex
  const caught = watched.serials;
  watched.serials = await servedSince(zone, initial);
  for (const seen of caught) expect(watched.serials).toContainEqual(seen);
  for (const { served, where } of toVerify) {
    const file = join(dir, `${zone}-${where}-${served.serial}.zone`);
    writeFileSync(file, served.text);
    await verifySignedZone(zone, file, { csk }).catch((error: Error) =>
      problems.push(`${where} serial ${served.serial}: ${error.message}`),
    );
  }
  expect(problems).toEqual([]);
  return watched;
}

/** waits until the Knot and the BIND secondary serve both zones at the primary's serial */
async function secondaryCaughtUp(): Promise<void> {
  for (const zone of [PARENT, CHILD]) {
    const serial = (await gqlOk(`query($z: String) { domain(name: $z) { serial } }`, { z: zone })).domain.serial;
    for (const [name, port] of [
      ['Knot', knot.port],
      ['BIND', bind.port],
    ] as const)
      await waitFor(
        `${zone} at serial ${serial} on the ${name} secondary`,
        async () => ((await servedSerial(port, zone)) === serial ? true : undefined),
        30_000,
      );
  }
}

/** the conservative order, as the served apex shows it: signatures before keys, keys gone before signatures */
function expectConservativeOrder(serials: Watched['serials'], from: number, to: number): void {
  const phases = serials
    .map((s) => JSON.stringify({ dnskey: s.dnskey, soaSigs: s.soaSigs }))
    .filter((phase, i, all) => i === 0 || all[i - 1] !== phase);
  const both = [from, to].sort((a, b) => a - b);
  expect(phases).toEqual(
    [
      { dnskey: [from], soaSigs: [from] },
      { dnskey: [from], soaSigs: both },
      { dnskey: both, soaSigs: both },
      { dnskey: [to], soaSigs: both },
      { dnskey: [to], soaSigs: [to] },
    ].map((phase) => JSON.stringify(phase)),
  );
}

const ROLL = `mutation($z: String!, $a: DnssecAlgorithm!) { rollDnssecAlgorithm(zone: $z, algorithm: $a) {
  keys { keyTag role state algorithm } algorithmRoll { from to step nextStepAt } } }`;

it('rolls a child from RSASHA256 to ECDSAP256SHA256 under a Zonekeeper parent: verified at each serial, never SERVFAIL', async () => {
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z}) { enabled } }`, { z: PARENT });
  await gqlOk(`mutation($z: String!) { enableDnssec(input: {zone: $z, algorithm: RSASHA256}) { enabled } }`, { z: CHILD });
  const before = await statusOf(CHILD);
  const oldKsk = before.keys.find((k) => k.role === 'KSK')!;
  const oldZsk = before.keys.find((k) => k.role === 'ZSK')!;
  // the algorithm the zone is signed with already: refused, naming the field
  const same = await app.gql(ROLL, { z: CHILD, a: 'RSASHA256' });
  expect(same.errors?.[0].extensions).toMatchObject({
    code: 'DNSSEC_ALGORITHM_UNCHANGED',
    details: [expect.objectContaining({ field: 'algorithm', code: 'DNSSEC_ALGORITHM_UNCHANGED' })],
  });
  await secondaryCaughtUp();
  const parent = await statusOf(PARENT);
  unbound = await startUnbound({
    trustAnchors: [{ zone: PARENT, ds: [parent.ds[0]] }],
    stubs: [
      { zone: PARENT, port: knot.port },
      { zone: CHILD, port: knot.port },
    ],
    hardenAlgoDowngrade: true,
  });
  // the same resolver, asking the BIND secondary
  unboundBind = await startUnbound({
    trustAnchors: [{ zone: PARENT, ds: [parent.ds[0]] }],
    stubs: [
      { zone: PARENT, port: bind.port },
      { zone: CHILD, port: bind.port },
    ],
    hardenAlgoDowngrade: true,
  });
  for (const resolver of [unbound, unboundBind]) {
    const first = await resolver.query(`www.${CHILD}`, 'A');
    expect({ rcode: first.rcode, ad: first.ad }).toEqual({ rcode: 'NOERROR', ad: true });
  }
  const poller = pollValidator(unbound, `www.${CHILD}`);
  const pollerBind = pollValidator(unboundBind, `www.${CHILD}`);
  const initial = await transfer(CHILD);
  // BIND's copy before the roll (caught up above): the first phase, verified like the rest
  const bindInitial = await transferZone(bind.port, { name: KEY_NAME, secret: SECRET }, CHILD);
  expect(bindInitial.serial).toBe(initial.serial);
  writeFileSync(join(dir, `${CHILD}-bind-${bindInitial.serial}.zone`), bindInitial.text);
  await verifySignedZone(CHILD, join(dir, `${CHILD}-bind-${bindInitial.serial}.zone`));
  expect(sortedLines(bindInitial.text)).toEqual(sortedLines(initial.text));

  // one call starts it: the new keys sign, their DNSKEYs not yet published
  const started = (await gqlOk(ROLL, { z: CHILD, a: 'ECDSAP256SHA256' })).rollDnssecAlgorithm;
  expect(started.algorithmRoll).toMatchObject({ from: 'RSASHA256', to: 'ECDSAP256SHA256', step: 'NEW_SIGNATURES' });
  expect(started.algorithmRoll.nextStepAt).not.toBeNull();
  const newKsk = started.keys.find((k: Key) => k.role === 'KSK' && k.algorithm === 'ECDSAP256SHA256');
  const newZsk = started.keys.find((k: Key) => k.role === 'ZSK' && k.algorithm === 'ECDSAP256SHA256');
  expect([newKsk.state, newZsk.state]).toEqual(['signing', 'signing']);
  // one roll at a time: another algorithm roll, or a key roll, is refused while it runs
  for (const [query, variables] of [
    [ROLL, { z: CHILD, a: 'ED25519' }],
    [`mutation($z: String!) { rollDnssecKey(zone: $z, role: ZSK) { enabled } }`, { z: CHILD }],
  ] as const) {
    const refused = await app.gql(query, variables);
    expect(refused.errors?.[0].extensions?.code).toBe('DNSSEC_ROLL_IN_PROGRESS');
  }

  const dsSeen: string[][] = [];
  // a user's write at each step is signed incrementally by every key that signs then (verified with the rest)
  const written = new Set<string>();
  const watched = await watchRoll(
    CHILD,
    false,
    initial,
    async (status) => {
      const ds = (await parentDs()).map((d) => d.split(' ')[0]);
      if (JSON.stringify(dsSeen[dsSeen.length - 1]) !== JSON.stringify(ds)) dsSeen.push(ds);
      const step = status.algorithmRoll?.step;
      if (step && !written.has(step)) {
        written.add(step);
        await gqlOk(`mutation($i: RecordInput!) { createRecord(input: $i) { id } }`, {
          i: { zone: CHILD, owner: `w-${step.toLowerCase().replace(/_/g, '-')}`, type: 'A', ttl: 2, rdata: '192.0.2.9' },
        });
      }
    },
    { port: bind.port, initial: bindInitial },
  );
  expect(written.size).toBe(4);
  await secondaryCaughtUp();
  // the resolver asks past the last step (its cache holds 2 s at most)
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const { asked, failures } = await poller.stop();
  expect(failures).toEqual([]);
  expect(asked).toBeGreaterThan(50);
  const atBind = await pollerBind.stop();
  expect(atBind.failures).toEqual([]);
  expect(atBind.asked).toBeGreaterThan(50);
  // BIND went through the same phases, and its copies were the primary's
  expectConservativeOrder(watched.bindSerials, 8, 13);
  expect(watched.bindSerials.length).toBeGreaterThanOrEqual(5);
  expect(watched.bindCompared).toBeGreaterThanOrEqual(5);

  expect(watched.steps).toEqual(['NEW_SIGNATURES', 'NEW_DNSKEYS', 'NEW_DS', 'OLD_DNSKEYS_REMOVED']);
  expectConservativeOrder(watched.serials, 8, 13);
  // the CDS names the old KSK until the DS moves, then the new one alone
  const cds = watched.serials.map((s) => s.cds).filter((c, i, all) => i === 0 || JSON.stringify(all[i - 1]) !== JSON.stringify(c));
  expect(cds).toEqual([[oldKsk.keyTag], [newKsk.keyTag]]);
  // the parent's DS: the old KSK's, then the new one's alone
  expect(dsSeen).toEqual([[String(oldKsk.keyTag)], [String(newKsk.keyTag)]]);

  const after = await statusOf(CHILD);
  expect(after.algorithmRoll).toBeNull();
  expect(after.keys.filter((k) => k.state !== 'removed').map((k) => [k.role, k.algorithm, k.state])).toEqual([
    ['KSK', 'ECDSAP256SHA256', 'active'],
    ['ZSK', 'ECDSAP256SHA256', 'active'],
  ]);
  // each step a key event, with the algorithm (docs/dnssec.md, «Key events»)
  const events = await gqlOk(
    `query($z: String) { domain(name: $z) { dnssecEvents(first: 10) { nodes { keyTag algorithm fromState toState reason } } } }`,
    { z: CHILD },
  );
  const ev = (key: Key, algorithm: string, fromState: string | null, toState: string, reason: string) => ({
    keyTag: key.keyTag,
    algorithm,
    fromState,
    toState,
    reason,
  });
  const ecdsa = 'ECDSAP256SHA256';
  expect([...events.domain.dnssecEvents.nodes].reverse()).toEqual([
    ev(newKsk, ecdsa, null, 'signing', 'algorithm-roll'),
    ev(newZsk, ecdsa, null, 'signing', 'algorithm-roll'),
    ev(newZsk, ecdsa, 'signing', 'active', 'scheduled'),
    ev(newKsk, ecdsa, 'signing', 'published', 'scheduled'),
    ev(newKsk, ecdsa, 'published', 'active', 'scheduled'),
    ev(oldKsk, 'RSASHA256', 'active', 'published', 'scheduled'),
    ev(oldKsk, 'RSASHA256', 'published', 'withdrawn', 'ds-seen'),
    ev(oldZsk, 'RSASHA256', 'active', 'withdrawn', 'ds-seen'),
    ev(oldKsk, 'RSASHA256', 'withdrawn', 'removed', 'scheduled'),
    ev(oldZsk, 'RSASHA256', 'withdrawn', 'removed', 'scheduled'),
  ]);
  // as events out (docs/events.md): the new DS needed when it goes to the parent, the old one removable then,
  // in that order (automation acting on them in order adds the new DS before it pulls the old);
  // and the parent held here, its DS RRset written by the service each time (the key tag and algorithm of each
  // DS it holds after)
  const feed = await app.http.get('/api/events').query({ limit: 1000 }).set('X-API-Key', app.settings.apiKey!);
  expect(feed.status).toBe(200);
  const dnssecOut = feed.body.events
    .filter((e: { zone: string; type: string }) => e.zone === CHILD && e.type.startsWith('dnssec.ds_'))
    .map((e: { type: string; data: any }) =>
      e.type === 'dnssec.ds_updated'
        ? [e.type, e.data.parent, (e.data.ds as string[]).map((ds) => ds.split(/\s+/).slice(0, 2).map(Number))]
        : [e.type, e.data.keyTag, e.data.algorithm],
    );
  expect(dnssecOut).toEqual([
    ['dnssec.ds_required', oldKsk.keyTag, 8],
    ['dnssec.ds_updated', PARENT, [[oldKsk.keyTag, 8]]],
    ['dnssec.ds_required', newKsk.keyTag, 13],
    ['dnssec.ds_removable', oldKsk.keyTag, 8],
    ['dnssec.ds_updated', PARENT, [[newKsk.keyTag, 13]]],
  ]);
}, 180_000);

it('rolls between the other pairs of algorithms, a CSK among them, the new DS confirmed by hand', async () => {
  const pairs: { from: string; to: string; csk: boolean }[] = [
    { from: 'ECDSAP256SHA256', to: 'ED25519', csk: false },
    { from: 'ED25519', to: 'RSASHA256', csk: true },
    { from: 'RSASHA256', to: 'ED25519', csk: false },
    { from: 'ED25519', to: 'ECDSAP256SHA256', csk: false },
    { from: 'ECDSAP256SHA256', to: 'RSASHA256', csk: true },
  ];
  await Promise.all(
    pairs.map(async ({ from, to, csk }, i) => {
      // no parent here: the operator gives it the DS and says so
      const zone = `pair${i}.zk-algo-pairs.test`;
      await createZone(zone);
      await gqlOk(
        `mutation($z: String!, $a: DnssecAlgorithm!, $l: DnssecKeyLayout!) { enableDnssec(input: {zone: $z, algorithm: $a, keyLayout: $l}) { enabled } }`,
        {
          z: zone,
          a: from,
          l: csk ? 'CSK' : 'KSK_ZSK',
        },
      );
      await gqlOk(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { enabled } }`, { z: zone });
      const initial = await transfer(zone);
      await gqlOk(ROLL, { z: zone, a: to });
      let confirmed = false;
      const watched = await watchRoll(zone, csk, initial, async (status) => {
        if (!confirmed && status.algorithmRoll?.step === 'NEW_DS' && status.parentDs.waitingFor === 'DS_PUBLICATION') {
          // the DS to give the parent is the new KSK's alone
          expect(status.ds.every((d) => d.split(' ')[1] === String(NUMBERS[to]))).toBe(true);
          await gqlOk(`mutation($z: String!) { confirmDnssecDsPublished(zone: $z) { enabled } }`, { z: zone });
          confirmed = true;
        }
      });
      expect(confirmed).toBe(true);
      expect(watched.steps).toEqual(['NEW_SIGNATURES', 'NEW_DNSKEYS', 'NEW_DS', 'OLD_DNSKEYS_REMOVED']);
      expectConservativeOrder(watched.serials, NUMBERS[from], NUMBERS[to]);
      const keys = (await statusOf(zone)).keys.filter((k) => k.state !== 'removed');
      expect(keys.map((k) => [k.role, k.algorithm, k.state])).toEqual((csk ? ['CSK'] : ['KSK', 'ZSK']).map((role) => [role, to, 'active']));
      const events = await gqlOk(`query($z: String) { domain(name: $z) { dnssecEvents(first: 20) { nodes { toState reason } } } }`, {
        z: zone,
      });
      expect(events.domain.dnssecEvents.nodes.filter((e: any) => e.toState === 'withdrawn').map((e: any) => e.reason)).toEqual(
        (csk ? ['CSK'] : ['KSK', 'ZSK']).map(() => 'ds-confirmed'),
      );
    }),
  );
}, 180_000);
