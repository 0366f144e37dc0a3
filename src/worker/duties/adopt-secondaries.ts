import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { serverName } from '../../dns-client/dns-client';
import { PropagationRepository } from '../../repositories/propagation';
import type { Duty } from '../duties';
import { NameserverFleet, POLL_MS } from './nameserver-sets';
import { FAST_CHECK_MS } from './status-checks';

/**
 * zones given status rows for a newly configured secondary per poll, their first checks spread over the poll
 * interval; 100,000 zones are adopted in about 100 s, and their checks come as they fall due (in rounds of
 * STATUS_BATCH, larger while rounds are full), not in one burst at the secondary
 */
const ADOPT_BATCH = 1000;
const ADOPT_SPREAD_MS = POLL_MS;

/**
 * Makes the status rows follow SECONDARIES whatever its history (with forget-secondaries.ts): every zone gets a
 * row for each configured server, ADOPT_BATCH zones per poll, from the lowest zone id up, once per start. A zone
 * made before a secondary was configured is thus checked like any other: its first check learns the serial the
 * server already serves (in sync, or behind: NOTIFY on the back-off turns). Zones created later get their rows
 * from their journal row (the outbox drain's claim).
 */
export function adoptSecondariesDuty(settings: Settings, db: Database, fleet: NameserverFleet, checkIn: (ms: number) => void): Duty {
  const repository = new PropagationRepository(db);
  /** the next zone id to adopt from; undefined once every zone has its rows */
  let adoptAfter: number | undefined = 0;
  return {
    name: 'adoption of new secondaries',
    every: POLL_MS,
    awaitFirst: true,
    run: async () => {
      if (adoptAfter === undefined) return;
      if (!fleet.servers.size) {
        adoptAfter = undefined;
        return;
      }
      const last = await repository.adoptZones(settings.secondaries.map(serverName), adoptAfter, ADOPT_BATCH, ADOPT_SPREAD_MS);
      adoptAfter = last;
      if (last !== undefined) checkIn(FAST_CHECK_MS);
    },
    where: 'propagation worker',
    failure: { level: 'error', message: 'propagation worker: adopting zones for SECONDARIES failed; it runs again at the next poll' },
  };
}
