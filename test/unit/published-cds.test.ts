/**
 * The CDS and CDNSKEY a signed zone publishes (services/dnssec/zone-signing.ts, `publishedCds`) at each step of a
 * double-DS KSK roll (RFC 7583 §3.3.2): at every step they pass Knot's `check_submission` rule (every CDNSKEY a
 * record of the DNSKEY RRset, every CDS the digest of a CDNSKEY, as many CDS as CDNSKEY) and name the same keys
 * (RFC 9975 §3.1); mid-roll, while the parent should hold a DS of a key outside the DNSKEY RRset, there are none
 * (docs/dnssec.md, «CDS and CDNSKEY»).
 */
import { DNSSEC_ALGORITHMS } from '../../src/dns/dnssec/algorithms';
import { dnskeyOf, dnskeyTag } from '../../src/dns/dnssec/keys';
import { DNSKEY } from '../../src/dns/record-types/dnskey';
import type { StoredDnssecKey } from '../../src/repositories/dnssec';
import type { KeyState, StoredKeyRole } from '../../src/repositories/dnssec-key-events';
import { CDNSKEY_DELETE, dsRecordsOf, isPublished, publishedCds } from '../../src/services/dnssec/zone-keys';

const ZONE = 'cds.example';

function key(id: number, role: StoredKeyRole, state: KeyState): StoredDnssecKey {
  const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const dnskey = dnskeyOf(algorithm.generate(), algorithm, role !== 'ZSK');
  return {
    id,
    domainId: 1,
    role,
    algorithm: algorithm.number,
    keyTag: dnskeyTag(dnskey),
    dnskey: DNSKEY.format(dnskey),
    sealedPrivateKey: Buffer.alloc(0),
    state,
    createdAt: new Date(),
    publishedAt: null,
    readyAt: null,
    activeAt: null,
    retiredAt: null,
    removedAt: null,
    nextEvent: null,
    nextEventAt: null,
    nextEventReason: null,
  };
}

/** what Knot's check_submission (src/knot/zone/semantic-check.c) reports for this apex; [] when it passes */
function knotSubmissionErrors(keys: StoredDnssecKey[], cds: { type: string; rdata: string }[]): string[] {
  const dnskeys = new Set(keys.filter(isPublished).map((k) => k.dnskey));
  const cdss = cds.filter((r) => r.type === 'CDS').map((r) => r.rdata);
  const cdnskeys = cds.filter((r) => r.type === 'CDNSKEY').map((r) => r.rdata);
  if (!cdss.length && !cdnskeys.length) return [];
  const errors: string[] = [];
  if (!cdss.length) errors.push('missing CDS');
  if (!cdnskeys.length) errors.push('missing CDNSKEY');
  for (const cdnskey of cdnskeys) if (cdnskey !== CDNSKEY_DELETE && !dnskeys.has(cdnskey)) errors.push('CDNSKEY not match DNSKEY');
  const digests = new Set(cdnskeys.flatMap((dnskey) => dsRecordsOf(ZONE, { dnskey })));
  for (const rdata of cdss) if (rdata !== '0 0 0 00' && !digests.has(rdata)) errors.push('CDS not match CDNSKEY');
  if (cdss.length < cdnskeys.length) errors.push('CDNSKEY without corresponding CDS');
  return errors;
}

const tags = (records: { type: string; rdata: string }[], type: string) =>
  records.filter((r) => r.type === type).map((r) => Number(r.rdata.split(' ')[0]));
const cdnskeyTags = (keys: StoredDnssecKey[], records: { type: string; rdata: string }[]) =>
  records.filter((r) => r.type === 'CDNSKEY').map((r) => keys.find((k) => k.dnskey === r.rdata)?.keyTag);

it('a double-DS KSK roll: the active KSK, none from the new key’s generation to the old DS’s withdrawal, then the new KSK', () => {
  const zsk = key(1, 'ZSK', 'active');
  const old = key(2, 'KSK', 'active');
  const next = key(3, 'KSK', 'generated');
  const steps: { name: string; keys: StoredDnssecKey[]; cds: number[] }[] = [
    { name: 'before', keys: [zsk, old], cds: [old.keyTag] },
    { name: 'new key generated', keys: [zsk, old, next], cds: [] },
    { name: 'swap', keys: [zsk, { ...old, state: 'retired' }, { ...next, state: 'active' }], cds: [] },
    { name: 'old DS withdrawn', keys: [zsk, { ...old, state: 'removed' }, { ...next, state: 'active' }], cds: [next.keyTag] },
  ];
  for (const step of steps) {
    const records = publishedCds(ZONE, step.keys, 3600);
    expect({ step: step.name, errors: knotSubmissionErrors(step.keys, records) }).toEqual({ step: step.name, errors: [] });
    expect({ step: step.name, cds: tags(records, 'CDS') }).toEqual({ step: step.name, cds: step.cds });
    // the CDNSKEY RRset names the same keys as the CDS RRset
    expect({ step: step.name, cdnskey: cdnskeyTags(step.keys, records) }).toEqual({ step: step.name, cdnskey: step.cds });
    expect(records.every((r) => r.owner === '@' && r.ttl === 3600)).toBe(true);
  }
});

it('a CSK rolls the same way; a ZSK roll leaves the CDS alone; a zone disabling publishes the DS-delete pair', () => {
  const csk = key(1, 'CSK', 'active');
  const next = key(2, 'CSK', 'generated');
  expect(publishedCds(ZONE, [csk], 60).map((r) => r.type)).toEqual(['CDS', 'CDNSKEY']);
  expect(publishedCds(ZONE, [csk, next], 60)).toEqual([]);
  expect(
    publishedCds(
      ZONE,
      [
        { ...csk, state: 'retired' },
        { ...next, state: 'active' },
      ],
      60,
    ),
  ).toEqual([]);

  const ksk = key(3, 'KSK', 'active');
  const zsks = [key(4, 'ZSK', 'active'), key(5, 'ZSK', 'published')];
  expect(tags(publishedCds(ZONE, [ksk, ...zsks], 60), 'CDS')).toEqual([ksk.keyTag]);
  expect(tags(publishedCds(ZONE, [ksk, { ...zsks[0], state: 'retired' }, { ...zsks[1], state: 'active' }], 60), 'CDS')).toEqual([
    ksk.keyTag,
  ]);

  const disabling = publishedCds(ZONE, [ksk, next], 60, true);
  expect(disabling.map((r) => `${r.type} ${r.rdata}`)).toEqual(['CDS 0 0 0 00', `CDNSKEY ${CDNSKEY_DELETE}`]);
  expect(knotSubmissionErrors([ksk], disabling)).toEqual([]);
});

it('the check above can fail: the former publication, both keys while the new one is generated, breaks it', () => {
  const old = key(1, 'KSK', 'active');
  const next = key(2, 'KSK', 'generated');
  const former = [old, next].flatMap((k) => [
    { type: 'CDS', rdata: dsRecordsOf(ZONE, k)[0] },
    { type: 'CDNSKEY', rdata: k.dnskey },
  ]);
  expect(knotSubmissionErrors([old, next], former)).toEqual(['CDNSKEY not match DNSKEY']);
  // CDNSKEY for the published key only, CDS for both: the new key's CDS matches no CDNSKEY
  expect(
    knotSubmissionErrors(
      [old, next],
      former.filter((r) => !(r.type === 'CDNSKEY' && r.rdata === next.dnskey)),
    ),
  ).toEqual(['CDS not match CDNSKEY']);
});

it('multi-signer (RFC 8901 §8): the other signer’s KSK beside ours, not its ZSK; none mid-roll; the DS-delete pair alone when disabling', () => {
  const ksk = key(1, 'KSK', 'active');
  const zsk = key(2, 'ZSK', 'active');
  const theirKsk = key(3, 'KSK', 'active');
  const theirZsk = key(4, 'ZSK', 'active');
  const foreign = [theirKsk, theirZsk].map((k) => ({ dnskey: k.dnskey, flags: k.role === 'KSK' ? 257 : 256 }));
  const records = publishedCds(ZONE, [ksk, zsk], 3600, false, foreign);
  expect(tags(records, 'CDS')).toEqual([ksk.keyTag, theirKsk.keyTag]);
  const all = [ksk, zsk, theirKsk, theirZsk];
  expect(cdnskeyTags(all, records)).toEqual([ksk.keyTag, theirKsk.keyTag]);
  // their keys are in our DNSKEY RRset, so the CDNSKEY names keys of it (RFC 9975 §3.1)
  expect(knotSubmissionErrors(all, records)).toEqual([]);
  // without their keys in the DNSKEY RRset the same CDS would break Knot's rule
  expect(knotSubmissionErrors([ksk, zsk], records)).toEqual(['CDNSKEY not match DNSKEY']);
  // our double-DS roll publishes none, theirs included
  expect(publishedCds(ZONE, [ksk, zsk, key(5, 'KSK', 'generated')], 3600, false, foreign)).toEqual([]);
  expect(publishedCds(ZONE, [ksk, zsk], 3600, true, foreign).map((r) => r.rdata)).toEqual(['0 0 0 00', CDNSKEY_DELETE]);
});

it('multi-signer, our DS withdrawn (moving out): the other signer’s KSKs alone, signed or disabling; ours again without one of theirs', () => {
  const ksk = key(1, 'KSK', 'active');
  const zsk = key(2, 'ZSK', 'active');
  const theirKsk = key(3, 'KSK', 'active');
  const theirZsk = key(4, 'ZSK', 'active');
  const foreign = [theirKsk, theirZsk].map((k) => ({ dnskey: k.dnskey, flags: k.role === 'KSK' ? 257 : 256 }));
  const records = publishedCds(ZONE, [ksk, zsk], 3600, false, foreign, true);
  expect(tags(records, 'CDS')).toEqual([theirKsk.keyTag]);
  const all = [ksk, zsk, theirKsk, theirZsk];
  expect(cdnskeyTags(all, records)).toEqual([theirKsk.keyTag]);
  expect(knotSubmissionErrors(all, records)).toEqual([]);
  // unsigned here next: their DS stays wanted, no DS-delete (RFC 8078 §4 would take theirs away too)
  expect(publishedCds(ZONE, [ksk, zsk], 3600, true, foreign, true)).toEqual(records);
  // without a KSK of theirs the flag asks nothing of the parent: ours, as before
  expect(tags(publishedCds(ZONE, [ksk, zsk], 3600, false, foreign.slice(1), true), 'CDS')).toEqual([ksk.keyTag]);
});
