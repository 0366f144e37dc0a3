import {
  DnssecPolicy,
  HeldSignerRow,
  keysProofOf,
  SignedProof,
  SignerAnswers,
  SignerQuestions,
  SignerRow,
  SigningKeyRow,
  WholeSigner,
} from '../../repositories/dnssec';
import type { JournalRecord } from '../../entities/change.entity';
import type { StoredRow } from '../../repositories/zone-writes';
import { FLATTENED_TYPE_NAMES } from '../../dns/record-types';

/**
 * The signing state a signed zone's head holds (zone-heads.ts): every signer record of the zone with its row id
 * (RRSIG, NSEC, NSEC3, and the apex's DNSKEY, CDS and CDNSKEY), the denial chain's members in order, and the zone's
 * keys, as of the head's serial. A signed change decided on the head has the signer's questions (signing.ts
 * `forecast`) answered here instead of by a read, and its write proves what the answers assumed beyond the serial
 * (`SignedProof`): the policy and the keys, the signer records at the owners read, and that no chain member lies
 * between the neighbours found. The chain's neighbours of a new owner can be anywhere in the zone, so the head
 * holds the zone's signer records whole, or none.
 */

/** the signer's records the incremental signer reads as the zone's data at the apex (repositories/dnssec.ts ZONE_DATA_TYPES) */
const ZONE_DATA_TYPES = new Set(['DNSKEY', 'CDS', 'CDNSKEY']);
/** the signer's records the signer reads at an owner (`signerRecordsAt`) */
const SIGNER_TYPES = new Set(['RRSIG', 'NSEC', 'NSEC3']);
/** bounds below and above every chain key (a key is a name's sort key or a hash: never empty, far under 300 bytes) */
const BELOW_ALL = Buffer.alloc(0);
const ABOVE_ALL = Buffer.alloc(300, 0xff);

/** a chain member as held: its key in hex (hex strings of bytes sort as the bytes do, as bytea compares them) */
interface Member {
  key: string;
  owner: string;
}

/** what the head answers a signed change: the signer's answers, what its write must prove, and the owners it took for empty */
export interface SignedAnswers {
  answers: SignerAnswers;
  proof: SignedProof;
  emptyOwners: string[];
}

export class SignedHead {
  private readonly byOwner = new Map<string, HeldSignerRow[]>();
  private readonly byId = new Map<number, HeldSignerRow>();
  /** the chain's members by key, in order */
  private readonly chain: Member[] = [];

  /** the keys as the proof states them (`keysProofOf`): they change only in a locked change, which drops the head */
  private readonly keysProof: string;

  private constructor(
    private readonly policy: DnssecPolicy,
    private readonly keys: SigningKeyRow[],
  ) {
    this.keysProof = keysProofOf(keys);
  }

  /** the head of a signed zone read whole in one statement (`readZone`'s 'whole') */
  static of(policy: DnssecPolicy, whole: WholeSigner): SignedHead | undefined {
    const head = new SignedHead(policy, whole.keys);
    for (const row of whole.rows) head.add(row);
    head.chain.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    // two members at one key would be a chain the head cannot answer for: the signer reads it
    for (let i = 1; i < head.chain.length; i++) if (head.chain[i - 1].key === head.chain[i].key) return undefined;
    return head;
  }

  get rows(): number {
    return this.byId.size;
  }

  /**
   * The answers to `questions` as the head holds the zone (`records`: its records by owner, every owner with
   * one), or undefined when the chain around a key is not one the proof can state (fewer than two members).
   */
  answer(questions: SignerQuestions, records: ReadonlyMap<string, readonly StoredRow[]>): SignedAnswers | undefined {
    const emptyOwners: string[] = [];
    const answered: JournalRecord[] = [];
    for (const owner of questions.owners) {
      const rows = records.get(owner) ?? [];
      if (!rows.length) emptyOwners.push(owner);
      for (const r of rows) answered.push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl });
      for (const r of this.byOwner.get(owner) ?? [])
        if (ZONE_DATA_TYPES.has(r.type)) answered.push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl });
    }
    const signerOwners = new Set(questions.signerOwners);
    const neighbours: SignerAnswers['neighbours'] = [];
    const ranges: SignedProof['ranges'] = [];
    for (const key of questions.chainKeys) {
      const hex = key.toString('hex');
      const around = this.around(hex);
      if (!around) return undefined;
      const { self, predecessor, successor } = around;
      signerOwners.add(predecessor.owner);
      neighbours.push({ key, self: self?.owner, predecessor: member(predecessor), successor: member(successor) });
      // the members strictly between the neighbours, circularly: the key's own, if it has one, and no other
      const at = self ? 1 : 0;
      const [lo, hi] = [Buffer.from(predecessor.key, 'hex'), Buffer.from(successor.key, 'hex')];
      if (predecessor.key < hex && hex < successor.key) ranges.push({ lo, hi, members: at });
      else if (predecessor.key > hex) ranges.push({ lo: BELOW_ALL, hi, members: at }, { lo, hi: ABOVE_ALL, members: 0 });
      else ranges.push({ lo, hi: ABOVE_ALL, members: at }, { lo: BELOW_ALL, hi, members: 0 });
    }
    const signer: HeldSignerRow[] = [];
    for (const owner of signerOwners) for (const r of this.byOwner.get(owner) ?? []) if (SIGNER_TYPES.has(r.type)) signer.push(r);
    const below = new Map<string, JournalRecord[]>();
    for (const { owner, limit } of questions.below) {
      const suffix = `.${owner}`;
      const found: JournalRecord[] = [];
      for (const [name, rows] of records) {
        if (found.length >= limit) break;
        if (!name.endsWith(suffix)) continue;
        for (const r of rows)
          if (found.length < limit && !FLATTENED_TYPE_NAMES.has(r.type))
            found.push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl });
      }
      below.set(owner, found);
    }
    return {
      answers: {
        records: answered,
        signer,
        signerOwners: [...signerOwners],
        neighbours,
        below,
        keys: this.keys,
      },
      proof: {
        policy: this.policy,
        keys: this.keysProof,
        signerOwners: [...signerOwners],
        signerIds: signer.map((r) => r.id),
        ranges,
      },
      emptyOwners,
    };
  }

  /** a committed change's signer records, on the head; false when they are not the head's (the head is then dropped) */
  apply(removed: readonly SignerRow[], added: readonly HeldSignerRow[]): boolean {
    for (const r of removed) {
      const held =
        r.id !== undefined ? this.byId.get(r.id) : this.byOwner.get(r.owner)?.find((h) => h.type === r.type && h.rdata === r.rdata);
      if (!held) return false;
      this.delete(held);
    }
    for (const r of added) {
      if (!Number.isInteger(r.id) || this.byId.has(r.id)) return false;
      if (r.chainKey !== undefined && this.find(r.chainKey).found) return false;
      this.add(r, true);
    }
    return true;
  }

  private add(row: HeldSignerRow, inOrder = false): void {
    this.byId.set(row.id, row);
    let rows = this.byOwner.get(row.owner);
    if (!rows) this.byOwner.set(row.owner, (rows = []));
    rows.push(row);
    if (row.chainKey === undefined) return;
    const entry = { key: row.chainKey, owner: row.owner };
    if (inOrder) this.chain.splice(this.find(row.chainKey).index, 0, entry);
    else this.chain.push(entry);
  }

  private delete(row: HeldSignerRow): void {
    this.byId.delete(row.id);
    // in place: the head lives in the old generation, where every array replaced is garbage for a full collection
    const rows = this.byOwner.get(row.owner)!;
    rows.splice(rows.indexOf(row), 1);
    if (!rows.length) this.byOwner.delete(row.owner);
    if (row.chainKey === undefined) return;
    const { index, found } = this.find(row.chainKey);
    if (found) this.chain.splice(index, 1);
  }

  /** where `key` is in the chain, or would be */
  private find(key: string): { index: number; found: boolean } {
    let [lo, hi] = [0, this.chain.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.chain[mid].key < key) lo = mid + 1;
      else hi = mid;
    }
    return { index: lo, found: lo < this.chain.length && this.chain[lo].key === key };
  }

  /** the members around `key` (itself excluded), circularly, and the one at it; undefined with fewer than two others */
  private around(key: string): { self?: Member; predecessor: Member; successor: Member } | undefined {
    const { index, found } = this.find(key);
    const others = this.chain.length - (found ? 1 : 0);
    if (others < 2) return undefined;
    const n = this.chain.length;
    const predecessor = this.chain[(index - 1 + n) % n];
    const successor = this.chain[(index + (found ? 1 : 0)) % n];
    return { self: found ? this.chain[index] : undefined, predecessor, successor };
  }
}

const member = (m: Member) => ({ key: Buffer.from(m.key, 'hex'), owner: m.owner });
