import type { Sql } from '../db/pool';
import { domainConditions, Params, type DomainFilter } from './read-model';

/** one zone that needs attention: what about it, since when (when known), and the facts in words */
export interface AttentionRow {
  zoneId: number;
  zone: string;
  since: Date | null;
  detail: string;
}

/** one kind of attention item: the first rows (oldest first) and how many zones there are in all */
export interface AttentionList {
  totalCount: number;
  items: AttentionRow[];
}

/** the caller's reach (DomainsService's scope: its user's zones, its rules' zones) */
export type AttentionScope = Pick<DomainFilter, 'scopeUserId' | 'readRules'>;

/**
 * Each list is one statement over the rows that are already out of the ordinary (status rows not in sync, the
 * partial index zone_server_status_due_index; secondary zones failing; signed zones waiting for their parent),
 * joined to the zones the caller may see, with the whole count beside a bounded page: no statement per zone.
 * The failing secondary zones and the zones waiting for their parent are read by a scan of their state tables
 * (no index on those states): 100,000 zones (66,000 signed, 33,000 secondary, 200,000 status rows) answered the
 * three lists in about 40 ms on the 2-core test machine.
 */
async function listOf(
  sql: Sql,
  scope: AttentionScope,
  first: number,
  build: (p: Params, visible: string) => string,
): Promise<AttentionList> {
  const p = new Params();
  const conditions = domainConditions(p, scope);
  const visible = conditions.length ? conditions.join(' and ') : 'true';
  const statement = build(p, visible);
  const rows = await sql.rows<{ zone_id: string | null; zone: string; since: Date | null; detail: string; total: string }>(
    // the count always comes back (one row of nulls beside it when the page is empty or `first` is 0)
    `with q as (${statement}),
          page as (select * from q order by since nulls first, zone limit ${p.add(first)})
     select page.*, t.total from (select count(*) as total from q) t left join page on true order by page.since nulls first, page.zone`,
    p.values,
  );
  return {
    totalCount: rows.length ? Number(rows[0].total) : 0,
    items: rows
      .filter((r) => r.zone_id !== null)
      .map((r) => ({ zoneId: Number(r.zone_id), zone: r.zone, since: r.since ? new Date(r.since) : null, detail: r.detail })),
  };
}

/**
 * Zones served (docs/transfers.md) whose nameserver set's secondaries keep failing (`error`: the worker gave up
 * the fast checks, docs/propagation.md) or have lagged past `lagSeconds`, each with its worst server. Only the
 * servers the zone's set names count (the default set's are `defaultSetServers`); a server dropped from the
 * configuration keeps a row until the worker forgets it.
 */
export function secondariesBehind(
  sql: Sql,
  scope: AttentionScope,
  first: number,
  defaultSetServers: string[],
  lagSeconds: number,
): Promise<AttentionList> {
  return listOf(
    sql,
    scope,
    first,
    (p, visible) => `
    select d.id as zone_id, d.name as zone, min(s.updated_at) as since,
           string_agg(s.server || ' ' || case when s.state = 'error' then 'failing' else 'behind' end
                      || coalesce(': ' || s.error, ''), '; ' order by s.state = 'error' desc, s.server) as detail
      from zone_server_status s
      join domains d on d.id = s.domain_id
      join nameserver_sets n on n.id = d.nameserver_set
     where s.state <> 'in_sync' and d.serving and ${visible}
       and s.server = any(coalesce(n.secondaries, ${p.add(defaultSetServers)}::text[]))
       and (s.state = 'error' or s.updated_at < now() - make_interval(secs => ${p.add(lagSeconds)}::int))
     group by d.id, d.name`,
  );
}

/**
 * Secondary zones (taken from others' primaries, docs/transfers.md) whose refresh fails: retrying, expired (no
 * longer served, RFC 1035 §3.3.13), or never transferred with an error. Since: the last transfer that worked
 * (the zone's creation when none did).
 */
export function failedTransfers(sql: Sql, scope: AttentionScope, first: number): Promise<AttentionList> {
  return listOf(
    sql,
    scope,
    first,
    (_p, visible) => `
    select d.id as zone_id, d.name as zone, coalesce(s.last_success_at, d.created_at) as since,
           case s.state when 'expired' then 'expired' when 'retrying' then 'refresh failing' else 'never transferred' end
             || coalesce(': ' || s.last_error, '') as detail
      from secondary_zone_state s
      join domains d on d.id = s.domain_id
     where d.kind = 'secondary' and (s.state in ('retrying', 'expired') or (s.state = 'pending' and s.last_error is not null))
       and ${visible}`,
  );
}

/**
 * Signed zones waiting for their parent (docs/dnssec.md, «The parent's DS»; parent-ds.ts `awaitedOfParent`):
 * its DS to publish (never seen since signing, or a new key's DS in a roll, `await-ds`) or, for a zone being
 * made unsigned, its DS to remove (RFC 8078 §4). A key waiting for its DS always has a time planned (key-rollover.ts),
 * so `next_event_at is not null` lets the partial dnssec_keys_next_event_index find the few such keys.
 */
export function dsAtParent(sql: Sql, scope: AttentionScope, first: number): Promise<AttentionList> {
  // two branches, each estimated on its own: one condition or-ing a key's wait in was planned for a third of the
  // signed zones, and that estimate alone made PostgreSQL compile the statement (JIT) for most of a second
  return listOf(
    sql,
    scope,
    first,
    (_p, visible) => `
    select d.id as zone_id, d.name as zone, case when z.state = 'signed' then z.enabled_at end as since,
           case when z.state = 'signed' then 'DS to publish at the parent (not seen there since the zone was signed)'
                else 'DS to remove at the parent (the zone is being made unsigned)' end as detail
      from dnssec_zones z
      join domains d on d.id = z.domain_id
     where ((z.state = 'signed' and z.ds_seen_at is null) or (z.state = 'disabling' and z.disable_at is null)) and ${visible}
    union all
    select d.id, d.name, k.since, 'DS of a new key to publish at the parent (a key roll waits for it)'
      from (select domain_id, min(created_at) as since from dnssec_keys
             where next_event = 'await-ds' and next_event_at is not null group by domain_id) k
      join dnssec_zones z on z.domain_id = k.domain_id
      join domains d on d.id = z.domain_id
     where z.state = 'signed' and z.ds_seen_at is not null and ${visible}`,
  );
}

/**
 * Zones whose last health check found something (docs/health.md): state warning or critical, each with its
 * findings' codes and servers, the most severe first. Since: the oldest finding still seen.
 */
export function healthFindings(sql: Sql, scope: AttentionScope, first: number): Promise<AttentionList> {
  return listOf(
    sql,
    scope,
    first,
    (_p, visible) => `
    select d.id as zone_id, d.name as zone, min(f.since) as since,
           h.state || ': ' || string_agg(f.code || case when f.server = '' then '' else ' at ' || f.server end, '; '
             order by f.severity = 'critical' desc, f.code, f.server) as detail
      from zone_health h
      join domains d on d.id = h.domain_id
      join zone_health_findings f on f.domain_id = h.domain_id
     where h.state in ('warning', 'critical') and ${visible}
     group by d.id, d.name, h.state`,
  );
}

/**
 * Zones whose failover is not deciding as it seems (docs/steering.md, «Vantages and the quorum»): a check held
 * up by the panic freeze though it fails, a check held because every vantage that probed it is isolated, and a
 * check probed by an isolated vantage (its votes are not counted), each named with why.
 */
export function steeringHeld(sql: Sql, scope: AttentionScope, first: number): Promise<AttentionList> {
  return listOf(
    sql,
    scope,
    first,
    (_p, visible) => `
    select d.id as zone_id, d.name as zone, min(x.since) as since, string_agg(x.detail, '; ' order by x.detail) as detail
      from (select c.domain_id, c.held_since as since,
                   'check ' || c.name || case c.held
                     when 'panic' then ' fails but is held up by the panic freeze (nothing is taken out)'
                     else ' is held where it is: every vantage that probed it is isolated' end as detail
              from steering_checks c where c.held is not null
            union all
            select c.domain_id, g.isolated_since,
                   'vantage ' || g.name || ' is isolated (' || coalesce(g.isolated_reason, '') || '): its probes of ' || c.name || ' are not counted'
              from steering_vantages g
              join steering_votes v on v.vantage = g.name
              join steering_checks c on c.id = v.check_id
             where g.isolated and g.seen_at > now() - interval '1 day') x
      join domains d on d.id = x.domain_id
     where ${visible}
     group by d.id, d.name`,
  );
}
