/** The statement parts that write a change's signer records (zone-writes.ts) */
import type { SignerRow } from './signer-records';

/** the most row ids bound one parameter each (`idRows`); a longer list is one array parameter */
const ID_PARAMS = 32;

/** what decides `idRows`' text: one array parameter, or the rows' count padded to a power of two */
export function idRowsShape(ids: readonly number[]): number | 'array' {
  if (ids.length > ID_PARAMS) return 'array';
  let size = 1;
  while (size < ids.length) size *= 2;
  return size;
}

/**
 * Row ids as a relation `x(id)` to delete by, joined on the primary key: a short list as rows of VALUES, one
 * parameter each, padded with nulls (which match nothing) to a power of two so that a few statement texts
 * are prepared, once each. The plan PostgreSQL keeps for a prepared statement is made without the values:
 * given `id = any(<one array parameter>)` beside `domain_id = …`, it guessed ten ids and found it cheaper to
 * intersect them with all the zone's rows on `(domain_id, owner)` (a BitmapAnd), which reads every index
 * entry of the zone's signer records on every write: a cost that grows with the zone (0.46 ms of PostgreSQL
 * CPU per write at 30,000 signer records), for the three rows a new name removes. Joined with rows it can
 * count, it probes the primary key once per id. A long list (a zone signed whole) is one array, unnested.
 */
export function idRows(add: (value: unknown) => string, ids: readonly number[]): string {
  const size = idRowsShape(ids);
  if (size === 'array') return `unnest(${add(ids)}::bigint[]) as x(id)`;
  const rows = Array.from({ length: size }, (_, i) => `(${add(ids[i] ?? null)}::bigint)`);
  return `(values ${rows.join(', ')}) as x(id)`;
}

/**
 * The CTE parts that write a change's signer records, hung on the serial update `dom` (zone-writes.ts
 * writeZoneChange): the journal's `signer_added` as an SQL expression of them (null: none added), and the ids of
 * the records added, in the order given (`inserted`, an SQL expression of the statement, read by `idsOf`).
 *
 * A record added in place of a removed one read with its row id, at the same owner and of the same type (an
 * RRSIG: over the same type), is written over that row (`supd`): the SOA's RRSIG on every change, and the NSEC or
 * NSEC3 whose next name moved and its RRSIG. The table ends as a delete and an insert would leave it, but the
 * row keeps its id and PostgreSQL moves one tuple instead of two; an NSEC's new next name touches no indexed
 * column, so its row is rewritten beside the old one without a new index entry (a heap-only tuple). Written as
 * an insert of that id that updates on its conflict: a row gone (it cannot be while the serial holds) is
 * inserted again, never lost.
 */
export function signerWriteCtes(
  add: (value: unknown) => string,
  removed: readonly SignerRow[],
  added: readonly SignerRow[],
): { parts: string[]; journalAdded: string; inserted: string; idsOf: (returned: readonly number[]) => number[] } {
  const parts: string[] = [];
  const { reused, freed } = rowsReused(removed, added);
  // a removal read from the table carries its row id: deleted by primary key (a join on the record's text
  // would read every signer row of the zone)
  const byId = removed.filter((r) => r.id !== undefined && !freed.has(r)).map((r) => r.id!);
  const byIdentity = removed.filter((r) => r.id === undefined);
  if (byId.length) {
    parts.push(
      `sdelid as (delete from dnssec_records s using ${idRows(add, byId)} where s.id = x.id and s.domain_id = (select id from dom))`,
    );
  }
  if (byIdentity.length) {
    const rows = byIdentity.map(({ owner, type, rdata }) => ({ owner, type, rdata }));
    parts.push(`sdel as (delete from dnssec_records s using json_to_recordset(${add(JSON.stringify(rows))}::json)
        as x(owner text, type text, rdata text)
      where s.domain_id = (select id from dom) and s.owner = any(${add([...new Set(rows.map((r) => r.owner))])}::text[])
        and s.owner = x.owner and s.type = x.type and s.rdata = x.rdata)`);
  }
  if (!added.length) return { parts, journalAdded: 'null::jsonb', inserted: `'[]'::json`, idsOf: () => [] };
  // sent once: the rows to insert and the journal's additions (owner, type, TTL and RDATA of each, in order) are
  // both read from this one parameter, where they were two JSON texts of the same records
  parts.push(`sadd as (select x.owner, x.type, x.rdata, x.ttl, x."chainKey", x."expiresAt", x.n
      from rows from (jsonb_to_recordset(${add(JSON.stringify(added))}::jsonb) as (owner text, type text, rdata text, ttl int, "chainKey" text, "expiresAt" bigint))
        with ordinality as x(owner, type, rdata, ttl, "chainKey", "expiresAt", n))`);
  const reusedAt = [...reused.keys()];
  // positions in `added` (from 1, as `with ordinality` counts) written over a removed row, and those rows' ids
  // (a parameter only when used: an unused one has no type PostgreSQL can determine)
  const positions = reusedAt.length ? add(reusedAt.map((i) => i + 1)) : '';
  if (reusedAt.length) {
    parts.push(`supd as (insert into dnssec_records (id, domain_id, owner, type, rdata, ttl, chain_key, expires_at)
      select u.id, dom.id, x.owner, x.type, x.rdata, x.ttl, decode(x."chainKey", 'hex'), to_timestamp(x."expiresAt")
        from dom, unnest(${add(reusedAt.map((i) => reused.get(i)))}::bigint[], ${positions}::bigint[]) as u(id, n) join sadd x on x.n = u.n
      on conflict (id) do update set rdata = excluded.rdata, ttl = excluded.ttl, chain_key = excluded.chain_key, expires_at = excluded.expires_at
        where dnssec_records.domain_id = excluded.domain_id)`);
  }
  const fresh = added.length - reusedAt.length;
  // in the order given, their ids returned: a zone's head keeps them (write-engine/zone-heads.ts)
  if (fresh) {
    parts.push(`sins as (insert into dnssec_records (domain_id, owner, type, rdata, ttl, chain_key, expires_at)
      select dom.id, x.owner, x.type, x.rdata, x.ttl, decode(x."chainKey", 'hex'), to_timestamp(x."expiresAt")
        from dom, sadd x${reusedAt.length ? ` where x.n <> all(${positions}::bigint[])` : ''}
      order by x.n returning id)`);
  }
  return {
    parts,
    journalAdded: `(select jsonb_agg(jsonb_build_object('owner', x.owner, 'type', x.type, 'ttl', x.ttl, 'rdata', x.rdata) order by x.n) from sadd x)`,
    // the new rows' ids rise in the order they were inserted (order by x.n)
    inserted: fresh ? `(select coalesce(json_agg(id order by id), '[]'::json) from sins)` : `'[]'::json`,
    idsOf: (returned) => {
      let next = 0;
      return added.map((_, i) => reused.get(i) ?? returned[next++]);
    },
  };
}

/**
 * Which added records are written over which removed rows (`signerWriteCtes`): by position in `added`, the id of
 * a removed row at the same owner, of the same type and, an RRSIG, over the same type (its RDATA's first field,
 * RFC 4034 §3.2), each row once; and the removed records so reused.
 */
function rowsReused(removed: readonly SignerRow[], added: readonly SignerRow[]): { reused: Map<number, number>; freed: Set<SignerRow> } {
  const reused = new Map<number, number>();
  const freed = new Set<SignerRow>();
  if (!added.length) return { reused, freed };
  const slotOf = (r: SignerRow) =>
    `${r.owner}\u0000${r.type}${r.type === 'RRSIG' ? `\u0000${r.rdata.slice(0, r.rdata.indexOf(' '))}` : ''}`;
  const free = new Map<string, SignerRow[]>();
  for (const r of removed) {
    if (r.id === undefined) continue;
    const slot = slotOf(r);
    const rows = free.get(slot);
    if (rows) rows.push(r);
    else free.set(slot, [r]);
  }
  if (!free.size) return { reused, freed };
  added.forEach((r, i) => {
    const row = free.get(slotOf(r))?.pop();
    if (!row) return;
    reused.set(i, row.id!);
    freed.add(row);
  });
  return { reused, freed };
}
