/**
 * Signing in the write engine (RFC 4033–4035): the signing step that every change of a signed zone runs, in
 * its serial step and transaction (write-engine/signing.ts), and the parts that enabling, refreshing and
 * rolling keys share: the zone's keys opened from the vault, the denial of existence of its policy, the
 * signature window of the settings, and the signed-zone view the incremental signer reads.
 */
import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { algorithmByNumber } from '../../dns/dnssec/algorithms';
import { canonicalRdata } from '../../dns/dnssec/canonical-rdata';
import { ChainMember, signChange, SignedZoneView, SignerDiff } from '../../dns/dnssec/incremental';
import { chainKeyOf, SIGNER_OWNED_TYPES, signatureExpiration } from '../../dns/dnssec/signer-records';
import { Denial, SignatureWindow, ZoneKey } from '../../dns/dnssec/zone-signer';
import { signingPool } from '../../dns/dnssec/signing-pool';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { dsOf } from '../../dns/dnssec/keys';
import { formatDs } from '../../dns/dnssec/ds';
import { canonicalNameWire } from '../../dns/wire/name';
import { DomainError } from '../../errors/catalogue';
import { logger } from '../../logger';
import {
  allSignerRecords,
  allZoneRecords,
  chainNeighbour,
  DnssecPolicy,
  keysOfZone,
  recordsBelow,
  SignerRow,
  signerRecordsAt,
  StoredDnssecKey,
  zoneRecordsAt,
} from '../../repositories/dnssec';
import type { ZoneChange } from '../write-engine/staging';
import { KeyVault } from './key-vault';

/** resolvers whose clocks run behind still accept a signature made now (RFC 6781 §4.4.2.2) */
const INCEPTION_BACKDATE_SECONDS = 3600;

const vaults = new WeakMap<Settings, KeyVault>();
/** the key vault of the settings, opened once per process */
export function vaultOf(settings: Settings): KeyVault {
  let vault = vaults.get(settings);
  if (!vault) {
    try {
      vault = KeyVault.fromSettings(settings);
    } catch (error) {
      // the reason names a file or a setting, never the key: the operator's log says it, the API says only
      // that signing is unavailable
      logger.error({ reason: error instanceof Error ? error.message : String(error) }, 'dnssec: the key-encryption key cannot be read');
      throw new DomainError('DNSSEC_UNAVAILABLE');
    }
    vaults.set(settings, vault);
  }
  return vault;
}

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

/**
 * The keys as the signer uses them (RFC 7583 §3.1): published, ready and active keys are in the DNSKEY RRset,
 * and a retired ZSK stays there until its signatures have left the caches (pre-publication, §3.2.1); only an
 * active key signs. A KSK that is generated (its DS goes to the parent first) or retired (its DS is still
 * there) is not in the DNSKEY RRset: that is the double-DS roll (§3.3.2). A private key is opened here,
 * only to sign.
 */
export function zoneKeysOf(zone: string, stored: readonly StoredDnssecKey[], vault: KeyVault): ZoneKey[] {
  return stored
    .filter((key) => key.state !== 'removed')
    .map((key) => {
      const algorithm = algorithmByNumber(key.algorithm);
      const dnskey = DNSKEY.parse(key.dnskey, zone);
      if (!algorithm || !dnskey.ok) throw new Error(`a stored DNSKEY of ${zone} does not parse`);
      return {
        role: key.role,
        algorithm,
        privateKey: vault.open(key.sealedPrivateKey, { zone, keyTag: key.keyTag }),
        dnskey: dnskey.value,
        tag: key.keyTag,
        published: isPublished(key),
        signing: key.state === 'active',
      };
    });
}

export const isPublished = (key: Pick<StoredDnssecKey, 'state' | 'role'>): boolean =>
  key.state === 'published' || key.state === 'ready' || key.state === 'active' || (key.state === 'retired' && key.role === 'ZSK');

/** the keys whose DS the parent should hold: a KSK or CSK from its generation (double-DS) until its removal */
export const inParentDs = (key: Pick<StoredDnssecKey, 'state' | 'role'>): boolean =>
  key.role !== 'ZSK' && key.state !== 'removed' && key.state !== 'published';

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

/**
 * The zone after a staged change, as the incremental signer reads it: the stored rows (records, and the
 * signer's DNSKEY/CDS/CDNSKEY at the apex) with the change's removals and additions applied, each question
 * one index look-up on the change's connection.
 */
export class StoredSignedZone implements SignedZoneView {
  private readonly removed: Set<string>;

  constructor(
    private readonly sql: Sql,
    private readonly domainId: number,
    private readonly change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  ) {
    this.removed = new Set(change.removed.map((r) => recordIdentity(r)));
  }

  /** the view answers from one snapshot of the zone: each question is asked of the database once */
  private readonly asked = new Map<string, Promise<unknown>>();
  private once<T>(key: string, ask: () => Promise<T>): Promise<T> {
    let answer = this.asked.get(key) as Promise<T> | undefined;
    if (!answer) this.asked.set(key, (answer = ask()));
    return answer;
  }

  recordsAt(owner: string): Promise<CanonicalRecord[]> {
    return this.once(`records ${owner}`, () => this.readRecordsAt(owner));
  }

  private async readRecordsAt(owner: string): Promise<CanonicalRecord[]> {
    const stored = (await zoneRecordsAt(this.sql, this.domainId, [owner])).filter((r) => !this.removed.has(recordIdentity(r)));
    const have = new Set(stored.map((r) => recordIdentity(r)));
    return [...stored, ...this.change.added.filter((r) => r.owner === owner && !have.has(recordIdentity(r)))];
  }

  async hasDescendants(owner: string): Promise<boolean> {
    if (owner === '@') return true;
    const suffix = `.${owner}`;
    if (this.change.added.some((r) => r.owner.endsWith(suffix))) return true;
    const removedBelow = this.change.removed.filter((r) => r.owner.endsWith(suffix)).length;
    const below = await recordsBelow(this.sql, this.domainId, owner, removedBelow + 1);
    return below.some((r) => !this.removed.has(recordIdentity(r)));
  }

  signerRecordsAt(owner: string): Promise<CanonicalRecord[]> {
    return this.once(`signer ${owner}`, () => signerRecordsAt(this.sql, this.domainId, owner));
  }

  chainPredecessor(key: Buffer): Promise<ChainMember | undefined> {
    return chainNeighbour(this.sql, this.domainId, key, -1);
  }

  chainSuccessor(key: Buffer): Promise<ChainMember | undefined> {
    return chainNeighbour(this.sql, this.domainId, key, 1);
  }
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

/**
 * The CDS and CDNSKEY the zone publishes at its apex (RFC 7344 §4): those of its keys that sign the DNSKEY
 * RRset (KSK, CSK) and are active, SHA-256 for CDS, so a parent that follows them (RFC 7344 §6, RFC 8078)
 * installs the DS by itself. Their TTL is the DNSKEY RRset's.
 */
export function publishedCds(zone: string, keys: readonly StoredDnssecKey[], ttl: number): CanonicalRecord[] {
  return keys.filter(inParentDs).flatMap((key) => [
    { owner: '@', type: 'CDS', ttl, rdata: dsRecordsOf(zone, key)[0] },
    { owner: '@', type: 'CDNSKEY', ttl, rdata: key.dnskey },
  ]);
}

/** a key's DS RDATA for the parent: SHA-256, then SHA-384 (RFC 8624 §3.3) */
export function dsRecordsOf(zone: string, key: Pick<StoredDnssecKey, 'dnskey'>): string[] {
  const dnskey = DNSKEY.parse(key.dnskey, zone);
  if (!dnskey.ok) throw new Error(`a stored DNSKEY of ${zone} does not parse`);
  const apex = canonicalNameWire(`${zone}.`);
  return [formatDs(dsOf(apex, dnskey.value, 2)), formatDs(dsOf(apex, dnskey.value, 4))];
}

/** The signing step of a signed zone's changes (write-engine/signing.ts). */
export class ZoneSigningStep {
  constructor(private readonly settings: Settings) {}

  async afterDecide(change: ZoneChange): Promise<void> {
    const plan = change.signingPlan!;
    const zone = change.zone;
    // the signer's records are its own: a user change may not write one (RFC 4035 §2: the signer keeps them
    // consistent with the keys)
    const managed = [...change.added, ...change.removed].find((r) => SIGNER_OWNED_TYPES.has(r.type));
    if (managed) {
      const message = `type: the signer keeps ${managed.type} records in a signed zone`;
      throw new DomainError('DNSSEC_RECORD_MANAGED', message, [{ field: 'type', code: 'DNSSEC_RECORD_MANAGED', message }]);
    }
    const sql = change.connection;
    const stored = await keysOfZone(sql, zone.id);
    const keys = zoneKeysOf(zone.name, stored, vaultOf(this.settings));
    const denial = denialOf(plan.policy);
    const window = signatureWindow(this.settings);
    let diff: SignerDiff | 'full' = 'full';
    if (!plan.whole)
      diff = await signChange(zone.name, change, new StoredSignedZone(sql, zone.id, change), keys, denial, window, canonicalRdata);
    if (diff === 'full') {
      const soa = change.added.find((r) => r.owner === '@' && r.type === 'SOA') ?? zone.soa;
      diff = await wholeZoneDiff(sql, zone, change, keys, denial, window, publishedCds(zone.name, stored, soa.ttl));
    }
    change.stageSigner(signerRows(zone.name, diff.removed), signerRows(zone.name, diff.added));
  }
}
