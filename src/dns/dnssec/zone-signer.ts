/**
 * Signing a zone (RFC 4035 §2): from the zone's records and its keys, the records a signer adds — the DNSKEY
 * RRset, one RRSIG per authoritative RRset and active key, and the authenticated denial of existence chain,
 * NSEC (RFC 4034 §4) or NSEC3 (RFC 5155 §7.1) with NSEC3PARAM.
 *
 * What is authoritative (RFC 4035 §2.2): every RRset at or under the apex except the NS RRset of a
 * delegation point (the child's) and everything below a delegation point or a DNAME (glue, occluded data),
 * which is neither signed nor in the chain. A delegation point's DS is signed. ALIAS and ANAME are stored but
 * never served (their derived A/AAAA are): the signer reads past them (`isServedData`).
 *
 * Plain functions of their inputs: the same zone, keys and times give the same records (the signatures of
 * ECDSA and RSA-PSS aside, which are randomised; Ed25519 and RSASHA256 are deterministic).
 */
import type { KeyObject } from 'node:crypto';
import { CanonicalRecord } from '../record';
import { ownerToFqdn } from '../name';
import { canonicalNameWire, nameToWire, rdataToWire, wireLabels } from '../wire';
import { canonicalSortKey } from './canonical-order';
import { rememberCoverage } from './signer-records';
import { DnssecAlgorithm } from './algorithms';
import { DnskeyValue } from './keys';
import { base32hex, nsec3Hash, NSEC3_HASH_SHA1 } from '../wire/nsec3-hash';
import { RrsigFields, signingInputOf } from './rrsig';
import {
  NSEC,
  NSEC3,
  NSEC3PARAM,
  nsec3ChainFormatter,
  nsec3ChainWire,
  rrsigTextHead,
  rrsigTextHeadOnce,
} from '../record-types/signer-types';
import { DNSKEY } from '../record-types/dnskey';
import { FLATTENED_TYPE_NAMES, getServedRecordType, RecordTypeDefinition } from '../record-types';

export type KeyRole = 'KSK' | 'ZSK' | 'CSK';

export interface ZoneKey {
  role: KeyRole;
  algorithm: DnssecAlgorithm;
  /** undefined: another signer's key (RFC 8901 model 2), published in the DNSKEY RRset and never signing here */
  privateKey: KeyObject | undefined;
  dnskey: DnskeyValue;
  tag: number;
  /** in the DNSKEY RRset (RFC 7583: published, ready, active, retired) */
  published: boolean;
  /** makes signatures (RFC 7583: active); a KSK signs the DNSKEY RRset, a ZSK the rest, a CSK both */
  signing: boolean;
}

export type Denial = { kind: 'nsec' } | { kind: 'nsec3'; iterations: number; salt: Buffer; optOut: boolean };

export interface SignatureWindow {
  /** seconds since the epoch */
  inception: number;
  /** the expiration of the RRSIG over one RRset: spread by the caller so that refreshes do not all fall due at once */
  expiration(owner: string, type: string): number;
}

/** the wire RDATA of a stored record in canonical form (RFC 4034 §6.2); the wire module provides it */
export type CanonicalRdata = (zone: string, record: CanonicalRecord) => Buffer;

/**
 * The values the chain records this module made were formatted from: signing them (in this thread, or on a
 * pool's threads, which get the wire forms this thread writes) then writes their canonical wire RDATA from the
 * value, without parsing the text just formatted. Weak: the records go when the caller drops them.
 */
const chainValues = new WeakMap<CanonicalRecord, { definition: RecordTypeDefinition; value: unknown } | Buffer>();

/** the canonical wire RDATA of a record: the chain's from its value (or as made with it), any other by `canonicalRdata` */
export function rdataWireOf(zone: string, record: CanonicalRecord, canonicalRdata: CanonicalRdata): Buffer {
  const made = chainValues.get(record);
  if (made === undefined) return canonicalRdata(zone, record);
  return Buffer.isBuffer(made) ? made : rdataToWire(made.definition, made.value, { canonical: true });
}

const TYPE_CODES = { NS: 2, SOA: 6, CNAME: 5, DS: 43, RRSIG: 46, NSEC: 47, DNSKEY: 48, NSEC3: 50, NSEC3PARAM: 51, DNAME: 39 } as const;
const SIGNED_BY_KSK = new Set(['DNSKEY', 'CDS', 'CDNSKEY']);
const AT_DELEGATION = new Set(['NS', 'DS', 'NSEC']);

export interface Rrset {
  owner: string;
  type: string;
  code: number;
  ttl: number;
  records: CanonicalRecord[];
}

export interface ZoneNames {
  /** owner → its authoritative RRsets (delegation NS included, marked by `delegation`) */
  owners: Map<string, Rrset[]>;
  /** owners that are delegation points */
  delegations: Set<string>;
}

/**
 * ALIAS and ANAME are not in any answer, AXFR or IXFR (repositories/dns-zone-data.ts), so they are not zone
 * data to a validator: an RRSIG over them would sign an RRset no one can fetch, and their type in an NSEC or
 * NSEC3 bitmap would claim an RRset at the owner that a query for it denies (RFC 4034 §4.1.2: the bitmap lists
 * the RRsets present at the owner; RFC 5155 §3.2.1). An owner holding nothing else does not exist in the
 * served zone, and is in no chain. Their derived A/AAAA are ordinary records, signed like any.
 */
export const isServedData = (record: Pick<CanonicalRecord, 'type'>): boolean => !FLATTENED_TYPE_NAMES.has(record.type);

/** RFC 4035 §2.2: which owners are authoritative, which are delegation points; occluded data left out */
export function authoritativeNames(zone: string, records: readonly CanonicalRecord[]): ZoneNames {
  const { owners, delegations } = groupAuthoritative(records);
  return { owners, delegations };
}

/** `authoritativeNames`, with the occlusion rule it applied (for records added to the same zone afterwards) */
function groupAuthoritative(records: readonly CanonicalRecord[]): ZoneNames & { occluded(owner: string): boolean } {
  const byOwner = new Map<string, CanonicalRecord[]>();
  for (const record of records) {
    if (!isServedData(record)) continue;
    const list = byOwner.get(record.owner);
    if (list) list.push(record);
    else byOwner.set(record.owner, [record]);
  }
  const cuts = new Set<string>();
  const dnames = new Set<string>();
  for (const [owner, list] of byOwner) {
    if (owner !== '@' && list.some((r) => r.type === 'NS')) cuts.add(owner);
    if (list.some((r) => r.type === 'DNAME')) dnames.add(owner);
  }
  // a name is occluded when a proper ancestor inside the zone is a delegation point or owns a DNAME (RFC 6672 §2.3)
  const occluded = (owner: string): boolean => {
    if (owner === '@' || (cuts.size === 0 && dnames.size === 0)) return false;
    const labels = owner.split('.');
    for (let i = 1; i < labels.length; i++) {
      const ancestor = labels.slice(i).join('.');
      if (cuts.has(ancestor) || dnames.has(ancestor)) return true;
    }
    return dnames.has('@');
  };
  const owners = new Map<string, Rrset[]>();
  const delegations = new Set<string>();
  for (const [owner, list] of byOwner) {
    if (occluded(owner)) continue;
    const isCut = cuts.has(owner);
    if (isCut) delegations.add(owner);
    const byType = new Map<string, CanonicalRecord[]>();
    for (const record of list) {
      // at a delegation point only NS, DS and the parent's NSEC are the parent's to serve (RFC 4035 §2.2, §2.3);
      // anything else there is occluded
      if (isCut && !AT_DELEGATION.has(record.type)) continue;
      const same = byType.get(record.type);
      if (same) same.push(record);
      else byType.set(record.type, [record]);
    }
    owners.set(
      owner,
      [...byType].map(([type, rs]) => ({
        owner,
        type,
        code: typeCodeOf(type),
        ttl: rs.reduce((max, r) => Math.max(max, r.ttl), 0),
        records: rs,
      })),
    );
  }
  return { owners, delegations, occluded };
}

/**
 * The authoritative names once the denial chain is in the zone: what `authoritativeNames` of the zone's
 * records and the chain's gives, without grouping the zone's records a second time. The chain holds no NS
 * or DNAME, so the cuts and the occlusion rule stay; an NSEC is at an owner already there, an NSEC3 at a
 * new one (or, by a hash that matches an owner, at that one: then the same rules as for any record there).
 */
function withChain(names: ReturnType<typeof groupAuthoritative>, chain: readonly CanonicalRecord[]): ZoneNames {
  const owners = new Map(names.owners);
  for (const record of chain) {
    if (names.occluded(record.owner)) continue;
    // at a delegation point only NS, DS and NSEC are the parent's (RFC 4035 §2.2, §2.3)
    if (names.delegations.has(record.owner) && !AT_DELEGATION.has(record.type)) continue;
    let rrsets = owners.get(record.owner);
    if (rrsets === names.owners.get(record.owner)) owners.set(record.owner, (rrsets = rrsets ? [...rrsets] : []));
    const same = rrsets!.findIndex((r) => r.type === record.type);
    if (same < 0)
      rrsets!.push({ owner: record.owner, type: record.type, code: typeCodeOf(record.type), ttl: record.ttl, records: [record] });
    else {
      const rrset = rrsets![same];
      rrsets![same] = { ...rrset, ttl: Math.max(rrset.ttl, record.ttl), records: [...rrset.records, record] };
    }
  }
  return { owners, delegations: names.delegations };
}

function typeCodeOf(type: string): number {
  const definition = getServedRecordType(type);
  if (!definition) throw new Error(`no type code for ${type}`);
  return definition.code;
}

/** RFC 9077 §3.1: NSEC and NSEC3 TTL = min(SOA TTL, SOA MINIMUM) */
export function denialTtl(zone: string, records: readonly CanonicalRecord[]): number {
  const soa = records.find((r) => r.owner === '@' && r.type === 'SOA');
  if (!soa) throw new Error(`zone ${zone} has no SOA`);
  const minimum = Number(soa.rdata.trim().split(/\s+/)[6]);
  return Math.min(soa.ttl, minimum);
}

/**
 * The records a signer adds to the zone: DNSKEY RRset, NSEC/NSEC3 chain (NSEC3PARAM at the apex for NSEC3)
 * and the RRSIGs over every authoritative RRset, its own included.
 */
export function signZone(
  zone: string,
  records: readonly CanonicalRecord[],
  keys: readonly ZoneKey[],
  denial: Denial,
  window: SignatureWindow,
  canonicalRdata: CanonicalRdata,
): CanonicalRecord[] {
  const { added, toSign } = planZone(zone, records, keys, denial);
  for (const rrset of toSign) for (const signature of signatures(zone, rrset, keys, window, canonicalRdata)) added.push(signature);
  return added;
}

/**
 * What signing a zone whole takes, before any signature: the records the signer adds besides RRSIGs (the
 * DNSKEY RRset and the denial chain) and the RRsets to sign, the chain's own among them. The signatures are
 * the caller's to make, here (`signZone`) or on a pool of threads (signing-pool.ts).
 */
export function planZone(
  zone: string,
  records: readonly CanonicalRecord[],
  keys: readonly ZoneKey[],
  denial: Denial,
  /**
   * called once the zone's own RRsets to sign are known, before the chain is built: a pool can start on them
   * (signing-pool.ts). Each is the same object in `toSign` unless a chain record of its type at its owner
   * joined it (then `toSign` has a new RRset in its place).
   */
  onDataRrsets?: (rrsets: Rrset[]) => void,
): { added: CanonicalRecord[]; toSign: Rrset[] } {
  const apex = records.find((r) => r.owner === '@' && r.type === 'SOA');
  if (!apex) throw new Error(`zone ${zone} has no SOA`);
  // the DNSKEY RRset takes the SOA's TTL, as Knot's and BIND's signers do by default
  const dnskeyTtl = apex.ttl;
  const added: CanonicalRecord[] = dnskeyRecords(keys, dnskeyTtl);
  const all = [...records.filter((r) => !(r.owner === '@' && r.type === 'DNSKEY')), ...added];
  const names = groupAuthoritative(all);
  if (onDataRrsets) {
    const data: Rrset[] = [];
    for (const rrsets of names.owners.values())
      for (const rrset of rrsets) if (!(rrset.type === 'NS' && names.delegations.has(rrset.owner))) data.push(rrset);
    onDataRrsets(data);
  }
  const ttl = denialTtl(zone, records);
  const chain = denial.kind === 'nsec' ? nsecChain(zone, names, ttl) : nsec3Chain(zone, names, ttl, denial);
  // one push per record: a spread passes every record as an argument, and a chain of more than about 120,000
  // names overflows the stack (RangeError: Maximum call stack size exceeded)
  for (const record of chain) added.push(record);
  // the chain's own records are authoritative RRsets too, signed like the rest
  const signedNames = withChain(names, chain);
  const toSign: Rrset[] = [];
  for (const rrsets of signedNames.owners.values()) {
    for (const rrset of rrsets) {
      if (rrset.type === 'NS' && signedNames.delegations.has(rrset.owner)) continue;
      toSign.push(rrset);
    }
  }
  return { added, toSign };
}

/** the apex DNSKEY RRset of the keys: every published key (RFC 7583 §3.1), with the given TTL (the SOA's) */
export function dnskeyRecords(keys: readonly Pick<ZoneKey, 'published' | 'dnskey'>[], ttl: number): CanonicalRecord[] {
  return keys.filter((key) => key.published).map((key) => ({ owner: '@', type: 'DNSKEY', ttl, rdata: DNSKEY.format(key.dnskey) }));
}

/** what signing needs of a key: a pool's thread gets these, not the key's DNSKEY */
export type SigningKey = Pick<ZoneKey, 'role' | 'algorithm' | 'privateKey' | 'tag' | 'signing'>;

/**
 * The keys that sign an RRset of a type: a KSK the apex's DNSKEY RRset (and CDS, CDNSKEY), a ZSK the rest, a
 * CSK both. A CDS or CDNSKEY below the apex (RFC 9615's signalling records, dnssec/bootstrap-signals.ts) is data
 * like any other, signed by the ZSK: a KSK roll of the zone re-signs the apex's key RRsets alone.
 */
export function signersOf<K extends Pick<SigningKey, 'role' | 'signing'>>(type: string, keys: readonly K[], owner = '@'): K[] {
  const byKsk = owner === '@' && SIGNED_BY_KSK.has(type);
  return keys.filter((key) => key.signing && (key.role === 'CSK' || (byKsk ? key.role === 'KSK' : key.role === 'ZSK')));
}

/** the apex as the RRSIG's Signer's Name, in presentation and canonical wire form (one zone at a time, kept) */
let lastSigner: { zone: string; name: string; wire: Buffer } | undefined;
export function signerNameOf(zone: string): { name: string; wire: Buffer } {
  if (lastSigner?.zone !== zone) {
    const name = `${zone.replace(/\.$/, '')}.`;
    lastSigner = { zone, name, wire: canonicalNameWire(name) };
  }
  return lastSigner;
}

/**
 * RFC 4034 §3.1.3: the Labels field from the owner's wire form, not counting the root nor a leading
 * wildcard label (`*.a.example.` has 2)
 */
export function labelCount(ownerWire: Buffer): number {
  let count = 0;
  for (let at = 0; ownerWire[at] !== 0; at += ownerWire[at] + 1) count++;
  const wildcard = ownerWire[0] === 1 && ownerWire[1] === 0x2a;
  return count - (wildcard ? 1 : 0);
}

/** the RRSIGs over one RRset, one per signing key of the right role (RFC 4035 §2.2: every algorithm in the DNSKEY RRset) */
export function signatures(
  zone: string,
  rrset: Rrset,
  keys: readonly SigningKey[],
  window: SignatureWindow,
  canonicalRdata: CanonicalRdata,
  /** false: the RRSIGs' texts are made for this RRset alone (a signed write), not shared through `rrsigHeadOf`'s cache */
  shareTexts = true,
): CanonicalRecord[] {
  const signers = signersOf(rrset.type, keys, rrset.owner);
  if (!signers.length) return [];
  // RFC 4034 §6.2: the owner in canonical form, lower-cased and uncompressed; built once per RRset
  const ownerWire = canonicalNameWire(ownerToFqdn(rrset.owner, zone));
  const rdatas = rrset.records.map((record) => rdataWireOf(zone, record, canonicalRdata));
  const signer = signerNameOf(zone);
  const labels = labelCount(ownerWire);
  const expiration = window.expiration(rrset.owner, rrset.type);
  return signers.map((key) => {
    const fields: RrsigFields = {
      typeCovered: rrset.code,
      algorithm: key.algorithm.number,
      labels,
      originalTtl: rrset.ttl,
      expiration,
      inception: window.inception,
      keyTag: key.tag,
      signer: signer.wire,
    };
    if (!key.privateKey) throw new Error(`key ${key.tag} of ${zone} has no private part here: it cannot sign`);
    const signature = key.algorithm.sign(signingInputOf(fields, ownerWire, rrset.code, rdatas), key.privateKey);
    const record: CanonicalRecord = {
      owner: rrset.owner,
      type: 'RRSIG',
      ttl: rrset.ttl,
      rdata:
        (shareTexts ? rrsigHeadOf(fields, signer.name) : rrsigTextHeadOnce({ ...fields, signer: signer.name })) +
        signature.toString('base64'),
    };
    rememberCoverage(record, rrset.code, expiration);
    return record;
  });
}

/**
 * RRSIG texts up to the signature (RRSIG.format's), as last made: a zone's RRSIGs share them by the thousand
 * (one inception, a few thousand expirations, a few TTLs, types and label counts), and one string shared by
 * many RRSIGs is one string for the collector, not one per RRSIG
 */
const rrsigHeads = new Map<string, string>();
const RRSIG_HEADS_KEPT = 8192;
export function rrsigHeadOf(fields: RrsigFields, signerName: string): string {
  const key = `${fields.typeCovered} ${fields.algorithm} ${fields.labels} ${fields.originalTtl} ${fields.expiration} ${fields.inception} ${fields.keyTag} ${signerName}`;
  let head = rrsigHeads.get(key);
  if (head === undefined) {
    head = rrsigTextHead({ ...fields, signer: signerName });
    if (rrsigHeads.size >= RRSIG_HEADS_KEPT) rrsigHeads.clear();
    rrsigHeads.set(key, head);
  }
  return head;
}

/**
 * The canonical sort key (canonical-order.ts) of an owner as a string of octets (latin1: one character per octet,
 * so string order is octet order), the zone's own labels left out (every owner shares them). An owner written
 * without escapes (printable ASCII) is keyed from its text: its labels from the root down, lower-cased, each
 * ended by a 0x00 (no octet 0x00 or 0x01 can be in such a label); any other through its wire labels.
 */
const PRINTABLE_WITHOUT_ESCAPES = /^[\x21-\x5b\x5d-\x7e]+$/;
function ownerSortKey(owner: string, zone: string): string {
  if (owner === '@') return '';
  if (PRINTABLE_WITHOUT_ESCAPES.test(owner)) {
    const labels = owner.toLowerCase().split('.');
    let key = '';
    for (let i = labels.length - 1; i >= 0; i--) key += `${labels[i]}\0`;
    return key;
  }
  const all = wireLabels(ownerToFqdn(owner, zone));
  return canonicalSortKey(all.slice(0, all.length - wireLabels(ownerToFqdn('@', zone)).length)).toString('latin1');
}

/** RFC 4034 §4.1: each authoritative owner and delegation point, in canonical order, names the next; the last names the apex */
function nsecChain(zone: string, names: ZoneNames, ttl: number): CanonicalRecord[] {
  // sorted by the canonical sort key (canonical-order.ts): plain octet order is RFC 4034 §6.1's order, and
  // each name is split into labels once rather than twice per comparison
  const owners = [...names.owners.keys()].map((owner) => ({ owner, key: ownerSortKey(owner, zone) }));
  owners.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return owners.map(({ owner }, i) => {
    const next = owners[(i + 1) % owners.length].owner;
    const value = { next: ownerToFqdn(next, zone), types: nsecTypes(names.owners.get(owner)!) };
    const record = { owner, type: 'NSEC', ttl, rdata: NSEC.format(value) };
    chainValues.set(record, { definition: NSEC, value });
    return record;
  });
}

/** the NSEC3 hash of an owner (RFC 5155 §5), the owner in canonical (lower-case) wire form */
export const ownerHash = (zone: string, owner: string, denial: Extract<Denial, { kind: 'nsec3' }>): Buffer =>
  nsec3Hash(nameToWire(ownerToFqdn(owner, zone).toLowerCase()), denial.salt, denial.iterations);

/** an NSEC3's RDATA; the Opt-Out flag on every NSEC3 of an opt-out chain (RFC 5155 §3.1.2.1) */
export const nsec3Rdata = (denial: Extract<Denial, { kind: 'nsec3' }>, nextHashed: Buffer, types: number[]): string =>
  NSEC3.format(nsec3Value(denial, nextHashed, types));

const nsec3Value = (denial: Extract<Denial, { kind: 'nsec3' }>, nextHashed: Buffer, types: number[]) => ({
  hashAlgorithm: NSEC3_HASH_SHA1,
  flags: denial.optOut ? 1 : 0,
  iterations: denial.iterations,
  salt: denial.salt,
  nextHashed,
  types,
});

/** the names between an owner and the apex, both left out ('a.b.c' → 'b.c', 'c') */
export function ancestorsOf(owner: string): string[] {
  const labels = owner === '@' ? [] : owner.split('.');
  return labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
}

/** the NSEC3 bitmap of an owner's types, or undefined when opt-out leaves the owner (an insecure delegation) out */
export function nsec3Types(
  owner: string,
  rrsets: readonly Rrset[],
  delegation: boolean,
  denial: Extract<Denial, { kind: 'nsec3' }>,
): number[] | undefined {
  const insecure = delegation && !rrsets.some((r) => r.type === 'DS');
  if (insecure && denial.optOut) return undefined;
  const types = rrsets.map((r) => r.code);
  // RRSIGs stand where a signed RRset stands: everywhere but an insecure delegation (its NS is not signed)
  if (!insecure) types.push(TYPE_CODES.RRSIG);
  if (owner === '@') types.push(TYPE_CODES.NSEC3PARAM);
  return types;
}

/** the NSEC bitmap of an owner's types: the NSEC itself and its RRSIG are at this owner (RFC 4034 §4.1.2) */
export const nsecTypes = (rrsets: readonly Rrset[]): number[] => [...rrsets.map((r) => r.code), TYPE_CODES.NSEC, TYPE_CODES.RRSIG];

/**
 * RFC 5155 §7.1: one NSEC3 per authoritative owner, delegation point (insecure ones left out under opt-out)
 * and empty non-terminal, at the base32hex of its hash under the apex, in hash order, each naming the next.
 */
function nsec3Chain(zone: string, names: ZoneNames, ttl: number, denial: Extract<Denial, { kind: 'nsec3' }>): CanonicalRecord[] {
  const typesAt = new Map<string, number[]>();
  for (const [owner, rrsets] of names.owners) {
    // its ancestors up to the apex exist too: empty non-terminals get an NSEC3 with no types (RFC 5155 §7.1),
    // those above an opt-out delegation included (allowed, and what the incremental signer can tell cheaply)
    for (const ancestor of ancestorsOf(owner)) if (!names.owners.has(ancestor)) typesAt.set(ancestor, []);
    const types = nsec3Types(owner, rrsets, names.delegations.has(owner), denial);
    if (types) typesAt.set(owner, types);
  }
  // sorted by the owner labels: base32hex keeps the octets' order (RFC 4648 §7), and comparing strings is
  // cheaper than comparing buffers through a callback (the hashes are all 20 octets, so of one length)
  const hashed = [...typesAt].map(([owner, types]) => {
    const hash = ownerHash(zone, owner, denial);
    return { hash, label: base32hex(hash), types };
  });
  hashed.sort((a, b) => (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
  // the text and the canonical wire RDATA made with the chain, from the parts its records share (the model's
  // NSEC3 writers for a chain): the next owner's label is the next record's owner
  const params = nsec3Value(denial, Buffer.alloc(0), []);
  const format = nsec3ChainFormatter(params);
  const wireOf = nsec3ChainWire(params);
  const chain: CanonicalRecord[] = hashed.map(({ label, types }, i) => {
    const next = hashed[(i + 1) % hashed.length];
    const record = { owner: label, type: 'NSEC3', ttl, rdata: format(next.label, types) };
    const wire = wireOf(next.hash, types);
    chainValues.set(record, wire);
    return record;
  });
  // RFC 5155 §4.1.2: NSEC3PARAM's flags are 0 (opt-out is a property of each NSEC3)
  chain.push({
    owner: '@',
    type: 'NSEC3PARAM',
    ttl,
    rdata: NSEC3PARAM.format({ hashAlgorithm: NSEC3_HASH_SHA1, flags: 0, iterations: denial.iterations, salt: denial.salt }),
  });
  return chain;
}
