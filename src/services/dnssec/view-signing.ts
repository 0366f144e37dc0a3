/**
 * Signing views' zones (docs/views.md, «DNSSEC»). A view's zone of a signed zone is signed with the zone's keys:
 * one DNSKEY set, one DS, the parent sees one zone. It is the signed base zone with the few signer records that
 * differ in the view: the RRSIGs of the RRsets the view replaces (none for those it hides), the RRSIG of its SOA
 * (which carries the view's serial), and the NSEC or NSEC3 records whose chain differs in the view (a name only
 * the view has, a name the view empties, a type bitmap the view changes, and the neighbours that now point
 * elsewhere), with their RRSIGs; the base's signer records those stand in for are left out of the view's zone.
 *
 * That difference is the incremental signer's (dns/dnssec/incremental.ts) for the change that turns the base
 * zone into the view's: the base's RRsets the view overrides, and the base's SOA, removed; the view's RRsets and
 * its SOA added. Asked against the base as stored, it costs what the view's overlay holds, not the zone's size.
 * An overlay that moves a zone cut (NS below the apex, DS, DNAME) changes what is authoritative below it: the
 * view's zone is then planned whole and compared with the base's, RRset by RRset (`wholeViewDiff`).
 *
 * Each view's records are made again, and stored, at every step of its serial: every step of the signed base (its
 * signer records are in every view's zone), and each change of the view's own overlay. So a view's zone for a
 * serial is one stored zone, whichever process transfers it (ECDSA's signatures differ at each signing), and
 * the base's signature refresh, a step of the zone, keeps the views' signatures fresh too.
 */
import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { canonicalRdata } from '../../dns/dnssec/canonical-rdata';
import { questionsOf, signChange, SignerDiff } from '../../dns/dnssec/incremental';
import { coveredTypeOf } from '../../dns/dnssec/signer-records';
import { Denial, planZone, SignatureWindow, signatures, ZoneKey } from '../../dns/dnssec/zone-signer';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { withSerial } from '../../dns/zone-rules';
import { allSignerRecords, allZoneRecords, keysOfZone, SigningKeyRow, StoredSignerRecord, zoneRecordsAt } from '../../repositories/dnssec';
import { foreignKeysOfZone } from '../../repositories/dnssec-foreign-keys';
import { OverlayRow, overlaysOfZone, ViewStep, writeViewSigners } from '../../repositories/views';
import { StoredSignedZone } from './stored-signed-zone';
import { foreignZoneKeys } from './zone-keys';

/** resolvers whose clocks run behind still accept a signature made now (RFC 6781 §4.4.2.2), as the base's */
const INCEPTION_BACKDATE_SECONDS = 3600;

/**
 * A view's signatures: from an hour ago to the whole validity ahead, without the base's jitter. They are made at the
 * zone's latest step, so none of them expires before a signature of the base; the base's refresh (a step of the
 * zone, which signs the views again) comes before the earliest of those, so before any of the views'.
 */
export function viewSignatureWindow(settings: Settings, now = Date.now()): SignatureWindow {
  const at = Math.floor(now / 1000);
  return { inception: at - INCEPTION_BACKDATE_SECONDS, expiration: () => at + settings.dnssecSignatureValidity };
}

/**
 * Signs the zones of the views `steps` names of a signed zone, each for its new serial, in the caller's transaction
 * (the zone row locked), and stores them. `openKeys` opens the zone's keys (the process's key vault).
 */
export async function signViewZones(
  sql: Sql,
  zone: { id: number; name: string },
  denial: Denial,
  steps: readonly ViewStep[],
  openKeys: (stored: readonly SigningKeyRow[]) => ZoneKey[],
  window: SignatureWindow,
): Promise<void> {
  if (!steps.length) return;
  const overlays = await overlaysOfZone(sql, zone.id);
  // the base's records at every overlaid owner and the apex (its SOA), read once for all the views
  const owners = [...new Set(['@', ...overlays.map((o) => o.owner)])];
  const base = await zoneRecordsAt(sql, zone.id, owners);
  const soa = base.find((r) => r.owner === '@' && r.type === 'SOA');
  if (!soa) throw new Error(`zone ${zone.name} has no SOA`);
  let storedKeys: readonly SigningKeyRow[] | undefined;
  const written: { viewId: number; hidden: number[]; records: CanonicalRecord[] }[] = [];
  for (const step of steps) {
    const change = viewChange(
      base,
      soa,
      overlays.filter((o) => o.viewId === step.viewId),
      step.serial,
    );
    const questions = questionsOf(zone.name, change, denial);
    const view = new StoredSignedZone(sql, zone.id, change);
    let diff: SignerDiff | 'full' = 'full';
    let keys: ZoneKey[];
    if (questions === 'full') keys = openKeys((storedKeys ??= await keysOfZone(sql, zone.id)));
    else {
      // the questions and the zone's keys in one statement
      keys = openKeys(await view.answer(questions));
      diff = await signChange(zone.name, change, view, keys, denial, window, canonicalRdata);
    }
    if (diff === 'full') {
      // the DNSKEY RRset planned whole is the base's: the other signers' keys (RFC 8901) are in it too
      const foreign = foreignZoneKeys(zone.name, await foreignKeysOfZone(sql, zone.id));
      diff = await wholeViewDiff(sql, zone, change, [...keys, ...foreign], denial, window);
    }
    diff = keepUnchangedChainSignatures(zone.name, diff);
    written.push({ viewId: step.viewId, hidden: idsOf(zone.name, diff.removed), records: diff.added });
  }
  await writeViewSigners(sql, zone.id, written);
}

/**
 * The change that turns the base zone into a view's: the base's RRsets the view's overlays override and its SOA
 * removed, the view's own RRsets and the SOA with the view's serial added
 */
export function viewChange(
  base: readonly CanonicalRecord[],
  soa: CanonicalRecord,
  overlays: readonly OverlayRow[],
  serial: number,
): { removed: CanonicalRecord[]; added: CanonicalRecord[] } {
  const overridden = new Set(overlays.map((o) => `${o.owner}\u0000${o.type}`));
  const removed = [soa, ...base.filter((r) => overridden.has(`${r.owner}\u0000${r.type}`))];
  const added: CanonicalRecord[] = [{ ...soa, rdata: withSerial(soa.rdata, serial) }];
  for (const o of overlays)
    if (o.action === 'replace') for (const r of o.records) added.push({ owner: o.owner, type: o.type, ttl: r.ttl, rdata: r.rdata });
  return { removed, added };
}

/** the row ids of the base's signer records a view leaves out: every one was read from `dnssec_records` with its id */
function idsOf(zone: string, removed: readonly (CanonicalRecord & { id?: number })[]): number[] {
  return removed.map((r) => {
    if (r.id === undefined)
      throw new Error(`zone ${zone}: a signer record a view leaves out (${r.owner} ${r.type}) was read without its id`);
    return r.id;
  });
}

const CHAIN_TYPES = new Set(['NSEC', 'NSEC3']);
const CHAIN_CODES = new Set([47, 50]);

/**
 * An NSEC or NSEC3 that the view's chain rewrites to what the base has (a neighbour whose next name stayed) is the
 * base's, so its signature is too: the base's RRSIG over it stays in the view's zone, and the view keeps none of
 * its own for it.
 */
function keepUnchangedChainSignatures(zone: string, diff: SignerDiff): SignerDiff {
  const rewritten = new Set([...diff.removed, ...diff.added].filter((r) => CHAIN_TYPES.has(r.type)).map((r) => r.owner));
  const unchanged = (r: CanonicalRecord) => r.type === 'RRSIG' && CHAIN_CODES.has(coveredTypeOf(zone, r) ?? -1) && !rewritten.has(r.owner);
  return { removed: diff.removed.filter((r) => !unchanged(r)), added: diff.added.filter((r) => !unchanged(r)) };
}

/**
 * A view's zone planned whole (its overlay moves a zone cut): its chain and the RRsets it signs, against the base's
 * signer records. A chain record or DNSKEY the same as the base's is the base's; an RRset the same as the base's
 * keeps the base's RRSIGs; what differs is the view's own, and the base's signer records that are not in the
 * view's zone (its chain's other records, the signatures of RRsets that differ or are not authoritative in the
 * view) are left out.
 */
export async function wholeViewDiff(
  sql: Sql,
  zone: { id: number; name: string },
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  keys: readonly ZoneKey[],
  denial: Denial,
  window: SignatureWindow,
): Promise<SignerDiff> {
  const identity = (r: CanonicalRecord) => recordIdentity(r, { withTtl: true });
  const removed = new Set(change.removed.map((r) => recordIdentity(r)));
  const baseRecords = await allZoneRecords(sql, zone.id);
  const baseSigner = await allSignerRecords(sql, zone.id);
  const kept = baseRecords.filter((r) => !removed.has(recordIdentity(r)));
  const have = new Set(kept.map((r) => recordIdentity(r)));
  // the apex's CDS and CDNSKEY are the signer's, the base's in every view; the DNSKEY RRset is made from the keys
  const apexSignerData = baseSigner.filter((r) => r.owner === '@' && (r.type === 'CDS' || r.type === 'CDNSKEY'));
  const records = [...kept, ...change.added.filter((r) => !have.has(recordIdentity(r))), ...apexSignerData];
  const { added: made, toSign } = planZone(zone.name, records, keys, denial);

  const keep = new Set<number>();
  const added: CanonicalRecord[] = [];
  const baseByIdentity = new Map<string, StoredSignerRecord>();
  const baseRrsets = new Map<string, Set<string>>();
  const baseSignatures = new Map<string, StoredSignerRecord[]>();
  const rrsetOf = (r: CanonicalRecord) => {
    const key = `${r.owner}\u0000${r.type}`;
    const set = baseRrsets.get(key) ?? new Set<string>();
    baseRrsets.set(key, set.add(identity(r)));
  };
  for (const r of baseRecords) rrsetOf(r);
  for (const r of baseSigner) {
    if (r.type === 'RRSIG') {
      const key = `${r.owner}\u0000${coveredTypeOf(zone.name, r)}`;
      const list = baseSignatures.get(key);
      if (list) list.push(r);
      else baseSignatures.set(key, [r]);
      continue;
    }
    baseByIdentity.set(identity(r), r);
    rrsetOf(r);
  }
  for (const r of made) {
    const same = baseByIdentity.get(identity(r));
    if (same) keep.add(same.id);
    else added.push(r);
  }
  for (const rrset of toSign) {
    const before = baseRrsets.get(`${rrset.owner}\u0000${rrset.type}`);
    const now = new Set(rrset.records.map(identity));
    const same = before !== undefined && before.size === now.size && [...now].every((id) => before.has(id));
    const signed = baseSignatures.get(`${rrset.owner}\u0000${rrset.code}`) ?? [];
    if (same && signed.length) for (const s of signed) keep.add(s.id);
    else added.push(...signatures(zone.name, rrset, keys, window, canonicalRdata));
  }
  // the apex's CDS and CDNSKEY are kept as they are (they were given, not made)
  for (const r of apexSignerData) keep.add(r.id);
  return { removed: baseSigner.filter((r) => !keep.has(r.id)), added };
}
