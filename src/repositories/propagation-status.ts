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
 * What a zone's propagation is read from, as columns of a statement over its zone `d` joined with its nameserver
 * set `n` (`join nameserver_sets n on n.id = d.nameserver_set`): whether it is served, its secondary state, its
 * set, and its servers' rows as one JSON list in server order. One row a zone, so that a zone list reads them
 * with its page (listDomainsWithOwnersAndFacts) and a zone's serial and its servers' rows are of one snapshot.
 */
export const PROPAGATION_COLUMNS = `d.serving, (select s.state from secondary_zone_state s where s.domain_id = d.id) as secondary_state,
       n.name as set_name, n.secondaries,
       (select json_agg(json_build_object('server', z.server, 'served_serial', z.served_serial, 'state', z.state,
                                          'error', z.error, 'updated_at', z.updated_at) order by z.server)
          from zone_server_status z where z.domain_id = d.id) as servers`;

/** PROPAGATION_COLUMNS of one row, as pg hands them over */
export interface PropagationColumns {
  serving: boolean;
  secondary_state: string | null;
  set_name: string;
  secondaries: string[] | null;
  servers:
    | { server: string; served_serial: number | null; state: ServerStatusRow['state']; error: string | null; updated_at: string | null }[]
    | null;
}

/** a zone's propagation read from its serial and its PROPAGATION_COLUMNS */
export function propagationReadOf(serial: number | string, row: PropagationColumns): PropagationRead {
  return {
    serial: Number(serial),
    notServed: row.serving ? null : row.secondary_state === 'expired' ? 'expired' : 'pending',
    set: { name: row.set_name, secondaries: row.secondaries },
    rows: (row.servers ?? []).map((server) => ({
      server: server.server,
      servedSerial: server.served_serial === null ? null : Number(server.served_serial),
      state: server.state,
      error: server.error,
      updatedAt: server.updated_at ? new Date(server.updated_at) : null,
    })),
  };
}

/**
 * readPropagationRows for many zones (a list of zones shows each one's state), by zone id: one statement, so the
 * zones' serials and their servers' rows are of one snapshot (two statements side by side could pair a serial
 * with the rows of a later one: a server shown as serving a serial the zone did not have yet), and a statement
 * fewer (each costs the service a round of system calls whatever it reads)
 */
export async function readPropagationRowsOf(sql: Sql, domainIds: readonly number[]): Promise<Map<number, PropagationRead>> {
  const rows = await sql.rows<PropagationColumns & { id: string; serial: string }>(
    `select d.id, d.serial, ${PROPAGATION_COLUMNS}
       from domains d join nameserver_sets n on n.id = d.nameserver_set
      where d.id = any($1::bigint[])`,
    [domainIds.map(String)],
  );
  return new Map(rows.map((row) => [Number(row.id), propagationReadOf(row.serial, row)]));
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
       left join lateral (select created_at from changes where zone = d.name and serial_after = d.serial and kind <> 'comment-changed'
                             order by id desc limit 1) c on true
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
