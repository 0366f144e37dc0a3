import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { hasWaitingMembers } from '../../repositories/catalog';
import type { WriteEngine } from '../../services/write-engine';
import type { Duty } from '../duties';
import { POLL_MS } from './nameserver-sets';

/**
 * Admits zones still waiting to join the catalog: the API admits a zone right after its create commits, and this
 * catches the ones whose admission did not run (the process stopped or lost the database in between). A zone
 * committed is never left out of the catalog for longer than a poll.
 */
export function catalogAdmissionDuty(settings: Settings, db: Database, engine: WriteEngine): Duty {
  return {
    name: 'catalog admission',
    every: POLL_MS,
    awaitFirst: true,
    run: async () => {
      if (await hasWaitingMembers(db)) await engine.publishWaitingMembers((work) => db.transaction(work), settings);
    },
    where: 'propagation worker',
    failure: { level: 'error', message: 'propagation worker: catalog admission failed' },
  };
}
