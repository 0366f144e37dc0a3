import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { serverName } from '../../dns-client/dns-client';
import type { Logger } from '../../logger';
import type { WriteEngine } from '../../services/write-engine';
import type { Duty } from '../duties';
import { POLL_MS } from './nameserver-sets';

/**
 * Moved zones leave their old set's catalog once every secondary of their new set serves them (their status rows
 * hold a served serial): until then both sets list them, so some set serves them throughout a move.
 */
export function departuresDuty(settings: Settings, db: Database, log: Logger, engine: WriteEngine): Duty {
  return {
    name: "moved zones' departures",
    every: POLL_MS,
    run: async () => {
      const ended = await engine.endServedDepartures((work) => db.transaction(work), settings, settings.secondaries.map(serverName));
      if (ended) log.info(`propagation worker: ${ended} moved zones left their previous nameserver set's catalog`);
    },
    where: 'propagation worker',
    failure: { level: 'error', message: "propagation worker: ending moved zones' departures failed; it runs again at the next poll" },
  };
}
