import type { Sql } from '../db/pool';

/**
 * A set's zones following its new NS names (migration 20261230090000): one row per set while they follow, walked by
 * the worker in zone id order under a lease (services/transfers/nameserver-set-ns-follow.ts).
 */
export interface NsFollowRow {
  setId: number;
  fromNames: string[];
  toNames: string[];
  /** the key that changed the set's NS names: the zones' history names it */
  actor: string;
  /** the zones with a lower id are done */
  nextZoneId: number;
  zonesChanged: number;
  zonesKept: number;
  /** the zones whose change the zone's rules refused (they kept their NS), with the refusal's code */
  refused: { zone: string; code: string }[];
  startedAt: Date;
}

type Raw = {
  nameserver_set: string;
  from_names: string[];
  to_names: string[];
  actor: string;
  next_zone_id: string;
  zones_changed: number;
  zones_kept: number;
  refused: { zone: string; code: string }[];
  started_at: Date;
};
const COLUMNS = 'nameserver_set, from_names, to_names, actor, next_zone_id, zones_changed, zones_kept, refused, started_at';
const toRow = (r: Raw): NsFollowRow => ({
  setId: Number(r.nameserver_set),
  fromNames: r.from_names,
  toNames: r.to_names,
  actor: r.actor,
  nextZoneId: Number(r.next_zone_id),
  zonesChanged: r.zones_changed,
  zonesKept: r.zones_kept,
  refused: r.refused,
  startedAt: new Date(r.started_at),
});

/** starts a follow; false when the set's zones still follow an earlier change */
export async function insertNsFollow(
  sql: Sql,
  follow: { setId: number; fromNames: string[]; toNames: string[]; actor: string },
): Promise<boolean> {
  const rows = await sql.rows(
    `insert into nameserver_set_ns_follows (nameserver_set, from_names, to_names, actor) values ($1, $2::text[], $3::text[], $4)
     on conflict (nameserver_set) do nothing returning nameserver_set`,
    [follow.setId, follow.fromNames, follow.toNames, follow.actor],
  );
  return rows.length > 0;
}

/** a set's follow under way, with the zones it has still to reach (one range of domains_nameserver_set_index) */
export async function nsFollowOf(sql: Sql, setId: number): Promise<(NsFollowRow & { zonesLeft: number }) | undefined> {
  const [row] = await sql.rows<Raw & { zones_left: string }>(
    `select ${COLUMNS}, (select count(*) from domains d where d.nameserver_set = f.nameserver_set and d.id >= f.next_zone_id) as zones_left
       from nameserver_set_ns_follows f where nameserver_set = $1`,
    [setId],
  );
  return row ? { ...toRow(row), zonesLeft: Number(row.zones_left) } : undefined;
}

/** takes one follow no live process holds, for `leaseSeconds` */
export async function claimNsFollow(sql: Sql, leaseSeconds: number): Promise<NsFollowRow | undefined> {
  const [row] = await sql.rows<Raw>(
    `update nameserver_set_ns_follows set lease_until = now() + make_interval(secs => $1)
      where nameserver_set = (select nameserver_set from nameserver_set_ns_follows
                               where lease_until is null or lease_until < now() order by started_at limit 1 for update skip locked)
      returning ${COLUMNS}`,
    [leaseSeconds],
  );
  return row ? toRow(row) : undefined;
}

/** the next zones of the set to follow, in id order (secondary zones' NS are their primary's: not theirs to change) */
export async function zonesToFollow(
  sql: Sql,
  setId: number,
  fromId: number,
  limit: number,
): Promise<{ id: number; name: string; secondary: boolean }[]> {
  const rows = await sql.rows<{ id: string; name: string; kind: string }>(
    `select id, name, kind from domains where nameserver_set = $1 and id >= $2 order by id limit $3`,
    [setId, fromId, limit],
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name, secondary: r.kind === 'secondary' }));
}

/** the refused zones a follow names, the first ones met (the audit event's detail); the count of those kept says the rest */
export const MAX_REFUSED_KEPT = 100;

/** records a batch done and renews the lease; false when the follow is no longer this process's to walk */
export async function advanceNsFollow(
  sql: Sql,
  setId: number,
  done: { nextZoneId: number; changed: number; kept: number; refused: { zone: string; code: string }[] },
  leaseSeconds: number,
): Promise<boolean> {
  const rows = await sql.rows(
    `update nameserver_set_ns_follows
        set next_zone_id = $2, zones_changed = zones_changed + $3, zones_kept = zones_kept + $4,
            refused = (select coalesce(jsonb_agg(e order by n), '[]') from (select e, n from jsonb_array_elements(refused || $5::jsonb)
                         with ordinality as t(e, n) order by n limit ${MAX_REFUSED_KEPT}) x),
            lease_until = now() + make_interval(secs => $6)
      where nameserver_set = $1 returning nameserver_set`,
    [setId, done.nextZoneId, done.changed, done.kept, JSON.stringify(done.refused), leaseSeconds],
  );
  return rows.length > 0;
}

/** gives the follow back to any process (a worker that stops) */
export async function releaseNsFollow(sql: Sql, setId: number): Promise<void> {
  await sql.rows(`update nameserver_set_ns_follows set lease_until = null where nameserver_set = $1`, [setId]);
}

/** ends the follow: its row as it was last, or undefined when another ended it */
export async function endNsFollow(sql: Sql, setId: number): Promise<NsFollowRow | undefined> {
  const [row] = await sql.rows<Raw>(`delete from nameserver_set_ns_follows where nameserver_set = $1 returning ${COLUMNS}`, [setId]);
  return row ? toRow(row) : undefined;
}
