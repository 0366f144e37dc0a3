import type { Sql } from '../db/pool';

/** The read model of a zone's propagation: its serial and the status rows the propagation worker keeps. */
export interface ServerStatusRow {
  server: string;
  servedSerial: number | null;
  state: 'pending' | 'in_sync' | 'error';
  error: string | null;
  updatedAt: Date | null;
}

/**
 * Why a zone is not served (`domains.serving` false: docs/transfers.md, «Secondary zones»): a secondary zone
 * never transferred (`pending`) or past its EXPIRE (`expired`); null for a served zone.
 */
export type NotServed = 'pending' | 'expired' | null;

/**
 * a zone's serial, whether it is served (`notServed`), its nameserver set (its name, and its secondaries: null
 * for the default set, whose are SECONDARIES) and its status rows, by server name; undefined when there is no
 * such zone
 */
export interface PropagationRead {
  serial: number;
  notServed: NotServed;
  set: { name: string; secondaries: string[] | null };
  rows: ServerStatusRow[];
}

export async function readPropagationRows(sql: Sql, domainId: number): Promise<PropagationRead | undefined> {
  return (await readPropagationRowsOf(sql, [domainId])).get(domainId);
}

/**
 * readPropagationRows for many zones (a list of zones shows each one's state), by zone id: one statement, so the
 * zones' serials and their servers' rows are of one snapshot (two statements side by side could pair a serial
 * with the rows of a later one: a server shown as serving a serial the zone did not have yet), and a statement
 * fewer (each costs the service a round of system calls whatever it reads)
 */
export async function readPropagationRowsOf(sql: Sql, domainIds: readonly number[]): Promise<Map<number, PropagationRead>> {
  const rows = await sql.rows<{
    id: string;
    serial: string;
    serving: boolean;
    secondary_state: string | null;
    set_name: string;
    secondaries: string[] | null;
    server: string | null;
    served_serial: string | null;
    state: ServerStatusRow['state'];
    error: string | null;
    updated_at: Date | null;
  }>(
    `select d.id, d.serial, d.serving, s.state as secondary_state, n.name as set_name, n.secondaries,
            z.server, z.served_serial, z.state, z.error, z.updated_at
       from domains d join nameserver_sets n on n.id = d.nameserver_set left join secondary_zone_state s on s.domain_id = d.id
       left join zone_server_status z on z.domain_id = d.id
      where d.id = any($1::bigint[])
      order by d.id, z.server`,
    [domainIds.map(String)],
  );
  const found = new Map<number, PropagationRead>();
  for (const r of rows) {
    const id = Number(r.id);
    let read = found.get(id);
    if (!read) {
      read = {
        serial: Number(r.serial),
        notServed: r.serving ? null : r.secondary_state === 'expired' ? 'expired' : 'pending',
        set: { name: r.set_name, secondaries: r.secondaries },
        rows: [],
      };
      found.set(id, read);
    }
    if (r.server !== null)
      read.rows.push({
        server: r.server,
        servedSerial: r.served_serial === null ? null : Number(r.served_serial),
        state: r.state,
        error: r.error,
        updatedAt: r.updated_at ? new Date(r.updated_at) : null,
      });
  }
  return found;
}

/** how far one secondary is behind, over all zones (see readSecondaryLag) */
export interface SecondaryLag {
  server: string;
  zonesBehind: number;
  serialsBehind: number;
  secondsBehind: number;
}

/**
 * Per configured server, of every nameserver set (the default set's are `defaultSetServers`, SECONDARIES; every
 * other set's are in its row): the zones it does not serve at their serial, the largest serial difference among
 * them (where it answered at all), and the age of the oldest change it lacks (the journal row that made the
 * zone's current serial). Reads only the rows not in sync (the partial index zone_server_status_due_index).
 * Zones not served (a secondary zone never transferred, or expired: docs/transfers.md) are left out: no secondary
 * is meant to serve them, so they are not behind (they used to count as behind for as long as they were not served).
 */
export async function readSecondaryLag(sql: Sql, defaultSetServers: string[]): Promise<SecondaryLag[]> {
  const sets = await sql.rows<{ server: string }>(
    'select distinct unnest(secondaries) as server from nameserver_sets where secondaries is not null',
  );
  const servers = [...new Set([...defaultSetServers, ...sets.map((row) => row.server)])];
  if (!servers.length) return [];
  const rows = await sql.rows<{ server: string; behind: string; serials: string | null; seconds: number | null }>(
    `select s.server, count(*) as behind,
            max(d.serial - s.served_serial) filter (where s.served_serial is not null) as serials,
            max(extract(epoch from now() - c.created_at))::float8 as seconds
       from zone_server_status s
       join domains d on d.id = s.domain_id
       left join lateral (select created_at from changes where zone = d.name and serial_after = d.serial order by id desc limit 1) c on true
      where s.state <> 'in_sync' and s.server = any($1::text[]) and d.serving
      group by s.server`,
    [servers],
  );
  const byServer = new Map(rows.map((r) => [r.server, r]));
  return servers.map((server) => {
    const row = byServer.get(server);
    return {
      server,
      zonesBehind: Number(row?.behind ?? 0),
      serialsBehind: Math.max(0, Number(row?.serials ?? 0)),
      secondsBehind: Math.max(0, Number(row?.seconds ?? 0)),
    };
  });
}
