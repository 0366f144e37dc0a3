import {
  LockedZone,
  LockRequest,
  needsTransaction,
  readZone,
  recordQuotaExceeded,
  StoredRow,
  writeZoneChange,
} from '../../repositories/zone-writes';
import type { Sql } from '../../db/pool';
import type { Settings } from '../../config/settings';
import { nextSerial, serialAdd, serialGreaterThan } from '../../dns/serial';
import { withSerial } from '../../dns/zone-rules';
import type { JournalCommentChange, JournalFinding, JournalRecord } from '../../entities/change.entity';
import { DomainError } from '../../errors/catalogue';
import { changeAuthor, type ChangeAuthorFields, type Principal } from '../../auth/principal';
import { confinedToAcmeChallenges, isRestricted, ownerName, requireAllowed, seesZone } from '../../auth/policy';
import type { ChangeToSign, SigningMode, ZoneSigner } from './signing';
import { heldSignerRow } from '../../repositories/dnssec';
import type { DnssecPolicy, HeldSignerRow, SignedProof, SignerRow } from '../../repositories/dnssec';
import { quotaExceeded } from './quotas';
import { FLATTENED_TYPE_NAMES } from '../../dns/record-types';
import { aliasResolversUnset } from './alias-resolvers-unset';
import { nameserversChanged } from './health-changes';
import { baseRecordsAt, clearViewSigners, overlaysAt, writeOverlay } from '../../repositories/views';
import { applyOverlay } from '../../dns/view-overlay';
import { checkOwnerData } from '../../dns/zone-rules';
import { errorFromProblems } from '../../errors/catalogue';
import { guardsOfZone } from '../../repositories/protected-rrsets';
import { refuseGuarded } from './rrset-guards';
import { gatesOf, noteOf, type Writer, type WriterGates } from './writers';

/**
 * The staging object: what a `decide` callback sees. It holds the zone as read (`zone`: its serial, SOA, the
 * records the rules need), collects what the callback stages (`insert`, `replace`, `remove`), and `commit`
 * writes it as one serial step with its journal row.
 */

export const journalRecord = (record: JournalRecord): JournalRecord => ({
  owner: record.owner,
  type: record.type,
  ttl: record.ttl,
  rdata: record.rdata,
});

/**
 * What a change of a zone's records asks the engine to read: the zone (by name, by id, or as the zone of a
 * record) and the records its rules need (see `LockRequest`).
 */
export type ZoneChangeRequest = Omit<LockRequest, 'scopeUserId'> & {
  /**
   * Who writes the change, which decides the gates it passes through (writers.ts, `WRITER_GATES`); none: a
   * person's or a key's change, held to every gate.
   */
  writer?: Writer;
  /**
   * A zone that requires approvals (docs/changes.md, «Review») takes a person's or a key's change only as a
   * change request: `plan` is a dry run (it writes nothing), `approved` a change request applied once approved
   * or at its time (services/zones/change-requests.service.ts). Any other such change is refused, ZONE_UNDER_REVIEW.
   */
  review?: 'plan' | 'approved';
};

/** an ALIAS or ANAME: its addresses come from a resolver (alias-flattening.ts) */
const isFlattened = (record: JournalRecord): boolean => FLATTENED_TYPE_NAMES.has(record.type);

/**
 * Raised inside an optimistic zone change that must be decided again: the zone changed meanwhile (try again),
 * or the change needs two writing statements (`lockNow`: only a transaction with the zone row locked will do).
 */
export class DecideAgain extends Error {
  constructor(readonly lockNow: boolean) {
    super('decide the zone change again');
  }
}

/** where a staged record came from, for the refusals that name it: a zone file's line, a change set's item */
export interface RecordSource {
  field: string;
  line?: number;
}

/** what `commit` (and `check`) take beside the staged records: the serial and SOA fields a caller sets */
export interface CommitOptions {
  serialSetByCaller?: number;
  soaRdata?: string;
  soaTtl?: number;
  /** the findings the change's plan answered, kept with its journal row (the history) */
  findings?: readonly JournalFinding[];
  /**
   * the RRsets' comments the caller changed in this transaction, kept with its journal row (the history); they are
   * no DNS data: `changesNothing` does not count them (a change of comments alone: repositories/rrset-comments.ts)
   */
  comments?: readonly JournalCommentChange[];
}

/** what a committed change wrote: for a batch's copy of the zone (zone-queue.ts) */
export interface WrittenChange {
  serialAfter: number;
  inserted: StoredRow[];
  deletedIds: number[];
  updated?: StoredRow;
  soa?: { id: number; rdata: string; ttl: number };
  /** the signer records removed (by id when they were read with one) and added, with their new ids */
  signerRemoved: readonly SignerRow[];
  signerAdded: readonly HeldSignerRow[];
}

/** One change of one zone, staged by the rules' caller and written by `commit`; see `changeZone`. */
export class ZoneChange implements ChangeToSign {
  readonly removed: JournalRecord[] = [];
  /**
   * the id of each of `removed`'s rows the change deletes, null for one it edits in place (which keeps its id):
   * journalled beside them (changes.removed_ids), so that a client evicts a deleted record by its id
   */
  readonly removedIds: (number | null)[] = [];
  readonly added: JournalRecord[] = [];
  /** the signer's records this step removes and adds (a signed zone: signing.ts) */
  readonly signerRemoved: SignerRow[] = [];
  readonly signerAdded: SignerRow[] = [];
  private readonly inserts: JournalRecord[] = [];
  /** where the caller had the records it inserted (`insert`'s `source`); made for the first one given */
  private sources?: Map<JournalRecord, RecordSource>;
  private readonly deleteIds: number[] = [];
  private update?: StoredRow;
  /** the zone's serial once the change is committed */
  serialAfter?: number;
  private insertedRows?: StoredRow[];
  private signerInserted?: HeldSignerRow[];
  private soaWritten?: { id: number; rdata: string; ttl: number };
  /** asked by `commit` once nothing the change is refuses it, just before its write (`admitWith`) */
  private admit?: () => void;

  private constructor(
    private readonly sql: Sql,
    private readonly settings: Settings,
    /** the engine's signer (signing.ts), which signs the change if its zone is signed */
    private readonly signer: ZoneSigner,
    private readonly locked: boolean,
    readonly zone: LockedZone,
    private readonly principal: Principal,
    private readonly request: ZoneChangeRequest,
    /** decided on the zone's head, not a read: what the write must find (zone-heads.ts) */
    private readonly expect?: { userId: number; unknownOwners: readonly string[]; signed?: SignedProof },
  ) {}

  /**
   * A change decided on the zone as this process last saw it (zone-heads.ts), without a read: its write applies
   * only if the zone is still as the view assumed (`ZoneWrite.expect`), else it is decided again on a read.
   */
  static fromHead(
    sql: Sql,
    settings: Settings,
    signer: ZoneSigner,
    principal: Principal,
    request: ZoneChangeRequest,
    view: { zone: LockedZone; unknownOwners: readonly string[]; signed?: SignedProof },
  ): ZoneChange {
    if (!seesZone(principal.policy, view.zone.name)) throw notFound(request);
    return new ZoneChange(sql, settings, signer, false, view.zone, principal, request, {
      userId: view.zone.userId,
      unknownOwners: view.unknownOwners,
      signed: view.signed,
    });
  }

  /** whether the change was decided on the zone's head (zone-heads.ts) rather than on a read */
  get decidedOnHead(): boolean {
    return this.expect !== undefined;
  }

  /** the gates of the change's writer (writers.ts) */
  get gates(): Readonly<WriterGates> {
    return gatesOf(this.request.writer);
  }

  /** whom the change's journal row names: its principal, its writer's note, or nobody (`WriterGates.author`) */
  private get author(): ChangeAuthorFields | undefined {
    const { author } = this.gates;
    if (author === 'none') return undefined;
    const note = author === 'note' ? noteOf(this.request.writer) : undefined;
    return note !== undefined ? { keyName: note } : changeAuthor(this.principal);
  }

  /**
   * Reads (with `lock`, also locks) a zone the principal may see, with its records at `owner` (or all of
   * them) and the record `targetId`; ZONE_NOT_FOUND (or RECORD_NOT_FOUND when found through a record) otherwise.
   */
  static async read(
    sql: Sql,
    settings: Settings,
    signer: ZoneSigner,
    principal: Principal,
    request: ZoneChangeRequest,
    lock: boolean | 'held',
  ): Promise<ZoneChange> {
    // 'held': this transaction locked the zone row already (a batch of queued changes), so only read
    // a signed zone's change asks the signer's questions with the read when it can tell them (signing.ts)
    const scopeUserId = principal.kind === 'user' ? principal.userId : undefined;
    const zone = await readZone(sql, { ...request, scopeUserId }, lock === true, signer.forecast(request));
    if (zone) signer.zoneRead(zone);
    // a zone no rule of a restricted key names is not there for it (docs/least-privilege.md)
    if (!zone || !seesZone(principal.policy, zone.name)) throw notFound(request);
    refuseSecondary(zone, request);
    refuseUnreviewed(zone, request, principal);
    return new ZoneChange(sql, settings, signer, lock !== false, zone, principal, request);
  }

  /** A change decided on a zone read earlier in the caller's transaction, which holds the zone row's lock. */
  static fromView(
    sql: Sql,
    settings: Settings,
    signer: ZoneSigner,
    principal: Principal,
    request: ZoneChangeRequest,
    zone: LockedZone | undefined,
  ): ZoneChange {
    if (!zone || !seesZone(principal.policy, zone.name)) throw notFound(request);
    if (request.targetId !== undefined && !zone.target && 'recordId' in request.zone) throw DomainError.notFound('RECORD_NOT_FOUND', 'id');
    refuseSecondary(zone, request);
    refuseUnreviewed(zone, request, principal);
    return new ZoneChange(sql, settings, signer, true, zone, principal, request);
  }

  /** what the committed change wrote (undefined before `commit`) */
  written(): WrittenChange | undefined {
    if (this.serialAfter === undefined || !this.insertedRows) return undefined;
    return {
      serialAfter: this.serialAfter,
      inserted: this.insertedRows,
      deletedIds: this.deleteIds,
      updated: this.update,
      soa: this.soaWritten,
      signerRemoved: this.signerRemoved,
      signerAdded: this.signerInserted ?? [],
    };
  }

  /**
   * Stages a record to add; `source` says where the caller had it (a zone file's line, a change set's item), so
   * that a refusal about it names that place; `toggled`: the record is enabled (it was kept disabled), which the
   * journal says (JournalRecord.toggled).
   */
  insert(record: JournalRecord, options?: { source?: RecordSource; toggled?: boolean }): void {
    this.inserts.push(record);
    this.added.push(options?.toggled ? { ...journalRecord(record), toggled: true as const } : journalRecord(record));
    if (options?.source) (this.sources ??= new Map()).set(record, options.source);
  }

  replace(current: StoredRow, next: JournalRecord): void {
    this.refuseDerived(current);
    this.update = { ...next, id: current.id };
    this.removed.push(journalRecord(current));
    this.removedIds.push(null);
    this.added.push(journalRecord(next));
  }

  /** `toggled`: the record is disabled (kept, not served), which the journal says (JournalRecord.toggled) */
  remove(record: StoredRow, toggled = false): void {
    this.refuseDerived(record);
    this.deleteIds.push(record.id);
    this.removed.push(toggled ? { ...journalRecord(record), toggled: true as const } : journalRecord(record));
    this.removedIds.push(record.id);
  }

  /** a derived row that goes with its ALIAS/ANAME (a zone-file REPLACE that drops the ALIAS) */
  removeDerived(record: StoredRow): void {
    this.deleteIds.push(record.id);
    this.removed.push(journalRecord(record));
    this.removedIds.push(record.id);
  }

  /** the worker's addresses of an ALIAS/ANAME are its own: a person changes the ALIAS, not them */
  private refuseDerived(record: StoredRow): void {
    if (!record.derived || !this.gates.derivedRows) return;
    const message = `id: the ${record.type} ${record.rdata} at ${record.owner} is derived from its ALIAS or ANAME and is read-only; change the ALIAS instead`;
    throw new DomainError('RECORD_DERIVED', message, [{ field: 'id', code: 'RECORD_DERIVED', message }]);
  }

  /** stages signer records (DNSKEY, RRSIG, NSEC…), written and journalled in this serial step beside the rest */
  stageSigner(removed: readonly SignerRow[], added: readonly SignerRow[]): void {
    this.signerRemoved.push(...removed);
    this.signerAdded.push(...added);
  }

  /**
   * `admit` is asked by `commit` after every refusal of what the change is (the key's policy, the zone's rules, a
   * locked RRset) and before it writes: the zone's changes per second (write-engine/index.ts), so that a change
   * refused for what it is spends none of them and is told its refusal, not the rate.
   */
  admitWith(admit: () => void): void {
    this.admit = admit;
  }

  /**
   * The decision writes more than the engine's one statement (DNSSEC's keys and policy): it must run in a
   * transaction holding the zone row's lock, so on the optimistic path it is decided again there.
   */
  requireLock(): void {
    if (!this.locked) throw new DecideAgain(true);
  }

  /**
   * A view's overlay of one RRset set or cleared in this change's transaction (steering's rules, docs/steering.md):
   * its view's serial steps (repositories/views.ts, `writeOverlay`) and a signed zone's view is signed again for
   * it, as an overlay change through the views API is. Answers the view's new serial.
   */
  async writeViewOverlay(write: Omit<Parameters<typeof writeOverlay>[1], 'author'>): Promise<number> {
    this.requireLock();
    // an overlay's change always names its author: the principal where the writer's names nobody
    const serial = await writeOverlay(this.sql, { ...write, author: this.author ?? changeAuthor(this.principal) });
    const policy = this.zone.dnssec;
    if (policy) await this.signer.signViews(this.sql, this.zone, policy, [{ viewId: write.viewId, serial }], this.settings);
    return serial;
  }

  /** how the signing step signs this change: incrementally (the usual), whole (DNSSEC enabled), as a key step, or not at all */
  private signing: { mode: SigningMode | 'none'; policy?: DnssecPolicy } = { mode: 'incremental' };

  /**
   * The change is signed whole under `policy` (default: the zone's): DNSSEC enabled. The signing step then
   * brings the stored signer records to exactly what signing the zone after the change gives.
   */
  signWhole(policy?: DnssecPolicy): void {
    this.signing = { mode: 'whole', policy: policy ?? this.zone.dnssec };
  }

  /**
   * The change is a key step under `policy` (default: the zone's): the zone's keys changed (stored already).
   * The signing step re-signs the apex's DNSKEY, CDS and CDNSKEY RRsets (and its NSEC/NSEC3 when those come or
   * go) when the keys that sign the rest are the same as before, which it reads; the zone whole otherwise.
   * Either way the stored signer records become what signing the zone whole would give, signatures aside.
   */
  signKeys(policy?: DnssecPolicy): void {
    this.signing = { mode: 'keys', policy: policy ?? this.zone.dnssec };
  }

  /** the change stages the zone's signer records itself (DNSSEC disabled): no signing step runs */
  skipSigning(): void {
    this.signing = { mode: 'none' };
  }

  /** the policy the change is signed under, and how; undefined: not signed */
  get signingPlan(): { mode: SigningMode; policy: DnssecPolicy } | undefined {
    const mode = this.signing.mode;
    if (mode === 'none') return undefined;
    const policy = this.signing.policy ?? this.zone.dnssec;
    return policy ? { mode, policy } : undefined;
  }

  /** the connection the change reads and writes on (the signing step reads the signed zone through it) */
  get connection(): Sql {
    return this.sql;
  }

  /**
   * What `commit` would refuse, without writing anything: a dry run's last step where a change commits, so that
   * it decides exactly as the change would. The checks of `refuseBeforeWrite`, then the record quota as the
   * write's statement would find it now (read, not written: the statement itself holds it under concurrency).
   */
  async check(options: CommitOptions = {}): Promise<void> {
    this.refuseBeforeWrite(options);
    await this.refuseGuardedRrsets();
    const defaultMaxRecords = this.recordQuota();
    if (defaultMaxRecords === undefined) return;
    const quota = await recordQuotaExceeded(this.sql, {
      domainId: this.zone.id,
      serialBefore: this.zone.serial,
      delta: this.inserts.length - this.deleteIds.length,
      defaultMaxRecords,
    });
    if (quota) throw quotaExceeded('maxRecordsPerZone', quota, `records in zone ${this.zone.name}`);
  }

  /** a user's quota binds the user's keys; the admin and the writers the quota does not hold (writers.ts) are not held to it */
  private recordQuota(): number | undefined {
    return this.principal.kind === 'user' && this.gates.quota ? this.settings.quotas.maxRecordsPerZone : undefined;
  }

  /**
   * The refusals `commit` makes before it writes, on the change as staged (`check` makes them too): the
   * policy's last word, an ALIAS nothing could flatten, the signing step's own. Each names the record it is
   * about, by the place the caller had it when it said (`insert`'s `source`: a zone file's line).
   */
  private refuseBeforeWrite(options: CommitOptions): void {
    // the policy's last word over what was staged, whichever service staged it (the services check first,
    // naming the change; this catches a path that did not): the SOA's own serial step is not the caller's
    if (isRestricted(this.principal.policy)) {
      for (const record of [...this.removed, ...this.added])
        requireAllowed(this.principal.policy, { zone: this.zone.name, owner: record.owner, type: record.type, access: 'write' });
      if (this.editsSoaFields(options))
        requireAllowed(this.principal.policy, { zone: this.zone.name, owner: '@', type: 'SOA', access: 'write' });
    }
    // an ALIAS/ANAME nothing could flatten would be stored and never served: refused whichever path brought it,
    // but a secondary zone's transfer: the primary's data is taken as it is, and the zone served with the ALIAS's
    // owner empty, its status saying why (docs/transfers.md, «ALIAS in secondary zones»); each one named
    if (
      !this.settings.aliasResolvers.length &&
      this.gates.unresolvableAlias &&
      (this.inserts.some(isFlattened) || (this.update !== undefined && isFlattened(this.update)))
    ) {
      const staged = this.update ? [...this.inserts, this.update] : this.inserts;
      const refused = staged.filter(isFlattened).map((r) => {
        const source = this.sources?.get(r);
        return aliasResolversUnset(r.type, source?.field ?? 'type', ownerName(this.zone.name, r.owner), source?.line);
      });
      if (refused.length) {
        const [first] = refused;
        throw new DomainError(
          first.code,
          refused.length > 1 ? `${first.message} (and ${refused.length - 1} more)` : first.message,
          refused.flatMap((e) => e.details),
        );
      }
    }
    if (this.zone.kind === 'secondary' && this.gates.secondary === 'flattened') {
      // the one write to a secondary zone that is not its primary's: the flattened addresses, nothing else
      const other = [...this.removed, ...this.added].find((r) => r.type !== 'A' && r.type !== 'AAAA');
      if (other) throw new Error(`zone ${this.zone.name}: a change of derived records staged ${other.type} at ${other.owner}`);
    }
    if (this.signingPlan) this.signer.refuse(this, this.settings);
  }

  /**
   * A locked RRset (docs/changes.md, "Protected RRsets") refuses whatever write stages a record of it, on every
   * edge (a change set's plan names the change first; this is the last word for the others: a record's create,
   * edit or delete, an import, a revert, a template). The service's own writes (the signer, a transfer, ALIAS and
   * steering refreshes) are not a person's change and pass. A steered RRset (docs/steering.md) refuses them the
   * same way, RRSET_STEERED: its records are what steering decided, and a hand edit would be undone at the next
   * decision; steering's own changes (a definition and the records it leads to) pass. Which writer meets which
   * guard: writers.ts. One statement, only for a write that staged records into a zone read with some lock or
   * steered RRset: a change decided on the zone's head writes only if the zone has neither (`ZoneWrite.expect`),
   * else it is decided again on a read, which asks.
   */
  private async refuseGuardedRrsets(): Promise<void> {
    const gates = this.gates;
    if (!gates.protectedRrsets && !gates.steeredRrsets) return;
    if (!this.removed.length && !this.added.length) return;
    if (this.decidedOnHead) return;
    const locked = this.zone.hasLocks && gates.protectedRrsets;
    const steered = this.zone.hasSteered && gates.steeredRrsets;
    if (!locked && !steered) return;
    const guards = await guardsOfZone(this.sql, this.zone.id);
    const touched = [...this.removed, ...this.added];
    if (gates.protectedRrsets) refuseGuarded('RRSET_PROTECTED', this.zone.name, guards.protectedRrsets, touched);
    if (steered) refuseGuarded('RRSET_STEERED', this.zone.name, guards.steeredRrsets, touched);
  }

  /**
   * Whether committing with `options` would change nothing the zone serves: no record staged in or out or
   * edited, no signer record staged and no signing step but the incremental one, no SOA field but the serial
   * other than the zone's, and no serial asked beyond the zone's (a zone file or a DNS UPDATE that raises it).
   * Such a change writes nothing: no serial step, no journal row (so no history entry, no `zone.changed` event,
   * no NOTIFY, no IXFR). The one rule of every caller that may stage nothing (change sets, PowerDNS PATCH, DNS
   * UPDATE, zone-file imports), asked before `commit`, which always writes a step.
   */
  changesNothing(options: CommitOptions = {}): boolean {
    return (
      this.inserts.length === 0 &&
      this.deleteIds.length === 0 &&
      this.update === undefined &&
      this.signerAdded.length === 0 &&
      this.signerRemoved.length === 0 &&
      this.signing.mode === 'incremental' &&
      !this.editsSoaFields(options) &&
      (options.serialSetByCaller === undefined || !serialGreaterThan(options.serialSetByCaller, this.zone.serial))
    );
  }

  /** whether `options` give the SOA a field (its serial aside) or a TTL other than the zone's */
  private editsSoaFields(options: CommitOptions): boolean {
    return (
      (options.soaRdata !== undefined && withSerial(options.soaRdata, 0) !== withSerial(this.zone.soa.rdata, 0)) ||
      (options.soaTtl !== undefined && options.soaTtl !== this.zone.soa.ttl)
    );
  }

  /**
   * Writes the change. The serial rises by the zone's policy, or becomes `serialSetByCaller` (an SOA edit or
   * a zone file that raised it); `soaRdata`/`soaTtl` replace the SOA's other fields (zone-file import).
   * Returns the ids of the inserted records.
   */
  /**
   * The zone's apex NS set changed in this write: what the last health check said of the nameservers it no longer
   * names goes with them, in this transaction (health-changes.ts, `nameserversChanged`).
   */
  private async apexNsChanged(serial: number): Promise<void> {
    const added = apexNsTargets(this.added);
    const gone = [...apexNsTargets(this.removed)].filter((host) => !added.has(host));
    if (gone.length) await nameserversChanged(this.sql, { id: this.zone.id, name: this.zone.name, serial }, gone);
  }

  async commit(options: CommitOptions = {}): Promise<number[]> {
    // a plan read on a zone under review passed its review for a dry run alone: it is never written
    if (this.request.review === 'plan') throw new Error('a change read as a plan (a dry run) was committed');
    this.refuseBeforeWrite(options);
    // a signed zone's views' zones hold its signer records (docs/views.md, «DNSSEC»): every step of a signed zone
    // with some steps and signs them again after its write, in its transaction, so with the zone row's lock
    const signedViews = (this.zone.dnssec !== undefined || this.signingPlan !== undefined) && (this.zone.viewZones || !this.locked);
    if (signedViews && this.zone.viewZones && !this.locked) throw new DecideAgain(true);
    await this.refuseGuardedRrsets();
    this.admit?.();
    const before = this.zone.serial;
    const after =
      options.serialSetByCaller ??
      (this.zone.kind === 'secondary' ? serialAdd(before, 1) : nextSerial(before, this.settings.serialPolicy, new Date()));
    this.serialAfter = after;
    const soaEdited = this.update?.id === this.zone.soa.id;
    let soa: { id: number; rdata: string; ttl: number } | undefined;
    if (!soaEdited) {
      const current = this.zone.soa;
      soa = { id: current.id, rdata: withSerial(options.soaRdata ?? current.rdata, after), ttl: options.soaTtl ?? current.ttl };
      this.removed.push(journalRecord(current));
      this.removedIds.push(null);
      this.added.push(journalRecord({ ...current, ...soa }));
    }
    // the signing: after the decision and the serial step, before the write (signing.ts); a step of the
    // signer's own is signed too (the SOA's serial moved, so its RRSIG must follow)
    if (this.signingPlan) await this.signer.sign(this, this.settings);
    if (!this.locked && needsTransaction({ deleteIds: this.deleteIds, inserts: this.inserts, removed: this.removed }))
      throw new DecideAgain(true);
    const touched = touchedRrsets(this.removed, this.added);
    // every view's zone is held to the zone's rules as the base is (docs/views.md): checked here on a change that
    // holds the zone row's lock; one without it stays the statements it was, which write only where no view
    // overlays the owners it touches (else it is decided again holding the lock, and checked here)
    const viewsUnchecked = this.gates.views && !this.locked;
    if (this.gates.views && this.locked) await refuseInViews(this.sql, this.zone, touched, this.removed, this.added);
    const outcome = await writeZoneChange(this.sql, {
      domainId: this.zone.id,
      zone: this.zone.name,
      serialBefore: before,
      serialAfter: after,
      rulesVersion: this.zone.rulesVersion,
      inserts: this.inserts,
      update: this.update,
      deleteIds: this.deleteIds,
      soa,
      removed: this.removed,
      removedIds: this.removedIds,
      added: this.added,
      signerRemoved: this.signerRemoved,
      signerAdded: this.signerAdded,
      findings: options.findings,
      comments: options.comments,
      kind: this.gates.journal,
      author: this.author,
      defaultMaxRecords: this.recordQuota(),
      expect: this.expect,
      touched,
      noOverlayAt: viewsUnchecked ? ownersOf(touched) : undefined,
      signedViews: signedViews ? (this.locked ? 'step' : 'none') : undefined,
    });
    if ('inserted' in outcome) {
      const { inserted, signerInserted } = outcome;
      // each view's zone over the base as now written, in this transaction: its SOA's RRSIG names its new serial
      if (outcome.views?.length) {
        if (this.signingPlan) await this.signer.signViews(this.sql, this.zone, this.signingPlan.policy, outcome.views, this.settings);
        else await clearViewSigners(this.sql, this.zone.id);
      }
      this.insertedRows = this.inserts.map((r, i) => ({ owner: r.owner, type: r.type, ttl: r.ttl, rdata: r.rdata, id: inserted[i] }));
      this.signerInserted = this.signerAdded.map(({ owner, type, ttl, rdata, chainKey }, i) =>
        heldSignerRow(signerInserted[i], owner, type, rdata, ttl, chainKey || undefined),
      );
      this.soaWritten = soa;
      await this.apexNsChanged(after);
      return inserted;
    }
    if ('quota' in outcome) throw quotaExceeded('maxRecordsPerZone', outcome.quota, `records in zone ${this.zone.name}`);
    // a view overlays an owner the change touches: decided again holding the lock, where the views' zones are checked
    if ('overlaid' in outcome) throw new DecideAgain(true);
    // another change raised the serial since the read; with the row locked, nothing can
    if (this.locked) throw new Error(`zone ${this.zone.name} changed while its row was locked`);
    throw new DecideAgain(false);
  }
}

/**
 * The RRsets a change touches, as `owner type`: every record added or removed but the apex SOA, which counts only
 * when a field other than its serial (or its TTL) moved. A view's zone moves with the change unless the view
 * overrides each of them (repositories/views.ts).
 */
function touchedRrsets(removed: readonly JournalRecord[], added: readonly JournalRecord[]): string[] {
  const keys = new Set<string>();
  const soa = (r: JournalRecord) => r.owner === '@' && r.type === 'SOA';
  for (const r of [...removed, ...added]) if (!soa(r)) keys.add(`${r.owner} ${r.type}`);
  const before = removed.find(soa);
  const after = added.find(soa);
  if (before && after && (withSerial(before.rdata, 0) !== withSerial(after.rdata, 0) || before.ttl !== after.ttl)) keys.add('@ SOA');
  return [...keys];
}

/** the owners of some `owner type` RRset keys */
const ownersOf = (touched: readonly string[]) => [...new Set(touched.map((t) => t.slice(0, t.lastIndexOf(' '))))];

/**
 * A base change is refused when it would break a rule in some view's zone: at the owners it touches that a view
 * overrides, the view's records there (the base's after the change, the view's RRsets over them) are checked as
 * any owner's (zone-rules.ts: a view's CNAME beside base data is a CNAME_CONFLICT like any other).
 */
async function refuseInViews(
  sql: Sql,
  zone: LockedZone,
  touched: readonly string[],
  removed: readonly JournalRecord[],
  added: readonly JournalRecord[],
): Promise<void> {
  if (!touched.length) return;
  const overlays = await overlaysAt(sql, zone.id, ownersOf(touched));
  if (!overlays.length) return;
  const overlaid = [...new Set(overlays.map((o) => o.owner))];
  const same = (a: JournalRecord, b: JournalRecord) => a.owner === b.owner && a.type === b.type && a.rdata === b.rdata;
  const base = (await baseRecordsAt(sql, zone.id, overlaid)).filter((r) => !removed.some((x) => same(x, r)));
  base.push(...added.filter((r) => overlaid.includes(r.owner)));
  for (const viewId of new Set(overlays.map((o) => o.viewId))) {
    const records = applyOverlay(
      base,
      overlays.filter((o) => o.viewId === viewId),
    );
    const problems = checkOwnerData(zone.name, records);
    if (problems.length) throw errorFromProblems(problems);
  }
}

/** the targets of the apex NS records among `records`, as compared (lower case, no trailing dot) */
const apexNsTargets = (records: readonly JournalRecord[]) =>
  new Set(records.filter((r) => r.owner === '@' && r.type === 'NS').map((r) => r.rdata.toLowerCase().replace(/\.$/, '')));

/**
 * a secondary zone is read-only through every edge (API, DNS UPDATE, the signer): only its transfers write it,
 * and the service's flattening of its ALIAS/ANAME records (`WriterGates.secondary`)
 */
function refuseSecondary(zone: LockedZone, request: ZoneChangeRequest): void {
  if (zone.kind === 'secondary' && gatesOf(request.writer).secondary === 'refused') {
    const { message } = new DomainError('ZONE_IS_SECONDARY');
    throw new DomainError('ZONE_IS_SECONDARY', `zone ${zone.name}: ${message}`, [
      { field: 'zone', code: 'ZONE_IS_SECONDARY', message: `zone ${zone.name}: ${message}` },
    ]);
  }
}

/**
 * A zone under review (`requiredApprovals` > 0) is changed by its change requests, never directly by a person or
 * a key: every edge that cannot propose one (the PowerDNS API, DNS UPDATE, a record's own write, an import) is
 * refused here, naming the policy. The service's own changes (the signer's, a transfer's, an ALIAS refresh), a
 * change of the zone's rules (`WriterGates.review`) and a key confined to `_acme-challenge` TXT records (an ACME
 * client renewing a certificate) pass.
 */
function refuseUnreviewed(zone: LockedZone, request: ZoneChangeRequest, principal: Principal): void {
  if (zone.requiredApprovals === 0 || request.review || !gatesOf(request.writer).review) return;
  if (principal.kind === 'admin' && principal.keyId === 0 && principal.via === undefined) return;
  if (confinedToAcmeChallenges(principal.policy)) return;
  const message = `zone ${zone.name} requires ${zone.requiredApprovals} approval${zone.requiredApprovals === 1 ? '' : 's'} of each change: propose it as a change request (GraphQL proposeZoneChange or applyZoneChanges, REST POST /api/domain/changes/${zone.name})`;
  throw new DomainError('ZONE_UNDER_REVIEW', message, [{ field: 'zone', code: 'ZONE_UNDER_REVIEW', message }]);
}

/** a zone not there (or not the caller's): named as the caller named it */
function notFound(request: ZoneChangeRequest): DomainError {
  if ('recordId' in request.zone) return DomainError.notFound('RECORD_NOT_FOUND', 'id');
  return DomainError.notFound('ZONE_NOT_FOUND', 'id' in request.zone ? 'id' : 'zone');
}
