/**
 * The signed zone as the incremental signer reads it (dns/dnssec/incremental.ts `SignedZoneView`) from what is
 * stored, with a staged change applied: a change of the base zone (zone-signing.ts), or a view's overlay over it
 * (view-signing.ts).
 */
import type { Sql } from '../../db/pool';
import type { ChainMember, SignedZoneView, ViewQuestions } from '../../dns/dnssec/incremental';
import { isServedData } from '../../dns/dnssec/zone-signer';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import {
  chainNeighbour,
  ChainNeighbours,
  recordsBelow,
  signerAnswers,
  SignerAnswers,
  signerRecordsAt,
  SigningKeyRow,
  zoneRecordsAt,
} from '../../repositories/dnssec';

/**
 * The zone after a staged change, as the incremental signer reads it: the stored rows (records, and the
 * signer's DNSKEY/CDS/CDNSKEY at the apex) with the change's removals and additions applied. `answer` asks
 * everything the signer will ask of the change (`questionsOf`) in one statement, with the zone's keys;
 * a question outside those is one index look-up of its own on the change's connection.
 */
export class StoredSignedZone implements SignedZoneView {
  private readonly removed: Set<string>;
  /** what the view knows already: stored rows per owner, signer records per owner, chain neighbours per key */
  private readonly stored = new Map<string, CanonicalRecord[]>();
  private readonly signer = new Map<string, CanonicalRecord[]>();
  private readonly below = new Map<string, CanonicalRecord[]>();
  private readonly before = new Map<string, ChainMember | undefined>();
  private readonly after = new Map<string, ChainMember | undefined>();
  /**
   * the records at each owner after the change, once made: the signer asks the apex's several times a change
   * (its occlusion, each owner's, the denial TTL), and each answer made anew cost an identity string per record
   */
  private readonly afterChange = new Map<string, readonly CanonicalRecord[]>();

  constructor(
    private readonly sql: Sql,
    private readonly domainId: number,
    private readonly change: { removed: readonly CanonicalRecord[]; added: readonly CanonicalRecord[] },
  ) {
    this.removed = new Set(change.removed.map((r) => recordIdentity(r)));
  }

  /** asks `questions` at once; returns the zone's keys, read in the same statement */
  async answer(questions: ViewQuestions): Promise<SigningKeyRow[]> {
    return this.use(questions, await signerAnswers(this.sql, this.domainId, questions));
  }

  /** takes the answers to `questions` read already (with the zone's read: the signer's `forecast`); returns the zone's keys */
  use(questions: ViewQuestions, answers: SignerAnswers): SigningKeyRow[] {
    for (const owner of questions.owners) this.stored.set(owner, []);
    for (const r of answers.records) this.stored.get(r.owner)?.push(r);
    for (const owner of answers.signerOwners) this.signer.set(owner, []);
    for (const r of answers.signer) this.signer.get(r.owner)?.push(r);
    for (const [owner, rows] of answers.below) this.below.set(owner, rows);
    for (const n of answers.neighbours) this.learnNeighbours(n);
    return answers.keys;
  }

  /**
   * The stored chain around a key, and what it tells of its neighbours: with a member at `key`, it stands
   * between them; without, they are next to each other (or, the same member, alone in the chain).
   */
  private learnNeighbours({ key, self, predecessor, successor }: ChainNeighbours): void {
    this.before.set(hex(key), predecessor);
    this.after.set(hex(key), successor);
    if (!predecessor || !successor) return;
    const learn = (map: Map<string, ChainMember | undefined>, at: Buffer, member: ChainMember | undefined) => {
      if (!map.has(hex(at))) map.set(hex(at), member);
    };
    if (self !== undefined) {
      learn(this.after, predecessor.key, { key, owner: self });
      learn(this.before, successor.key, { key, owner: self });
    } else if (predecessor.key.equals(successor.key)) {
      learn(this.after, predecessor.key, undefined);
      learn(this.before, predecessor.key, undefined);
    } else {
      learn(this.after, predecessor.key, successor);
      learn(this.before, successor.key, predecessor);
    }
  }

  async recordsAt(owner: string): Promise<readonly CanonicalRecord[]> {
    const known = this.afterChange.get(owner);
    if (known) return known;
    let stored = this.stored.get(owner);
    if (!stored) this.stored.set(owner, (stored = await zoneRecordsAt(this.sql, this.domainId, [owner])));
    const kept = stored.filter((r) => !this.removed.has(recordIdentity(r)));
    const have = new Set(kept.map((r) => recordIdentity(r)));
    const records = [...kept, ...this.change.added.filter((r) => r.owner === owner && !have.has(recordIdentity(r)))];
    this.afterChange.set(owner, records);
    return records;
  }

  async hasDescendants(owner: string): Promise<boolean> {
    if (owner === '@') return true;
    const suffix = `.${owner}`;
    // an ALIAS or ANAME below is not served, so it makes no empty non-terminal (recordsBelow leaves it out too)
    if (this.change.added.some((r) => r.owner.endsWith(suffix) && isServedData(r))) return true;
    const removedBelow = this.change.removed.filter((r) => r.owner.endsWith(suffix) && isServedData(r)).length;
    const below = this.below.get(owner) ?? (await recordsBelow(this.sql, this.domainId, owner, removedBelow + 1));
    return below.some((r) => !this.removed.has(recordIdentity(r)));
  }

  async signerRecordsAt(owner: string): Promise<CanonicalRecord[]> {
    let records = this.signer.get(owner);
    if (!records) this.signer.set(owner, (records = await signerRecordsAt(this.sql, this.domainId, owner)));
    return records;
  }

  async chainPredecessor(key: Buffer): Promise<ChainMember | undefined> {
    if (!this.before.has(hex(key))) this.before.set(hex(key), await chainNeighbour(this.sql, this.domainId, key, -1));
    return this.before.get(hex(key));
  }

  async chainSuccessor(key: Buffer): Promise<ChainMember | undefined> {
    if (!this.after.has(hex(key))) this.after.set(hex(key), await chainNeighbour(this.sql, this.domainId, key, 1));
    return this.after.get(hex(key));
  }
}

const hex = (key: Buffer) => key.toString('hex');
