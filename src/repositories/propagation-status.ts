import type { EntityManager } from '@mikro-orm/postgresql';

/** The read model of a zone's propagation: its serial and the status rows the propagation worker keeps. */
export interface ServerStatusRow {
  server: string;
  servedSerial: number | null;
  state: 'pending' | 'in_sync' | 'error';
  error: string | null;
  updatedAt: Date | null;
}

/** a zone's serial and its status rows, by server name; undefined when there is no such zone */
export async function readPropagationRows(em: EntityManager, domainId: number): Promise<{ serial: number; rows: ServerStatusRow[] } | undefined> {
  const connection = em.getConnection();
  const [domain] = await connection.execute<{ serial: string }[]>('select serial from domains where id = ?', [domainId]);
  if (!domain) return undefined;
  const rows = await connection.execute<{ server: string; served_serial: string | null; state: ServerStatusRow['state']; error: string | null; updated_at: Date }[]>(
    'select server, served_serial, state, error, updated_at from zone_server_status where domain_id = ? order by server',
    [domainId],
  );
  return {
    serial: Number(domain.serial),
    rows: rows.map((r) => ({
      server: r.server,
      servedSerial: r.served_serial === null ? null : Number(r.served_serial),
      state: r.state,
      error: r.error,
      updatedAt: r.updated_at ? new Date(r.updated_at) : null,
    })),
  };
}
