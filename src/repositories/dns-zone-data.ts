/**
 * Zone data for the DNS primary, read straight from PostgreSQL with the `pg` driver: the managed zones
 * (`domains` + `records`), their journal (`changes`, for IXFR) and the catalog zone (RFC 9432), which is not
 * stored as records but derived from the `domains` table and the catalog serial (`catalog_state`).
 *
 * Every answer reads inside one REPEATABLE READ, READ ONLY transaction, so that a transfer is one consistent
 * snapshot of the zone (serial, records and journal agree) however long it takes to send.
 */
import type { Database, Sql } from '../db/pool';
import { catalogApexRecords, catalogMemberRecord } from '../dns/catalog-zone';
import { withSerial } from '../dns/zone-rules';
import { FLATTENED_TYPE_NAMES } from '../dns/record-types';
import { namesAbove } from '../dns/name';
import { overlaysAt, overlaysOfZone, viewSignerOf } from './views';
import { applyOverlay } from '../dns/view-overlay';

/**
 * ALIAS and ANAME are never served (docs/templates-and-alias.md): no secondary would understand them, and
 * the service publishes their targets' addresses at their owners as ordinary A and AAAA instead. Queries,
 * AXFR and IXFR leave them out; the APIs and zone files show them.
 */
const SERVED_ONLY = `type not in (${[...FLATTENED_TYPE_NAMES].map((t) => `'${t}'`).join(', ')})`;
const served = (records: Rr[]) => records.filter((r) => !FLATTENED_TYPE_NAMES.has(r.type));

export interface Rr {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}
export interface ZoneRef {
  kind: 'zone' | 'catalog';
  id: number;
  name: string;
  serial: number;
  /** the zone's user (a transfer asked with a user's TSIG key is judged by it); absent for the catalog */
  userId?: number;
  /** the nameserver set the zone is in, or whose catalog this is (docs/transfers.md, «Nameserver sets») */
  setId: number;
  /**
   * the view whose zone this is (docs/views.md), when the view has an overlay in it: the base zone's records
   * with the view's overlay applied, and `serial` the view's own; absent: the base zone
   */
  view?: { id: number; name: string };
  /** some view overlaid the zone (`domains.has_view_zones`): a transfer not signed with a view's key may be refused */
  viewZones?: boolean;
}
/**
 * the catalog's members (RFC 9432 §4.1): the zones of its nameserver set that joined it (repositories/catalog.ts);
 * a zone just created waits outside until the catalog's serial rises with it. A zone moved to another set
 * stays listed in the old set's catalog while it departs (`catalog_departures`), read beside them.
 */
const CATALOG_MEMBER = 'catalog_serial is not null and nameserver_set = $SET';
const member = (param: number) => CATALOG_MEMBER.replace('$SET', `$${param}`);
const DEPARTING = 'id in (select domain_id from catalog_departures where nameserver_set = $SET)';
const departing = (param: number) => DEPARTING.replace('$SET', `$${param}`);

export interface JournalRow {
  id: number;
  serialBefore: number | null;
  serialAfter: number;
  removed: Rr[];
  added: Rr[];
}

/**
 * A snapshot's statements run under their generic plans (db/pool.ts, GENERIC_PLAN_SETTINGS, set in the BEGIN's own
 * message): each probes a zone's rows by key whatever the zone, and planning them anew for every query's values cost
 * PostgreSQL more than running them (bench/FINDINGS.md, «The primary's statements planned once»).
 */
export function inSnapshot<T>(db: Database, work: (sql: Sql) => Promise<T>): Promise<T> {
  return db.transaction(work, 'repeatable read, read only', 'generic');
}

/** a look-up's first read, made with its zone (`findZone`): the owners read, and the records at them */
export interface FirstRead {
  owners: string[];
  records: Rr[];
}

interface FoundZoneRow {
  id: string | null;
  name: string | null;
  serial: string | null;
  user_id: string | null;
  nameserver_set: string | null;
  catalog_set: string | null;
  catalog_name: string | null;
  catalog_serial: string | null;
  has_view_zones: boolean | null;
  first_read: string[] | null;
  first_ids: string[] | null;
  first_owners: string[] | null;
  first_types: string[] | null;
  first_ttls: number[] | null;
  first_rdatas: string[] | null;
}

/**
 * The zone holding a name, in one statement: every candidate (`$1`: the name and each name above it) looked up at
 * once, the catalog's serial included when the catalog is a candidate; and the records of the zone found at the
 * owners a look-up reads first (`first_read`: each candidate at or below the zone, relative to it, and the wildcard
 * below each; primary/lookup.ts takes the records only when those are the owners it would read). Every nameserver
 * set's catalog is a candidate (the default set's is CATALOG_ZONE): the longest one that contains qname (a handful
 * of rows, docs/transfers.md «Nameserver sets»). The names are compared `collate "C"`, by the B-tree, not by the zone
 * search's trigram index (repositories/zone-names.ts).
 */
const FIND_ZONE = `select d.id, d.name, d.serial, d.user_id, d.nameserver_set, d.has_view_zones, c.id as catalog_set, c.name as catalog_name,
            (select serial from catalog_state where name = c.name) as catalog_serial, fo.first_read, f.*
       from (select 1) as one
       left join lateral (select id, name, serial, user_id, nameserver_set, has_view_zones from domains where name collate "C" = any($1::text[]) and serving order by length(name) desc limit 1) as d on true
       left join lateral (select id, coalesce(catalog_zone, $2) as name from nameserver_sets
                           where coalesce(catalog_zone, $2) = any($1::text[]) order by length(coalesce(catalog_zone, $2)) desc limit 1) as c on true
       left join lateral (select array_agg(w.owner) as first_read
                            from unnest($1::text[]) as x(name)
                           cross join lateral (select case when x.name = d.name then '@'
                                                           else left(x.name, length(x.name) - length(d.name) - 1) end as owner) as o
                           cross join lateral (values (o.owner), (case when o.owner = '@' then '*' else '*.' || o.owner end)) as w(owner)
                           where length(x.name) >= length(d.name)) as fo on true
       left join lateral (select array_agg(r.id order by r.id) as first_ids, array_agg(r.owner order by r.id) as first_owners,
                                 array_agg(r.type order by r.id) as first_types, array_agg(r.ttl order by r.id) as first_ttls,
                                 array_agg(r.rdata order by r.id) as first_rdatas
                            from records r
                           where r.domain_id = d.id and r.owner = any(fo.first_read) and r.${SERVED_ONLY}) as f on true`;

/** qname and each name above it: the zones that may hold it */
const zoneCandidates = (qname: string): string[] => (qname === '' ? [] : [qname, ...namesAbove(qname)]);

/** the zone (or catalog) a found row names: the longest of the two */
function foundZone(row: FoundZoneRow): ZoneRef | undefined {
  const zone =
    row.id !== null
      ? {
          kind: 'zone' as const,
          id: Number(row.id),
          name: row.name!,
          serial: Number(row.serial),
          userId: Number(row.user_id),
          setId: Number(row.nameserver_set),
          viewZones: row.has_view_zones === true,
        }
      : undefined;
  if (row.catalog_name !== null && (!zone || row.catalog_name.length > zone.name.length)) {
    // no zone of the set was ever created: the catalog is empty, serial 0; its first change raises it (nextSerial)
    return {
      kind: 'catalog',
      id: 0,
      name: row.catalog_name,
      serial: row.catalog_serial === null ? 0 : Number(row.catalog_serial),
      setId: Number(row.catalog_set),
    };
  }
  return zone;
}

/**
 * The longest zone we are authoritative for that contains `qname` (lower-case, no trailing dot), and in the same
 * statement the records a look-up of `qname` reads first in the zone found, with the owners they were read at
 * (`FirstRead`): an SOA query (a secondary's every refresh) and most of a name's answers need no other statement,
 * and a transfer finds its SOA among them. No first read for the catalog, whose records are not rows.
 */
export async function findZone(sql: Sql, catalogZone: string, qname: string): Promise<{ zone: ZoneRef | undefined; first?: FirstRead }> {
  const [row] = await sql.rows<FoundZoneRow>(FIND_ZONE, [zoneCandidates(qname), catalogZone]);
  const zone = foundZone(row);
  if (zone?.kind !== 'zone') return { zone };
  const records = (row.first_ids ?? []).map((_, i) => ({
    owner: row.first_owners![i],
    type: row.first_types![i],
    ttl: Number(row.first_ttls![i]),
    rdata: row.first_rdatas![i],
  }));
  return { zone, first: { owners: row.first_read ?? [], records: withZoneSerial(zone, records) } };
}

/**
 * The zone as a request signed with `keyName` sees it (docs/views.md): the view of that key's zone when the view
 * has an overlay in it (its serial the view's), else the zone itself. A key of no view reads the base zone;
 * `ofView` says whether the key is a view's (VIEWS_UNSIGNED_TRANSFERS refuses the others).
 */
export async function inViewOfKey(sql: Sql, zone: ZoneRef, keyName: string): Promise<{ zone: ZoneRef; ofView: boolean }> {
  if (zone.kind !== 'zone') return { zone, ofView: false };
  const [row] = await sql.rows<{ id: string; name: string; serial: string | null }>(
    `select v.id, v.name, vs.serial from views v
       join tsig_keys k on k.id = v.tsig_key_id and k.name = $2 and k.revoked_at is null
       left join view_serials vs on vs.view_id = v.id and vs.domain_id = $1`,
    [zone.id, keyName],
  );
  if (!row) return { zone, ofView: false };
  if (row.serial === null) return { zone, ofView: true };
  return { zone: { ...zone, serial: Number(row.serial), view: { id: Number(row.id), name: row.name } }, ofView: true };
}

/**
 * the zone's SOA, its serial set to the zone's (they are written together; the zone row is authoritative); from
 * `first`, the records read with the zone, when it holds the apex's
 */
export async function soaOf(sql: Sql, zone: ZoneRef, first?: FirstRead): Promise<Rr> {
  if (zone.kind === 'catalog') return catalogApexRecords(zone.serial)[0];
  const read = first?.records.find((r) => r.owner === '@' && r.type === 'SOA');
  if (read) return read;
  const rows = await sql.rows<Rr>(
    `select owner, type, ttl, rdata from records where domain_id = $1 and owner = '@' and type = 'SOA' limit 1`,
    [zone.id],
  );
  if (!rows[0]) throw new Error(`zone ${zone.name} has no SOA record`);
  return { ...rows[0], rdata: withSerial(rows[0].rdata, zone.serial) };
}

/**
 * The catalog zone (RFC 9432 §4) is not stored as records: its apex (SOA, NS, `version` TXT) is fixed, and
 * its members are the `domains` rows that joined it, one PTR at `z<id>.zones` each (catalog-zone.ts). Every catalog query
 * is answered from the one row its name points at (the primary key), never from the whole member list: a
 * catalog of 100,000 zones answers an SOA query as fast as one of ten, and a query for a name that does
 * not exist costs the same lookup (bench/RESULTS-scale.md).
 */
const MEMBER_OWNER = /^z([1-9][0-9]{0,15})\.zones$/;
/** the only name with descendants in the catalog but no records of its own (an empty non-terminal) */
const MEMBERS_PARENT = 'zones';

/** the member ids some catalog owners name (`z42.zones` → 42); other owners name no member */
function memberIds(owners: string[]): number[] {
  const ids: number[] = [];
  for (const owner of owners) {
    const match = MEMBER_OWNER.exec(owner);
    if (match && Number.isSafeInteger(Number(match[1]))) ids.push(Number(match[1]));
  }
  return ids;
}

async function catalogRecordsAt(sql: Sql, zone: ZoneRef, owners: string[]): Promise<Rr[]> {
  const wanted = new Set(owners);
  const found: Rr[] = catalogApexRecords(zone.serial).filter((r) => wanted.has(r.owner));
  const ids = memberIds(owners);
  if (ids.length) {
    const rows = await sql.rows<{ id: string; name: string }>(
      `select id, name from domains where id = any($1::bigint[]) and (${member(2)} or ${departing(2)}) order by id`,
      [ids, zone.setId],
    );
    for (const row of rows) found.push(catalogMemberRecord(Number(row.id), row.name));
  }
  return found;
}

/** records at some owners (relative names, '@' = apex) */
export async function recordsAt(sql: Sql, zone: ZoneRef, owners: string[]): Promise<Rr[]> {
  if (zone.kind === 'catalog') return catalogRecordsAt(sql, zone, owners);
  let rows = await sql.rows<Rr>(
    `select owner, type, ttl, rdata from records where domain_id = $1 and owner = any($2::text[]) and ${SERVED_ONLY} order by id`,
    [zone.id, owners],
  );
  if (zone.view) rows = applyOverlay(rows, await overlaysAt(sql, zone.id, owners, zone.view.id));
  return withZoneSerial(zone, rows);
}

/** the apex SOA among `rows` with the zone's serial (they are written together; the zone row is authoritative) */
function withZoneSerial(zone: ZoneRef, rows: Rr[]): Rr[] {
  return rows.map((r) => (r.type === 'SOA' && r.owner === '@' ? { ...r, rdata: withSerial(r.rdata, zone.serial) } : r));
}

/**
 * A signed zone's signer records (dnssec_records) of these types at these owners: the apex's DNSKEY, CDS and
 * CDNSKEY for a query of them, the RRSIGs of an answer for a query with DO set; none for the catalog (unsigned)
 */
export async function signerRecordsAt(sql: Sql, zone: ZoneRef, owners: string[], types: string[]): Promise<Rr[]> {
  if (zone.kind === 'catalog' || !owners.length) return [];
  if (zone.view) {
    // a view's zone: the base's signer records but those it leaves out, then its own (docs/views.md, «DNSSEC»)
    const signer = await viewSignerOf(sql, zone.id, zone.view.id);
    const rows = await sql.rows<Rr & { id: string }>(
      'select id, owner, type, ttl, rdata from dnssec_records where domain_id = $1 and owner = any($2::text[]) and type = any($3::text[]) order by id',
      [zone.id, owners, types],
    );
    const wanted = (r: Rr) => owners.includes(r.owner) && types.includes(r.type);
    return [
      ...rows.filter((r) => !signer.hidden.has(Number(r.id))).map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata })),
      ...signer.records.filter(wanted),
    ];
  }
  return sql.rows<Rr>(
    'select owner, type, ttl, rdata from dnssec_records where domain_id = $1 and owner = any($2::text[]) and type = any($3::text[]) order by id',
    [zone.id, owners, types],
  );
}

/** whether some owner name lies below `owner` (an empty non-terminal, RFC 4592 §2.2.2, exists) */
export async function hasDescendants(sql: Sql, zone: ZoneRef, owner: string): Promise<boolean> {
  if (owner === '@') return true;
  const suffix = `.${owner}`;
  if (zone.kind === 'catalog') {
    // member PTRs (`z<id>.zones`) are the only names below the apex's children; `zones` has them while the
    // catalog has a member
    if (owner !== MEMBERS_PARENT) return false;
    const rows = await sql.rows(
      `select 1 from domains where ${member(1)} union all select 1 from catalog_departures where nameserver_set = $1 limit 1`,
      [zone.setId],
    );
    return rows.length > 0;
  }
  // the owners ending with `.<owner>` are, reversed, the names in [reverse(suffix), that with its last '.'
  // raised to '/') in byte order: one range of records_domain_reverse_owner_index, not a scan of the zone
  const from = [...suffix].reverse().join('');
  const to = `${from.slice(0, -1)}/`;
  // a view's own RRsets below the owner make it exist in the view's zone (a name only the view has)
  if (zone.view) {
    const own = await sql.rows(
      `select 1 from view_overlays where domain_id = $1 and view_id = $2 and action = 'replace' and reverse(owner) collate "C" >= $3 and reverse(owner) collate "C" < $4 limit 1`,
      [zone.id, zone.view.id, from, to],
    );
    if (own.length) return true;
  }
  const rows = await sql.rows(
    `select 1 from records where domain_id = $1 and reverse(owner) collate "C" >= $2 and reverse(owner) collate "C" < $3 limit 1`,
    [zone.id, from, to],
  );
  return rows.length > 0;
}

/** all records but the apex SOA, in pages (keyset on id), for AXFR; the catalog's members too */
export async function* allRecords(sql: Sql, zone: ZoneRef, pageSize = 2000): AsyncGenerator<Rr[]> {
  if (zone.kind === 'catalog') {
    yield catalogApexRecords(zone.serial).filter((r) => r.type !== 'SOA');
    let afterId = 0;
    for (;;) {
      const rows = await sql.rows<{ id: string; name: string }>(
        `select id, name from domains where id > $1 and ${member(3)} order by id limit $2`,
        [afterId, pageSize, zone.setId],
      );
      if (rows.length) {
        afterId = Number(rows[rows.length - 1].id);
        yield rows.map((r) => catalogMemberRecord(Number(r.id), r.name));
      }
      if (rows.length < pageSize) break;
    }
    // the zones moved away that it still lists (few: a move's departure lasts until the new set serves them)
    const leaving = await sql.rows<{ id: string; name: string }>(`select id, name from domains where ${departing(1)} order by id`, [
      zone.setId,
    ]);
    if (leaving.length) yield leaving.map((r) => catalogMemberRecord(Number(r.id), r.name));
    return;
  }
  // a view's zone: the base's RRsets the view overrides left out, then the view's own (few: an overlay is the
  // handful of RRsets a view changes)
  const overlays = zone.view ? await overlaysOfZone(sql, zone.id, zone.view.id) : [];
  const overridden = new Set(overlays.map((o) => `${o.owner} ${o.type}`));
  let after = 0;
  for (;;) {
    const rows = await sql.rows<Rr & { id: string }>(
      `select id, owner, type, ttl, rdata from records where domain_id = $1 and id > $2 and ${SERVED_ONLY} order by id limit $3`,
      [zone.id, after, pageSize],
    );
    if (!rows.length) break;
    after = Number(rows[rows.length - 1].id);
    yield rows
      .filter((r) => !(r.type === 'SOA' && r.owner === '@') && !overridden.has(`${r.owner} ${r.type}`))
      .map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata }));
    if (rows.length < pageSize) break;
  }
  if (overlays.length) yield applyOverlay([], overlays);
  // a signed zone: the signer's records (DNSKEY, RRSIG, NSEC/NSEC3, NSEC3PARAM, CDS, CDNSKEY) after the data; a
  // view's zone leaves out the base's that its own stand in for, and ends with its own (docs/views.md, «DNSSEC»)
  const signer = zone.view ? await viewSignerOf(sql, zone.id, zone.view.id) : undefined;
  after = 0;
  for (;;) {
    const rows = await sql.rows<Rr & { id: string }>(
      'select id, owner, type, ttl, rdata from dnssec_records where domain_id = $1 and id > $2 order by id limit $3',
      [zone.id, after, pageSize],
    );
    if (rows.length) {
      after = Number(rows[rows.length - 1].id);
      const shown = signer?.hidden.size ? rows.filter((r) => !signer.hidden.has(Number(r.id))) : rows;
      yield shown.map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata }));
    }
    if (rows.length < pageSize) break;
  }
  if (signer?.records.length) yield signer.records.map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata }));
}

/**
 * The journal rows that lead from `fromSerial` to the zone's current serial, in order (RFC 1995 §4), or
 * undefined when the journal cannot answer (a gap, a zone re-created under the same name, a serial we never
 * had or no longer keep): the caller then falls back to a full transfer (RFC 1995 §2).
 *
 * Two index lookups, whatever the journal's size: the change that left `fromSerial` (`changes_ixfr_start_index`,
 * zone + domain + serial_before), then the rows from it on (`changes_zone_id_index`). A serial that no row
 * left reads nothing more.
 */
export async function journalFrom(sql: Sql, zone: ZoneRef, fromSerial: number, maxRows = 10000): Promise<JournalRow[] | undefined> {
  const rows = await sql.rows<{
    id: string;
    serial_before: string | null;
    serial_after: string;
    removed: Rr[];
    added: Rr[];
    signer_removed: Rr[] | null;
    signer_added: Rr[] | null;
    kind: string;
  }>(
    `select id, kind, serial_before, serial_after, removed, added, signer_removed, signer_added from changes
      where zone = $1 and domain_id = $2 and id >= (
        select min(id) from changes where zone = $1 and domain_id = $2 and kind in ('zone-changed', 'zone-signed') and serial_before = $3)
      order by id limit $4`,
    [zone.name, zone.id, fromSerial, maxRows + 1],
  );
  if (rows.length > maxRows) return undefined;
  const chain: JournalRow[] = [];
  let serial = fromSerial;
  for (const row of rows) {
    if ((row.kind !== 'zone-changed' && row.kind !== 'zone-signed') || row.serial_before === null) return undefined;
    if (Number(row.serial_before) !== serial) return undefined;
    serial = Number(row.serial_after);
    chain.push({
      id: Number(row.id),
      serialBefore: Number(row.serial_before),
      serialAfter: serial,
      // a signed zone's step carries the signer's records beside the user's (RFC 1995 §4: one difference sequence)
      removed: served(row.signer_removed ? [...row.removed, ...row.signer_removed] : row.removed),
      added: served(row.signer_added ? [...row.added, ...row.signer_added] : row.added),
    });
  }
  if (serial !== zone.serial || !chain.length) return undefined;
  return chain;
}
