import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { endTimedOutSessionsNow } from '../../services/people/sessions.service';
import type { Duty } from '../duties';
import { PRUNE_EVERY_MS } from './retention';

/**
 * Sessions that timed out (SESSION_IDLE_TIMEOUT / SESSION_ABSOLUTE_TIMEOUT) and were never presented again:
 * ended and audited now, not never. At start, then with the retention.
 */
export function timedOutSessionsDuty(settings: Settings, db: Database, log: Logger): Duty {
  return {
    name: 'timed-out sessions',
    every: PRUNE_EVERY_MS,
    firstAfter: 0,
    run: async () => {
      const sessions = await endTimedOutSessionsNow(db, settings.sessions);
      if (sessions > 0) log.info(`sessions: ended ${sessions} that timed out (SESSION_IDLE_TIMEOUT / SESSION_ABSOLUTE_TIMEOUT)`);
    },
    where: 'session sweep',
    failure: { level: 'warn', message: 'sessions: ending the timed-out sessions failed; it runs again later' },
  };
}
