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
 *   otherwise the operator gives the parent the new DS (the zone's `ds`) and the swap waits until the parent's
 *   servers serve it (parent-ds.ts) or the operator confirms it. A CDS/CDNSKEY cannot name a key outside the
 *   DNSKEY RRset, so the zone publishes none from the new key's generation until the old DS is withdrawn, and
 *   then the new key's (`publishedCds`).
 *
 * Every step is a step of the signer (`zone-signed`) through the write engine: the DNSKEY RRset and the
 * signatures change in one serial step, so a secondary never serves a half-rolled zone. A step only says it is
 * one (`signKeys`): the signing step re-signs the apex's key RRsets alone when the keys that sign the rest did
 * not change, which it reads from the stored signatures, and the zone whole when they did (a ZSK activated, a
 * CSK swapped; docs/dnssec.md, «What a key step re-signs»).
 */
import type { Principal } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Database, Sql } from '../../db/pool';
import { DNSSEC_ALGORITHMS, algorithmByNumber } from '../../dns/dnssec/algorithms';
import { DNSKEY_FLAG_SEP, dnskeyOf, dnskeyTag } from '../../dns/dnssec/keys';
import { ownerOf } from '../../dns/name';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { DomainError } from '../../errors/catalogue';
import {
  allSignerRecords,
  dsAtParent,
  dsTtlAtParent,
  dsWithdrawnOf,
  keysOfZone,
  maxTtlOfZone,
  parentZoneOf,
  planKey,
  PlannedEventReason,
  policyOf,
  scheduleDsCheck,
  setDisabling,
  setDsSeen,
  StoredDnssecKey,
  zonesWithKeyWork,
} from '../../repositories/dnssec';
import { makeKey, removeAllKeys, stepKey } from './key-step-events';
import type { KeyEventReason, StoredKeyRole } from '../../repositories/dnssec-key-events';
import type { DnssecWriter } from './dnssec-writer';
import type { ZoneChange } from '../write-engine/staging';
import { signerRemovals } from './zone-signing';
import { dsRecordsOf, inParentDs } from './zone-keys';
import { syncBootstrapSignals } from './bootstrap-signals';
import { SIGNER, SIGNER_STEP } from './signer-principal';
import { appendEvent } from '../../repositories/events';
import { deleteForeignKeysOfZone, foreignKeysOfZone } from '../../repositories/dnssec-foreign-keys';
import { zonesByName } from '../../repositories/dnssec-signals';
import { algorithmRollOf, algorithmRollStep } from './algorithm-rollover';

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
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { name: string } | { id: number },
  role: RollRole,
): Promise<void> {
  const parentWork = await writer.engine.changeZone(db, settings, principal, { zone, owner: '@', writer: SIGNER_STEP }, async (change) => {
    if (!change.zone.dnssec)
      throw new DomainError('DNSSEC_NOT_ENABLED', undefined, [
        { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
      ]);
    if (change.zone.dnssec.state === 'disabling') throw disablingError();
    change.requireLock();
    // a zone that withdrew its DS (multi-signer, moving out) has no DS of ours at the parent to roll
    if (role === 'KSK' && (await dsWithdrawnOf(change.connection, change.zone.id))) {
      const message = `role: ${change.zone.name} withdrew its DS from the parent (withdrawDnssecDs); restoreDnssecDs before rolling its KSK`;
      throw new DomainError('DNSSEC_DS_WITHDRAWN', message, [{ field: 'role', code: 'DNSSEC_DS_WITHDRAWN', message }]);
    }
    const keys = await keysOfZone(change.connection, change.zone.id);
    const work = await beginRoll(writer, change, settings, keys, role, new Date(), 'rolled-by-hand');
    // undefined: a roll of that kind runs already (false: the step needs nothing of the parent)
    if (work === undefined) {
      const message = algorithmRollOf(keys)
        ? `role: an algorithm roll of ${change.zone.name} is under way; one roll at a time`
        : `role: a ${role} roll of ${change.zone.name} is under way`;
      throw new DomainError('DNSSEC_ROLL_IN_PROGRESS', message, [{ field: 'role', code: 'DNSSEC_ROLL_IN_PROGRESS', message }]);
    }
    return { work, zone: { id: change.zone.id, name: change.zone.name } };
  });
  await writeParentDs(writer, db, settings, parentWork.work);
  // the roll's first step changed the CDS/CDNSKEY (a KSK roll withdraws them): the signals follow
  await syncBootstrapSignals(writer, db, settings, [parentWork.zone]);
}

const notSigned = () =>
  new DomainError('DNSSEC_NOT_ENABLED', undefined, [
    { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
  ]);
const disablingError = () => {
  const message = 'zone: the zone is being unsigned; its keys no longer roll';
  return new DomainError('DNSSEC_DISABLING', message, [{ field: 'zone', code: 'DNSSEC_DISABLING', message }]);
};
const nothingToConfirm = (message: string) =>
  new DomainError('DNSSEC_NOTHING_TO_CONFIRM', message, [{ field: 'zone', code: 'DNSSEC_NOTHING_TO_CONFIRM', message }]);

/**
 * The parent serves the zone's DS (a parent outside Zonekeeper): the operator's word (`ds-confirmed`), or every
 * server of DNSSEC_PARENT_DS_SERVERS answering it (parent-ds.ts: `ds-seen`). An enabled zone's DS is then known
 * published; a KSK roll's swap may run once the DS TTL has passed (RFC 7583 §3.3.2), counted from now, and its
 * key events say which of the two let it. `dsTtl`: the DS TTL the parent's servers answered, when they were asked.
 */
export async function confirmDsPublished(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { name: string } | { id: number },
  how: { reason: PlannedEventReason; dsTtl?: number },
): Promise<void> {
  const dsTtl = how.dsTtl ?? 0;
  await writer.engine.changeZone(db, settings, principal, { zone, owner: '@', writer: SIGNER_STEP }, async (change) => {
    if (!change.zone.dnssec) throw notSigned();
    change.requireLock();
    const sql = change.connection;
    const policy = await policyOf(sql, change.zone.id);
    const waiting = (await keysOfZone(sql, change.zone.id)).filter((k) => k.nextEvent === 'await-ds');
    if (policy?.state === 'disabling')
      throw nothingToConfirm('zone: the zone is being unsigned: it waits for its DS to be removed (confirmDnssecDsRemoved)');
    if (!waiting.length && policy?.dsSeenAt) throw nothingToConfirm('zone: no key waits for its DS at the parent');
    const ttl = Math.max(change.zone.soa.ttl, dsTtl);
    for (const key of waiting)
      // the swap runs in a later worker turn: the plan keeps why it may, for the swap's key events (nextStep)
      await planKey(sql, key, { event: 'swap', at: after(ttl + settings.dnssecPropagationDelay), reason: how.reason });
    await setDsSeen(sql, change.zone.id, new Date());
    await scheduleDsCheck(sql, change.zone.id, null);
    // no record changes: nothing to commit; the transaction commits with the keys' new plan
  });
}

/**
 * The parent no longer serves the zone's DS (RFC 8078 §4): a zone `disabling` goes unsigned once the DS TTL
 * plus the propagation delay has passed, counted from now, so no resolver still holds the DS when the
 * signatures go (the wait of a DS withdrawn in a KSK roll, RFC 7583 §3.3.2).
 */
export async function confirmDsRemoved(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { name: string } | { id: number },
  dsTtl = 0,
): Promise<void> {
  await writer.engine.changeZone(db, settings, principal, { zone, owner: '@', writer: SIGNER_STEP }, async (change) => {
    if (!change.zone.dnssec) throw notSigned();
    change.requireLock();
    const sql = change.connection;
    const policy = await policyOf(sql, change.zone.id);
    if (policy?.state !== 'disabling') throw nothingToConfirm('zone: the zone is not being unsigned (disableDnssec starts it)');
    if (policy.disableAt) throw nothingToConfirm('zone: the DS is known removed already; the zone goes unsigned at its time');
    await setDisabling(sql, change.zone.id, after(Math.max(change.zone.soa.ttl, dsTtl) + settings.dnssecPropagationDelay));
    await scheduleDsCheck(sql, change.zone.id, null);
  });
}

/**
 * Starts unsigning a zone (RFC 8078 §4): the DS-delete CDS and CDNSKEY replace the zone's CDS/CDNSKEY, and
 * the zone stays signed (every signature valid) until the parent's DS is gone. Key rolls stop: a planned
 * step is dropped, and a KSK generated for a roll (its DS never needed again) is removed. When the parent is a
 * Zonekeeper zone, the service removes the DS there itself and the zone goes unsigned after the DS TTL plus
 * the propagation delay; otherwise the worker asks DNSSEC_PARENT_DS_SERVERS, or the operator confirms.
 * A zone disabling already: only the parent's step again, while its DS is not known gone. A zone whose parent
 * elsewhere never had its DS (never confirmed, no DNSSEC_PARENT_DS_SERVERS to ask) is unsigned at once: nothing
 * to wait for.
 */
export async function beginDisable(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number; name: string },
): Promise<void> {
  const started = await writer.engine.changeZone(
    db,
    settings,
    principal,
    { zone: { id: zone.id }, owner: '@', writer: SIGNER_STEP },
    async (change) => {
      const policy = change.zone.dnssec;
      if (!policy) throw notSigned();
      const sql = change.connection;
      const parentDs = await policyOf(sql, change.zone.id);
      if (!parentDs?.dsSeenAt && !settings.dnssecParentDsServers.length && !(await parentZoneOf(sql, change.zone.name))) {
        // no DS of the zone was ever at its parent elsewhere as far as the service knows (never confirmed, and no
        // DNSSEC_PARENT_DS_SERVERS to ask): no resolver can hold one, so there is nothing to wait for (RFC 8078
        // §4's wait is for a DS to leave the parent and its caches), and the zone is unsigned now, as the worker's
        // last step does. Without this, a zone unsigned through the PowerDNS API (`dnssec: false`), whose tools
        // never confirm anything, would stay `disabling` for ever. With those servers set, they are asked as for
        // any disable: they say whether a DS is there (a parent may have taken one from the CDS by itself, RFC
        // 9615), and the zone is unsigned once they show none.
        change.requireLock();
        await finishDisable(change);
        return 'unsigned';
      }
      // disabling already: the parent's step again when its DS is not known gone (the last try may have failed)
      if (policy.state === 'disabling') return parentDs?.disableAt ? false : 'disabling';
      change.requireLock();
      const now = new Date();
      for (const key of await keysOfZone(sql, change.zone.id)) {
        // a key whose DS never reached the parent and that is not in the DNSKEY RRset is never needed again
        if (key.state === 'generated' || key.state === 'signing') await stepKey(sql, key, 'removed', now, 'disabled');
        else if (key.nextEvent) await planKey(sql, key);
      }
      await setDisabling(sql, change.zone.id, null);
      change.signKeys({ ...policy, state: 'disabling' });
      await change.commit();
      return 'disabling';
    },
  );
  if (!started) return;
  // the DS-delete CDS is no bootstrap, and an unsigned zone signals nothing: the signals of the zone go
  // (bootstrap-signals.ts)
  await syncBootstrapSignals(writer, db, settings, [zone]);
  if (started === 'unsigned') return;
  const removed = await writeParentDs(writer, db, settings, { child: zone.name, ds: [] });
  if (removed) {
    // a Zonekeeper parent no longer serves the DS: resolvers may hold it for its TTL
    await writer.engine.changeZone(db, settings, SIGNER, { zone: { id: zone.id }, owner: '@', writer: SIGNER_STEP }, async (change) => {
      change.requireLock();
      await setDisabling(change.connection, zone.id, after(removed.ttl + settings.dnssecPropagationDelay));
    });
  } else if (settings.dnssecParentDsServers.length) {
    await scheduleDsCheck(db, zone.id, new Date());
  }
}

/** the last step of unsigning a zone: every signer record leaves in one serial step, and the keys are destroyed */
export async function finishDisable(change: ZoneChange): Promise<void> {
  const sql = change.connection;
  change.stageSigner(signerRemovals(await allSignerRecords(sql, change.zone.id)), []);
  await removeAllKeys(sql, change.zone.id, new Date());
  // an unsigned zone publishes no DNSKEY: the other signer's keys (RFC 8901) go with ours
  await deleteForeignKeysOfZone(sql, change.zone.id);
  change.skipSigning();
  await change.commit();
}

/**
 * After a zone is signed: a Zonekeeper parent gets the DS at once (no human step) and it is known published;
 * otherwise the zone waits for it, and the worker asks DNSSEC_PARENT_DS_SERVERS when they are set.
 */
export async function afterEnable(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
): Promise<void> {
  await syncParentDs(writer, db, settings, zone);
  // RFC 9615: its CDS/CDNSKEY signalled under its nameservers held here, for a parent that bootstraps from them
  await syncBootstrapSignals(writer, db, settings, [zone]);
  if (await parentZoneOf(db, zone.name)) await setDsSeen(db, zone.id, new Date());
  else if (settings.dnssecParentDsServers.length) await scheduleDsCheck(db, zone.id, new Date());
}

/** The worker's turn: every zone with a key event due, or a key past its lifetime, takes its next step. */
export async function advanceKeyRolls(writer: DnssecWriter, db: Database, settings: Settings, limit = 20): Promise<number> {
  const zones = await zonesWithKeyWork(db, { zsk: settings.dnssecZskLifetime, ksk: settings.dnssecKskLifetime }, limit);
  let steps = 0;
  for (const zoneId of zones) {
    let zoneName = '';
    const parentWork = await writer.engine.changeZone(
      db,
      settings,
      SIGNER,
      { zone: { id: zoneId }, owner: '@', writer: SIGNER_STEP },
      async (change) => {
        zoneName = change.zone.name;
        if (!change.zone.dnssec) return undefined;
        change.requireLock();
        const now = new Date();
        if (change.zone.dnssec.state === 'disabling') {
          // no key steps while unsigning: only the last step, once due
          const disableAt = (await policyOf(change.connection, zoneId))?.disableAt;
          if (!disableAt || disableAt > now) return undefined;
          await finishDisable(change);
          return false;
        }
        const keys = await keysOfZone(change.connection, zoneId);
        const due = keys.find((k) => k.nextEventAt && k.nextEventAt <= now);
        if (due) return nextStep(change, settings, keys, due, now);
        // no key roll by lifetime while an algorithm roll runs (its new keys' lifetime counts from its end)
        const expired = algorithmRollOf(keys)
          ? undefined
          : keys.find((k) => k.state === 'active' && !k.nextEvent && lifetimeOver(k, settings, now));
        if (expired) return beginRoll(writer, change, settings, keys, expired.role === 'ZSK' ? 'ZSK' : 'KSK', now, 'lifetime');
        return undefined;
      },
    );
    if (parentWork !== undefined) steps++;
    await writeParentDs(writer, db, settings, parentWork);
    // a step may change the CDS/CDNSKEY (or unsign the zone): its RFC 9615 signals follow
    if (parentWork !== undefined) await syncBootstrapSignals(writer, db, settings, [{ id: zoneId, name: zoneName }]);
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
  writer: DnssecWriter,
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
  // one roll at a time: none of a key while the algorithm rolls
  if (algorithmRollOf(keys)) return undefined;
  const algorithm = algorithmByNumber(current.algorithm) ?? DNSSEC_ALGORITHMS.ECDSAP256SHA256;
  const privateKey = algorithm.generate();
  const dnskey = dnskeyOf(privateKey, algorithm, current.role !== 'ZSK');
  const keyTag = dnskeyTag(dnskey);
  const sealed = writer.keys.vault().seal(privateKey, { zone: change.zone.name, keyTag });
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
    const key = await makeKey(sql, { ...base, state: 'published' });
    await planKey(sql, key, { event: 'activate', at: after(soaTtl + settings.dnssecPropagationDelay) });
    change.signKeys();
    await change.commit();
    return false;
  }
  // double-DS: the new DS goes to the parent first; the key joins the DNSKEY RRset at the swap
  const key = await makeKey(sql, { ...base, state: 'generated' });
  const parent = await parentZoneOf(sql, change.zone.name);
  await planKey(
    sql,
    key,
    parent
      ? { event: 'swap', at: after((await swapWaitTtl(sql, change.zone.name, soaTtl, parent)) + settings.dnssecPropagationDelay) }
      : { event: 'await-ds', at: after(10 * 366 * 86400) },
  );
  // a parent outside Zonekeeper: its servers are asked for the new DS (parent-ds.ts), when they are set
  if (!parent && settings.dnssecParentDsServers.length) await scheduleDsCheck(sql, change.zone.id, now);
  change.signKeys(); // the CDS/CDNSKEY leave until the old DS is withdrawn (publishedCds)
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
  const swapWait = async () => {
    const parent = await parentZoneOf(sql, zone);
    return parent ? swapWaitTtl(sql, zone, soaTtl, parent) : soaTtl;
  };
  // an algorithm roll's steps (algorithm-rollover.ts); its swap, once the parent is known to serve the new DS
  if (due.nextEvent !== 'swap') {
    const step = await algorithmRollStep(change, settings, keys, due, now, { swapWait });
    if (step !== undefined) return step;
  }
  switch (due.nextEvent) {
    case 'activate': {
      // ZSK: the new key signs, the old one retires and stays published until its signatures are gone
      for (const old of keys.filter((k) => k.role === 'ZSK' && k.state === 'active' && k.id !== due.id)) {
        const maxTtl = await maxTtlOfZone(sql, change.zone.id);
        await stepKey(sql, old, 'retired', now, 'scheduled', {
          event: 'remove',
          at: after(Math.max(maxTtl, soaTtl) + settings.dnssecPropagationDelay),
        });
      }
      await stepKey(sql, due, 'active', now, 'scheduled');
      change.signKeys();
      await change.commit();
      return false;
    }
    case 'swap': {
      // never before the parent serves the new DS: a Zonekeeper parent is asked (its write may have failed:
      // written again, and the swap waits for another delay); a parent elsewhere, the operator confirmed it
      const parent = await parentZoneOf(sql, zone);
      if (parent) {
        const owner = ownerOf(zone, parent.name)!;
        const [wanted] = dsRecordsOf(zone, due);
        if (!(await dsAtParent(sql, parent.id, owner)).includes(wanted)) {
          const wait = await swapWaitTtl(sql, zone, soaTtl, parent);
          await planKey(sql, due, { event: 'swap', at: after(wait + settings.dnssecPropagationDelay) });
          return { child: zone, ds: keys.filter(inParentDs).map((k) => dsRecordsOf(zone, k)[0]) };
        }
      }
      // a Zonekeeper parent's DS was just read here; a parent elsewhere, the plan says who knew it served
      // (its servers seen by the worker, or the operator's word); a plan from before it said so, the operator's
      const algorithmStep = await algorithmRollStep(change, settings, keys, due, now, { swapWait });
      if (algorithmStep !== undefined) return algorithmStep;
      const reason: KeyEventReason = parent ? 'ds-seen' : (due.nextEventReason ?? 'ds-confirmed');
      // KSK/CSK: the DNSKEY RRset swaps the keys; the old DS stays at the parent until no cache holds the old RRset
      for (const old of keys.filter((k) => k.role === due.role && k.state === 'active' && k.id !== due.id)) {
        await stepKey(sql, old, 'retired', now, reason, { event: 'withdraw-ds', at: after(soaTtl + settings.dnssecPropagationDelay) });
      }
      await stepKey(sql, due, 'active', now, reason);
      change.signKeys();
      await change.commit();
      return false;
    }
    case 'withdraw-ds':
    case 'remove': {
      await stepKey(sql, due, 'removed', now, 'scheduled');
      change.signKeys();
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
export async function syncParentDs(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
  none = false,
): Promise<void> {
  const keys = none ? [] : await keysOfZone(db, zone.id);
  await writeParentDs(writer, db, settings, { child: zone.name, ds: keys.filter(inParentDs).map((k) => dsRecordsOf(zone.name, k)[0]) });
}

/**
 * The child's DS RRset at its Zonekeeper parent, written through the write engine as a change of the parent
 * by the signer (the parent's own signing step signs it). Nothing when the parent is not here.
 */
async function writeParentDs(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  work: ParentDsWork | false | undefined,
): Promise<{ ttl: number } | undefined> {
  if (!work) return undefined;
  const parent = await parentZoneOf(db, work.child);
  if (!parent) return undefined;
  const owner = ownerOf(work.child, parent.name)!;
  const [child] = await zonesByName(db, [work.child]);
  // multi-signer (RFC 8901 §8): the parent holds the other signer's KSKs' DS beside ours, as our CDS names them,
  // for as long as the zone is signed here (an empty set takes the zone's DS away: the zone goes unsigned). A
  // zone that withdrew its own DS (withdrawDnssecDs: moving out) leaves the parent theirs alone, as its CDS
  // says, and keeps them there when it is unsigned (only our DS goes): the zone stays secure by their chain.
  const foreignKsks = child ? (await foreignKeysOfZone(db, child.id)).filter((k) => k.flags & DNSKEY_FLAG_SEP) : [];
  const withdrawn = !!child && foreignKsks.length > 0 && (await dsWithdrawnOf(db, child.id));
  const theirs = work.ds.length || withdrawn ? foreignKsks.map((k) => dsRecordsOf(work.child, k)[0]) : [];
  const ours = withdrawn ? [] : work.ds;
  const ds = [...ours, ...theirs.filter((rdata) => !ours.includes(rdata))];
  // answers the DS RRset's TTL (the parent's SOA TTL for a new one): how long resolvers may cache it
  return writer.engine.changeZone(db, settings, SIGNER, { zone: { id: parent.id }, owner }, async (change) => {
    const ttl = current0Ttl(change.zone.sameOwner, owner) ?? change.zone.soa.ttl;
    const current = change.zone.sameOwner.filter((r) => r.owner === owner && r.type === 'DS');
    const wanted = new Set(ds);
    const removed = current.filter((row) => !wanted.has(row.rdata));
    const have = new Set(current.map((r) => r.rdata));
    const added = ds.filter((rdata) => !have.has(rdata));
    if (!removed.length && !added.length) return { ttl };
    // the event is written in the parent's change's transaction (docs/events.md): it exists exactly when the DS did change
    change.requireLock();
    for (const row of removed) change.remove(row);
    for (const rdata of added) change.insert({ owner, type: 'DS', ttl, rdata });
    await change.commit();
    await appendEvent(change.connection, {
      type: 'dnssec.ds_updated',
      domainId: child?.id ?? null,
      zone: work.child,
      data: {
        zone: work.child,
        parent: parent.name,
        parentSerial: change.serialAfter,
        ds,
        added,
        removed: removed.map((r) => r.rdata),
        ttl,
      },
    });
    return { ttl };
  });
}

/**
 * A double-DS roll's swap with a Zonekeeper parent (RFC 7583 §3.3.2): the new key may sign the DNSKEY RRset
 * once no resolver holds the parent's DS RRset from before the new DS: the DS TTL at the parent, which is the
 * parent's (its DS RRset's, or its SOA's for a new one), not the child's. The child's SOA TTL stays the floor.
 */
async function swapWaitTtl(sql: Sql, zone: string, soaTtl: number, parent: { id: number; name: string }): Promise<number> {
  const owner = ownerOf(zone, parent.name)!;
  return Math.max(soaTtl, await dsTtlAtParent(sql, parent.id, owner));
}

const current0Ttl = (records: readonly { owner: string; type: string; ttl: number }[], owner: string): number | undefined =>
  records.find((r) => r.owner === owner && r.type === 'DS')?.ttl;
