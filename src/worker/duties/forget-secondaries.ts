import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { serverName } from '../../dns-client/dns-client';
import type { Logger } from '../../logger';
import { PropagationRepository } from '../../repositories/propagation';
import type { Duty } from '../duties';
import { POLL_MS } from './nameserver-sets';

/** status rows of removed secondaries deleted per statement */
const FORGET_BATCH = 5000;

/**
 * The status rows of servers no longer in SECONDARIES are deleted, once per start (its runs after the first that
 * worked do nothing; one that fails is tried again at the next poll).
 */
export function forgetSecondariesDuty(settings: Settings, db: Database, log: Logger): Duty {
  const repository = new PropagationRepository(db);
  let done = false;
  return {
    name: 'forgetting removed secondaries',
    every: POLL_MS,
    awaitFirst: true,
    run: async (signal) => {
      if (done) return;
      const servers = settings.secondaries.map(serverName);
      let forgotten = 0;
      for (let deleted = FORGET_BATCH; deleted === FORGET_BATCH && !signal.aborted;) {
        deleted = await repository.forgetServersOtherThan(servers, FORGET_BATCH);
        forgotten += deleted;
      }
      if (forgotten) log.info(`propagation worker: forgot ${forgotten} status rows of servers no longer in SECONDARIES`);
      done = !signal.aborted;
    },
    where: 'propagation worker',
    failure: {
      level: 'error',
      message: 'propagation worker: forgetting the status rows of removed SECONDARIES failed; it runs again at the next poll',
    },
  };
}
