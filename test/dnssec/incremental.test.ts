/**
 * The incremental signer against the whole-zone signer: after every change of a run of random changes, the
 * stored signer records with the change's diff applied hold the same NSEC/NSEC3 chain as signing the new
 * zone from scratch, and an RRSIG for the same (owner, type, key) wherever the whole-zone signer puts one;
 * the last zone passes dnssec-verify, ldns-verify-zone and kzonecheck. The diff touches only what changed.
 * A key step that leaves the keys signing the data as they were re-signs the apex's key RRsets alone, and
 * gives what signing whole gives; one that changes them is signed whole. ALIAS and ANAME, never served, are
 * never signed nor in a bitmap or the chain.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DNSSEC_ALGORITHMS } from '../../src/dns/dnssec/algorithms';
import { canonicalRdata } from '../../src/dns/dnssec/canonical-rdata';
import { canonicalSortKey } from '../../src/dns/dnssec/canonical-order';
import {
  ChainMember,
  keyStepChange,
  questionsAbout,
  questionsCover,
  questionsOf,
  signChange,
  SignedZoneView,
  signKeyStep,
} from '../../src/dns/dnssec/incremental';
import { dnskeyOf, dnskeyTag } from '../../src/dns/dnssec/keys';
import { fromBase32hex } from '../../src/dns/wire/nsec3-hash';
import { Denial, dnskeyRecords, signZone, ZoneKey } from '../../src/dns/dnssec/zone-signer';
import { nameLabels, ownerToFqdn } from '../../src/dns/name';
import { CanonicalRecord } from '../../src/dns/record';
import { RRSIG, rrsigTextHead, rrsigTextHeadOnce } from '../../src/dns/record-types/signer-types';
import { getServedRecordType } from '../../src/dns/record-types';
import { rdataToWire } from '../../src/dns/wire';
import { renderZoneFile } from '../../src/dns/zone-file';

const run = promisify(execFile);
const ZONE = 'inc.example';
const SIGNER = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'DNSKEY']);

const algorithm = DNSSEC_ALGORITHMS.ED25519;
const keys: ZoneKey[] = (['KSK', 'ZSK'] as const).map((role) => {
  const privateKey = algorithm.generate();
  const dnskey = dnskeyOf(privateKey, algorithm, role === 'KSK');
  return { role, algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: true };
});
const now = Math.floor(Date.now() / 1000);
const window = { inception: now - 3600, expiration: () => now + 14 * 86400 };

const soa = (serial: number): CanonicalRecord => ({
  owner: '@',
  type: 'SOA',
  ttl: 3600,
  rdata: `ns1.inc.example. hostmaster.inc.example. ${serial} 7200 3600 1209600 300`,
});
const initial = (): CanonicalRecord[] => [
  soa(1),
  { owner: '@', type: 'NS', ttl: 3600, rdata: 'ns1.inc.example.' },
  { owner: 'ns1', type: 'A', ttl: 300, rdata: '192.0.2.1' },
  { owner: 'www', type: 'A', ttl: 300, rdata: '192.0.2.2' },
  { owner: 'a.b.c', type: 'TXT', ttl: 300, rdata: '"deep"' },
  { owner: 'cut', type: 'NS', ttl: 3600, rdata: 'ns.cut.inc.example.' },
  { owner: 'ns.cut', type: 'A', ttl: 3600, rdata: '192.0.2.9' },
];

const identity = (r: CanonicalRecord) => `${r.owner}\u0000${r.type}\u0000${r.rdata}`;

/** the view the data layer will give, here over arrays */
function memoryView(records: readonly CanonicalRecord[], signer: readonly CanonicalRecord[], denial: Denial): SignedZoneView {
  const members: ChainMember[] = signer
    .filter((r) => r.type === (denial.kind === 'nsec' ? 'NSEC' : 'NSEC3'))
    .map((r) => ({
      owner: r.owner,
      key: denial.kind === 'nsec' ? canonicalSortKey(nameLabels(ownerToFqdn(r.owner, ZONE))) : fromBase32hex(r.owner),
    }))
    .sort((a, b) => Buffer.compare(a.key, b.key));
  const around = (key: Buffer, step: 1 | -1): ChainMember | undefined => {
    const others = members.filter((m) => !m.key.equals(key));
    if (!others.length) return undefined;
    if (step === 1) return others.find((m) => Buffer.compare(m.key, key) > 0) ?? others[0];
    return [...others].reverse().find((m) => Buffer.compare(m.key, key) < 0) ?? others[others.length - 1];
  };
  return {
    // the DNSKEY RRset is zone data the signer keeps: the view shows it with the rest
    recordsAt: async (owner) => [...records, ...signer.filter((r) => r.type === 'DNSKEY')].filter((r) => r.owner === owner),
    hasDescendants: async (owner) => records.some((r) => (owner === '@' ? r.owner !== '@' : r.owner.endsWith(`.${owner}`))),
    signerRecordsAt: async (owner) => signer.filter((r) => r.owner === owner && r.type !== 'DNSKEY' && r.type !== 'NSEC3PARAM'),
    chainPredecessor: async (key) => around(key, -1),
    chainSuccessor: async (key) => around(key, 1),
  };
}

/**
 * The view, watched: every question `signChange` asks that its `questionsOf` did not announce, which the data
 * layer would answer with a look-up of its own (services/dnssec/zone-signing.ts answers the announced ones in
 * one statement). The chain's neighbours of a member a chain answer named are known with that answer.
 */
function watched(view: SignedZoneView, questions: Exclude<ReturnType<typeof questionsOf>, 'full'>, unasked: string[]): SignedZoneView {
  const owners = new Set(questions.owners);
  const below = new Set(['@', ...questions.below.map((b) => b.owner)]);
  const signerOwners = new Set(questions.signerOwners);
  const keys = new Set(questions.chainKeys.map((k) => k.toString('hex')));
  // the member before an announced key: what follows it is known (that key, or what follows that key)
  const known = { predecessor: new Set<string>(), successor: new Set<string>() };
  const chain = (label: 'predecessor' | 'successor', ask: (key: Buffer) => Promise<ChainMember | undefined>) => async (key: Buffer) => {
    const announced = keys.has(key.toString('hex'));
    if (!announced && !known[label].has(key.toString('hex'))) unasked.push(`${label} ${key.toString('hex')}`);
    const member = await ask(key);
    if (member && announced) known[label === 'predecessor' ? 'successor' : 'predecessor'].add(member.key.toString('hex'));
    if (member && announced && label === 'predecessor') signerOwners.add(member.owner);
    return member;
  };
  return {
    recordsAt: async (owner) => (owners.has(owner) ? undefined : unasked.push(`records ${owner}`), view.recordsAt(owner)),
    hasDescendants: async (owner) => (below.has(owner) ? undefined : unasked.push(`below ${owner}`), view.hasDescendants(owner)),
    signerRecordsAt: async (owner) => (signerOwners.has(owner) ? undefined : unasked.push(`signer ${owner}`), view.signerRecordsAt(owner)),
    chainPredecessor: chain('predecessor', (key) => view.chainPredecessor(key)),
    chainSuccessor: chain('successor', (key) => view.chainSuccessor(key)),
  };
}

/** a small deterministic random generator, so that a failure can be replayed */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const signatureKeys = (records: readonly CanonicalRecord[]) =>
  records
    .filter((r) => r.type === 'RRSIG')
    .map((r) => {
      const value = RRSIG.parse(r.rdata, ZONE);
      if (!value.ok) throw new Error('bad RRSIG');
      return `${r.owner} ${value.value.typeCovered} ${value.value.keyTag}`;
    })
    .sort();
const denialRecords = (records: readonly CanonicalRecord[]) =>
  records
    .filter((r) => r.type === 'NSEC' || r.type === 'NSEC3' || r.type === 'NSEC3PARAM')
    .map(identity)
    .sort();

const dir = mkdtempSync(join(tmpdir(), 'zk-incremental-'));
afterAll(() => (process.env.KEEP ? undefined : rmSync(dir, { recursive: true, force: true })));

describe.each<[string, Denial]>([
  ['NSEC', { kind: 'nsec' }],
  ['NSEC3', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }],
  ['NSEC3 opt-out', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: true }],
])('%s', (label, denial) => {
  it('signing each change of a random run gives what signing the whole zone gives, and the result verifies', async () => {
    const next = random(label.length * 7919);
    let records = initial();
    let signer = signZone(ZONE, records, keys, denial, window, canonicalRdata);
    let serial = 1;
    let fulls = 0;
    let largestDiff = 0;
    for (let step = 0; step < 60; step++) {
      const removed: CanonicalRecord[] = [soa(serial)];
      const added: CanonicalRecord[] = [soa(++serial)];
      const choice = next();
      // the apex, the name server's address and the delegation stay (kzonecheck wants the glue; cuts are signed whole)
      const candidates = records.filter((r) => !['@', 'ns1', 'cut'].includes(r.owner) && !r.owner.endsWith('.cut'));
      if (choice < 0.45 || !candidates.length) {
        const depth = 1 + Math.floor(next() * 3);
        const owner = Array.from({ length: depth }, () => ['x', 'y', 'z', 'www', '*'][Math.floor(next() * 5)])
          .join('.')
          .replace(/(?!^)\*/g, 'w');
        added.push({ owner, type: next() < 0.5 ? 'A' : 'TXT', ttl: 300, rdata: next() < 0.5 ? `192.0.2.${10 + step}` : `"t${step}"` });
        // A and TXT: keep it one of them at a time, the RDATA must parse as its type
        added[1] = added[1].type === 'A' ? { ...added[1], rdata: `192.0.2.${10 + step}` } : { ...added[1], rdata: `"t${step}"` };
      } else if (choice < 0.85) {
        removed.push(candidates[Math.floor(next() * candidates.length)]);
      } else {
        const owner = candidates[Math.floor(next() * candidates.length)].owner;
        removed.push(...records.filter((r) => r.owner === owner));
      }
      const gone = new Set(removed.map(identity));
      const after = [
        ...records.filter((r) => !gone.has(identity(r))),
        ...added.filter((r) => !records.some((x) => identity(x) === identity(r)) || gone.has(identity(r))),
      ];
      const questions = questionsOf(ZONE, { removed, added }, denial);
      expect(questions).not.toBe('full');
      const unasked: string[] = [];
      const view = watched(memoryView(after, signer, denial), questions as Exclude<typeof questions, 'full'>, unasked);
      const diff = await signChange(ZONE, { removed, added }, view, keys, denial, window, canonicalRdata);
      // what signChange asks was announced: the data layer answers a change in one statement
      expect(unasked).toEqual([]);
      if (diff === 'full') {
        fulls++;
        signer = signZone(ZONE, after, keys, denial, window, canonicalRdata);
      } else {
        const drop = new Set(diff.removed.map(identity));
        expect(drop.size).toBe(diff.removed.length);
        for (const r of diff.removed) expect(signer.map(identity)).toContain(identity(r));
        signer = [...signer.filter((r) => !drop.has(identity(r))), ...diff.added];
        largestDiff = Math.max(largestDiff, diff.removed.length + diff.added.length);
      }
      records = after;
      const whole = signZone(ZONE, records, keys, denial, window, canonicalRdata);
      expect(denialRecords(signer)).toEqual(denialRecords(whole));
      expect(signatureKeys(signer)).toEqual(signatureKeys(whole));
    }
    expect(fulls).toBe(0);
    // a change is signed by what it touches: a handful of records, not the zone
    expect(largestDiff).toBeLessThan(40);
    const file = join(dir, `${label.replace(/\W+/g, '-')}.zone`);
    writeFileSync(file, renderZoneFile(ZONE, [...records, ...signer.filter((r) => SIGNER.has(r.type))]));
    await run('dnssec-verify', ['-o', ZONE, file]);
    expect((await run('ldns-verify-zone', [file])).stdout).toMatch(/Zone is verified and complete/);
    await run('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file]);
  });
});

it('a change that moves a zone cut is signed whole', async () => {
  const records = initial();
  const signer = signZone(ZONE, records, keys, { kind: 'nsec' }, window, canonicalRdata);
  const cut = { owner: 'www', type: 'NS', ttl: 3600, rdata: 'ns1.inc.example.' };
  const diff = await signChange(
    ZONE,
    { removed: [soa(1)], added: [soa(2), cut] },
    memoryView([...records, cut], signer, { kind: 'nsec' }),
    keys,
    { kind: 'nsec' },
    window,
    canonicalRdata,
  );
  expect(diff).toBe('full');
});

it('answers asked early serve a change only when they cover its questions', () => {
  const nsec3 = (salt: string): Denial => ({ kind: 'nsec3', iterations: 0, salt: Buffer.from(salt, 'hex'), optOut: false });
  const add = { removed: [soa(1)], added: [soa(2), { owner: 'new.b', type: 'A', ttl: 300, rdata: '192.0.2.5' }] };
  const of = (denial: Denial, change = add) => questionsOf(ZONE, change, denial) as Exclude<ReturnType<typeof questionsOf>, 'full'>;
  // a guess from the owners the request names, under the denial the zone had when last read
  expect(questionsCover(questionsAbout(ZONE, ['new.b', '@'], { kind: 'nsec' }), of({ kind: 'nsec' }))).toBe(true);
  expect(questionsCover(questionsAbout(ZONE, ['new.b', '@'], nsec3('aa')), of(nsec3('aa')))).toBe(true);
  // the zone's denial changed since: other chain keys, other hashed owners
  expect(questionsCover(questionsAbout(ZONE, ['new.b', '@'], nsec3('aa')), of(nsec3('bb')))).toBe(false);
  expect(questionsCover(questionsAbout(ZONE, ['new.b', '@'], { kind: 'nsec' }), of(nsec3('aa')))).toBe(false);
  // the change touches an owner the request did not name
  expect(questionsCover(questionsAbout(ZONE, ['other', '@'], { kind: 'nsec' }), of({ kind: 'nsec' }))).toBe(false);
  // a removal: the look-up below an owner must reach past the records it removes there
  const removal = (owner: string) => ({ removed: [soa(1), { owner, type: 'A', ttl: 300, rdata: '192.0.2.6' }], added: [soa(2)] });
  expect(questionsCover(questionsAbout(ZONE, ['x', '@'], nsec3('aa')), of(nsec3('aa'), removal('x')))).toBe(true);
  expect(questionsCover(questionsAbout(ZONE, ['x.b', '@'], nsec3('aa')), of(nsec3('aa'), removal('x.b')))).toBe(false);
  expect(questionsCover(questionsAbout(ZONE, ['x.b', '@'], nsec3('aa'), removal('x.b').removed), of(nsec3('aa'), removal('x.b')))).toBe(
    true,
  );
});

describe.each<[string, Denial]>([
  ['NSEC', { kind: 'nsec' }],
  ['NSEC3', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }],
])('a key step (%s)', (label, denial) => {
  const records = initial();
  const signer = signZone(ZONE, records, keys, denial, window, canonicalRdata);
  const recordsAfter = [...records.filter((r) => r.type !== 'SOA'), soa(2)];
  const newZsk: ZoneKey = (() => {
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, false);
    return { role: 'ZSK', algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: false };
  })();
  /** the step to `after` as the signing step hands it over: the zone after it seen through the view */
  const step = (after: ZoneKey[]) => {
    const keyRecords = { before: signer.filter((r) => r.type === 'DNSKEY'), after: dnskeyRecords(after, 3600) };
    const change = keyStepChange({ removed: [soa(1)], added: [soa(2)] }, keyRecords);
    const view = memoryView(
      [...recordsAfter, ...keyRecords.after],
      signer.filter((r) => r.type !== 'DNSKEY'),
      denial,
    );
    return signKeyStep(ZONE, change, keyRecords, view, after, denial, window, canonicalRdata);
  };

  it('publishing a ZSK (RFC 7583 §3.2.1) re-signs the apex DNSKEY and SOA alone, and gives what signing whole gives', async () => {
    const after = [...keys, newZsk];
    const diff = await step(after);
    if (diff === 'full') throw new Error('a ZSK published was signed whole');
    // the new DNSKEY, and the DNSKEY's and the SOA's RRSIGs replaced: the rest keeps its signatures
    expect(diff.added.map((r) => `${r.type} ${r.type === 'RRSIG' ? r.rdata.split(' ')[0] : ''}`).sort()).toEqual([
      'DNSKEY ',
      'RRSIG DNSKEY',
      'RRSIG SOA',
    ]);
    expect(diff.removed.map((r) => `${r.type} ${r.rdata.split(' ')[0]}`).sort()).toEqual(['RRSIG DNSKEY', 'RRSIG SOA']);
    const drop = new Set(diff.removed.map(identity));
    const stepped = [...signer.filter((r) => !drop.has(identity(r))), ...diff.added];
    const whole = signZone(ZONE, recordsAfter, after, denial, window, canonicalRdata);
    expect(denialRecords(stepped)).toEqual(denialRecords(whole));
    expect(signatureKeys(stepped)).toEqual(signatureKeys(whole));
    expect(
      stepped
        .filter((r) => r.type === 'DNSKEY')
        .map(identity)
        .sort(),
    ).toEqual(
      whole
        .filter((r) => r.type === 'DNSKEY')
        .map(identity)
        .sort(),
    );
    const file = join(dir, `key-step-${label}.zone`);
    writeFileSync(file, renderZoneFile(ZONE, [...recordsAfter, ...stepped.filter((r) => SIGNER.has(r.type))]));
    await run('dnssec-verify', ['-o', ZONE, file]);
    expect((await run('ldns-verify-zone', [file])).stdout).toMatch(/Zone is verified and complete/);
    await run('kzonecheck', ['--dnssec', 'on', '-o', ZONE, file]);
  });

  it('is signed whole when the keys that sign the data change, or two keys share a key tag', async () => {
    // the new ZSK active and the old one retired: every RRset wants the new key's signature
    expect(await step([keys[0], { ...keys[1], signing: false }, { ...newZsk, signing: true }])).toBe('full');
    // a second signing ZSK (an algorithm roll's kind): the same
    expect(await step([...keys, { ...newZsk, signing: true }])).toBe('full');
    // a published key with the active ZSK's tag: the stored RRSIGs cannot tell the two apart
    expect(await step([...keys, { ...newZsk, tag: keys[1].tag }])).toBe('full');
  });
});

describe.each<[string, Denial]>([
  ['NSEC', { kind: 'nsec' }],
  ['NSEC3', { kind: 'nsec3', iterations: 0, salt: Buffer.alloc(0), optOut: false }],
])('ALIAS and ANAME (%s): never served, so never signed nor in a bitmap or the chain', (label, denial) => {
  const aliases: CanonicalRecord[] = [
    { owner: '@', type: 'ALIAS', ttl: 300, rdata: 'cdn.example.net.' },
    { owner: 'x.only', type: 'ANAME', ttl: 300, rdata: 'cdn.example.net.' },
  ];
  const typesOf = (records: readonly CanonicalRecord[]) =>
    records.filter((r) => r.type === 'RRSIG' || r.type === 'NSEC' || r.type === 'NSEC3').map((r) => `${r.owner} ${r.type} ${r.rdata}`);

  it('signing whole gives what the zone without them gives, signatures aside', () => {
    const without = signZone(ZONE, initial(), keys, denial, window, canonicalRdata);
    const withAliases = signZone(ZONE, [...initial(), ...aliases], keys, denial, window, canonicalRdata);
    expect(denialRecords(withAliases)).toEqual(denialRecords(without));
    expect(signatureKeys(withAliases)).toEqual(signatureKeys(without));
    expect(typesOf(withAliases).filter((line) => /ALIAS|ANAME|TYPE65401|TYPE65305/.test(line))).toEqual([]);
  });

  it('a change of them alone re-signs the SOA only; derived addresses beside one are signed as any change', async () => {
    // the data layer's view leaves them out of the names below an owner (repositories/dnssec.ts recordsBelow)
    const servedView = (records: CanonicalRecord[], signer: CanonicalRecord[]): SignedZoneView => {
      const view = memoryView(records, signer, denial);
      const served = records.filter((r) => r.type !== 'ALIAS' && r.type !== 'ANAME');
      return { ...view, hasDescendants: async (owner) => served.some((r) => r.owner.endsWith(`.${owner}`)) };
    };
    let records = initial();
    let signer = signZone(ZONE, records, keys, denial, window, canonicalRdata);
    const step = async (removed: CanonicalRecord[], added: CanonicalRecord[]) => {
      const gone = new Set(removed.map(identity));
      const after = [...records.filter((r) => !gone.has(identity(r))), ...added];
      const diff = await signChange(ZONE, { removed, added }, servedView(after, signer), keys, denial, window, canonicalRdata);
      if (diff === 'full') throw new Error('signed whole');
      const drop = new Set(diff.removed.map(identity));
      signer = [...signer.filter((r) => !drop.has(identity(r))), ...diff.added];
      records = after;
      const whole = signZone(ZONE, records, keys, denial, window, canonicalRdata);
      expect(denialRecords(signer)).toEqual(denialRecords(whole));
      expect(signatureKeys(signer)).toEqual(signatureKeys(whole));
      return diff;
    };
    const added = await step([soa(1)], [soa(2), ...aliases]);
    // the SOA's RRSIG out and in: nothing else moved
    expect(added.added.map((r) => `${r.owner} ${r.type} ${r.rdata.split(' ')[0]}`)).toEqual(
      keys.filter((key) => key.role === 'ZSK').map(() => '@ RRSIG SOA'),
    );
    expect(added.removed.map((r) => `${r.owner} ${r.type} ${r.rdata.split(' ')[0]}`)).toEqual(added.added.map(() => '@ RRSIG SOA'));
    const derived = [
      { owner: '@', type: 'A', ttl: 60, rdata: '192.0.2.80' },
      { owner: 'x.only', type: 'AAAA', ttl: 60, rdata: '2001:db8::80' },
    ];
    await step([soa(2)], [soa(3), ...derived]);
    await step([soa(3), ...derived], [soa(4)]);
    const file = join(dir, `alias-${label}.zone`);
    writeFileSync(file, renderZoneFile(ZONE, [...records.filter((r) => r.type !== 'ALIAS' && r.type !== 'ANAME'), ...signer]));
    await run('dnssec-verify', ['-o', ZONE, file]);
    expect((await run('ldns-verify-zone', [file])).stdout).toMatch(/Zone is verified and complete/);
  });
});

it("the SOA's canonical RDATA, kept per zone without its serial, is the one its text parses to", () => {
  const soa = getServedRecordType('SOA')!;
  const texts = [
    ['Ex.COM', 'NS1.Ex.COM. HostMaster.ex.com. 1 7200 3600 1209600 300'],
    ['ex.com', 'ns1 hostmaster 4294967295 1 2 3 4'],
    ['ex.com', 'ns1.ex.com. h\\.m.ex.com. 2026112601 7200 3600 1209600 300'],
    ['ex.com', 'ns1.ex.com. h.ex.com. 5 1h 3600 1209600 300'],
  ];
  for (const [zone, text] of texts)
    for (const serial of [0, 1, 2026112602, 4294967295]) {
      const rdata = text.replace(/^(\S+ \S+ )\d+/, `$1${serial}`);
      const parsed = soa.parse(rdata, zone);
      if (!parsed.ok) throw new Error(`${rdata} does not parse`);
      const expected = rdataToWire(soa, parsed.value, { canonical: true });
      // twice: the second from the kept form
      for (let i = 0; i < 2; i++) expect(canonicalRdata(zone, { owner: '@', type: 'SOA', ttl: 300, rdata }).equals(expected)).toBe(true);
    }
});

it("a signed write's RRSIG text, made for it alone, is the one the shared heads give", () => {
  for (const expiration of [0, 1_700_000_000, 4_294_967_295])
    for (const typeCovered of [1, 6, 47, 50]) {
      const fields = {
        typeCovered,
        algorithm: 13,
        labels: 3,
        originalTtl: 3600,
        expiration,
        inception: 1_700_000_000 - 3600,
        keyTag: 12345,
        signer: 'ex.com.',
      };
      expect(rrsigTextHeadOnce(fields)).toBe(rrsigTextHead(fields));
    }
});
