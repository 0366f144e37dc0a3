/**
 * Signing in the write engine (RFC 4033–4035): the engine's zone signer (`DnssecZoneSigner`, filling the port
 * of write-engine/signing.ts), which signs every change of a signed zone in its serial step and transaction,
 * and the parts that enabling, refreshing and rolling keys share: the denial of existence of its policy, the
 * signature window of the settings, and the signed-zone view the incremental signer reads. The zone's keys
 * are zone-keys.ts's, the vault they open from settings-key-vault.ts's.
 */
import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { canonicalRdata } from '../../dns/dnssec/canonical-rdata';
import {
  keyStepChange,
  questionsAbout,
  questionsCover,
  questionsOf,
  signChange,
  signKeyStep,
  SignerDiff,
  ViewQuestions,
} from '../../dns/dnssec/incremental';
import { chainKeyOf, SIGNER_OWNED_TYPES, signatureExpiration } from '../../dns/dnssec/signer-records';
import { Denial, dnskeyRecords, SignatureWindow, ZoneKey } from '../../dns/dnssec/zone-signer';
import { signingPool } from '../../dns/dnssec/signing-pool';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { ForeignDnskey, foreignKeysOfZone } from '../../repositories/dnssec-foreign-keys';
import { DomainError } from '../../errors/catalogue';
import {
  allSignerRecords,
  allZoneRecords,
  apexKeyRecords,
  DnssecPolicy,
  dsWithdrawnOf,
  keysOfZone,
  SignerRow,
  SigningKeyRow,
} from '../../repositories/dnssec';
import type { ViewStep } from '../../repositories/views';
import type { ChangeToSign, ZoneSigner } from '../write-engine/signing';
import type { LockedZone, LockRequest } from '../../repositories/zone-writes';
import type { SettingsKeyVault } from './settings-key-vault';
import { foreignZoneKeys, publishedCds, zoneKeysOf } from './zone-keys';
import { StoredSignedZone } from './stored-signed-zone';
import { signViewZones, viewSignatureWindow } from './view-signing';
import { isSignalRecord } from '../../dns/dnssec/bootstrap-signal';

/** resolvers whose clocks run behind still accept a signature made now (RFC 6781 §4.4.2.2) */
const INCEPTION_BACKDATE_SECONDS = 3600;

/**
 * The signatures' validity: from an hour ago to `validity` ahead, less a random part of the jitter per RRset,
 * so that the RRsets of a zone (and the zones enabled together) fall due for refresh spread over the jitter.
 */
export function signatureWindow(settings: Settings, now = Date.now()): SignatureWindow {
  const at = Math.floor(now / 1000);
  return {
    inception: at - INCEPTION_BACKDATE_SECONDS,
    expiration: () => at + settings.dnssecSignatureValidity - Math.floor(Math.random() * (settings.dnssecSignatureJitter + 1)),
  };
}

export function denialOf(policy: DnssecPolicy): Denial {
  return policy.denial === 'nsec'
    ? { kind: 'nsec' }
    : { kind: 'nsec3', iterations: policy.nsec3Iterations, salt: policy.nsec3Salt, optOut: policy.nsec3OptOut };
}

/** signer records as the data layer keeps them: with their chain key and expiration */
export function signerRows(zone: string, records: readonly (CanonicalRecord & { id?: number })[]): SignerRow[] {
  return records.map((record) => ({
    id: record.id,
    owner: record.owner,
    type: record.type,
    ttl: record.ttl,
    rdata: record.rdata,
    chainKey: chainKeyOf(zone, record)?.toString('hex'),
    expiresAt: signatureExpiration(zone, record),
  }));
}

/** signer records to remove, as the data layer deletes them: by row id, else by identity (no chain key or expiration needed) */
export function signerRemovals(records: readonly (CanonicalRecord & { id?: number })[]): SignerRow[] {
  return records.map((record) => ({ id: record.id, owner: record.owner, type: record.type, ttl: record.ttl, rdata: record.rdata }));
}

/**
 * The zone signed whole against what is stored: the records to remove and to add so that the stored signer
 * records become exactly those of `signZone` (a change that moved a zone cut, a key step), with the apex's
 * CDS/CDNSKEY (`apexSignerData`). Records that come out the same (NSEC, DNSKEY) are left alone; signatures
 * are new.
 */
export async function wholeZoneDiff(
  sql: Sql,
  zone: { id: number; name: string },
  change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  keys: readonly ZoneKey[],
  denial: Denial,
  window: SignatureWindow,
  apexSignerData: readonly CanonicalRecord[],
): Promise<SignerDiff> {
  const removed = new Set(change.removed.map((r) => recordIdentity(r)));
  const stored = (await allZoneRecords(sql, zone.id)).filter((r) => !removed.has(recordIdentity(r)));
  const have = new Set(stored.map((r) => recordIdentity(r)));
  const records = [...stored, ...change.added.filter((r) => !have.has(recordIdentity(r))), ...apexSignerData];
  // signed on the process's pool of threads (one per core): a large zone does not hold the event loop for the
  // seconds its signatures take, and signs in a fraction of the time (bench/RESULTS-dnssec-sign.md)
  const signed = [...apexSignerData, ...(await signingPool().signZone(zone.name, records, keys, denial, window))];
  const before = await allSignerRecords(sql, zone.id);
  const identity = (r: CanonicalRecord) => recordIdentity(r, { withTtl: true });
  const next = new Set(signed.map(identity));
  const kept = new Set(before.map(identity).filter((id) => next.has(id)));
  return { removed: before.filter((r) => !kept.has(identity(r))), added: signed.filter((r) => !kept.has(identity(r))) };
}

/** the most owners a change may name for its signer's questions to be asked with its zone's read */
const FORECAST_OWNERS = 8;
/** the most zones remembered, then forgotten at once (a cache, not a register) */
const FORECAST_ZONES = 100_000;

/**
 * The write engine's signer of a signed zone's changes (its port: write-engine/signing.ts), one per engine
 * (services/index.ts), with the process's key vault and what it learned of the zones it read signed.
 */
export class DnssecZoneSigner implements ZoneSigner {
  /** the signed zones this engine has read, by name and by id: their name and denial, to ask a change's questions early */
  private readonly signedByName = new Map<string, { name: string; denial: Denial }>();
  private readonly signedById = new Map<number, { name: string; denial: Denial }>();

  constructor(private readonly keys: SettingsKeyVault) {}

  /**
   * The signer's questions of a change, told before its zone is read, so that the read asks them too and the
   * signing step costs no statement of its own (docs/dnssec.md, «Speed»): for a zone this engine has read
   * signed, and a change that names its owners (a record added, a change set), the questions of a change
   * touching those owners and the apex's SOA. A guess: the signing step uses the answers only if they answer
   * everything the decided change asks (`questionsCover`), and asks itself otherwise. They describe the zone
   * as stored at the read, as the change's decision does: the write happens only if the serial is still that
   * of the read.
   */
  forecast(request: Pick<LockRequest, 'zone' | 'owner' | 'touching'>): ViewQuestions | undefined {
    const zone = request.zone;
    const known = 'name' in zone ? this.signedByName.get(zone.name) : 'id' in zone ? this.signedById.get(zone.id) : undefined;
    if (!known) return undefined;
    const owners = request.touching?.owners ?? (request.owner !== undefined ? [request.owner] : undefined);
    if (!owners || owners.length > FORECAST_OWNERS) return undefined;
    return questionsAbout(known.name, [...owners, '@'], known.denial);
  }

  /** what a read of a zone told of its signing, for `forecast` */
  zoneRead(zone: Pick<LockedZone, 'id' | 'name' | 'dnssec'>): void {
    if (!zone.dnssec) {
      this.signedByName.delete(zone.name);
      this.signedById.delete(zone.id);
      return;
    }
    if (this.signedByName.size >= FORECAST_ZONES || this.signedById.size >= FORECAST_ZONES) {
      this.signedByName.clear();
      this.signedById.clear();
    }
    const known = { name: zone.name, denial: denialOf(zone.dnssec) };
    this.signedByName.set(zone.name, known);
    this.signedById.set(zone.id, known);
  }

  /** what no signed change may be: one that writes the signer's own records, or one whose keys cannot be opened */
  refuse(change: ChangeToSign): void {
    // the signer's records are its own: a user change may not write one (RFC 4035 §2: the signer keeps them
    // consistent with the keys)
    // (but the signalling records the signer itself publishes below `_signal`, RFC 9615: bootstrap-signals.ts)
    const managed = [...change.added, ...change.removed].find(
      (r) => SIGNER_OWNED_TYPES.has(r.type) && !(change.gates.signalRecords && isSignalRecord(r)),
    );
    if (managed) {
      const message = `type: the signer keeps ${managed.type} records in a signed zone`;
      throw new DomainError('DNSSEC_RECORD_MANAGED', message, [{ field: 'type', code: 'DNSSEC_RECORD_MANAGED', message }]);
    }
    // the keys cannot be unsealed: nothing could be signed (the operator's log says why)
    this.keys.vault();
  }

  /** stages the signer's records that a signed change brings: incrementally where it can, the zone whole otherwise */
  async sign(change: ChangeToSign, settings: Settings): Promise<void> {
    const plan = change.signingPlan!;
    const zone = change.zone;
    // ALIAS and ANAME pass: the signer leaves them out of its RRsets and chain (zone-signer.ts), and their
    // derived A/AAAA are signed like any change (docs/templates-and-alias.md)
    const sql = change.connection;
    // the next change of the zone can ask its questions with its read (a zone just enabled included)
    this.zoneRead({ id: zone.id, name: zone.name, dnssec: plan.policy });
    const denial = denialOf(plan.policy);
    const window = signatureWindow(settings);
    const soa = change.added.find((r) => r.owner === '@' && r.type === 'SOA') ?? zone.soa;
    // the other signer's keys (RFC 8901): read where the DNSKEY RRset and the CDS/CDNSKEY are made, a key step or
    // the zone signed whole; an incremental change leaves those RRsets alone and asks nothing more
    let foreign: ForeignDnskey[] = [];
    // and whether the zone withdrew its own DS (withdrawDnssecDs), read with them
    let withdrawn = false;
    const cdsOf = (stored: readonly SigningKeyRow[]) =>
      publishedCds(zone.name, stored, soa.ttl, plan.policy.state === 'disabling', foreign, withdrawn);
    let stored: SigningKeyRow[];
    let diff: SignerDiff | 'full' = 'full';
    if (plan.mode === 'keys') {
      // a key step: the apex's key RRsets, unless the keys that sign the rest changed (signKeyStep decides)
      stored = await keysOfZone(sql, zone.id);
      foreign = await foreignKeysOfZone(sql, zone.id);
      withdrawn = foreign.length > 0 && (await dsWithdrawnOf(sql, zone.id));
      const keys = zoneKeysOf(zone.name, stored, this.keys.vault(), foreign);
      const keyRecords = { before: await apexKeyRecords(sql, zone.id), after: [...dnskeyRecords(keys, soa.ttl), ...cdsOf(stored)] };
      const stepChange = keyStepChange(change, keyRecords);
      const view = new StoredSignedZone(sql, zone.id, stepChange);
      const questions = questionsOf(zone.name, stepChange, denial);
      if (questions !== 'full') {
        await view.answer(questions);
        diff = await signKeyStep(zone.name, stepChange, keyRecords, view, keys, denial, window, canonicalRdata);
      }
      if (diff === 'full') diff = await wholeZoneDiff(sql, zone, change, keys, denial, window, cdsOf(stored));
    } else {
      // an incremental change has its questions answered and the keys read in one statement, or none when its
      // zone's read asked them already (`forecast`); a change signed whole reads the zone whole
      const questions = plan.mode === 'whole' ? 'full' : questionsOf(zone.name, change, denial);
      const view = new StoredSignedZone(sql, zone.id, change);
      const early = change.zone.signer;
      if (questions === 'full') stored = await keysOfZone(sql, zone.id);
      else if (early && questionsCover(early.questions, questions)) stored = view.use(early.questions, early.answers);
      else stored = await view.answer(questions);
      const keys = zoneKeysOf(zone.name, stored, this.keys.vault());
      if (questions !== 'full') diff = await signChange(zone.name, change, view, keys, denial, window, canonicalRdata);
      if (diff === 'full') {
        foreign = await foreignKeysOfZone(sql, zone.id);
        withdrawn = foreign.length > 0 && (await dsWithdrawnOf(sql, zone.id));
        const withForeign = [...keys, ...foreignZoneKeys(zone.name, foreign)];
        diff = await wholeZoneDiff(sql, zone, change, withForeign, denial, window, cdsOf(stored));
      }
    }
    change.stageSigner(signerRemovals(diff.removed), signerRows(zone.name, diff.added));
  }

  /** the views' zones of a signed zone signed again for their new serials (view-signing.ts) */
  async signViews(
    sql: Sql,
    zone: { id: number; name: string },
    policy: DnssecPolicy,
    views: readonly ViewStep[],
    settings: Settings,
  ): Promise<void> {
    const vault = this.keys.vault();
    await signViewZones(
      sql,
      zone,
      denialOf(policy),
      views,
      (stored) => zoneKeysOf(zone.name, stored, vault),
      viewSignatureWindow(settings),
    );
  }
}
