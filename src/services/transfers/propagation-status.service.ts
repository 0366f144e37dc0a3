import type { Database } from '../../db/pool';
import { hostPortName, Settings } from '../../config/settings';
import {
  NotServed,
  PropagationRead,
  readPropagationRows,
  readPropagationRowsOf,
  readSecondaryLag,
  SecondaryLag,
  ServerStatusRow,
} from '../../repositories/propagation-status';

/**
 * pending: a change is not yet served (also: the zone is not served at all, see `NOT_SERVED`); in_sync: every
 * configured secondary serves the current serial; error: one keeps failing; no_secondaries: SECONDARIES is
 * empty, so there is nothing to propagate to.
 */
export type PropagationState = 'pending' | 'in_sync' | 'error' | 'no_secondaries';

export type ServerPropagation = ServerStatusRow;

export interface PropagationStatus {
  serial: number;
  state: PropagationState;
  /** why the zone is in its state, in words, when that is not evident from the servers ("no secondaries configured") */
  message: string | null;
  servers: ServerPropagation[];
}

/**
 * A zone that is not served (docs/transfers.md, «Secondary zones»): its secondaries do not serve it either (a
 * pending zone is refused them; an expired one left their catalog), whatever its status rows last found (an
 * expired zone's say `in_sync` at the serial served before). Its status is `pending`, each server `pending` with
 * this reason as its error, and the reason is the message: no state of its own (the GraphQL and REST enums and
 * the console stay as they are).
 */
const NOT_SERVED: Record<Exclude<NotServed, null>, { message: string; server: string }> = {
  pending: {
    message:
      'not served: a secondary zone not transferred from its primaries yet (PENDING, see secondary.lastError); its secondaries serve it once it is',
    server: 'the zone is not served (a secondary zone not transferred yet)',
  },
  expired: {
    message:
      'not served: the secondary zone EXPIRED (no primary answered within its SOA EXPIRE, see secondary.lastError); it left its catalog and its secondaries answer REFUSED until a refresh works',
    server: 'the zone is not served (an expired secondary zone)',
  },
};

/**
 * The propagation of a zone as the API shows it (GraphQL `Domain.propagation`, REST status, subscriptions).
 * It follows the configured SECONDARIES whatever their history: status rows of a server no longer configured
 * are not shown (the worker deletes them), a configured server without a row yet (newly configured: the worker
 * is adopting the zones it already serves) is pending, and with no secondaries the state says so.
 */
export class PropagationStatusService {
  private readonly configured: string[];

  constructor(settings: Settings) {
    this.configured = settings.secondaries.map(hostPortName);
  }

  /** the status of a zone by id; undefined when there is no such zone (deleted since it was read) */
  async ofZone(db: Database, domainId: number): Promise<PropagationStatus | undefined> {
    const read = await readPropagationRows(db, domainId);
    return read && this.statusOf(read);
  }

  /** the status of many zones in one statement, by zone id; a zone gone is left out */
  async ofZones(db: Database, domainIds: readonly number[]): Promise<Map<number, PropagationStatus>> {
    const reads = await readPropagationRowsOf(db, domainIds);
    return new Map([...reads].map(([id, read]) => [id, this.statusOf(read)]));
  }

  /** the status of a zone from what it is made of, read already (a zone list reads it with its page) */
  statusOf(read: PropagationRead): PropagationStatus {
    // the zone's nameserver set's secondaries (docs/transfers.md); the default set's are SECONDARIES
    const status =
      read.set.secondaries === null
        ? this.status(read.serial, read.rows)
        : this.status(read.serial, read.rows, read.set.secondaries, `no secondaries in nameserver set ${read.set.name}`);
    if (!read.notServed || status.state === 'no_secondaries') return status;
    const why = NOT_SERVED[read.notServed];
    return {
      ...status,
      state: 'pending',
      message: why.message,
      servers: status.servers.map((server) => ({ ...server, state: 'pending' as const, error: why.server })),
    };
  }

  /** the status of a zone that has gone meanwhile: nothing left to propagate */
  gone(serial: number): PropagationStatus {
    return this.status(serial, []);
  }

  /** how far each secondary is behind, over all zones, every nameserver set's (the metrics' gauges) */
  secondaryLag(db: Database): Promise<SecondaryLag[]> {
    return readSecondaryLag(db, this.configured);
  }

  private status(
    serial: number,
    rows: ServerStatusRow[],
    configured = this.configured,
    none = 'no secondaries configured (SECONDARIES is empty)',
  ): PropagationStatus {
    if (!configured.length) return { serial, state: 'no_secondaries', message: none, servers: [] };
    const byServer = new Map(rows.map((row) => [row.server, row]));
    const servers = configured.map(
      (server) => byServer.get(server) ?? { server, servedSerial: null, state: 'pending' as const, error: null, updatedAt: null },
    );
    const state: PropagationState = servers.some((s) => s.state === 'error')
      ? 'error'
      : servers.some((s) => s.state === 'pending')
        ? 'pending'
        : 'in_sync';
    return { serial, state, message: null, servers };
  }
}
