import type { Sql } from '../../db/pool';
import { LockedZone, readZone, StoredRow } from '../../repositories/zone-writes';
import type { SignedProof } from '../../repositories/dnssec';
import type { Principal } from '../../auth/principal';
import type { WrittenChange, ZoneChangeRequest } from './staging';
import { SignedHead } from './signed-heads';
import type { ZoneSigner } from './signing';
import { gatesOf } from './writers';
import { logger } from '../../logger';

/**
 * The zones' heads this process holds: per zone, what its last read or write here showed (its id, name,
 * owner, kind, serial and SOA) and the records at the owners it read or wrote, all as of that serial. A change
 * of a zone whose head is held, at owners the head knows or at owners it takes for empty, is decided on the
 * head without a read, and its write carries the proof: it applies only if the zone's serial is still the one
 * held (the serial is the zone's version, RFC 1035 §3.3.13: every change of its records raises it in the same
 * statement), if the zone is still primary, its user's, unsigned and without disabled records, and if no
 * record is at the owners taken for empty (`ZoneWrite.expect`). On the API's hot path that is one round trip
 * to PostgreSQL where the read and the write were two.
 *
 * What the proof does not cover is decided again on a read: a write that did not apply (another process, or a
 * path that does not keep heads, changed the zone), a refusal (a DomainError: it must be a refusal of the zone
 * as it is, not as it was), and a decision that wrote nothing. So a head never answers alone; it only saves the
 * read of a change that then proves it right.
 *
 * A head is only ever stored from a committed state: a read on its own (autocommit), or a write that committed on
 * its own (the optimistic path). A change that runs in the locked path drops its zone's head: its write is
 * committed only later, and a head holding an uncommitted serial could meet another change that reached the same
 * serial with other records; a queue's batch takes the head out and moves it through its writes only once they
 * committed, if it read the zone at the head's serial (`suspend`, `resume`). A head is taken out while a change uses it,
 * and put back only after that change's outcome is known; any other outcome drops it. Heads are kept per
 * generation of the database's hosts (db/database-hosts.ts): after a primary is lost, none is used again.
 * Secondary zones and zones keeping disabled records have no head (their reads carry more).
 *
 * A signed zone's head holds the zone whole, its records and its signer's (signed-heads.ts), read in one statement
 * after a change of it was decided on a read: the denial chain's neighbours of a new owner can be anywhere in it. A
 * signed change on the head has the signer's questions answered there, and its write proves, beside the above,
 * the signing state those answers assumed (repositories/dnssec.ts `SignedProof`); a change that was decided on a
 * read of the zone at the head's serial moves the head with it, as does a batch of the zone's queue that read it
 * there (its writes committed together), so the zone is read whole again only when its head was lost.
 */

/** the most records held per zone (its owners' rows), then its owners but the apex are forgotten (the head stays) */
const ROWS_PER_ZONE = 4096;
/** the most zones held, then the oldest is forgotten */
const ZONES = 10_000;
/**
 * the most rows and owners held in all zones together, then the oldest heads are forgotten: ZONES × ROWS_PER_ZONE
 * alone would allow tens of millions of rows (an import of thousands of large zones), past the process's heap
 */
const HELD_IN_ALL = 200_000;
/** the most rows (records and signer records) and owners of a signed zone held whole, else it has no head */
const SIGNED_PER_ZONE = 32_768;
/** the most zones remembered as too large to hold whole (not read whole again), then forgotten at once */
const TOO_LARGE_ZONES = 10_000;

/** what a head holds, against HELD_IN_ALL: its rows, its owners (an owner known empty is an entry too), its signer records */
const weightOf = (head: Head): number => head.rows + head.owners.size + (head.signed?.rows ?? 0);

interface Head {
  zone: Omit<LockedZone, 'sameOwner' | 'target' | 'signer' | 'wholeSigner'>;
  /** the records at each owner known, by owner (a signed zone's: every owner with a record) */
  owners: Map<string, StoredRow[]>;
  rows: number;
  generation: number;
  /** a signed zone's signing state, whole */
  signed?: SignedHead;
}

/** a zone's head out of the heads while a batch of its queue runs (`suspend`, `resume`) */
export type SuspendedHead = Head;

/**
 * a zone as a head shows it, for one request: `decide` sees `zone`; the write expects `unknownOwners` empty and,
 * in a signed zone, the signing state `signed` says
 */
export interface HeadView {
  zone: LockedZone;
  unknownOwners: string[];
  signed?: SignedProof;
}

/** the owners a request names (whose records the read would return whole); undefined: it names records by id */
function ownersOf(request: ZoneChangeRequest): string[] | undefined {
  if (request.allRecords || request.targetId !== undefined || 'recordId' in request.zone) return undefined;
  if (request.touching) return request.touching.recordIds.length ? undefined : request.touching.owners;
  return request.owner !== undefined ? [request.owner] : undefined;
}

/** the owners whose records a read for `request` returned whole (its rows by id may be at others) */
function ownersRead(request: ZoneChangeRequest, zone: LockedZone): string[] {
  if (request.allRecords) return [];
  if (request.touching) {
    const { owners, recordIds, ownersOfIds } = request.touching;
    if (!ownersOfIds) return owners;
    // the whole owner of each record named by id was read with it
    const ids = new Set(recordIds);
    return [...owners, ...zone.sameOwner.filter((r) => ids.has(r.id)).map((r) => r.owner)];
  }
  if (request.owner !== undefined) return [request.owner];
  return zone.target ? [zone.target.owner] : [];
}

/**
 * whether a zone as read may be held: what a head leaves out must be what the zone has not. A zone under review has
 * no head either (its changes are few and each must see the policy as it is now), nor one with locked or steered
 * RRsets or strict checks (a change set of it reads them); a head's write proves the zone still has none of these.
 */
const holdable = (zone: LockedZone): boolean =>
  zone.kind === 'primary' && !zone.hasDisabled && zone.requiredApprovals === 0 && !zone.hasLocks && !zone.strictChecks && !zone.hasSteered;

export class ZoneHeads {
  private readonly heads = new Map<number, Head>();
  private readonly byName = new Map<string, number>();
  /** heads taken out, until their change's outcome is known */
  private readonly pending = new Map<number, Head>();
  /** the weight of the heads held (`weightOf`), kept at most HELD_IN_ALL */
  private held = 0;
  /** signed zones found too large to hold whole, by id: not read whole again */
  private readonly tooLarge = new Set<number>();

  /**
   * `generation`: the database's, which a failover moves (a head read before it is not trusted after);
   * `signer`: the engine's, whose questions a signed change on a head needs told first
   */
  constructor(
    private readonly generation: () => number,
    private readonly signer: ZoneSigner,
  ) {}

  /**
   * The zone as its head shows it for `request`, taken out until `keep` or `keepRead` puts it back; undefined
   * when there is no head for it, or the request needs what a head does not hold (records by id, the whole zone,
   * a writer's change that is not decided on a head: writers.ts `onHead`) or is outside the caller's scope (its read answers that).
   */
  take(request: ZoneChangeRequest, principal: Principal): HeadView | undefined {
    if (!gatesOf(request.writer).onHead) return undefined;
    const owners = ownersOf(request);
    if (!owners) return undefined;
    const id = 'id' in request.zone ? request.zone.id : 'name' in request.zone ? this.byName.get(request.zone.name) : undefined;
    if (id === undefined) return undefined;
    const head = this.heads.get(id);
    if (!head) return undefined;
    if ('name' in request.zone && head.zone.name !== request.zone.name) return undefined;
    // a signed change on the head needs the signer's questions told before its decision (signing.ts `forecast`);
    // without them it reads, and the head stays for the changes that have them (`keepRead` moves it)
    const questions = head.signed && this.signer.forecast(request);
    if (head.signed && !questions) return undefined;
    this.remove(id);
    if (head.generation !== this.generation()) return undefined;
    if (principal.kind === 'user' && principal.userId !== head.zone.userId) return undefined;
    const sameOwner: StoredRow[] = [];
    const unknownOwners: string[] = [];
    // each owner once: a request names a few (a record's owner, the apex, its target's) without a set made for them
    const distinct = owners.length > 8 ? [...new Set(owners)] : owners;
    for (let i = 0; i < distinct.length; i++) {
      const owner = distinct[i];
      if (distinct === owners && owners.indexOf(owner) !== i) continue;
      const rows = head.owners.get(owner);
      if (rows) for (const row of rows) sameOwner.push(row);
      // a signed zone's head knows every owner with a record: one it has none at is proven empty by the write
      if (!rows || (head.signed && !rows.length)) unknownOwners.push(owner);
    }
    sameOwner.sort((a, b) => a.id - b.id);
    let signer: LockedZone['signer'];
    let signed: SignedProof | undefined;
    if (head.signed && questions) {
      const answered = head.signed.answer(questions, head.owners);
      if (!answered) {
        this.store(head, undefined);
        return undefined;
      }
      signer = { questions, answers: answered.answers };
      signed = answered.proof;
      const known = new Set(unknownOwners);
      for (const owner of answered.emptyOwners) {
        if (known.has(owner)) continue;
        known.add(owner);
        unknownOwners.push(owner);
      }
    }
    // the head goes back as it was if the change ends without a write (`keep` with nothing written)
    this.pending.set(id, head);
    return { zone: { ...head.zone, sameOwner, target: undefined, signer }, unknownOwners, signed };
  }

  /**
   * A change decided on a head committed `written` (its serial step) with no record at `unknownOwners`: the head
   * moves to the new serial, knowing those owners too.
   */
  keepWritten(zoneId: number, unknownOwners: readonly string[], written: WrittenChange): void {
    const head = this.pending.get(zoneId);
    this.pending.delete(zoneId);
    if (!head) return;
    for (const owner of unknownOwners) head.owners.set(owner, []);
    this.store(head, written);
  }

  /** a change decided on a head ended without a committed write: the head is dropped, and the change reads */
  drop(zoneId: number): void {
    this.pending.delete(zoneId);
    this.remove(zoneId);
  }

  /**
   * A change read `zone` on its own (autocommit: a committed state) for `request` and then committed `written`
   * (or nothing, undefined): the zone's head becomes that state, knowing the owners the read returned whole.
   */
  keepRead(zone: LockedZone, request: ZoneChangeRequest, written: WrittenChange | undefined): void {
    this.pending.delete(zone.id);
    if (!holdable(zone)) {
      this.remove(zone.id);
      return;
    }
    if (zone.dnssec) {
      // a signed zone's head moves with a change read at its serial (the read found the zone as the head holds
      // it); any other is dropped, and the zone read whole (`readWhole`)
      const head = this.heads.get(zone.id);
      if (head?.signed && head.zone.serial === zone.serial && head.generation === this.generation()) {
        if (written) this.store(head, written);
      } else this.remove(zone.id);
      return;
    }
    const owners = new Map<string, StoredRow[]>();
    for (const owner of ownersRead(request, zone)) owners.set(owner, []);
    let rows = 0;
    if (request.allRecords) {
      // a zone read whole (an import) is held only when small; its owners are then all known
      if (zone.sameOwner.length <= ROWS_PER_ZONE) for (const row of zone.sameOwner) owners.set(row.owner, []);
    }
    for (const row of zone.sameOwner) {
      const list = owners.get(row.owner);
      if (list) {
        list.push(row);
        rows++;
      }
    }
    const { sameOwner: _s, target: _t, signer: _g, ...head } = zone;
    this.store({ zone: head, owners, rows, generation: this.generation() }, written);
  }

  /** the zone's head is dropped (a change in a transaction: its outcome is the transaction's) */
  forget(zoneId: number): void {
    this.pending.delete(zoneId);
    this.remove(zoneId);
  }

  /** whether a signed zone read by a change should now be read whole for its head (it has none, and is not too large) */
  wantsWhole(zone: LockedZone): boolean {
    return !!zone.dnssec && holdable(zone) && !this.heads.has(zone.id) && !this.tooLarge.has(zone.id);
  }

  /**
   * Reads a signed zone whole, in one statement on its own (a committed state), as its head: after a change of it
   * committed on a read, in its zone's turn. A failure costs the head only, never the change.
   */
  async readWhole(sql: Sql, zoneId: number): Promise<void> {
    try {
      const zone = await readZone(sql, { zone: { id: zoneId }, allRecords: true }, false, 'whole');
      if (!zone?.dnssec || !zone.wholeSigner || !holdable(zone) || this.heads.has(zoneId)) return;
      const signed = SignedHead.of(zone.dnssec, zone.wholeSigner);
      const owners = new Map<string, StoredRow[]>();
      for (const row of zone.sameOwner) {
        let rows = owners.get(row.owner);
        if (!rows) owners.set(row.owner, (rows = []));
        rows.push(row);
      }
      const { sameOwner: _s, target: _t, signer: _g, wholeSigner: _w, ...rest } = zone;
      const head: Head = { zone: rest, owners, rows: zone.sameOwner.length, generation: this.generation(), signed };
      if (!signed || weightOf(head) > SIGNED_PER_ZONE) {
        if (this.tooLarge.size >= TOO_LARGE_ZONES) this.tooLarge.clear();
        this.tooLarge.add(zoneId);
        return;
      }
      this.store(head, undefined);
    } catch (error) {
      logger.warn(
        { zoneId, error: error instanceof Error ? error.message : String(error) },
        'write engine: a signed zone was not read whole',
      );
    }
  }

  /** the zone's head taken out while a batch of its queue writes it in one transaction (`resume` after its commit) */
  suspend(zoneId: number): SuspendedHead | undefined {
    this.pending.delete(zoneId);
    const head = this.heads.get(zoneId);
    this.remove(zoneId);
    return head;
  }

  /**
   * A batch committed `written`, in order, on the zone as read at `readSerial`: a head suspended at that serial
   * moves through them (the batch's read found the zone as the head held it); any other stays dropped.
   */
  resume(head: SuspendedHead | undefined, readSerial: number | undefined, written: readonly WrittenChange[]): void {
    if (!head || head.zone.serial !== readSerial || head.generation !== this.generation() || this.heads.has(head.zone.id)) return;
    for (const change of written) if (!apply(head, change)) return;
    this.store(head, undefined);
  }

  private remove(zoneId: number): void {
    const head = this.heads.get(zoneId);
    if (!head) return;
    this.held -= weightOf(head);
    this.heads.delete(zoneId);
  }

  private store(head: Head, written: WrittenChange | undefined): void {
    this.remove(head.zone.id);
    if (written && !apply(head, written)) return;
    if (head.signed && weightOf(head) > SIGNED_PER_ZONE) return;
    if (!head.signed && head.rows > ROWS_PER_ZONE) {
      // the apex stays known: every change reads it (its SOA and NS), and a head that took it for empty had every
      // write's proof fail on them, each change then decided again on a read (a fifth of the bench's sets of 1,000)
      const apex = head.owners.get('@');
      head.owners.clear();
      head.rows = 0;
      if (apex && apex.length <= ROWS_PER_ZONE) {
        head.owners.set('@', apex);
        head.rows = apex.length;
      }
    }
    const weight = weightOf(head);
    while (this.heads.size && (this.heads.size >= ZONES || this.held + weight > HELD_IN_ALL))
      this.remove(this.heads.keys().next().value as number);
    this.heads.set(head.zone.id, head);
    this.held += weight;
    if (this.byName.size >= ZONES * 2) this.byName.clear();
    this.byName.set(head.zone.name, head.zone.id);
  }
}

/**
 * what a committed change wrote, on the head (as the queue's batch state applies it: zone-queue.ts); false: a
 * signed zone's signer records that are not the head's (the head is then dropped)
 */
function apply(head: Head, written: WrittenChange): boolean {
  if (head.signed && !head.signed.apply(written.signerRemoved, written.signerAdded)) return false;
  const deleted = new Set(written.deletedIds);
  if (written.updated) deleted.add(written.updated.id);
  if (deleted.size) {
    for (const [owner, rows] of head.owners) {
      const kept = rows.filter((row) => !deleted.has(row.id));
      head.rows -= rows.length - kept.length;
      head.owners.set(owner, kept);
    }
  }
  let soa = head.zone.soa;
  if (written.updated?.id === soa.id) soa = written.updated;
  if (written.soa) soa = { ...soa, ...written.soa };
  const added = written.updated && written.updated.id !== soa.id ? [...written.inserted, written.updated] : written.inserted;
  for (const row of added) {
    // a row at an owner not known leaves that owner unknown (a later change takes it for empty, and its write
    // says); a signed zone's head knows every owner
    let rows = head.owners.get(row.owner);
    if (!rows && head.signed) head.owners.set(row.owner, (rows = []));
    if (rows) {
      rows.push(row);
      head.rows++;
    }
  }
  // the apex's records include the SOA: it must read as it now is (its serial, an edit)
  const apex = head.owners.get(soa.owner);
  if (apex) head.owners.set(soa.owner, [...apex.filter((row) => row.id !== soa.id), soa]);
  head.zone = { ...head.zone, serial: written.serialAfter, soa };
  return true;
}
