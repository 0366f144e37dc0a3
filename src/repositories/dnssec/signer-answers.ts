/** The signer's questions about a change answered in one statement, and a zone head's signing state and its proof */
import type { Sql } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import type { DnssecPolicy } from './policy';
import type { SigningKeyRow } from './keys';
import { belowRange, SERVED_DATA, toStoredSigner, ZONE_DATA_TYPES, type StoredSignerRecord } from './signer-records';

/** what the incremental signer will ask of a change, asked at once (services/dnssec/zone-signing.ts) */
export interface SignerQuestions {
  /** the records at these owners (the user's, and the DNSKEY, CDS and CDNSKEY at the apex) */
  owners: string[];
  /** the RRSIG, NSEC and NSEC3 at these owners */
  signerOwners: string[];
  /** the chain members stored around these keys, and the signer records at the members before them */
  chainKeys: Buffer[];
  /** up to `limit` records strictly below each of these owners */
  below: { owner: string; limit: number }[];
}

export interface ChainNeighbours {
  key: Buffer;
  /** the owner of the member stored at `key` itself, if there is one */
  self?: string;
  predecessor?: { key: Buffer; owner: string };
  successor?: { key: Buffer; owner: string };
}

export interface SignerAnswers {
  records: JournalRecord[];
  /** the signer records at `signerOwners` and at the predecessors of `chainKeys` */
  signer: StoredSignerRecord[];
  /** the owners whose signer records are all in `signer` */
  signerOwners: string[];
  neighbours: ChainNeighbours[];
  below: Map<string, JournalRecord[]>;
  /** the zone's keys but those removed (as `keysOfZone` reads them), without their timeline */
  keys: SigningKeyRow[];
}

/**
 * The answers to `questions` as one JSON value, a scalar subquery on the zone `domain` (an SQL expression: a
 * parameter, or the zone row of the statement it is part of); `add` binds a parameter. `signerAnswers` runs
 * it alone; `readZone` (zone-writes.ts) runs it with the zone's read, when the change's questions can be told
 * before its decision.
 */
export function signerAnswersSql(domain: string, add: (value: unknown) => string, questions: SignerQuestions): string {
  const owners = valuesOf(
    add,
    questions.owners.map((owner) => [owner]),
    ['text'],
    'o(owner)',
  );
  const keys = valuesOf(
    add,
    questions.chainKeys.map((key, i) => [key, i + 1]),
    ['bytea', 'int'],
    'k(key, i)',
  );
  const signerOwners = valuesOf(
    add,
    questions.signerOwners.map((owner) => [owner]),
    ['text'],
    'v(owner)',
  );
  const below = valuesOf(
    add,
    questions.below.map((b) => [b.owner, belowRange(b.owner).from, belowRange(b.owner).to, b.limit]),
    ['text', 'text', 'text', 'int'],
    'q(owner, lo, hi, lim)',
  );
  // each key's nearest stored members by index; the chain's first and last close the circle (in JS). The
  // records and signer records are read per owner (a lateral probe of the (domain, owner) index each; `offset
  // 0` keeps the planner from folding the probe into a join): with `owner = any(…)` or `in (select …)` the
  // planner, misjudging a zone's size, scanned the whole zone's rows and filtered them. The questions are rows of VALUES, one parameter each, not arrays: the planner knows
  // how many there are, so the plan it keeps for the statement's text (generic, planned once per connection)
  // is as cheap by its estimates as one planned for the values, and it stops re-planning the statement on
  // every write (docs/dnssec.md, «Speed»)
  return `(with nb as (
      select k.i, k.key,
        (select s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key = k.key limit 1) as self,
        p.chain_key as p_key, p.owner as p_owner, n.chain_key as n_key, n.owner as n_owner
      from ${keys}
      left join lateral (select s.chain_key, s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key < k.key
          order by s.chain_key desc limit 1) p on true
      left join lateral (select s.chain_key, s.owner from dnssec_records s where s.domain_id = ${domain} and s.chain_key > k.key
          order by s.chain_key limit 1) n on true
    ),
    first_member as (select chain_key, owner from dnssec_records where domain_id = ${domain} and chain_key is not null order by chain_key limit 1),
    last_member as (select chain_key, owner from dnssec_records where domain_id = ${domain} and chain_key is not null order by chain_key desc limit 1),
    sig_owners as (select owner from ${signerOwners} union select p_owner from nb where p_owner is not null
      union select owner from last_member where exists (select 1 from nb where p_key is null))
    select json_build_object(
      'records', (select coalesce(json_agg(json_build_object('owner', r.owner, 'type', r.type, 'rdata', r.rdata, 'ttl', r.ttl)), '[]'::json)
        from ${owners} cross join lateral (
          select owner, type, rdata, ttl from records where domain_id = ${domain} and owner = o.owner
          union all
          select owner, type, rdata, ttl from dnssec_records where domain_id = ${domain} and owner = o.owner and type in ${ZONE_DATA_TYPES}
          offset 0
        ) r),
      'signer', (select coalesce(json_agg(json_build_object('id', s.id, 'owner', s.owner, 'type', s.type, 'rdata', s.rdata, 'ttl', s.ttl)), '[]'::json)
        from sig_owners o cross join lateral (select s.id, s.owner, s.type, s.rdata, s.ttl from dnssec_records s
          where s.domain_id = ${domain} and s.owner = o.owner and s.type in ('RRSIG', 'NSEC', 'NSEC3') offset 0) s),
      'signerOwners', (select coalesce(json_agg(owner), '[]'::json) from sig_owners),
      'neighbours', (select coalesce(json_agg(json_build_object('key', encode(nb.key, 'hex'), 'self', nb.self, 'pKey', encode(nb.p_key, 'hex'),
          'pOwner', nb.p_owner, 'nKey', encode(nb.n_key, 'hex'), 'nOwner', nb.n_owner) order by nb.i), '[]'::json) from nb),
      'first', (select json_build_object('key', encode(chain_key, 'hex'), 'owner', owner) from first_member),
      'last', (select json_build_object('key', encode(chain_key, 'hex'), 'owner', owner) from last_member),
      'below', (select coalesce(json_agg(json_build_object('below', q.owner, 'owner', b.owner, 'type', b.type, 'rdata', b.rdata, 'ttl', b.ttl)), '[]'::json)
        from ${below}
        cross join lateral (select r.owner, r.type, r.rdata, r.ttl from records r where r.domain_id = ${domain}
            and reverse(r.owner) collate "C" >= q.lo and reverse(r.owner) collate "C" < q.hi and ${SERVED_DATA} limit q.lim) b),
      'keys', ${signingKeysJson(domain)}
    ))`;
}

/** the zone's keys but those removed, as `SigningKeyRow`s in JSON (`signingKeysFromJson`): an SQL expression on `domain` */
const signingKeysJson = (domain: string): string =>
  `(select coalesce(json_agg(json_build_object('id', k.id, 'role', k.role, 'algorithm', k.algorithm, 'keyTag', k.key_tag, 'dnskey', k.dnskey,
          'sealed', encode(k.sealed_private_key, 'base64'), 'state', k.state) order by k.id), '[]'::json)
        from dnssec_keys k where k.domain_id = ${domain} and k.state <> 'removed')`;

// PostgreSQL's base64 breaks lines every 76 characters; Node's decoder skips the line breaks
const signingKeysFromJson = (keys: AnswersJson['keys']): SigningKeyRow[] =>
  keys.map(({ sealed, ...k }) => ({
    ...k,
    id: Number(k.id),
    algorithm: Number(k.algorithm),
    keyTag: Number(k.keyTag),
    sealedPrivateKey: Buffer.from(sealed, 'base64'),
  }));

/** a signer record as a zone's head holds it (write-engine/zone-heads.ts): its row id, and its chain key (hex) if it has one */
export type HeldSignerRow = StoredSignerRecord & { chainKey?: string };

/** a signed zone's signing state whole: every signer record and the keys (a zone's head holds them) */
export interface WholeSigner {
  rows: HeldSignerRow[];
  keys: SigningKeyRow[];
}

/** `WholeSigner` as one JSON value, a scalar subquery on the zone `domain` (an SQL expression), for `readZone` */
export const wholeSignerSql = (domain: string): string =>
  `json_build_object('rows', (select coalesce(json_agg(json_build_object('id', s.id, 'owner', s.owner, 'type', s.type, 'rdata', s.rdata,
      'ttl', s.ttl, 'chainKey', encode(s.chain_key, 'hex'))), '[]'::json) from dnssec_records s where s.domain_id = ${domain}),
    'keys', ${signingKeysJson(domain)})`;

/**
 * a signer record as a head holds it, always built in this one shape (the same properties in the same order):
 * the head's rows go through the same functions as the signer's (their types read, their identities made), and
 * rows of several shapes made those property reads megamorphic
 */
export const heldSignerRow = (id: number, owner: string, type: string, rdata: string, ttl: number, chainKey?: string): HeldSignerRow => ({
  id,
  owner,
  type,
  rdata,
  ttl,
  chainKey,
});

export function wholeSignerFromJson(json: { rows: any[]; keys: AnswersJson['keys'] }): WholeSigner {
  return {
    rows: json.rows.map((r) => heldSignerRow(Number(r.id), r.owner, r.type, r.rdata, Number(r.ttl), r.chainKey || undefined)),
    keys: signingKeysFromJson(json.keys),
  };
}

/**
 * What a signed change decided on its zone's head assumed of the signing state beyond the serial
 * (write-engine/zone-heads.ts), checked by its write (`signedProofSql`): the zone's policy, its keys (ids and
 * states), the signer records at the owners the signer read (by count and by id), and the chain's members around
 * the keys it moved (`ranges`: how many members lie strictly between each `lo` and `hi`).
 */
export interface SignedProof {
  policy: DnssecPolicy;
  /** `id:state` of each key but those removed, by id, comma-separated */
  keys: string;
  signerOwners: string[];
  signerIds: number[];
  ranges: { lo: Buffer; hi: Buffer; members: number }[];
}

/** `SignedProof.keys` of some keys */
export const keysProofOf = (keys: readonly Pick<SigningKeyRow, 'id' | 'state'>[]): string =>
  [...keys]
    .sort((a, b) => a.id - b.id)
    .map((k) => `${k.id}:${k.state}`)
    .join(',');

/**
 * The conditions of `proof` on the zone `domain` (an SQL expression), for the serial's update of a change decided
 * on its zone's head (zone-writes.ts `expectedSql`): each an index probe (the policy's and keys' rows by zone,
 * the signer records by (domain, owner), their ids compared with those held as one sorted array, the chain by
 * (domain, chain_key)).
 */
export function signedProofSql(domain: string, add: (value: unknown) => string, proof: SignedProof): string {
  const p = proof.policy;
  return `
        and exists (select 1 from dnssec_zones z where z.domain_id = ${domain} and z.state = ${add(p.state)} and z.denial = ${add(p.denial)}
          and z.nsec3_iterations = ${add(p.nsec3Iterations)} and z.nsec3_salt = ${add(p.nsec3Salt)}::bytea and z.nsec3_opt_out = ${add(p.nsec3OptOut)})
        and (select coalesce(string_agg(k.id || ':' || k.state, ',' order by k.id), '') from dnssec_keys k
          where k.domain_id = ${domain} and k.state <> 'removed') = ${add(proof.keys)}
        and (select coalesce(array_agg(t.id order by t.id), '{}') from unnest(${add(proof.signerOwners)}::text[]) as o(owner)
          cross join lateral (select s.id from dnssec_records s
            where s.domain_id = ${domain} and s.owner = o.owner and s.type in ('RRSIG', 'NSEC', 'NSEC3') offset 0) t) = ${add(ascending(proof.signerIds))}::bigint[]
        and not exists (select 1 from unnest(${add(proof.ranges.map((r) => r.lo))}::bytea[], ${add(proof.ranges.map((r) => r.hi))}::bytea[],
            ${add(proof.ranges.map((r) => r.members))}::int[]) as g(lo, hi, members)
          where (select count(*) from (select 1 from dnssec_records s where s.domain_id = ${domain} and s.chain_key > g.lo and s.chain_key < g.hi
            limit 2) m) <> g.members)`;
}

const ascending = (ids: readonly number[]): number[] => [...ids].sort((a, b) => a - b);

/**
 * `rows` as a relation `alias` (`name(columns)`) of VALUES, each value a parameter cast to its column's type;
 * no rows: an empty relation of those columns.
 */
function valuesOf(add: (value: unknown) => string, rows: unknown[][], types: string[], alias: string): string {
  if (rows.length === 0) return `(select ${types.map((t) => `null::${t}`).join(', ')} where false) as ${alias}`;
  return `(values ${rows.map((row) => `(${row.map((value, i) => `${add(value)}::${types[i]}`).join(', ')})`).join(', ')}) as ${alias}`;
}

/** the answers as the JSON of `signerAnswersSql` carries them */
export interface AnswersJson {
  records: { owner: string; type: string; rdata: string; ttl: number }[];
  signer: { id: number; owner: string; type: string; rdata: string; ttl: number }[];
  signerOwners: string[];
  neighbours: {
    key: string;
    self: string | null;
    pKey: string | null;
    pOwner: string | null;
    nKey: string | null;
    nOwner: string | null;
  }[];
  first: { key: string; owner: string } | null;
  last: { key: string; owner: string } | null;
  below: { below: string; owner: string; type: string; rdata: string; ttl: number }[];
  keys: (Omit<SigningKeyRow, 'sealedPrivateKey'> & { sealed: string })[];
}

export function signerAnswersFromJson(json: AnswersJson, questions: SignerQuestions): SignerAnswers {
  const below = new Map<string, JournalRecord[]>(questions.below.map((b) => [b.owner, []]));
  for (const r of json.below) below.get(r.below)!.push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) });
  const member = (key: string | null, owner: string | null) =>
    key === null || owner === null ? undefined : { key: Buffer.from(key, 'hex'), owner };
  return {
    records: json.records.map((r) => ({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: Number(r.ttl) })),
    signer: json.signer.map(toStoredSigner),
    signerOwners: json.signerOwners,
    neighbours: json.neighbours.map((n) => {
      // none before (after) the key: the circle closes on the chain's last (first) member, unless that is the key itself
      const around = (end: { key: string; owner: string } | null) => (end && end.key !== n.key ? member(end.key, end.owner) : undefined);
      return {
        key: Buffer.from(n.key, 'hex'),
        self: n.self ?? undefined,
        predecessor: member(n.pKey, n.pOwner) ?? around(json.last),
        successor: member(n.nKey, n.nOwner) ?? around(json.first),
      };
    }),
    below,
    keys: signingKeysFromJson(json.keys),
  };
}

/**
 * Everything the incremental signer asks of one change, and the zone's keys, in one statement: the records
 * and signer records at the owners it reads, the chain around the keys it moves (each neighbour by index,
 * as `chainNeighbour`), the records below the owners whose existence it checks (as `recordsBelow`). One
 * round trip instead of one per question (docs/dnssec.md, «Speed»).
 */
export async function signerAnswers(sql: Sql, domainId: number, questions: SignerQuestions): Promise<SignerAnswers> {
  const params: unknown[] = [domainId];
  const add = (value: unknown) => `$${params.push(value)}`;
  const [row] = await sql.rows<{ answers: AnswersJson }>(`select ${signerAnswersSql('$1', add, questions)} as answers`, params);
  return signerAnswersFromJson(row.answers, questions);
}
