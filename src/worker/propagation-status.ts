/**
 * The propagation state of one zone, as the API shows it (GraphQL `Domain.propagation`, REST status view):
 * the zone's serial, and per secondary name server the serial it serves and pending / in_sync / error.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export type PropagationState = 'pending' | 'in_sync' | 'error';

export interface ServerPropagation {
  server: string;
  servedSerial: number | null;
  state: PropagationState;
  error: string | null;
  updatedAt: Date | null;
}

export interface PropagationStatus {
  serial: number;
  /** error if any server is in error, else pending if any is pending, else in_sync (also with no secondaries) */
  state: PropagationState;
  servers: ServerPropagation[];
}

/**
 * Reads the status of a zone; undefined when there is no such zone. `secondaries` ('addr:port', as configured)
 * adds servers that have no status row yet (a change not yet picked up by a worker) as pending.
 */
export async function getPropagationStatus(em: EntityManager, domainId: number, secondaries: string[] = []): Promise<PropagationStatus | undefined> {
  const connection = em.getConnection();
  const [domain] = await connection.execute<{ serial: string }[]>('select serial from domains where id = ?', [domainId]);
  if (!domain) return undefined;
  const rows = await connection.execute<{ server: string; served_serial: string | null; state: PropagationState; error: string | null; updated_at: Date }[]>(
    'select server, served_serial, state, error, updated_at from zone_server_status where domain_id = ? order by server',
    [domainId],
  );
  const servers: ServerPropagation[] = rows.map((r) => ({
    server: r.server,
    servedSerial: r.served_serial === null ? null : Number(r.served_serial),
    state: r.state,
    error: r.error,
    updatedAt: r.updated_at ? new Date(r.updated_at) : null,
  }));
  for (const server of secondaries) {
    if (!servers.some((s) => s.server === server)) servers.push({ server, servedSerial: null, state: 'pending', error: null, updatedAt: null });
  }
  const state: PropagationState = servers.some((s) => s.state === 'error') ? 'error' : servers.some((s) => s.state === 'pending') ? 'pending' : 'in_sync';
  return { serial: Number(domain.serial), state, servers };
}
