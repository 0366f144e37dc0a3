/**
 * An algorithm rollover (RFC 6781 §4.1.4; RFC 7583 §3.4, the conservative approach): the zone moves from one
 * signing algorithm to another without a moment where a validator could find it bogus, including a validator
 * that insists on a signature of every algorithm its DNSKEY RRset names (RFC 4035 §2.2). Each step is a key
 * step of the signer (key-rollover.ts: `zone-signed`, through the write engine), planned on the keys as their
 * next event, so the worker runs it when its wait is over:
 *
 * 1. `signing` (started by `startAlgorithmRoll`): a KSK and a ZSK (or a CSK) of the new algorithm are made and
 *    sign the zone beside the old keys, their DNSKEYs not yet published. Wait: the zone's largest TTL plus the
 *    propagation delay, so no resolver still holds an RRset with the old algorithm's signatures alone.
 * 2. `publish`: the new DNSKEYs join the DNSKEY RRset, signed by both KSKs (the new KSK `published`: in the
 *    RRset and signing, its DS not yet at the parent). Wait: the DNSKEY TTL plus the delay.
 * 3. `submit-ds`: the parent's DS RRset is to name the new KSK alone: the new KSK becomes `active`, the old one
 *    `published` (still in the RRset and signing, its DS leaving); the CDS/CDNSKEY name the new KSK. A Zonekeeper
 *    parent is written by the service; a parent elsewhere is asked at DNSSEC_PARENT_DS_SERVERS or the operator
 *    confirms (`await-ds`, as a KSK roll). Wait: the DS TTL plus the delay, once the parent serves the new DS.
 * 4. `swap` (the new DS served and its wait over): the old keys leave the DNSKEY RRset and keep signing
 *    (`withdrawn`), so a resolver holding the old DNSKEY RRset still finds a signature of each of its
 *    algorithms. Wait: the DNSKEY TTL plus the delay.
 * 5. `remove`: the old keys are removed, and their signatures with them.
 *
 * One roll at a time: no algorithm roll while a key roll runs, and no key roll (by hand or by lifetime) while
 * an algorithm roll does.
 */
import { foreignKeysOfZone } from '../../repositories/dnssec-foreign-keys';
import type { Principal } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { algorithmByNumber, DnssecAlgorithm } from '../../dns/dnssec/algorithms';
import { dnskeyOf, dnskeyTag } from '../../dns/dnssec/keys';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { DomainError } from '../../errors/catalogue';
import { keysOfZone, maxTtlOfZone, parentZoneOf, planKey, scheduleDsCheck, StoredDnssecKey } from '../../repositories/dnssec';
import { makeKey, stepKey } from './key-step-events';
import type { KeyEventReason } from '../../repositories/dnssec-key-events';
import type { DnssecWriter } from './dnssec-writer';
import type { ZoneChange } from '../write-engine/staging';
import { dsRecordsOf } from './zone-keys';
import { SIGNER_STEP } from './signer-principal';

/** the step an algorithm roll is at (docs/dnssec.md, «Algorithm rollover») */
export type AlgorithmRollStep = 'NEW_SIGNATURES' | 'NEW_DNSKEYS' | 'NEW_DS' | 'OLD_DNSKEYS_REMOVED';

export interface AlgorithmRoll {
  from: DnssecAlgorithm;
  to: DnssecAlgorithm;
  step: AlgorithmRollStep;
  /** when the next step is due; null: it waits for the parent's DS (seen at its servers, or confirmed) */
  nextStepAt: Date | null;
}

/** a wait planned as far off as «never» reads: the step waits for something other than time */
const AWAITING = 10 * 366 * 86400;

/** A DS RRset change at a Zonekeeper parent, as key-rollover.ts writes it after the child's step commits */
export interface AlgorithmRollParentWork {
  child: string;
  ds: string[];
}

const live = (keys: readonly StoredDnssecKey[]) => keys.filter((k) => k.state !== 'removed');

/** The zone's algorithm roll, read from its keys: keys of two algorithms. Undefined: none runs. */
export function algorithmRollOf(keys: readonly StoredDnssecKey[]): AlgorithmRoll | undefined {
  const alive = live(keys);
  if (new Set(alive.map((k) => k.algorithm)).size < 2) return undefined;
  // the new algorithm's keys are the newest
  const newest = alive.reduce((a, b) => (b.id > a.id ? b : a));
  const to = algorithmByNumber(newest.algorithm);
  const from = algorithmByNumber(alive.find((k) => k.algorithm !== newest.algorithm)!.algorithm);
  if (!to || !from) return undefined;
  const ofNew = alive.filter((k) => k.algorithm === to.number);
  let step: AlgorithmRollStep;
  if (ofNew.some((k) => k.state === 'signing')) step = 'NEW_SIGNATURES';
  else if (alive.some((k) => k.state === 'withdrawn')) step = 'OLD_DNSKEYS_REMOVED';
  else if (ofNew.some((k) => k.role !== 'ZSK' && k.state === 'published')) step = 'NEW_DNSKEYS';
  else step = 'NEW_DS';
  const planned = alive.filter((k) => k.nextEventAt && k.nextEvent !== 'await-ds').map((k) => k.nextEventAt!.getTime());
  return { from, to, step, nextStepAt: planned.length ? new Date(Math.min(...planned)) : null };
}

/** a roll of any kind under way: a key not active, a key with a step planned, or keys of two algorithms */
export const rollUnderWay = (keys: readonly StoredDnssecKey[]): boolean =>
  live(keys).some((k) => k.state !== 'active' || k.nextEvent !== null) || algorithmRollOf(keys) !== undefined;

const after = (seconds: number) => new Date(Date.now() + seconds * 1000);

/**
 * Starts an algorithm roll of the zone to `algorithm` now (step 1). Refused while any roll runs
 * (DNSSEC_ROLL_IN_PROGRESS), and for the algorithm the zone is signed with (DNSSEC_ALGORITHM_UNCHANGED).
 */
export async function startAlgorithmRoll(
  writer: DnssecWriter,
  db: Database,
  settings: Settings,
  principal: Principal,
  zone: { id: number },
  algorithm: DnssecAlgorithm,
): Promise<void> {
  await writer.engine.changeZone(db, settings, principal, { zone, owner: '@', writer: SIGNER_STEP }, async (change) => {
    if (!change.zone.dnssec)
      throw new DomainError('DNSSEC_NOT_ENABLED', undefined, [
        { field: 'zone', code: 'DNSSEC_NOT_ENABLED', message: 'zone: the zone is not signed' },
      ]);
    if (change.zone.dnssec.state === 'disabling') {
      const message = 'zone: the zone is being unsigned; its keys no longer roll';
      throw new DomainError('DNSSEC_DISABLING', message, [{ field: 'zone', code: 'DNSSEC_DISABLING', message }]);
    }
    change.requireLock();
    const sql = change.connection;
    const keys = await keysOfZone(sql, change.zone.id);
    if (rollUnderWay(keys)) {
      const message = `algorithm: a key or algorithm roll of ${change.zone.name} is under way; one at a time`;
      throw new DomainError('DNSSEC_ROLL_IN_PROGRESS', message, [{ field: 'algorithm', code: 'DNSSEC_ROLL_IN_PROGRESS', message }]);
    }
    // multi-signer (RFC 8901 §4): both providers sign with one algorithm, and the other signer's keys would stay
    // in the DNSKEY RRset under an algorithm no longer signing here; the move ends first, then the roll
    if ((await foreignKeysOfZone(sql, change.zone.id)).length) {
      const message = `algorithm: ${change.zone.name} publishes another signer's keys (multi-signer); remove them first (removeForeignDnskey)`;
      throw new DomainError('DNSSEC_ROLL_IN_PROGRESS', message, [{ field: 'algorithm', code: 'DNSSEC_MULTI_SIGNER', message }]);
    }
    const current = live(keys);
    if (current.every((k) => k.algorithm === algorithm.number)) {
      const message = `algorithm: ${change.zone.name} is signed with ${algorithm.name} already`;
      throw new DomainError('DNSSEC_ALGORITHM_UNCHANGED', message, [{ field: 'algorithm', code: 'DNSSEC_ALGORITHM_UNCHANGED', message }]);
    }
    const now = new Date();
    // the same layout in the new algorithm: a KSK and a ZSK, or a CSK
    let ksk: StoredDnssecKey | undefined;
    for (const role of [...new Set(current.map((k) => k.role))].sort()) {
      const privateKey = algorithm.generate();
      const dnskey = dnskeyOf(privateKey, algorithm, role !== 'ZSK');
      const keyTag = dnskeyTag(dnskey);
      const key = await makeKey(sql, {
        domainId: change.zone.id,
        role,
        algorithm: algorithm.number,
        keyTag,
        dnskey: DNSKEY.format(dnskey),
        sealed: writer.keys.vault().seal(privateKey, { zone: change.zone.name, keyTag }),
        state: 'signing',
        at: now,
        reason: 'algorithm-roll',
      });
      if (role !== 'ZSK') ksk = key;
    }
    // every RRset cached before this step has left the caches once its TTL (at most the zone's largest) passed
    const maxTtl = Math.max(await maxTtlOfZone(sql, change.zone.id), change.zone.soa.ttl);
    await planKey(sql, ksk!, { event: 'publish', at: after(maxTtl + settings.dnssecPropagationDelay) });
    change.signKeys();
    await change.commit();
  });
}

/**
 * The roll's step a due event of `due` asks for (steps 2 to 5); undefined: the event is not the roll's (the
 * key roll's own steps take it). `false`: nothing for the parent; otherwise the DS RRset to write there.
 */
export async function algorithmRollStep(
  change: ZoneChange,
  settings: Settings,
  keys: readonly StoredDnssecKey[],
  due: StoredDnssecKey,
  now: Date,
  parentReady: { swapWait: () => Promise<number> },
): Promise<AlgorithmRollParentWork | false | undefined> {
  const roll = algorithmRollOf(keys);
  if (!roll) return undefined;
  const sql = change.connection;
  const soaTtl = change.zone.soa.ttl;
  const zone = change.zone.name;
  const ofNew = keys.filter((k) => k.algorithm === roll.to.number && k.state !== 'removed');
  const ofOld = keys.filter((k) => k.algorithm === roll.from.number && k.state !== 'removed');
  switch (due.nextEvent) {
    case 'publish': {
      // step 2: the new DNSKEYs published (the RRset signed by both KSKs); the new KSK's DS comes after their TTL
      for (const key of ofNew.filter((k) => k.state === 'signing' && k.id !== due.id)) {
        await stepKey(sql, key, key.role === 'ZSK' ? 'active' : 'published', now, 'scheduled');
      }
      await stepKey(sql, due, due.role === 'ZSK' ? 'active' : 'published', now, 'scheduled', {
        event: 'submit-ds',
        at: after(soaTtl + settings.dnssecPropagationDelay),
      });
      change.signKeys();
      await change.commit();
      return false;
    }
    case 'submit-ds': {
      // step 3: the parent's DS is to name the new KSK alone (the CDS/CDNSKEY say so); the old KSK stays in the
      // DNSKEY RRset and signs, for resolvers that still hold the old DS. The new KSK steps first, so that its
      // dnssec.ds_required comes before the old one's dnssec.ds_removable: automation acting on the events in
      // their order adds the new DS before it pulls the old, and the parent is never left without a DS
      const parent = await parentZoneOf(sql, zone);
      await stepKey(
        sql,
        due,
        'active',
        now,
        'scheduled',
        parent
          ? { event: 'swap', at: after((await parentReady.swapWait()) + settings.dnssecPropagationDelay) }
          : { event: 'await-ds', at: after(AWAITING) },
      );
      for (const old of ofOld.filter((k) => k.role !== 'ZSK' && k.state === 'active')) {
        await stepKey(sql, old, 'published', now, 'scheduled');
      }
      if (!parent && settings.dnssecParentDsServers.length) await scheduleDsCheck(sql, change.zone.id, now);
      change.signKeys();
      await change.commit();
      return { child: zone, ds: [dsRecordsOf(zone, due)[0]] };
    }
    case 'swap': {
      // step 4: the new DS is served and no resolver holds the old one: the old DNSKEYs leave, their signatures stay
      if (!ofOld.some((k) => k.role !== 'ZSK' && k.state === 'published')) return undefined;
      const reason: KeyEventReason = (await parentZoneOf(sql, zone)) ? 'ds-seen' : (due.nextEventReason ?? 'ds-confirmed');
      const olds = ofOld.filter((k) => k.state === 'active' || k.state === 'published');
      for (const [i, old] of olds.entries()) {
        await stepKey(
          sql,
          old,
          'withdrawn',
          now,
          reason,
          i === 0 ? { event: 'remove', at: after(soaTtl + settings.dnssecPropagationDelay) } : undefined,
        );
      }
      await planKey(sql, due);
      change.signKeys();
      await change.commit();
      return false;
    }
    case 'remove': {
      // step 5: no resolver holds a DNSKEY RRset naming the old algorithm: its keys and signatures go
      if (due.state !== 'withdrawn') return undefined;
      for (const old of ofOld.filter((k) => k.state === 'withdrawn')) await stepKey(sql, old, 'removed', now, 'scheduled');
      change.signKeys();
      await change.commit();
      return false;
    }
    default:
      return undefined;
  }
}
