/**
 * Signing a change, not a zone: a record change re-signs only the RRsets it touched (the SOA's among them:
 * its serial moved) and rewrites only the NSEC/NSEC3 records whose content moved — the owners that joined or
 * left the chain, the owners whose types changed and the neighbours whose "next" now points elsewhere. The
 * result is the exact set of signer records to remove and to add, so that the journal row of the change, and
 * the IXFR a secondary takes from it, carries exactly those (RFC 1995 §4).
 *
 * A change that moves a zone cut or a DNAME (NS below the apex, DS, DNAME) changes which data is
 * authoritative below it; it is answered `full` and the caller signs the zone whole and stores the
 * difference (rare, and still one serial step).
 *
 * A key step whose keys signing the data stay the same is signed here too, as a change of the apex's key
 * RRsets (`signKeyStep`).
 *
 * The zone is read through `SignedZoneView`, which the data layer implements with index look-ups, so the cost
 * follows the size of the change, not of the zone.
 */
import { CanonicalRecord, recordIdentity } from '../record';
import { ownerToFqdn, parseDomainNameInRdata } from '../name';
import { getServedRecordType } from '../record-types';
import { denialTypesOf, NSEC, RRSIG, rrsigCoverage } from '../record-types/signer-types';
import { rdataToWire } from '../wire';
import { nameSortKey } from './canonical-order';
import { base32hex } from '../wire/nsec3-hash';
import {
  ancestorsOf,
  CanonicalRdata,
  Denial,
  denialTtl,
  isServedData,
  nsec3Rdata,
  nsec3Types,
  nsecTypes,
  ownerHash,
  Rrset,
  SignatureWindow,
  signatures,
  signersOf,
  ZoneKey,
} from './zone-signer';

/** one member of the denial chain: its sort key (NSEC: canonicalSortKey; NSEC3: the hash) and the owner of its record */
export interface ChainMember {
  key: Buffer;
  owner: string;
}

/**
 * The zone as the signer reads it. Asynchronous: the data layer answers with index look-ups in the change's
 * connection, so the cost follows the size of the change, not of the zone; the questions `questionsOf`
 * announces it answers all at once, before `signChange` asks them.
 */
export interface SignedZoneView {
  /** the zone's records at `owner` after the change (data, DNSKEY, CDS, CDNSKEY; no RRSIG, NSEC, NSEC3) */
  recordsAt(owner: string): Promise<readonly CanonicalRecord[]>;
  /** whether any record stands strictly below `owner` after the change */
  hasDescendants(owner: string): Promise<boolean>;
  /** the signer's records stored now at an owner: RRSIG, NSEC, NSEC3 (at its hashed owner) */
  signerRecordsAt(owner: string): Promise<CanonicalRecord[]>;
  /** the chain as it is stored now, circular: the member right before / after `key`, `key` itself excluded */
  chainPredecessor(key: Buffer): Promise<ChainMember | undefined>;
  chainSuccessor(key: Buffer): Promise<ChainMember | undefined>;
}

export interface SignerDiff {
  removed: CanonicalRecord[];
  added: CanonicalRecord[];
}

/** types whose change moves what is authoritative below their owner (RFC 4035 §2.2; RFC 6672 §2.3); DS flips opt-out membership */
const CUT_TYPES = new Set(['NS', 'DS', 'DNAME']);
/** types the signer owns at the apex or elsewhere: never part of a record change */
const SIGNER_TYPES = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM']);

/**
 * the records of a change the signer answers for: the zone data it touched, not the signer's own records, nor
 * ALIAS and ANAME, which are never served (zone-signer.ts `isServedData`): a change of those alone re-signs
 * only the SOA
 */
const touchedData = (change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] }): CanonicalRecord[] =>
  [...change.removed, ...change.added].filter((r) => !SIGNER_TYPES.has(r.type) && isServedData(r));

interface OwnerState {
  occluded: boolean;
  delegation: boolean;
  rrsets: Rrset[];
}

/**
 * What `signChange` will ask the view about a change, known before it asks, so that the data layer can
 * answer it all in one statement rather than one look-up per question (services/dnssec/zone-signing.ts):
 * the records at the touched owners, their ancestors and the apex; the signer records at the RRsets' owners
 * and at the chain members of the touched owners; the stored neighbours of those members; for NSEC3, whether
 * names stand below them. A question outside these (a chain walk past several members leaving at once) is
 * still answered, by a look-up of its own. 'full': the change is signed whole and asks nothing.
 */
export interface ViewQuestions {
  owners: string[];
  signerOwners: string[];
  chainKeys: Buffer[];
  /** owners `hasDescendants` may be asked of, and how many records below each to look at: one more than the change removes there */
  below: { owner: string; limit: number }[];
}

export function questionsOf(
  zone: string,
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  denial: Denial,
): ViewQuestions | 'full' {
  const touched = touchedData(change);
  if (touched.some((r) => CUT_TYPES.has(r.type) && (r.owner !== '@' || r.type === 'DNAME'))) return 'full';
  return questionsAbout(
    zone,
    touched.map((r) => r.owner),
    denial,
    change.removed,
  );
}

/** the questions of a change that touches `touchedOwners` (the apex's SOA among them) and removes `removed` */
export function questionsAbout(
  zone: string,
  touchedOwners: Iterable<string>,
  denial: Denial,
  removed: readonly { owner: string }[] = [],
): ViewQuestions {
  const touchedSet = new Set(touchedOwners);
  const chainOwners = new Set(touchedSet);
  if (denial.kind === 'nsec3') for (const owner of [...chainOwners]) for (const ancestor of ancestorsOf(owner)) chainOwners.add(ancestor);
  const owners = new Set(['@', ...chainOwners]);
  for (const owner of chainOwners) for (const ancestor of ancestorsOf(owner)) owners.add(ancestor);
  const signerOwners = new Set(['@', ...touchedSet]);
  const chainKeys: Buffer[] = [];
  for (const owner of chainOwners) {
    if (denial.kind === 'nsec') {
      signerOwners.add(owner);
      chainKeys.push(nameSortKey(ownerToFqdn(owner, zone)));
    } else {
      const hash = ownerHash(zone, owner, denial);
      signerOwners.add(base32hex(hash));
      chainKeys.push(hash);
    }
  }
  const below =
    denial.kind === 'nsec'
      ? []
      : [...chainOwners]
          .filter((owner) => owner !== '@')
          .map((owner) => ({ owner, limit: 1 + removed.filter((r) => r.owner.endsWith(`.${owner}`)).length }));
  return { owners: [...owners], signerOwners: [...signerOwners], chainKeys, below };
}

/** whether the answers to `asked` answer every question of `needed` */
export function questionsCover(asked: ViewQuestions, needed: ViewQuestions): boolean {
  const owners = new Set(asked.owners);
  const signerOwners = new Set(asked.signerOwners);
  const keys = new Set(asked.chainKeys.map(hex));
  const below = new Map(asked.below.map((b) => [b.owner, b.limit]));
  return (
    needed.owners.every((o) => owners.has(o)) &&
    needed.signerOwners.every((o) => signerOwners.has(o)) &&
    needed.chainKeys.every((k) => keys.has(hex(k))) &&
    needed.below.every((b) => (below.get(b.owner) ?? 0) >= b.limit)
  );
}

export async function signChange(
  zone: string,
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  view: SignedZoneView,
  keys: readonly ZoneKey[],
  denial: Denial,
  window: SignatureWindow,
  canonicalRdata: CanonicalRdata,
): Promise<SignerDiff | 'full'> {
  const touched = touchedData(change);
  if (touched.some((r) => CUT_TYPES.has(r.type) && (r.owner !== '@' || r.type === 'DNAME'))) return 'full';
  const state = new Map<string, OwnerState>();
  const stateOf = async (owner: string): Promise<OwnerState> => {
    let known = state.get(owner);
    if (!known) state.set(owner, (known = await readOwner(view, owner)));
    return known;
  };
  const diff: SignerDiff = { removed: [], added: [] };
  const removeAt = async (owner: string, keep: (r: CanonicalRecord) => boolean) =>
    diff.removed.push(...(await view.signerRecordsAt(owner)).filter((r) => !keep(r)));

  // 1. signatures: every touched RRset, and the SOA (its serial rose with the change)
  const rrsets = new Map<string, { owner: string; type: string }>([['@\u0000SOA', { owner: '@', type: 'SOA' }]]);
  for (const r of touched) rrsets.set(`${r.owner}\u0000${r.type}`, { owner: r.owner, type: r.type });
  for (const { owner, type } of rrsets.values()) {
    const code = getServedRecordType(type)!.code;
    await removeAt(owner, (r) => !(r.type === 'RRSIG' && coveredType(r) === code));
    const at = await stateOf(owner);
    const rrset = at.rrsets.find((s) => s.type === type);
    if (rrset && !at.occluded && !(type === 'NS' && at.delegation))
      diff.added.push(...signatures(zone, rrset, keys, window, canonicalRdata, false));
  }

  // 2. the denial chain around the owners whose existence or types changed
  const owners = new Set(touched.map((r) => r.owner));
  if (denial.kind === 'nsec3') for (const owner of [...owners]) for (const ancestor of ancestorsOf(owner)) owners.add(ancestor);
  const ttl = denialTtl(zone, await view.recordsAt('@'));
  const chain =
    denial.kind === 'nsec' ? await nsecMembers(zone, view, owners, stateOf) : await nsec3Members(zone, view, owners, stateOf, denial);
  const joining = chain.filter((m) => m.after && !m.before);
  const leaving = new Set(chain.filter((m) => m.before && !m.after).map((m) => m.key.toString('hex')));
  const rewrite = new Map<string, { member: ChainMember; types?: number[] }>();
  for (const m of chain) {
    if (m.after && (!m.before || m.typesChanged)) rewrite.set(m.key.toString('hex'), { member: m, types: m.types });
    if (m.before && !m.after)
      await removeAt(
        m.owner,
        (r) =>
          !(r.type === 'RRSIG' || r.type === 'NSEC' || r.type === 'NSEC3') ||
          (denial.kind === 'nsec' && r.type === 'RRSIG' && coveredType(r) !== 47),
      );
  }
  const successorAfter = (key: Buffer): Promise<ChainMember | undefined> => neighbourAfter(key, 1, joining, leaving, view);
  // the predecessor of each joining or leaving member now points elsewhere
  for (const m of chain) {
    if (m.before === m.after) continue;
    const predecessor = await neighbourAfter(m.key, -1, joining, leaving, view);
    if (predecessor && !rewrite.has(predecessor.key.toString('hex'))) rewrite.set(predecessor.key.toString('hex'), { member: predecessor });
  }
  for (const { member, types } of rewrite.values()) {
    const old = (await view.signerRecordsAt(member.owner)).filter(
      (r) =>
        r.type === (denial.kind === 'nsec' ? 'NSEC' : 'NSEC3') ||
        (r.type === 'RRSIG' && coveredType(r) === (denial.kind === 'nsec' ? 47 : 50)),
    );
    diff.removed.push(...old);
    const bitmap = types ?? storedTypes(old, zone);
    // a chain of one member (the apex alone) points at itself
    const next = (await successorAfter(member.key)) ?? member;
    const nsec = denial.kind === 'nsec' ? { next: ownerToFqdn(next.owner, zone), types: bitmap } : undefined;
    const record: CanonicalRecord = nsec
      ? { owner: member.owner, type: 'NSEC', ttl, rdata: NSEC.format(nsec) }
      : { owner: member.owner, type: 'NSEC3', ttl, rdata: nsec3Rdata(denial as Extract<Denial, { kind: 'nsec3' }>, next.key, bitmap) };
    diff.added.push(record);
    const rrset: Rrset = { owner: member.owner, type: record.type, code: nsec ? 47 : 50, ttl, records: [record] };
    const rdataOf: CanonicalRdata = nsec
      ? (z, r) => (r === record ? nsecCanonicalRdata(z, r, nsec, canonicalRdata) : canonicalRdata(z, r))
      : canonicalRdata;
    diff.added.push(...signatures(zone, rrset, keys, window, rdataOf, false));
  }
  return dedupe(diff);
}

/**
 * A key step as a change of the apex: its own records (the SOA, its serial moved) with the stored DNSKEY,
 * CDS and CDNSKEY records removed and those of the keys after the step added, so that `signChange` re-signs
 * the apex's key RRsets, and its NSEC/NSEC3 when the CDS/CDNSKEY appear or disappear (its type bitmap moved).
 * A view of the zone after the step reads this change (services/dnssec/zone-signing.ts).
 */
export function keyStepChange(
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  keyRecords: { before: readonly CanonicalRecord[]; after: readonly CanonicalRecord[] },
): { removed: CanonicalRecord[]; added: CanonicalRecord[] } {
  return { removed: [...change.removed, ...keyRecords.before], added: [...change.added, ...keyRecords.after] };
}

/**
 * Signing a key step incrementally (RFC 7583): what changes is the apex DNSKEY RRset and the CDS/CDNSKEY
 * RRsets, all signed by the KSKs alone (RFC 4035 §2.2 asks no more of them; RFC 7344 §4.1), and the apex's
 * NSEC/NSEC3 when their presence changes. The zone's other RRsets keep their signatures, which is right only
 * while the keys that sign them (the ZSKs, or a CSK: `signersOf`) are the same after the step as before:
 * ZSK pre-publication's publishing and removal steps (§3.2.1), every step of a KSK double-DS roll (§3.3.2).
 * Whether they are is read, not assumed: the signers of the stored SOA RRSIGs (every change re-signs the SOA
 * with the keys of its time, so they are the signers of every data RRset) against the active ZSK/CSKs after
 * the step, by algorithm and key tag. A different set (a ZSK's activation, a CSK's swap, an algorithm roll),
 * a key tag two keys share, or a stored SOA signature that does not read: `full`, and the caller signs the
 * zone whole. The result is what signing the zone whole would store, less the new signatures over unchanged
 * RRsets whose old ones, by the same keys, stand.
 *
 * `change` is `keyStepChange`'s, and `view` reads the zone after it; `keyRecords` as given to it.
 */
export async function signKeyStep(
  zone: string,
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  keyRecords: { before: readonly CanonicalRecord[]; after: readonly CanonicalRecord[] },
  view: SignedZoneView,
  keys: readonly ZoneKey[],
  denial: Denial,
  window: SignatureWindow,
  canonicalRdata: CanonicalRdata,
): Promise<SignerDiff | 'full'> {
  const tagsOf = keys.map((key) => `${key.algorithm.number}/${key.tag}`);
  if (new Set(tagsOf).size !== tagsOf.length) return 'full';
  const soaCode = getServedRecordType('SOA')!.code;
  const stored = new Set<string>();
  for (const r of await view.signerRecordsAt('@')) {
    if (r.type !== 'RRSIG' || coveredType(r) !== soaCode) continue;
    // RFC 4034 §3.1: the signer by algorithm and key tag (one or two RRSIGs a step: parsed whole)
    const parsed = RRSIG.parse(r.rdata, zone);
    if (!parsed.ok) return 'full';
    stored.add(`${parsed.value.algorithm}/${parsed.value.keyTag}`);
  }
  const after = new Set(signersOf('SOA', keys).map((key) => `${key.algorithm.number}/${key.tag}`));
  if (stored.size !== after.size || [...after].some((s) => !stored.has(s))) return 'full';
  const diff = await signChange(zone, change, view, keys, denial, window, canonicalRdata);
  if (diff === 'full') return 'full';
  // the key records themselves, where they differ (TTL included)
  const identity = (r: CanonicalRecord) => recordIdentity(r, { withTtl: true });
  const before = new Set(keyRecords.before.map(identity));
  const next = new Set(keyRecords.after.map(identity));
  return {
    removed: [...keyRecords.before.filter((r) => !next.has(identity(r))), ...diff.removed],
    added: [...keyRecords.after.filter((r) => !before.has(identity(r))), ...diff.added],
  };
}

interface MemberChange extends ChainMember {
  before: boolean;
  after: boolean;
  typesChanged: boolean;
  types?: number[];
}

async function nsecMembers(
  zone: string,
  view: SignedZoneView,
  owners: Set<string>,
  stateOf: (o: string) => Promise<OwnerState>,
): Promise<MemberChange[]> {
  return eachInTurn([...owners], async (owner) => {
    const stored = (await view.signerRecordsAt(owner)).find((r) => r.type === 'NSEC');
    const at = await stateOf(owner);
    const after = !at.occluded && at.rrsets.length > 0;
    const types = after ? nsecTypes(at.rrsets) : undefined;
    return {
      key: nameSortKey(ownerToFqdn(owner, zone)),
      owner,
      before: !!stored,
      after,
      types,
      typesChanged: !!stored && !!types && !sameTypes(storedTypes([stored], zone), types),
    };
  });
}

async function nsec3Members(
  zone: string,
  view: SignedZoneView,
  owners: Set<string>,
  stateOf: (o: string) => Promise<OwnerState>,
  denial: Extract<Denial, { kind: 'nsec3' }>,
): Promise<MemberChange[]> {
  return eachInTurn([...owners], async (owner) => {
    const hash = ownerHash(zone, owner, denial);
    const hashed = base32hex(hash);
    const stored = (await view.signerRecordsAt(hashed)).find((r) => r.type === 'NSEC3');
    const at = await stateOf(owner);
    let types: number[] | undefined;
    if (!at.occluded) {
      if (at.rrsets.length) types = nsec3Types(owner, at.rrsets, at.delegation, denial);
      else if (await view.hasDescendants(owner)) types = [];
    }
    const after = types !== undefined;
    return {
      key: hash,
      owner: hashed,
      before: !!stored,
      after,
      types,
      typesChanged: !!stored && after && !sameTypes(storedTypes([stored], zone), types!),
    };
  });
}

/** what is at an owner after the change, by the full signer's rules (zone-signer.ts `authoritativeNames`) */
async function readOwner(view: SignedZoneView, owner: string): Promise<OwnerState> {
  let occluded = false;
  for (const ancestor of ancestorsOf(owner)) {
    if ((await view.recordsAt(ancestor)).some((r) => r.type === 'DNAME' || r.type === 'NS')) occluded = true;
  }
  if (owner !== '@' && (await view.recordsAt('@')).some((r) => r.type === 'DNAME')) occluded = true;
  const records = (await view.recordsAt(owner)).filter(isServedData);
  const delegation = owner !== '@' && records.some((r) => r.type === 'NS');
  const byType = new Map<string, CanonicalRecord[]>();
  for (const r of records) {
    if (delegation && r.type !== 'NS' && r.type !== 'DS') continue;
    byType.set(r.type, [...(byType.get(r.type) ?? []), r]);
  }
  const rrsets = [...byType].map(([type, rs]) => ({
    owner,
    type,
    code: getServedRecordType(type)!.code,
    ttl: Math.max(...rs.map((r) => r.ttl)),
    records: rs,
  }));
  return { occluded, delegation, rrsets };
}

const hex = (key: Buffer) => key.toString('hex');

/** `each` over `items` one after another: the view's look-ups share one connection, in one transaction */
async function eachInTurn<T, R>(items: readonly T[], each: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await each(item));
  return results;
}

/**
 * The member next to `key` in the chain after the change (`step` 1: after it, -1: before it), circularly:
 * the nearest among the joining members and the stored ones that stay (the stored walk skips those leaving).
 */
async function neighbourAfter(
  key: Buffer,
  step: 1 | -1,
  joining: readonly ChainMember[],
  leaving: Set<string>,
  view: SignedZoneView,
): Promise<ChainMember | undefined> {
  const storedNext = (from: Buffer) => (step === 1 ? view.chainSuccessor(from) : view.chainPredecessor(from));
  let stored = await storedNext(key);
  const seen = new Set<string>();
  while (stored && leaving.has(hex(stored.key)) && !seen.has(hex(stored.key))) {
    seen.add(hex(stored.key));
    stored = await storedNext(stored.key);
  }
  if (stored && leaving.has(hex(stored.key))) stored = undefined;
  const candidates = [...joining.filter((m) => !m.key.equals(key)), ...(stored ? [stored] : [])];
  const order = (a: ChainMember, b: ChainMember) => step * Buffer.compare(a.key, b.key);
  const beyond = candidates.filter((m) => step * Buffer.compare(m.key, key) > 0).sort(order);
  return beyond[0] ?? candidates.sort(order)[0];
}

function coveredType(rrsig: CanonicalRecord): number {
  return rrsigCoverage(rrsig.rdata)?.typeCovered ?? -1;
}

function storedTypes(records: readonly CanonicalRecord[], zone: string): number[] {
  const denialRecord = records.find((r) => r.type === 'NSEC' || r.type === 'NSEC3');
  if (!denialRecord) return [];
  return denialTypesOf(denialRecord.type as 'NSEC' | 'NSEC3', denialRecord.rdata, zone) ?? [];
}

/** a plain absolute name: NSEC's parser reads it back as one field, as it is written */
const PLAIN_NAME = /^[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)*\.$/;

/**
 * The canonical RDATA (RFC 4034 §6.2) of an NSEC the signer just wrote, from its value: what `canonicalRdata`
 * gives from its text, without parsing that text back (and formatting it again). The next name is taken as
 * NSEC's parser takes it (RFC 6840 §5.1: not lower-cased by the canonical form; the parser lower-cases it);
 * the types go into a bitmap, where their order and repetitions do not count (RFC 4034 §4.1.2). A name
 * outside the plain form is read back from the text.
 */
function nsecCanonicalRdata(
  zone: string,
  record: CanonicalRecord,
  value: { next: string; types: number[] },
  canonicalRdata: CanonicalRdata,
): Buffer {
  const next = PLAIN_NAME.test(value.next) ? parseDomainNameInRdata(value.next, zone, 'rdata', { allowWildcard: true }) : undefined;
  if (!next?.ok) return canonicalRdata(zone, record);
  return rdataToWire(NSEC, { next: next.name, types: value.types }, { canonical: true });
}

const sameTypes = (a: readonly number[], b: readonly number[]) => {
  const x = [...new Set(a)].sort((p, q) => p - q);
  const y = [...new Set(b)].sort((p, q) => p - q);
  return x.length === y.length && x.every((t, i) => t === y[i]);
};

/** a record both removed and added again (a neighbour rewritten to what it was) is no change at all */
function dedupe(diff: SignerDiff): SignerDiff {
  const removed = new Map(diff.removed.map((r) => [recordIdentity(r), r]));
  const added = new Map(diff.added.map((r) => [recordIdentity(r), r]));
  for (const key of [...removed.keys()]) {
    if (added.has(key)) {
      removed.delete(key);
      added.delete(key);
    }
  }
  return { removed: [...removed.values()], added: [...added.values()] };
}
