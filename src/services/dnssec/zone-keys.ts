/**
 * A signed zone's keys as the signer uses them (RFC 7583): which are published, which sign, which the parent's
 * DS should name, opened from the vault, and the CDS/CDNSKEY they make (RFC 7344, RFC 8078). With the two
 * caches of what they open and parse, both functions of their input: the keys opened for an array of stored
 * keys (by that array, weakly) and the DNSKEY RDATA parsed (by zone and text).
 */
import { algorithmByNumber } from '../../dns/dnssec/algorithms';
import type { ZoneKey } from '../../dns/dnssec/zone-signer';
import type { CanonicalRecord } from '../../dns/record';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { CDS_DELETE } from '../../dns/record-types/cds';
import { DNSKEY_FLAG_SEP, DnskeyValue, dsOf } from '../../dns/dnssec/keys';
import type { ForeignDnskey } from '../../repositories/dnssec-foreign-keys';
import { formatDs } from '../../dns/dnssec/ds';
import { canonicalNameWire } from '../../dns/wire/name';
import type { SigningKeyRow, StoredDnssecKey } from '../../repositories/dnssec';
import type { KeyVault } from './key-vault';

/**
 * The keys as the signer uses them (RFC 7583 §3.1): published, ready and active keys are in the DNSKEY RRset,
 * and a retired ZSK stays there until its signatures have left the caches (pre-publication, §3.2.1); only an
 * active key signs. A KSK that is generated (its DS goes to the parent first) or retired (its DS is still
 * there) is not in the DNSKEY RRset: that is the double-DS roll (§3.3.2). A private key is opened here,
 * only to sign.
 */
export function zoneKeysOf(
  zone: string,
  stored: readonly SigningKeyRow[],
  vault: KeyVault,
  foreign: readonly Pick<ForeignDnskey, 'dnskey' | 'keyTag' | 'flags'>[] = [],
): ZoneKey[] {
  // a zone's head hands every change the same array of its keys (write-engine/signed-heads.ts): opened once for it
  const known = foreign.length ? undefined : openedKeys.get(stored);
  if (known?.zone === zone && known.vault === vault) return known.keys;
  const own = stored
    .filter((key) => key.state !== 'removed')
    .map((key) => {
      const algorithm = algorithmByNumber(key.algorithm);
      const dnskey = parsedDnskey(zone, key.dnskey);
      if (!algorithm || !dnskey) throw new Error(`a stored DNSKEY of ${zone} does not parse`);
      return {
        role: key.role,
        algorithm,
        privateKey: vault.open(key.sealedPrivateKey, { zone, keyTag: key.keyTag }),
        dnskey,
        tag: key.keyTag,
        published: isPublished(key),
        signing: isSigning(key),
      };
    });
  const keys = [...own, ...foreignZoneKeys(zone, foreign)];
  if (!foreign.length) openedKeys.set(stored, { zone, vault, keys });
  return keys;
}

/**
 * The keys opened for an array of stored keys, by that array: a head's stays the same until its keys change (a
 * key step drops the head), and each signed change on it would otherwise open them again (the vault's look-up
 * by the sealed bytes, the DNSKEY's by its text). Weak: the keys go with the array.
 */
const openedKeys = new WeakMap<readonly SigningKeyRow[], { zone: string; vault: KeyVault; keys: ZoneKey[] }>();

/**
 * The other signer's keys as the signer sees them (RFC 8901 §2.1.2, model 2): in the DNSKEY RRset, so that the
 * signatures the other provider serves validate with the RRset we serve (its ZSK) and so that the CDS/CDNSKEY
 * name both KSKs (RFC 8901 §8); signed over by our KSK, never signing (no private part here).
 */
export function foreignZoneKeys(zone: string, foreign: readonly Pick<ForeignDnskey, 'dnskey' | 'keyTag' | 'flags'>[]): ZoneKey[] {
  return foreign.map((key) => {
    const dnskey = parsedDnskey(zone, key.dnskey);
    const algorithm = dnskey && algorithmByNumber(dnskey.algorithm);
    if (!dnskey || !algorithm) throw new Error(`a foreign DNSKEY of ${zone} does not parse`);
    return {
      role: key.flags & DNSKEY_FLAG_SEP ? 'KSK' : 'ZSK',
      algorithm,
      privateKey: undefined,
      dnskey,
      tag: key.keyTag,
      published: true,
      signing: false,
    };
  });
}

/** the zones' DNSKEY RDATA as parsed, by zone and text: every signed write reads the keys, few keys change */
const dnskeys = new Map<string, DnskeyValue>();
function parsedDnskey(zone: string, rdata: string): DnskeyValue | undefined {
  const cacheKey = `${zone}\u0000${rdata}`;
  let value = dnskeys.get(cacheKey);
  if (!value) {
    const parsed = DNSKEY.parse(rdata, zone);
    if (!parsed.ok) return undefined;
    if (dnskeys.size >= 10_000) dnskeys.clear();
    dnskeys.set(cacheKey, (value = parsed.value));
  }
  return value;
}

export const isPublished = (key: Pick<StoredDnssecKey, 'state' | 'role'>): boolean =>
  key.state === 'published' || key.state === 'ready' || key.state === 'active' || (key.state === 'retired' && key.role === 'ZSK');

/**
 * The keys that sign: active ones, and in an algorithm roll (RFC 6781 §4.1.4) the new algorithm's keys before
 * their DNSKEY is published (`signing`), the old algorithm's after it left (`withdrawn`), and a KSK or CSK in the
 * DNSKEY RRset whose DS is not at the parent (`published`: the new one before its DS, the old one after). A
 * ZSK `published` is a pre-published ZSK (§3.2.1), which does not sign yet.
 */
export const isSigning = (key: Pick<StoredDnssecKey, 'state' | 'role'>): boolean =>
  key.state === 'active' || key.state === 'signing' || key.state === 'withdrawn' || (key.state === 'published' && key.role !== 'ZSK');

/**
 * the keys whose DS the parent should hold: a KSK or CSK from its generation (double-DS) until its removal; in
 * an algorithm roll, not one of the new algorithm before its DS goes up, nor one of the old after it came down
 */
export const inParentDs = (key: Pick<StoredDnssecKey, 'state' | 'role'>): boolean =>
  key.role !== 'ZSK' && !['removed', 'published', 'signing', 'withdrawn'].includes(key.state);

/**
 * The CDS and CDNSKEY the zone publishes at its apex (RFC 7344 §4): one of each for every key whose DS the
 * parent should hold (`inParentDs`), SHA-256 for CDS, so a parent that follows them (RFC 7344 §4.1, RFC 8078)
 * keeps the DS RRset by itself. Their TTL is the DNSKEY RRset's.
 *
 * Only while every such key is in the DNSKEY RRset. The CDS and CDNSKEY RRsets must name the same keys
 * (RFC 9975 §3.1: a key in one and not the other makes them inconsistent, and the parent acts on neither),
 * and a CDNSKEY must be a key of the zone's DNSKEY RRset, as Knot's zone check holds (docs/dnssec.md, «CDS
 * and CDNSKEY»). A double-DS roll (RFC 7583 §3.3.2) wants at the parent a DS of a key outside the DNSKEY
 * RRset: the new key's before the swap, the old one's until its DNSKEY has left the caches. No CDS RRset can
 * say that, and naming only the keys in the DNSKEY RRset would ask a parent that follows CDS to drop the other
 * DS too early (RFC 7344 §4.1: the change must not break the delegation). So during those steps the zone
 * publishes none, which asks the parent for nothing (RFC 7344 §4 lets the child remove them; RFC 8078 §4 added
 * the DS-delete pair because absence is no request); the new DS reaches the parent by the service (a
 * Zonekeeper parent) or by its operator (`Dnssec.ds`), and the swap waits until the parent serves it.
 *
 * A zone `disabling` publishes the DS-delete pair instead (RFC 8078 §4: CDS `0 0 0 00`, CDNSKEY `0 3 0 AA==`),
 * alone in their RRsets.
 *
 * A multi-signer zone that withdrew its own DS (`withdrawn`, withdrawDnssecDs: moving out) names the other
 * signer's KSKs alone, signed or disabling: the DS RRset a parent following it (RFC 7344 §4.1, RFC 8078) should
 * hold is theirs, so the zone stays secure through the other signer's chain; a DS-delete would take theirs away
 * too. Our DNSKEYs stay in the DNSKEY RRset, so a resolver still holding our DS keeps validating.
 */
export function publishedCds(
  zone: string,
  keys: readonly SigningKeyRow[],
  ttl: number,
  disabling = false,
  foreign: readonly Pick<ForeignDnskey, 'dnskey' | 'flags'>[] = [],
  withdrawn = false,
): CanonicalRecord[] {
  const theirs = foreign.filter((key) => key.flags & DNSKEY_FLAG_SEP);
  if (withdrawn && theirs.length) return cdsOfKeys(zone, theirs, ttl);
  if (disabling)
    return [
      { owner: '@', type: 'CDS', ttl, rdata: CDS_DELETE },
      { owner: '@', type: 'CDNSKEY', ttl, rdata: CDNSKEY_DELETE },
    ];
  const atParent = keys.filter(inParentDs);
  if (atParent.some((key) => !isPublished(key))) return [];
  // RFC 8901 §8: in a multi-signer zone the CDS/CDNSKEY name every provider's KSK, so a parent that follows
  // them keeps both DS; the other signer's KSKs are in our DNSKEY RRset, as RFC 9975 §3.1 asks
  if (!atParent.length) return [];
  return cdsOfKeys(zone, [...atParent, ...theirs], ttl);
}

/** one CDS (SHA-256) and one CDNSKEY for each key */
const cdsOfKeys = (zone: string, keys: readonly Pick<StoredDnssecKey, 'dnskey'>[], ttl: number): CanonicalRecord[] =>
  keys.flatMap((key) => [
    { owner: '@', type: 'CDS', ttl, rdata: dsRecordsOf(zone, key)[0] },
    { owner: '@', type: 'CDNSKEY', ttl, rdata: key.dnskey },
  ]);

/** RFC 8078 §4: the CDNSKEY that asks the parent to delete the DS RRset */
export const CDNSKEY_DELETE = '0 3 0 AA==';

/** a key's DS RDATA for the parent: SHA-256, then SHA-384 (RFC 8624 §3.3) */
export function dsRecordsOf(zone: string, key: Pick<StoredDnssecKey, 'dnskey'>): string[] {
  const dnskey = DNSKEY.parse(key.dnskey, zone);
  if (!dnskey.ok) throw new Error(`a stored DNSKEY of ${zone} does not parse`);
  const apex = canonicalNameWire(`${zone}.`);
  return [formatDs(dsOf(apex, dnskey.value, 2)), formatDs(dsOf(apex, dnskey.value, 4))];
}
