/**
 * Key rollovers with RFC 7583's timing, run by the worker (and started by hand through the API):
 *
 * - ZSK, pre-publication (§3.2.1): the new key is published; after the DNSKEY TTL plus the propagation delay
 *   every resolver can know it, so it becomes active and the old one retires (still published, no longer
 *   signing); after the zone's largest TTL plus the delay no cached signature of the old key remains, so it
 *   is removed.
 * - KSK or CSK, double-DS (§3.3.2): the new key is generated and its DS goes to the parent beside the old one;
 *   once the parent serves both (and their TTL has passed), the DNSKEY RRset swaps the keys in one step; after
 *   the DNSKEY TTL plus the delay no resolver holds the old DNSKEY RRset, and the old DS is withdrawn. When the
 *   parent is a Zonekeeper zone, the service writes the child's DS RRset itself, through the write engine;
 *   otherwise the zone publishes CDS/CDNSKEY for both keys (RFC 7344) and the swap waits for the operator's
 *   "DS is published" confirmation.
 *
 * Every step is a step of the signer (`zone-signed`) through the write engine: the DNSKEY RRset and the
 * signatures change in one serial step, so a secondary never serves a half-rolled zone.
 */
import type { Principal } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { DNSSEC_ALGORITHMS, algorithmByNumber } from '../../dns/dnssec/algorithms';
import { dnskeyOf, dnskeyTag } from '../../dns/dnssec/keys';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { DomainError } from '../../errors/catalogue';
import {
  dsAtParent,
  insertKey,
  keysOfZone,
  maxTtlOfZone,
  moveKey,
  parentZoneOf,
  planKey,
  StoredDnssecKey,
  StoredKeyRole,
  zonesWithKeyWork,
} from '../../repositories/dnssec';
import type { KeyEventReason } from '../../repositories/dnssec-key-events';
import { changeZone } from '../write-engine';
import type { ZoneChange } from '../write-engine/staging';
import { dsRecordsOf, inParentDs, vaultOf } from './zone-signing';

/** the signer's own steps name no author; this principal only passes the engine's scope checks */
const SIGNER: Principal = { kind: 'admin', keyId: 0, keyName: 'dnssec signer' };

export type RollRole = 'ZSK' | 'KSK';

/** a DS RRset change at the parent, to write after the child's step commits */
interface ParentDsWork {
  child: string;
  ds: string[];
}

/**
 * Starts a roll of the zone's ZSK or KSK (a CSK rolls as a KSK) now: the first step of its method. Refused
 * while a roll of that kind runs.
 */
export async function startRoll(
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { name: string } | { id: number },
  role: RollRole,
): Promise<void> {
  const parentWork = await changeZone(db, settings, principal, { zone, owner: '@', signatureOnly: true }, async (change) => {
    if (!change.zone.dnssec)
      throw new DomainError('DNSSEC_NOT_ENABLED', undefined, [
        { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
      ]);
    change.requireLock();
    const keys = await keysOfZone(change.connection, change.zone.id);
    const work = await beginRoll(change, settings, keys, role, new Date(), 'rolled-by-hand');
    // undefined: a roll of that kind runs already (false: the step needs nothing of the parent)
    if (work === undefined) {
      const message = `role: a ${role} roll of ${change.zone.name} is under way`;
      throw new DomainError('DNSSEC_ROLL_IN_PROGRESS', message, [{ field: 'role', code: 'DNSSEC_ROLL_IN_PROGRESS', message }]);
    }
    return work;
  });
  await writeParentDs(db, settings, parentWork);
}

/**
 * The operator's word that the parent serves the new DS (a parent outside Zonekeeper): the KSK roll's swap
 * may run once the DS TTL has passed, which the worker counts from now.
 */
export async function confirmDsPublished(db: Database, settings: Settings, principal: Principal, zone: { name: string }): Promise<void> {
  await changeZone(db, settings, principal, { zone, owner: '@', signatureOnly: true }, async (change) => {
    if (!change.zone.dnssec)
      throw new DomainError('DNSSEC_NOT_ENABLED', undefined, [
        { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
      ]);
    change.requireLock();
    const waiting = (await keysOfZone(change.connection, change.zone.id)).filter((k) => k.nextEvent === 'await-ds');
    if (!waiting.length) {
      const message = 'zone: no key waits for its DS at the parent';
      throw new DomainError('DNSSEC_NOTHING_TO_CONFIRM', message, [{ field: 'zone', code: 'DNSSEC_NOTHING_TO_CONFIRM', message }]);
    }
    const soaTtl = change.zone.soa.ttl;
    // the swap's key event then names the confirmation as its reason (nextStep: no parent here, `ds-confirmed`)
    for (const key of waiting)
      await planKey(change.connection, key, { event: 'swap', at: after(soaTtl + settings.dnssecPropagationDelay) });
    // no record changes: nothing to commit; the transaction commits with the keys' new plan
  });
}

/** The worker's turn: every zone with a key event due, or a key past its lifetime, takes its next step. */
export async function advanceKeyRolls(db: Database, settings: Settings, limit = 20): Promise<number> {
  const zones = await zonesWithKeyWork(db, { zsk: settings.dnssecZskLifetime, ksk: settings.dnssecKskLifetime }, limit);
  let steps = 0;
  for (const zoneId of zones) {
    const parentWork = await changeZone(db, settings, SIGNER, { zone: { id: zoneId }, owner: '@', signatureOnly: true }, async (change) => {
      if (!change.zone.dnssec) return undefined;
      change.requireLock();
      const now = new Date();
      const keys = await keysOfZone(change.connection, zoneId);
      const due = keys.find((k) => k.nextEventAt && k.nextEventAt <= now);
      if (due) return nextStep(change, settings, keys, due, now);
      const expired = keys.find((k) => k.state === 'active' && !k.nextEvent && lifetimeOver(k, settings, now));
      if (expired) return beginRoll(change, settings, keys, expired.role === 'ZSK' ? 'ZSK' : 'KSK', now, 'lifetime');
      return undefined;
    });
    if (parentWork !== undefined) steps++;
    await writeParentDs(db, settings, parentWork);
  }
  return steps;
}

function lifetimeOver(key: StoredDnssecKey, settings: Settings, now: Date): boolean {
  const lifetime = key.role === 'ZSK' ? settings.dnssecZskLifetime : settings.dnssecKskLifetime;
  return lifetime > 0 && !!key.activeAt && key.activeAt.getTime() + lifetime * 1000 <= now.getTime();
}

const after = (seconds: number) => new Date(Date.now() + seconds * 1000);

/** the first step of a roll; undefined when one of that kind runs already */
async function beginRoll(
  change: ZoneChange,
  settings: Settings,
  keys: StoredDnssecKey[],
  role: RollRole,
  now: Date,
  reason: KeyEventReason,
): Promise<ParentDsWork | false | undefined> {
  const sql = change.connection;
  const rolling = role === 'ZSK' ? keys.filter((k) => k.role === 'ZSK') : keys.filter((k) => k.role !== 'ZSK');
  const current = rolling.find((k) => k.state === 'active');
  if (!current || rolling.some((k) => k.state !== 'active' && k.state !== 'removed')) return undefined;
  const algorithm = algorithmByNumber(current.algorithm) ?? DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const privateKey = algorithm.generate();
  const dnskey = dnskeyOf(privateKey, algorithm, current.role !== 'ZSK');
  const keyTag = dnskeyTag(dnskey);
  const sealed = vaultOf(settings).seal(privateKey, { zone: change.zone.name, keyTag });
  const soaTtl = change.zone.soa.ttl;
  const base = {
    domainId: change.zone.id,
    role: current.role as StoredKeyRole,
    algorithm: algorithm.number,
    keyTag,
    dnskey: DNSKEY.format(dnskey),
    sealed,
    at: now,
    reason,
  };
  if (current.role === 'ZSK') {
    // pre-publication: in the DNSKEY RRset now, signing once every resolver can have it
    const key = await insertKey(sql, { ...base, state: 'published' });
    await planKey(sql, key, { event: 'activate', at: after(soaTtl + settings.dnssecPropagationDelay) });
    change.signWhole();
    await change.commit();
    return false;
  }
  // double-DS: the new DS goes to the parent first; the key joins the DNSKEY RRset at the swap
  const key = await insertKey(sql, { ...base, state: 'generated' });
  const parent = await parentZoneOf(sql, change.zone.name);
  const dsTtl = soaTtl;
  await planKey(
    sql,
    key,
    parent ? { event: 'swap', at: after(dsTtl + settings.dnssecPropagationDelay) } : { event: 'await-ds', at: after(10 * 366 * 86400) },
  );
  change.signWhole(); // the CDS/CDNSKEY now name both keys (RFC 7344)
  await change.commit();
  return { child: change.zone.name, ds: [...keys.filter(inParentDs), key].flatMap((k) => [dsRecordsOf(change.zone.name, k)[0]]) };
}

/** the step a due key event asks for */
async function nextStep(
  change: ZoneChange,
  settings: Settings,
  keys: StoredDnssecKey[],
  due: StoredDnssecKey,
  now: Date,
): Promise<ParentDsWork | false> {
  const sql = change.connection;
  const soaTtl = change.zone.soa.ttl;
  const zone = change.zone.name;
  switch (due.nextEvent) {
    case 'activate': {
      // ZSK: the new key signs, the old one retires and stays published until its signatures are gone
      for (const old of keys.filter((k) => k.role === 'ZSK' && k.state === 'active' && k.id !== due.id)) {
        const maxTtl = await maxTtlOfZone(sql, change.zone.id);
        await moveKey(sql, old, 'retired', now, 'scheduled', {
          event: 'remove',
          at: after(Math.max(maxTtl, soaTtl) + settings.dnssecPropagationDelay),
        });
      }
      await moveKey(sql, due, 'active', now, 'scheduled');
      change.signWhole();
      await change.commit();
      return false;
    }
    case 'swap': {
      // never before the parent serves the new DS: a Zonekeeper parent is asked (its write may have failed:
      // written again, and the swap waits for another delay); a parent elsewhere, the operator confirmed it
      const parent = await parentZoneOf(sql, zone);
      if (parent) {
        const owner = zone.slice(0, -(parent.name.length + 1));
        const [wanted] = dsRecordsOf(zone, due);
        if (!(await dsAtParent(sql, parent.id, owner)).includes(wanted)) {
          await planKey(sql, due, { event: 'swap', at: after(soaTtl + settings.dnssecPropagationDelay) });
          return { child: zone, ds: keys.filter(inParentDs).map((k) => dsRecordsOf(zone, k)[0]) };
        }
      }
      const reason: KeyEventReason = parent ? 'ds-seen' : 'ds-confirmed';
      // KSK/CSK: the DNSKEY RRset swaps the keys; the old DS stays at the parent until no cache holds the old RRset
      for (const old of keys.filter((k) => k.role === due.role && k.state === 'active' && k.id !== due.id)) {
        await moveKey(sql, old, 'retired', now, reason, { event: 'withdraw-ds', at: after(soaTtl + settings.dnssecPropagationDelay) });
      }
      await moveKey(sql, due, 'active', now, reason);
      change.signWhole();
      await change.commit();
      return false;
    }
    case 'withdraw-ds':
    case 'remove': {
      await moveKey(sql, due, 'removed', now, 'scheduled');
      change.signWhole();
      await change.commit();
      if (due.nextEvent === 'remove') return false;
      const remaining = keys.filter((k) => k.id !== due.id && inParentDs(k));
      return { child: zone, ds: remaining.map((k) => dsRecordsOf(zone, k)[0]) };
    }
    default:
      // an event this version does not know (or 'await-ds', which waits for a confirmation): leave it
      await planKey(sql, due, due.nextEvent === 'await-ds' ? { event: 'await-ds', at: after(10 * 366 * 86400) } : undefined);
      return false;
  }
}

/**
 * Brings the zone's DS RRset at its Zonekeeper parent to the zone's keys (DNSSEC enabled: the DS appears, no
 * human step; `none`: DNSSEC about to be disabled, the DS goes first). Nothing when the parent is not here.
 */
export async function syncParentDs(db: Database, settings: Settings, zone: { id: number; name: string }, none = false): Promise<void> {
  const keys = none ? [] : await keysOfZone(db, zone.id);
  await writeParentDs(db, settings, { child: zone.name, ds: keys.filter(inParentDs).map((k) => dsRecordsOf(zone.name, k)[0]) });
}

/**
 * The child's DS RRset at its Zonekeeper parent, written through the write engine as a change of the parent
 * by the signer (the parent's own signing step signs it). Nothing when the parent is not here.
 */
async function writeParentDs(db: Database, settings: Settings, work: ParentDsWork | false | undefined): Promise<void> {
  if (!work) return;
  const parent = await parentZoneOf(db, work.child);
  if (!parent) return;
  const owner = work.child.slice(0, -(parent.name.length + 1));
  await changeZone(db, settings, SIGNER, { zone: { id: parent.id }, owner }, async (change) => {
    const ttl = change.zone.soa.ttl;
    const current = change.zone.sameOwner.filter((r) => r.owner === owner && r.type === 'DS');
    const wanted = new Set(work.ds);
    for (const row of current) if (!wanted.has(row.rdata)) change.remove(row);
    const have = new Set(current.map((r) => r.rdata));
    for (const rdata of work.ds) if (!have.has(rdata)) change.insert({ owner, type: 'DS', ttl: current[0]?.ttl ?? ttl, rdata });
    if (change.added.length || change.removed.length) await change.commit();
  });
}
