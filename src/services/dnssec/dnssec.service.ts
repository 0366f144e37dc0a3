import type { Settings } from '../../config/settings';
import type { Sql } from '../../db/pool';
import { algorithmByNumber, DNSSEC_ALGORITHMS, DnssecAlgorithmName, isDnssecAlgorithmName } from '../../dns/dnssec/algorithms';
import { dnskeyOf, dnskeyTag } from '../../dns/dnssec/keys';
import { SIGNER_OWNED_TYPES } from '../../dns/dnssec/signer-records';
import { DNSKEY } from '../../dns/record-types/dnskey';
import { DomainError } from '../../errors/catalogue';
import {
  DnssecPolicy,
  insertPolicy,
  keysOfZone,
  parentZoneOf,
  policyOf,
  StoredDnssecKey,
  userRecordsOfTypes,
  signedDomainIds,
} from '../../repositories/dnssec';
import { makeKey } from './key-step-events';
import { countZoneKeyEvents, KeyEvent, StoredKeyRole, zoneKeyEvents } from '../../repositories/dnssec-key-events';
import type { RequestContext } from '../context';
import { requireAllowed } from '../../auth/policy';
import { DomainsService } from '../zones/domains.service';
import { normaliseZoneName } from '../../dns/zone-name';
import { dsRecordsOf, inParentDs, isPublished } from './zone-keys';
import type { DnssecWriter } from './dnssec-writer';
import {
  afterEnable,
  beginDisable,
  confirmDsPublished,
  confirmDsRemoved,
  finishDisable,
  RollRole,
  startRoll,
  syncParentDs,
} from './key-rollover';
import { awaitedOfParent, DsCheck } from './parent-ds';
import { syncBootstrapSignals } from './bootstrap-signals';
import { algorithmRollOf, AlgorithmRollStep, startAlgorithmRoll } from './algorithm-rollover';
import {
  addForeignKeys,
  fetchForeignDnskeys,
  ForeignKeyInfo,
  foreignKeyInfo,
  MAX_FOREIGN_KEYS,
  parseForeignDnskey,
  removeForeignKey,
  setOwnDsWithdrawn,
} from './foreign-keys';
import { foreignKeysOfZone } from '../../repositories/dnssec-foreign-keys';
import type { PageRequest } from '../../repositories/read-model';
import { SIGNER_STEP } from './signer-principal';

export type DenialChoice = 'NSEC' | 'NSEC3';
/** KSK + ZSK (the default: the ZSK rolls without the parent), or one combined signing key (CSK) */
export type KeyLayout = 'KSK_ZSK' | 'CSK';

export interface EnableDnssecInput {
  zone: string;
  algorithm?: DnssecAlgorithmName;
  denial?: DenialChoice;
  /** NSEC3 opt-out (RFC 5155 §6): insecure delegations left out of the chain */
  nsec3OptOut?: boolean;
  keyLayout?: KeyLayout;
}

/**
 * a key as the API shows it: the stored row less its zone, its sealed private part and the planned event's
 * reason, the algorithm by its mnemonic
 */
export type DnssecKeyInfo = Omit<StoredDnssecKey, 'algorithm' | 'domainId' | 'sealedPrivateKey' | 'nextEventReason'> & {
  algorithm: string;
};

export interface DnssecStatus {
  zone: string;
  enabled: boolean;
  state: 'unsigned' | 'signed' | 'disabling';
  denial: DenialChoice | null;
  nsec3Iterations: number | null;
  nsec3OptOut: boolean | null;
  keys: DnssecKeyInfo[];
  /** the DS records to give the parent (SHA-256 and SHA-384 of each key that signs the DNSKEY RRset), presentation form */
  ds: string[];
  /** the DNSKEY RRset, presentation form (for a parent that takes DNSKEY) */
  dnskeys: string[];
  /** disabling: when the zone goes unsigned (null while the parent's DS is still there) */
  disableAt: Date | null;
  /** what the zone waits for of its parent, and the last look at the parent's servers */
  parentDs: ParentDsStatus | null;
  /** the algorithm roll under way (rollDnssecAlgorithm), null when none */
  algorithmRoll: AlgorithmRollStatus | null;
  /**
   * the other signer's DNSKEYs (multi-signer, RFC 8901 model 2: foreign-keys.ts), published in the DNSKEY RRset
   * beside `dnskeys`; its KSKs' DS belong at the parent beside `ds`, and the CDS/CDNSKEY name them
   */
  foreignKeys: ForeignKeyInfo[];
  /**
   * multi-signer, moving out: when the zone withdrew its own DS (withdrawDnssecDs; null: it wants it at the
   * parent). Its CDS/CDNSKEY then name the other signer's KSKs alone, and `ds` is empty
   */
  dsWithdrawnAt: Date | null;
}

/** what adds the other signer's keys: their DNSKEYs by value, or the address of its server to ask */
export interface AddForeignDnskeysInput {
  zone: string;
  dnskeys?: string[];
  fetchFrom?: string;
}

export interface AlgorithmRollStatus {
  from: DnssecAlgorithmName;
  to: DnssecAlgorithmName;
  step: AlgorithmRollStep;
  /** when the next step is due; null: it waits for the parent's DS */
  nextStepAt: Date | null;
}

export interface ParentDsStatus {
  /** the parent zone is a Zonekeeper zone: the service writes the DS there itself */
  inZonekeeper: boolean;
  /** NOTHING, DS_PUBLICATION (enabled, or a KSK roll: the DS should appear) or DS_REMOVAL (disabling) */
  waitingFor: 'NOTHING' | 'DS_PUBLICATION' | 'DS_REMOVAL';
  /** when the parent was last seen (or said) to serve the DS */
  seenAt: Date | null;
  /** the last check at DNSSEC_PARENT_DS_SERVERS, and the next one */
  checkedAt: Date | null;
  nextCheckAt: Date | null;
  lastCheck: (Omit<DsCheck, 'at'> & { at: Date }) | null;
}

/**
 * DNSSEC per zone (docs/dnssec.md): enabling signs the zone whole in one serial step, under keys made here and
 * sealed in the key vault; disabling removes every signer record in one step. Both go through the write
 * engine, as every change of a zone does, as steps of the signer (`zone-signed`): secondaries take them by
 * IXFR, the history does not show them.
 */
export class DnssecService {
  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
    /** the write engine and the key vault of the process (services/index.ts) */
    private readonly writer: DnssecWriter,
  ) {}

  async status(ctx: RequestContext, zone: { id?: number; name?: string }): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, zone);
    return this.statusOf(ctx.db, domain);
  }

  /**
   * Refuses, before anything is written, a caller that could not sign `zone` (a zone created and signed in one
   * request must not be left created and unsigned by a refusal of its second step)
   */
  requireControl(ctx: RequestContext, zone: string): void {
    requireDnssecControl(ctx, normaliseZoneName(zone));
  }

  /** which of these zones (already read by the caller) are signed: a list of zones shows it without a status each */
  signedAmong(ctx: RequestContext, zones: readonly { id: number }[]): Promise<Set<number>> {
    return signedDomainIds(
      ctx.db,
      zones.map((zone) => zone.id),
    );
  }

  async enable(ctx: RequestContext, input: EnableDnssecInput): Promise<DnssecStatus> {
    const algorithmName = input.algorithm ?? 'ECDSAP256SHA256';
    const algorithm = DNSSEC_ALGORITHMS[algorithmName];
    if (!algorithm) throw DomainError.invalid('algorithm', `algorithm: one of ${Object.keys(DNSSEC_ALGORITHMS).join(', ')}`);
    const denial = input.denial ?? 'NSEC';
    if (input.nsec3OptOut && denial !== 'NSEC3') throw DomainError.invalid('nsec3OptOut', 'nsec3OptOut: opt-out is a property of NSEC3');
    // a zone the key may not see is not found, as everywhere; one it sees but may not sign is refused
    requireDnssecControl(ctx, (await this.domains.get(ctx, { name: input.zone })).name);
    const vault = this.writer.keys.vault();
    const zone = await this.writer.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: normaliseZoneName(input.zone) }, owner: '@', writer: SIGNER_STEP },
      async (change) => {
        if (change.zone.dnssec)
          throw new DomainError('DNSSEC_ALREADY_ENABLED', undefined, [
            field('zone', 'DNSSEC_ALREADY_ENABLED', 'zone: DNSSEC is enabled already'),
          ]);
        change.requireLock();
        const sql = change.connection;
        // a view's zone is signed with the zone's keys too (docs/views.md, «DNSSEC»): its overlays hold none of the
        // signer's types either
        const [present] = await userRecordsOfTypes(sql, change.zone.id, [...SIGNER_OWNED_TYPES]);
        if (present) {
          const message = present.overlay
            ? `zone: a view's overlay holds ${present.type} records (at ${present.owner}); clear it first, the signer makes its own`
            : `zone: the zone holds ${present.type} records of its own (at ${present.owner}); delete them first, the signer makes its own`;
          throw new DomainError('DNSSEC_RECORD_MANAGED', message, [field('zone', 'DNSSEC_RECORD_MANAGED', message)]);
        }
        const now = new Date();
        const roles: StoredKeyRole[] = input.keyLayout === 'CSK' ? ['CSK'] : ['KSK', 'ZSK'];
        for (const role of roles) {
          const privateKey = algorithm.generate();
          const dnskey = dnskeyOf(privateKey, algorithm, role !== 'ZSK');
          const keyTag = dnskeyTag(dnskey);
          await makeKey(sql, {
            domainId: change.zone.id,
            role,
            algorithm: algorithm.number,
            keyTag,
            dnskey: DNSKEY.format(dnskey),
            sealed: vault.seal(privateKey, { zone: change.zone.name, keyTag }),
            state: 'active',
            at: now,
            reason: 'enabled',
          });
        }
        const policy: DnssecPolicy = {
          state: 'signed',
          denial: denial === 'NSEC' ? 'nsec' : 'nsec3',
          // RFC 9276 §3.1: no extra iterations, no salt
          nsec3Iterations: 0,
          nsec3Salt: Buffer.alloc(0),
          nsec3OptOut: !!input.nsec3OptOut,
        };
        await insertPolicy(sql, {
          domainId: change.zone.id,
          denial: policy.denial,
          iterations: policy.nsec3Iterations,
          salt: policy.nsec3Salt,
          optOut: policy.nsec3OptOut,
          refreshDueAt: this.firstRefreshDue(now),
        });
        change.signWhole(policy);
        await change.commit();
        return { id: change.zone.id, name: change.zone.name };
      },
    );
    // a parent zone held here gets the DS at once (no human step); one elsewhere is awaited
    await afterEnable(this.writer, ctx.db, this.settings, zone);
    return this.statusOf(ctx.db, zone);
  }

  /**
   * Stops signing. Unforced (RFC 8078 §4): the zone publishes the DS-delete CDS/CDNSKEY and stays signed
   * (`disabling`) until the parent's DS is gone: removed here when the parent is a Zonekeeper zone, seen gone at
   * DNSSEC_PARENT_DS_SERVERS, or confirmed (`confirmDsRemoved`); then, after the DS TTL and the propagation
   * delay, the worker takes every signer record out in one serial step and destroys the keys. `force`: that
   * last step now (a Zonekeeper parent's DS removed first); a parent elsewhere that still holds the DS then
   * makes the zone bogus.
   */
  async disable(ctx: RequestContext, zoneName: string, options: { force?: boolean } = {}): Promise<DnssecStatus> {
    const signed = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, signed.name);
    if (!options.force) {
      await beginDisable(this.writer, ctx.db, this.settings, ctx.principal, signed);
      return this.statusOf(ctx.db, signed);
    }
    // the parent's DS first, when the parent is here: a DS without signatures below it is a bogus zone
    if ((await this.statusOf(ctx.db, signed)).enabled) await syncParentDs(this.writer, ctx.db, this.settings, signed, true);
    const zone = await this.writer.engine.changeZone(
      ctx.db,
      this.settings,
      ctx.principal,
      { zone: { name: normaliseZoneName(zoneName) }, owner: '@', writer: SIGNER_STEP },
      async (change) => {
        if (!change.zone.dnssec)
          throw new DomainError('DNSSEC_NOT_ENABLED', undefined, [field('zone', 'DNSSEC_NOT_ENABLED', 'zone: the zone is not signed')]);
        change.requireLock();
        await finishDisable(change);
        return { id: change.zone.id, name: change.zone.name };
      },
    );
    // unsigned: its RFC 9615 signals go (bootstrap-signals.ts)
    await syncBootstrapSignals(this.writer, ctx.db, this.settings, [zone]);
    return this.statusOf(ctx.db, zone);
  }

  /** the operator's word that the parent (outside Zonekeeper) no longer serves the zone's DS (a zone disabling) */
  async confirmDsRemoved(ctx: RequestContext, zoneName: string): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await confirmDsRemoved(this.writer, ctx.db, this.settings, ctx.principal, { name: domain.name });
    return this.statusOf(ctx.db, domain);
  }

  /** starts a roll of the zone's ZSK, or of its KSK (or CSK), now (key-rollover.ts) */
  async roll(ctx: RequestContext, zoneName: string, role: RollRole): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await startRoll(this.writer, ctx.db, this.settings, ctx.principal, { id: domain.id }, role);
    return this.statusOf(ctx.db, domain);
  }

  /**
   * Starts a roll of the zone to another algorithm now (algorithm-rollover.ts; RFC 6781 §4.1.4, RFC 7583 §3.4):
   * the new keys sign first, are published next, then the DS moves, and the old keys go last.
   */
  async rollAlgorithm(ctx: RequestContext, zoneName: string, algorithmName: string): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    if (!isDnssecAlgorithmName(algorithmName))
      throw DomainError.invalid('algorithm', `algorithm: one of ${Object.keys(DNSSEC_ALGORITHMS).join(', ')}`);
    await startAlgorithmRoll(this.writer, ctx.db, this.settings, ctx.principal, { id: domain.id }, DNSSEC_ALGORITHMS[algorithmName]);
    return this.statusOf(ctx.db, domain);
  }

  /**
   * Publishes the other signer's DNSKEYs in the zone's DNSKEY RRset (multi-signer, RFC 8901 model 2;
   * foreign-keys.ts): given by value, or read from its server (`fetchFrom`). Exactly one of the two.
   */
  async addForeignDnskeys(ctx: RequestContext, input: AddForeignDnskeysInput): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: input.zone });
    requireDnssecControl(ctx, domain.name);
    const byValue = input.dnskeys !== undefined && input.dnskeys !== null;
    const byServer = input.fetchFrom !== undefined && input.fetchFrom !== null;
    if (byValue === byServer)
      throw DomainError.invalid(
        'dnskeys',
        'dnskeys: give the DNSKEYs, or fetchFrom: the address of the other signer’s server (one of the two)',
      );
    if (byValue && !input.dnskeys!.length) throw DomainError.invalid('dnskeys', 'dnskeys: at least one DNSKEY');
    if (byValue && input.dnskeys!.length > MAX_FOREIGN_KEYS)
      throw DomainError.invalid('dnskeys', `dnskeys: at most ${MAX_FOREIGN_KEYS} DNSKEYs`);
    const keys = byValue
      ? input.dnskeys!.map((text, i) => parseForeignDnskey(domain.name, text, `dnskeys[${i}]`))
      : await fetchForeignDnskeys(this.settings, domain.name, input.fetchFrom!);
    await addForeignKeys(this.writer, ctx.db, this.settings, ctx.principal, domain, keys, byServer);
    return this.statusOf(ctx.db, domain);
  }

  /** takes one of the other signer's DNSKEYs out of the zone's DNSKEY RRset (the move is over) */
  async removeForeignDnskey(ctx: RequestContext, zoneName: string, id: number): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await removeForeignKey(this.writer, ctx.db, this.settings, ctx.principal, domain, id);
    return this.statusOf(ctx.db, domain);
  }

  /**
   * Moving a multi-signer zone out (foreign-keys.ts, setOwnDsWithdrawn): the zone's own DS leaves the parent
   * while it still signs; its CDS/CDNSKEY name the other signer's KSKs alone, and a parent held here holds
   * their DS alone. Refused without a KSK of the other signer (DNSSEC_NO_FOREIGN_KSK).
   */
  async withdrawDs(ctx: RequestContext, zoneName: string): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await setOwnDsWithdrawn(this.writer, ctx.db, this.settings, ctx.principal, domain, true);
    return this.statusOf(ctx.db, domain);
  }

  /** the reverse of `withdrawDs`: the zone's DS is wanted at the parent again, beside the other signer's */
  async restoreDs(ctx: RequestContext, zoneName: string): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await setOwnDsWithdrawn(this.writer, ctx.db, this.settings, ctx.principal, domain, false);
    return this.statusOf(ctx.db, domain);
  }

  /** the operator's word that the parent (outside Zonekeeper) serves the zone's DS (enabled, or a KSK roll's new DS) */
  async confirmDsPublished(ctx: RequestContext, zoneName: string): Promise<DnssecStatus> {
    const domain = await this.domains.get(ctx, { name: zoneName });
    requireDnssecControl(ctx, domain.name);
    await confirmDsPublished(this.writer, ctx.db, this.settings, ctx.principal, { name: domain.name }, { reason: 'ds-confirmed' });
    return this.statusOf(ctx.db, domain);
  }

  /**
   * The zone's key events, newest first (docs/dnssec.md, «Key events»): each step of each key, with why. They
   * outlive the keys (a disabled zone keeps them) for HISTORY_KEEP_DAYS, as the change history does.
   */
  async keyEvents(ctx: RequestContext, zone: { id: number; name: string }, page: PageRequest): Promise<KeyEventInfo[]> {
    requireDnssecRead(ctx, zone.name);
    const events = await ctx.db.connection((sql) => zoneKeyEvents(sql, zone.id, page));
    return events.map(keyEventInfo);
  }

  async countKeyEvents(ctx: RequestContext, zone: { id: number; name: string }): Promise<number> {
    requireDnssecRead(ctx, zone.name);
    return ctx.db.connection((sql) => countZoneKeyEvents(sql, zone.id));
  }

  /** the first refresh of a zone signed now: its earliest signature's expiry less the refresh margin */
  private firstRefreshDue(now: Date): Date {
    const { dnssecSignatureValidity: validity, dnssecSignatureJitter: jitter, dnssecSignatureRefresh: refresh } = this.settings;
    return new Date(now.getTime() + (validity - jitter - refresh) * 1000);
  }

  private async statusOf(sql: Pick<Sql, 'rows'>, zone: { id: number; name: string }): Promise<DnssecStatus> {
    const policy = await policyOf(sql, zone.id);
    const keys = policy ? await keysOfZone(sql as Sql, zone.id, true) : [];
    const live = keys.filter(isPublished);
    const ds = keys.filter(inParentDs).flatMap((k) => dsRecordsOf(zone.name, k));
    const awaited = policy ? awaitedOfParent(policy, keys) : undefined;
    const roll = algorithmRollOf(keys);
    const foreign = policy ? await foreignKeysOfZone(sql, zone.id) : [];
    return {
      zone: zone.name,
      enabled: !!policy,
      state: policy ? policy.state : 'unsigned',
      denial: policy ? (policy.denial === 'nsec' ? 'NSEC' : 'NSEC3') : null,
      nsec3Iterations: policy?.denial === 'nsec3' ? policy.nsec3Iterations : null,
      nsec3OptOut: policy?.denial === 'nsec3' ? policy.nsec3OptOut : null,
      keys: keys.map(keyInfo),
      // a zone disabling asks the parent for no DS (its CDS says delete), nor one that withdrew its DS (its CDS
      // names the other signer's KSKs alone)
      ds: policy?.state === 'disabling' || policy?.dsWithdrawnAt ? [] : ds,
      dnskeys: live.map((k) => k.dnskey),
      disableAt: policy?.disableAt ?? null,
      parentDs: policy
        ? {
            inZonekeeper: !!(await parentZoneOf(sql as Sql, zone.name)),
            waitingFor: awaited === 'present' ? 'DS_PUBLICATION' : awaited === 'absent' ? 'DS_REMOVAL' : 'NOTHING',
            seenAt: policy.dsSeenAt,
            checkedAt: policy.dsCheckedAt,
            nextCheckAt: policy.dsCheckDueAt,
            lastCheck: policy.dsCheck ? { ...(policy.dsCheck as DsCheck), at: new Date((policy.dsCheck as DsCheck).at) } : null,
          }
        : null,
      algorithmRoll: roll ? { from: roll.from.name, to: roll.to.name, step: roll.step, nextStepAt: roll.nextStepAt } : null,
      foreignKeys: foreign.map((key) => foreignKeyInfo(zone.name, key)),
      dsWithdrawnAt: policy?.dsWithdrawnAt ?? null,
    };
  }
}

function keyInfo(key: StoredDnssecKey): DnssecKeyInfo {
  return {
    id: key.id,
    keyTag: key.keyTag,
    role: key.role,
    algorithm: algorithmByNumber(key.algorithm)?.name ?? String(key.algorithm),
    state: key.state,
    dnskey: key.dnskey,
    createdAt: key.createdAt,
    publishedAt: key.publishedAt,
    readyAt: key.readyAt,
    activeAt: key.activeAt,
    retiredAt: key.retiredAt,
    removedAt: key.removedAt,
    nextEvent: key.nextEvent,
    // a key waiting for the parent's DS keeps a time years away in its row (so that the worker's partial index
    // finds it, key-rollover.ts), which no one is to read as a date: it waits for the parent, not for a time
    nextEventAt: key.nextEvent === 'await-ds' ? null : key.nextEventAt,
  };
}

/** a key event as the API shows it: the algorithm by its mnemonic */
export type KeyEventInfo = Omit<KeyEvent, 'algorithm' | 'domainId'> & { algorithm: string };

export function keyEventInfo(event: KeyEvent): KeyEventInfo {
  const { domainId: _zone, ...rest } = event;
  return { ...rest, algorithm: algorithmByNumber(event.algorithm)?.name ?? String(event.algorithm) };
}

const field = (name: string, code: string, message: string) => ({ field: name, code, message });

/**
 * A zone's key events tell what its DNSKEY RRset holds and when: a restricted key must be able to read the
 * apex's DNSKEY to see them, in the history as on a subscription (docs/least-privilege.md)
 */
export function requireDnssecRead(ctx: RequestContext, zone: string): void {
  requireAllowed(ctx.principal.policy, { zone, owner: '@', type: 'DNSKEY', access: 'read' }, 'zone');
}

/**
 * Signing a zone, rolling its keys and stopping it rewrite what the zone serves at its apex (DNSKEY, CDS,
 * CDNSKEY) and every signature: a restricted key needs write access to the apex's DNSKEY (docs/least-privilege.md)
 */
function requireDnssecControl(ctx: RequestContext, zone: string): void {
  requireAllowed(ctx.principal.policy, { zone, owner: '@', type: 'DNSKEY', access: 'write' }, 'zone');
}
