/**
 * Views' SQL (docs/views.md): the operator's views (`views`), the RRsets a view replaces or hides in a zone
 * (`view_overlays`) and the serial of each (zone, view) that ever had an overlay (`view_serials`). A (zone, view)
 * without a serial row is the base zone as it is, serial and all: most zones of most views cost no row.
 */
import type { Sql } from '../db/pool';
import { DNSSEC_POLICY_JSON, type DnssecPolicy, policyFromJson } from './dnssec';
import { insertEventsSql } from './events';
import type { ChangeAuthorFields } from '../auth/principal';

/** a record as the primary serves it (dns-zone-data.ts's `Rr`) */
export interface Rr {
  owner: string;
  type: string;
  ttl: number;
  rdata: string;
}

export type OverlayAction = 'replace' | 'hide';

export interface ViewRow {
  id: number;
  name: string;
  networks: string[];
  precedence: number;
  tsigKeyId: number;
  tsigKeyName: string;
  tsigKeyAlgorithm: string;
  /** the view's secondaries (host or host:port) that a change of a view's zone is sent a NOTIFY */
  notify: string[];
  createdAt: Date;
  /**
   * a view of steering's own (docs/steering.md, «Rules by network and country»): its rules' subnets and geos as
   * written, from which steering computes its networks; null: the operator's view
   */
  steeringNetworks: string | null;
}

export interface OverlayRow {
  viewId: number;
  owner: string;
  type: string;
  action: OverlayAction;
  /** the view's records of the RRset (replace); none for hide */
  records: { ttl: number; rdata: string }[];
}

const VIEW_COLUMNS = `v.id, v.name, v.networks, v.precedence, v.tsig_key_id, k.name as tsig_key_name, k.algorithm as tsig_key_algorithm, v.notify, v.created_at, v.steering_networks`;
const VIEW_FROM = `views v join tsig_keys k on k.id = v.tsig_key_id`;

function toView(row: Record<string, any>): ViewRow {
  return {
    id: Number(row.id),
    name: row.name,
    networks: row.networks ?? [],
    precedence: Number(row.precedence),
    tsigKeyId: Number(row.tsig_key_id),
    tsigKeyName: row.tsig_key_name,
    tsigKeyAlgorithm: row.tsig_key_algorithm,
    notify: row.notify ?? [],
    createdAt: new Date(row.created_at),
    steeringNetworks: row.steering_networks ?? null,
  };
}

/** every view, by precedence (the order a secondary's `view` blocks are written in) then name */
export async function listViews(sql: Sql): Promise<ViewRow[]> {
  const rows = await sql.rows(`select ${VIEW_COLUMNS} from ${VIEW_FROM} order by v.precedence, v.name`);
  return rows.map(toView);
}

export async function viewById(sql: Sql, id: number): Promise<ViewRow | undefined> {
  const [row] = await sql.rows(`select ${VIEW_COLUMNS} from ${VIEW_FROM} where v.id = $1`, [id]);
  return row ? toView(row) : undefined;
}

export async function viewByName(sql: Sql, name: string): Promise<ViewRow | undefined> {
  const [row] = await sql.rows(`select ${VIEW_COLUMNS} from ${VIEW_FROM} where v.name = $1`, [name]);
  return row ? toView(row) : undefined;
}

/** the view a request signed with this TSIG key reads (an active key only), or undefined: the base zone */
export async function viewOfKey(sql: Sql, keyName: string): Promise<{ id: number; name: string } | undefined> {
  const [row] = await sql.rows<{ id: string; name: string }>(
    `select v.id, v.name from views v join tsig_keys k on k.id = v.tsig_key_id where k.name = $1 and k.revoked_at is null`,
    [keyName],
  );
  return row ? { id: Number(row.id), name: row.name } : undefined;
}

export interface ViewFields {
  name: string;
  networks: string[];
  precedence: number;
  tsigKeyId: number;
  notify: string[];
}

export async function insertView(sql: Sql, fields: ViewFields): Promise<number> {
  const [row] = await sql.rows<{ id: string }>(
    `insert into views (name, networks, precedence, tsig_key_id, notify) values ($1, $2, $3, $4, $5) returning id`,
    [fields.name, fields.networks, fields.precedence, fields.tsigKeyId, fields.notify],
  );
  return Number(row.id);
}

export async function updateView(sql: Sql, id: number, fields: ViewFields): Promise<void> {
  await sql.rows(`update views set name = $2, networks = $3, precedence = $4, tsig_key_id = $5, notify = $6 where id = $1`, [
    id,
    fields.name,
    fields.networks,
    fields.precedence,
    fields.tsigKeyId,
    fields.notify,
  ]);
}

/** a view of steering's own for a rule's networks as written (`steeringNetworks`), made with its own key */
export async function insertSteeringView(
  sql: Sql,
  fields: { name: string; networks: string[]; tsigKeyId: number; steeringNetworks: string },
): Promise<number> {
  const [row] = await sql.rows<{ id: string }>(
    `insert into views (name, networks, precedence, tsig_key_id, steering_networks) values ($1, $2, 0, $3, $4) returning id`,
    [fields.name, fields.networks, fields.tsigKeyId, fields.steeringNetworks],
  );
  return Number(row.id);
}

/** a steering view's networks, computed again (a rule written, the country database upgraded) */
export async function setViewNetworks(sql: Sql, id: number, networks: string[]): Promise<void> {
  await sql.rows(`update views set networks = $2 where id = $1`, [id, networks]);
}

/**
 * the views of steering's own without their networks (a country's are thousands of blocks): what steering's
 * publication and the API's reads need, by id
 */
export async function steeringViewNames(sql: Sql): Promise<{ id: number; name: string; steeringNetworks: string; tsigKeyId: number }[]> {
  const rows = await sql.rows(`select id, name, steering_networks, tsig_key_id from views where steering_networks is not null order by id`);
  return rows.map((r) => ({ id: Number(r.id), name: r.name, steeringNetworks: r.steering_networks, tsigKeyId: Number(r.tsig_key_id) }));
}

/** the views of steering's own with their networks, by id */
export async function steeringViews(sql: Sql): Promise<ViewRow[]> {
  const rows = await sql.rows(`select ${VIEW_COLUMNS} from ${VIEW_FROM} where v.steering_networks is not null order by v.id`);
  return rows.map(toView);
}

/** the view, its overlays and serials go together (the foreign keys cascade) */
export async function deleteView(sql: Sql, id: number): Promise<boolean> {
  return (await sql.affected(`delete from views where id = $1`, [id])) > 0;
}

/** whether the TSIG key is active and the operator's own (no user): a view's transfers read every zone */
export async function isOperatorTsigKey(sql: Sql, id: number): Promise<boolean> {
  const rows = await sql.rows(`select 1 from tsig_keys where id = $1 and user_id is null and revoked_at is null`, [id]);
  return rows.length > 0;
}

function toOverlay(row: Record<string, any>): OverlayRow {
  return { viewId: Number(row.view_id), owner: row.owner, type: row.type, action: row.action, records: row.records ?? [] };
}

/** a zone's overlays at some owners, of every view (the zone rules check each view's zone) or of one */
export async function overlaysAt(sql: Sql, domainId: number, owners: readonly string[], viewId?: number): Promise<OverlayRow[]> {
  if (!owners.length) return [];
  const rows = await sql.rows(
    `select view_id, owner, type, action, records from view_overlays
      where domain_id = $1 and owner = any($2::text[]) and ($3::bigint is null or view_id = $3) order by view_id, owner, type`,
    [domainId, owners, viewId ?? null],
  );
  return rows.map(toOverlay);
}

/** a zone's overlays in one view, or in every view */
export async function overlaysOfZone(sql: Sql, domainId: number, viewId?: number): Promise<OverlayRow[]> {
  const rows = await sql.rows(
    `select view_id, owner, type, action, records from view_overlays
      where domain_id = $1 and ($2::bigint is null or view_id = $2) order by view_id, owner, type`,
    [domainId, viewId ?? null],
  );
  return rows.map(toOverlay);
}

/** the serial of a (zone, view) with an overlay, or undefined: the view's zone is the base zone */
export async function viewSerial(sql: Sql, domainId: number, viewId: number): Promise<number | undefined> {
  const [row] = await sql.rows<{ serial: string }>(`select serial from view_serials where domain_id = $1 and view_id = $2`, [
    domainId,
    viewId,
  ]);
  return row ? Number(row.serial) : undefined;
}

/**
 * Writes (or with `action` undefined, clears) a view's overlay of one RRset and steps that view's serial of the
 * zone, in the caller's transaction: the first overlay of a (zone, view) starts its serial one above the base's
 * (the serial its secondaries hold: they served the base zone until now), and the zone row is marked as having a
 * view's zone (`has_view_zones`: it stays so). RFC 1982 arithmetic.
 *
 * The same statement writes the change's `view.changed` event (docs/events.md), so the event exists exactly when
 * the view's serial moved. It is the operator's event (no user): views and their overlays are the operator's, and
 * a zone's owner, who may not read them, is not told them by the feed either.
 */
export async function writeOverlay(
  sql: Sql,
  write: {
    domainId: number;
    viewId: number;
    /** the view's name, as its event names it */
    view: string;
    owner: string;
    type: string;
    action?: OverlayAction;
    records: { ttl: number; rdata: string }[];
    /** who set or cleared it, as a journal row names its author (the event is the change's only record) */
    author: ChangeAuthorFields;
  },
): Promise<number> {
  if (write.action)
    await sql.rows(
      `insert into view_overlays (domain_id, view_id, owner, type, action, records) values ($1, $2, $3, $4, $5, $6::jsonb)
         on conflict (domain_id, view_id, owner, type) do update set action = excluded.action, records = excluded.records, updated_at = now()`,
      [write.domainId, write.viewId, write.owner, write.type, write.action, JSON.stringify(write.records)],
    );
  else
    await sql.rows(`delete from view_overlays where domain_id = $1 and view_id = $2 and owner = $3 and type = $4`, [
      write.domainId,
      write.viewId,
      write.owner,
      write.type,
    ]);
  // the zone row says it has a view's zone from now on (a signed zone's change without the lock then waits for it)
  const [row] = await sql.rows<{ serial: string }>(
    `with marked as (update domains set has_view_zones = true where id = $1 and not has_view_zones),
          stepped as (insert into view_serials (domain_id, view_id, serial)
                        select id, $2, (serial + 1) % 4294967296 from domains where id = $1
                        on conflict (domain_id, view_id) do update set serial = (view_serials.serial + 1) % 4294967296
                      returning serial),
          event as (${insertEventsSql(
            `select 'view.changed', d.id, d.name, null, null,
                    jsonb_build_object('zone', d.name, 'view', $3::text, 'viewId', $2::bigint, 'owner', $4::text, 'type', $5::text,
                                       'action', $6::text, 'serial', s.serial, 'records', $7::jsonb,
                                       'author', jsonb_strip_nulls($8::jsonb))
               from domains d, stepped s where d.id = $1`,
          )})
     select serial from stepped`,
    [
      write.domainId,
      write.viewId,
      write.view,
      write.owner,
      write.type,
      write.action ?? 'clear',
      JSON.stringify(write.records),
      JSON.stringify(write.author),
    ],
  );
  sql.journalWritten();
  return Number(row.serial);
}

/** an overlay change of one view of a zone, as its `view.changed` event told it (the view's history) */
export interface ViewChangeRow {
  /** the event's id */
  id: number;
  createdAt: Date;
  owner: string;
  type: string;
  action: OverlayAction | 'clear';
  /** the view's serial of the zone the change stepped to */
  serial: number;
  /** a replace's records; none for hide and clear */
  records: { ttl: number; rdata: string }[];
  /** undefined for an event written before events named their author */
  author?: ChangeAuthorFields;
}

/**
 * A view's overlay changes of a zone, newest first, before the event `beforeId`, at most `limit`: its
 * `view.changed` events (kept as long as the event feed keeps them, HISTORY_KEEP_DAYS), read by the partial index
 * on (domain_id, id). An event names its view by id; one written before events named the id, by name.
 */
export async function viewChanges(
  sql: Sql,
  domainId: number,
  view: { id: number; name: string },
  page: { limit: number; beforeId?: number },
): Promise<ViewChangeRow[]> {
  const rows = await sql.rows(
    `select id, created_at, data from events
      where domain_id = $1 and type = 'view.changed' and ($5::bigint is null or id < $5)
        and coalesce((data->>'viewId')::bigint = $2, data->>'view' = $3)
      order by id desc limit $4`,
    [domainId, view.id, view.name, page.limit, page.beforeId ?? null],
  );
  return rows.map((r) => ({
    id: Number(r.id),
    createdAt: new Date(r.created_at),
    owner: r.data.owner,
    type: r.data.type,
    action: r.data.action,
    serial: Number(r.data.serial),
    records: r.data.records ?? [],
    author: r.data.author ?? undefined,
  }));
}

/**
 * A statement part for the write engine's one statement (zone-writes.ts): the views of the zone whose zone this
 * change moves step their serial by one. A view's zone moves when the change touches an RRset (an owner and
 * type, `touched`) that the view does not override: a base change under a view's `replace` or `hide` is not seen
 * in that view, so its serial stays. Views without a serial row are the base zone and move with it.
 *
 * Each key (`owner type`, the type its last word) is split into the overlay's owner and type, so that a view's
 * overlay is probed on its unique index (zone, view, owner, type): compared as `owner || ' ' || type`, every
 * overlay of every zone was read for each view of a changed zone.
 */
export function stepViewSerialsSql(domainIdSql: string, touchedParam: string): string {
  return `update view_serials vs set serial = (vs.serial + 1) % 4294967296
      where vs.domain_id = ${domainIdSql} and exists (
        select 1 from unnest(${touchedParam}::text[]) as t(rrset), lateral (select substring(t.rrset from '[^ ]+$') as type) k
         where not exists (select 1 from view_overlays o
                            where o.domain_id = vs.domain_id and o.view_id = vs.view_id
                              and o.owner = left(t.rrset, -length(k.type) - 1) and o.type = k.type))`;
}

/**
 * The statement part that steps the serial of every view's zone of a signed zone (or of one whose signing this
 * change ends), for the write engine's one statement: the base's signer records are in every view's zone, and
 * every step of a signed zone re-signs its SOA at least, so each view's zone is signed again in the change's
 * transaction (services/dnssec/view-signing.ts) under its new serial. Returns the views stepped and their serials.
 */
export function stepEveryViewSerialSql(domainIdSql: string): string {
  return `update view_serials vs set serial = (vs.serial + 1) % 4294967296 where vs.domain_id = ${domainIdSql} returning vs.view_id, vs.serial`;
}

/** a view's serial of a zone just stepped: the view's zone is then signed again for it */
export interface ViewStep {
  viewId: number;
  serial: number;
}

/**
 * What a view's zone of a signed zone holds beside the base's signer records (docs/views.md, «DNSSEC»): its own
 * signer records, and the ids of the base's (`dnssec_records`) that it leaves out
 */
export interface ViewSigner {
  hidden: ReadonlySet<number>;
  records: Rr[];
}

const NO_VIEW_SIGNER: ViewSigner = { hidden: new Set(), records: [] };

/** the signer records of a (zone, view) as stored for its serial; none for a view that has no zone of its own */
export async function viewSignerOf(sql: Sql, domainId: number, viewId: number): Promise<ViewSigner> {
  const [row] = await sql.rows<{ signer_hidden: string[]; signer_records: Rr[] }>(
    `select signer_hidden, signer_records from view_serials where domain_id = $1 and view_id = $2`,
    [domainId, viewId],
  );
  if (!row) return NO_VIEW_SIGNER;
  return { hidden: new Set(row.signer_hidden.map(Number)), records: row.signer_records };
}

/** writes the signer records of some views' zones of a zone, in one statement (each view's replaces what it held) */
export async function writeViewSigners(
  sql: Sql,
  domainId: number,
  views: readonly { viewId: number; hidden: readonly number[]; records: readonly Rr[] }[],
): Promise<void> {
  if (!views.length) return;
  const rows = views.map((v) => ({
    view: v.viewId,
    hidden: v.hidden,
    records: v.records.map(({ owner, type, ttl, rdata }) => ({ owner, type, ttl, rdata })),
  }));
  await sql.rows(
    `update view_serials vs set signer_hidden = array(select jsonb_array_elements_text(x.hidden)::bigint), signer_records = x.records
       from jsonb_to_recordset($2::jsonb) as x(view bigint, hidden jsonb, records jsonb)
      where vs.domain_id = $1 and vs.view_id = x.view`,
    [domainId, JSON.stringify(rows)],
  );
}

/** a zone no longer signed: its views' zones hold no signer records of their own either */
export async function clearViewSigners(sql: Sql, domainId: number): Promise<void> {
  await sql.rows(
    `update view_serials set signer_hidden = '{}', signer_records = '[]' where domain_id = $1 and (cardinality(signer_hidden) > 0 or signer_records <> '[]')`,
    [domainId],
  );
}

/** the (zone, view)s whose serial their secondaries were not yet sent a NOTIFY of, with where to send it */
export async function unnotifiedViewZones(
  sql: Sql,
  limit = 500,
): Promise<{ domainId: number; zone: string; viewId: number; serial: number; notify: string[]; keyName: string }[]> {
  const rows = await sql.rows(
    `select vs.domain_id, d.name as zone, vs.view_id, vs.serial, v.notify, k.name as key_name
       from view_serials vs join domains d on d.id = vs.domain_id join views v on v.id = vs.view_id join tsig_keys k on k.id = v.tsig_key_id
      where vs.notified_serial is distinct from vs.serial and cardinality(v.notify) > 0 limit $1`,
    [limit],
  );
  return rows.map((r) => ({
    domainId: Number(r.domain_id),
    zone: r.zone,
    viewId: Number(r.view_id),
    serial: Number(r.serial),
    notify: r.notify,
    keyName: r.key_name,
  }));
}

export async function markViewNotified(sql: Sql, domainId: number, viewId: number, serial: number): Promise<void> {
  await sql.rows(`update view_serials set notified_serial = $3 where domain_id = $1 and view_id = $2`, [domainId, viewId, serial]);
}

/**
 * A view's zone's SOA for its NOTIFY: the base SOA with the view's serial (the base's when the view has no row
 * for the zone)
 */
export async function viewZoneSoa(
  sql: Sql,
  zone: string,
  viewId: number,
): Promise<{ rdata: string; ttl: number; serial: number } | undefined> {
  const [row] = await sql.rows<{ rdata: string; ttl: number; serial: string }>(
    `select r.rdata, r.ttl, coalesce(vs.serial, d.serial) as serial from domains d
       join records r on r.domain_id = d.id and r.owner = '@' and r.type = 'SOA'
       left join view_serials vs on vs.domain_id = d.id and vs.view_id = $2
      where d.name = $1 limit 1`,
    [zone, viewId],
  );
  return row ? { rdata: row.rdata, ttl: Number(row.ttl), serial: Number(row.serial) } : undefined;
}

/** the base zone's records at some owners (what a view's overlay lies over), the SOA aside */
export async function baseRecordsAt(sql: Sql, domainId: number, owners: readonly string[]): Promise<Rr[]> {
  if (!owners.length) return [];
  return sql.rows<Rr>(
    `select owner, type, ttl, rdata from records where domain_id = $1 and owner = any($2::text[]) and type <> 'SOA' order by id`,
    [domainId, owners],
  );
}

/** a zone for an overlay's write, its row locked (the zone's changes wait for it): its kind and its DNSSEC policy if signed */
export async function lockZoneForOverlay(
  sql: Sql,
  name: string,
): Promise<{ id: number; name: string; kind: string; serial: number; dnssec?: DnssecPolicy } | undefined> {
  const [row] = await sql.rows(
    `select d.id, d.name, d.kind, d.serial, ${DNSSEC_POLICY_JSON} as dnssec from domains d where d.name = $1 for update of d`,
    [name],
  );
  return row
    ? { id: Number(row.id), name: row.name, kind: row.kind, serial: Number(row.serial), dnssec: policyFromJson(row.dnssec) }
    : undefined;
}

/** a zone's id and name, unlocked (a read of its overlays) */
export async function zoneByName(sql: Sql, name: string): Promise<{ id: number; name: string; serial: number } | undefined> {
  const [row] = await sql.rows(`select id, name, serial from domains where name = $1`, [name]);
  return row ? { id: Number(row.id), name: row.name, serial: Number(row.serial) } : undefined;
}

/** the base zone's records, by owner and type (what a view's zone is made from) */
export async function baseRecords(sql: Sql, zoneId: number): Promise<Rr[]> {
  return sql.rows<Rr>(`select owner, type, ttl, rdata from records where domain_id = $1 order by owner, type, id`, [zoneId]);
}

/** the views with secondaries to NOTIFY, with their keys (the secret too: a NOTIFY is signed with it) */
export async function viewNotifyTargets(
  sql: Sql,
): Promise<{ id: number; name: string; notify: string[]; key: { name: string; algorithm: string; secret: Buffer } }[]> {
  const rows = await sql.rows(
    `select v.id, v.name, v.notify, k.name as key_name, k.algorithm, k.secret
       from views v join tsig_keys k on k.id = v.tsig_key_id and k.revoked_at is null where cardinality(v.notify) > 0`,
  );
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    notify: r.notify,
    key: { name: r.key_name, algorithm: r.algorithm, secret: Buffer.from(r.secret) },
  }));
}
