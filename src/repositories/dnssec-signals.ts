import type { Database, Sql } from '../db/pool';
import type { JournalRecord } from '../entities/change.entity';

/**
 * The reads of RFC 9615's signalling records (services/dnssec/bootstrap-signals.ts): what the signed zones
 * publish at their apex (CDS/CDNSKEY) and under which nameserver names, the zones that hold those names, and
 * the signalling records published already.
 */

/** a zone that may signal: its apex NS targets, and its apex CDS/CDNSKEY as the signer keeps them */
export interface SignalSource {
  id: number;
  name: string;
  userId: number;
  /** the zone's signing state; null: not signed */
  state: 'signed' | 'disabling' | null;
  nameservers: string[];
  cds: JournalRecord[];
}

/**
 * The signed zones (or, with `ids`, those zones whatever their state) with their apex NS targets and their
 * apex CDS and CDNSKEY: one statement, by the dnssec_zones rows and the (domain_id, owner) indexes.
 */
export async function signalSources(sql: Sql | Database, ids?: readonly number[]): Promise<SignalSource[]> {
  const rows = await sql.rows(
    `select d.id, d.name, d.user_id, z.state,
            coalesce((select json_agg(r.rdata) from records r where r.domain_id = d.id and r.owner = '@' and r.type = 'NS'), '[]') as ns,
            coalesce((select json_agg(json_build_object('owner', c.owner, 'type', c.type, 'rdata', c.rdata, 'ttl', c.ttl))
                        from dnssec_records c where c.domain_id = d.id and c.owner = '@' and c.type in ('CDS', 'CDNSKEY')), '[]') as cds
       from domains d left join dnssec_zones z on z.domain_id = d.id
      where case when $1::bigint[] is null then z.domain_id is not null else d.id = any($1::bigint[]) end`,
    [ids ? [...ids] : null],
  );
  return rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    userId: Number(row.user_id),
    state: row.state ?? null,
    nameservers: row.ns as string[],
    cds: (row.cds as JournalRecord[]).map((r) => ({ ...r, ttl: Number(r.ttl) })),
  }));
}

/** the zones of these names, with whether they are signed (and not being unsigned) */
export async function zonesByName(
  sql: Sql | Database,
  names: readonly string[],
): Promise<{ id: number; name: string; userId: number; signed: boolean }[]> {
  if (!names.length) return [];
  const rows = await sql.rows(
    `select d.id, d.name, d.user_id, z.state = 'signed' as signed from domains d left join dnssec_zones z on z.domain_id = d.id
      where d.name collate "C" = any($1::text[])`,
    [[...names]],
  );
  return rows.map((row) => ({ id: Number(row.id), name: row.name, userId: Number(row.user_id), signed: row.signed === true }));
}

/**
 * The signalling records published now (CDS/CDNSKEY at an owner `_dsboot.…`; the type index finds them, few
 * zones hold any other CDS), by zone and owner; with `children`, only those of these child zones.
 */
export async function publishedSignals(sql: Sql | Database, children?: readonly string[]): Promise<{ domainId: number; owner: string }[]> {
  const rows = await sql.rows(
    `select distinct r.domain_id, r.owner from records r
      where r.type in ('CDS', 'CDNSKEY') and starts_with(r.owner, '_dsboot.')
        and ($1::text[] is null or exists (select 1 from unnest($1::text[]) c(name)
              where r.owner = '_dsboot.' || c.name || '._signal' or starts_with(r.owner, '_dsboot.' || c.name || '._signal.')))`,
    [children ? [...children] : null],
  );
  return rows.map((row) => ({ domainId: Number(row.domain_id), owner: row.owner }));
}

/** the nameserver names of the nameserver sets (without the default set's, which is DEFAULT_NS) */
export async function nameserverSetNames(sql: Sql | Database): Promise<string[]> {
  const rows = await sql.rows<{ name: string }>('select distinct unnest(ns_names) as name from nameserver_sets where ns_names is not null');
  return rows.map((row) => row.name);
}
