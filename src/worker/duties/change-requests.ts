import type { Database } from '../../db/pool';
import type { Services } from '../../services';
import type { Duty } from '../duties';
import { DUE_PER_PASS } from '../../services/zones/change-requests.service';

/** the name the runner knows the scheduled changes' duty by */
export const SCHEDULED_CHANGES = 'scheduled changes';

/**
 * Scheduled changes (docs/changes.md, «Scheduled changes»): four times a second, the approved change requests whose
 * time has come are claimed (`FOR UPDATE SKIP LOCKED` and a lease, so that each is applied once whatever the
 * number of processes, and taken up again if its process died before its apply committed) and applied together
 * (those that change one RRset one after another), each planned again on the zone as it is then, or refused with an
 * event. Their state is in PostgreSQL alone: a
 * restart, or a failover, loses nothing.
 */
export function scheduledChangesDuty(changeRequests: Services['changeRequests'], db: Database): Duty {
  return {
    name: SCHEDULED_CHANGES,
    // a change is to be served by T + 2 s at every secondary: a quarter of a second to find it due, the apply and
    // the secondaries' transfer after it (an index lookup that finds nothing, when nothing is due)
    every: 250,
    firstAfter: 0,
    run: async () => {
      // a full batch: more are due, claimed at once rather than a second later
      while ((await changeRequests.applyDue(db)) === DUE_PER_PASS);
    },
    where: 'scheduled changes',
    failure: {
      level: 'warn',
      message: 'scheduled changes: applying the due change requests failed; it runs again in a quarter of a second',
    },
  };
}
