import type { Database } from '../../db/pool';
import { querySoaSerial } from '../../dns-client/dns-client';
import { serialGreaterThan } from '../../dns/serial';
import { CheckOutcome, DueCheck, PropagationRepository, ServerState } from '../../repositories/propagation';
import type { Duty } from '../duties';
import type { Notifier } from '../notifier';
import type { NameserverFleet } from './nameserver-sets';
import type { SecondaryRequests } from '../../services/transfers/secondary-requests';

export const STATUS_CHECKS = 'status checks';
const STATUS_TICK_MS = 500;
export const STATUS_BATCH = 50;
/**
 * a full round doubles the next one, up to this: a change to every zone, or a hoster's secondaries taking 100,000
 * zones at 100 to 200 a second each, is more checks a second than rounds of 50 make
 */
const STATUS_BATCH_MAX = 800;
/** a claimed status check may take this long before another worker may take it again */
const STATUS_LEASE_SECONDS = 10;
/** failures (no answer, REFUSED, ...) in a row before a server is shown in state error */
const ERROR_AFTER_ATTEMPTS = 14;
/** checks of a server that answers but lags before it is shown in state error */
const LAG_ERROR_AFTER_ATTEMPTS = 20;
/**
 * The first checks of a change come at a steady short interval, then back off. A NOTIFY travels over UDP and
 * can be lost; a quick re-NOTIFY keeps that from leaving a secondary behind until its refresh timer. (It does
 * not shorten Knot's own hold-up of up to a second for a zone that changed within the last second: that is
 * Knot's scheduler, and `block-notify-after-transfer` removes it, docs/propagation.md.)
 */
const FAST_CHECKS = 10;
export const FAST_CHECK_MS = 100;
const MAX_CHECK_INTERVAL_MS = 5 * 60_000;
/** a zone a secondary asks for (its refresh) is checked there this soon after: its transfer is done by then */
const ASKED_CHECK_MS = 1000;
/**
 * and its checks after that one resume from this attempt: 410 ms, 655 ms, 1 s, 1.7 s, 2.7 s apart (a secondary
 * that serves a transfer only at its next load of its zones is found in sync seconds later, not minutes), the
 * re-NOTIFY of a lagging zone at the 16th, not at once
 */
const ASKED_ATTEMPTS_AT_MOST = 12;

/** true on checks 1, 2, 4, 8, 16, ...: re-NOTIFYs back off as a server keeps lagging */
const isBackoffTurn = (attempt: number) => attempt > 0 && (attempt & (attempt - 1)) === 0;

/**
 * The secondaries' status: due `zone_server_status` rows (state not in_sync, next_check_at passed) are claimed
 * with SKIP LOCKED and leased; the server's SOA serial is asked; the row becomes in_sync, stays pending (NOTIFY
 * again when it lags), or becomes error with the reason after repeated failures; checks back off exponentially.
 * Doing a check twice (two workers, a lost lease) changes nothing. Besides its tick, a round is asked for when a
 * check's next one falls due (`checkIn`), after a drain published changes and after new secondaries' adoption, at
 * once after a full round, and soon after a secondary asks the primary for a zone, whose check there is brought
 * forward: the status follows what the secondary took, not only the backed-off schedule.
 */
export function statusChecksDuty(
  db: Database,
  notifier: Notifier,
  fleet: NameserverFleet,
  checkIn: (ms: number) => void,
  requests?: SecondaryRequests,
): Duty {
  const repository = new PropagationRepository(db);
  // what each secondary asked for since the last round (server name → zones), as the primaries saw it: those
  // zones' checks there are brought forward (`checkSoon`)
  let asked = new Map<string, Set<string>>();
  let batch = STATUS_BATCH;
  const unlisten = requests?.listen((address, zone) => {
    for (const [name, server] of fleet.servers) {
      if (server.host !== address) continue;
      const zones = asked.get(name) ?? new Set<string>();
      asked.set(name, zones.add(zone));
    }
    checkIn(ASKED_CHECK_MS);
  });

  // a zone's announcement owed since a check's outcome committed without it (a process stopped, a database failed):
  // owed at the start too, for a process that stopped before
  let announcementsOwed = true;
  const outcomes = new GroupedOutcomes(repository, () => (announcementsOwed = true));

  /** `claimedAt`: when the row was claimed, and its zone's serial read */
  const checkOne = async (row: DueCheck, claimedAt: number): Promise<void> => {
    const server = fleet.servers.get(row.server);
    if (!server) {
      // no longer configured: nothing to check
      await repository.markServerRemoved(row.id);
      return;
    }
    const attempts = row.attempts + 1;
    const delayMs =
      attempts <= FAST_CHECKS
        ? FAST_CHECK_MS
        : Math.min(MAX_CHECK_INTERVAL_MS, Math.round(FAST_CHECK_MS * 1.6 ** Math.min(attempts - FAST_CHECKS, 30)));
    const result = await querySoaSerial(server, row.zone);
    let state: ServerState = 'pending';
    let error: string | null = null;
    let served: number | null = null;
    if (result.ok) {
      served = result.serial;
      if (served === row.serial) {
        state = 'in_sync';
        // a re-NOTIFY of it still queued for the server is no longer needed
        notifier.served(row.zone, server, claimedAt);
      } else if (serialGreaterThan(served, row.serial)) {
        state = 'error';
        error = `server serves serial ${served}, newer than the zone's ${row.serial}: it will not follow until the serial passes it`;
      } else {
        error = `serves serial ${served}, zone is at ${row.serial}`;
        if (attempts >= LAG_ERROR_AFTER_ATTEMPTS) state = 'error';
        // nudge it again, on a backing-off schedule (checks 1, 2, 4, 8, ...): a NOTIFY that reached the server
        // during a transfer can be lost, and must not leave it behind until its refresh timer
        if (isBackoffTurn(attempts)) notifier.request(row.zone, server);
      }
    } else {
      error = result.reason;
      if (attempts >= ERROR_AFTER_ATTEMPTS) state = 'error';
      // a secondary that does not know the zone yet (it has not read the new catalog) refuses its NOTIFY:
      // re-send on checks 2, 4, 8, ..., not on every check (PowerDNS got 161 NOTIFYs for 30 changes)
      if (attempts >= 2 && isBackoffTurn(attempts)) notifier.request(row.zone, server);
    }
    await outcomes.record({ id: row.id, served, state, error, checkedSerial: row.serial, attempts, nextInMs: delayMs });
    if (state !== 'in_sync') checkIn(delayMs);
  };

  return {
    name: STATUS_CHECKS,
    every: STATUS_TICK_MS,
    /** one round of status checks of the due rows */
    run: async () => {
      if (!fleet.servers.size) return;
      if (announcementsOwed) {
        // cleared only once said: a failure leaves it owed to the next run
        announcementsOwed = false;
        await repository.announceOwedPropagations().catch((error: unknown) => {
          announcementsOwed = true;
          throw error;
        });
      }
      if (asked.size) {
        const pairs = [...asked].flatMap(([server, zones]) => [...zones].map((zone) => [server, zone]));
        asked = new Map();
        await repository.checkSoon(
          pairs.map(([server]) => server),
          pairs.map(([, zone]) => zone),
          ASKED_CHECK_MS,
          ASKED_ATTEMPTS_AT_MOST,
        );
      }
      const claimedAt = Date.now();
      const due = await repository.claimDueChecks(batch, STATUS_LEASE_SECONDS);
      await Promise.all(due.map((row) => checkOne(row, claimedAt)));
      // a full round: more are due (a change to every zone is a check of every zone at every server), so the
      // next round at once and larger, rather than at the next tick
      if (due.length === batch) {
        batch = Math.min(batch * 2, STATUS_BATCH_MAX);
        checkIn(0);
      } else batch = STATUS_BATCH;
    },
    stop: async () => unlisten?.(),
    where: 'propagation worker',
    failure: { level: 'error', message: 'propagation worker: status check failed' },
  };
}

/**
 * The checks' outcomes, stored together: those that wait while a statement is under way are the next statement,
 * so that a round of hundreds of answers is a few statements, and a lone check's is stored at once. The zones
 * found in sync are announced after their outcomes committed (repositories/propagation.ts, `announcePropagated`);
 * an announcement that fails is owed (`owe`: said by the next round, `announceOwedPropagations`).
 * `record` settles once its outcome is stored and announced, or fails with the statement that failed.
 */
class GroupedOutcomes {
  private waiting: { outcome: CheckOutcome; stored: () => void; failed: (error: unknown) => void }[] = [];
  private storing = false;

  constructor(
    private readonly repository: PropagationRepository,
    private readonly owe: () => void,
  ) {}

  record(outcome: CheckOutcome): Promise<void> {
    return new Promise((stored, failed) => {
      this.waiting.push({ outcome, stored, failed });
      if (!this.storing) void this.storeWaiting();
    });
  }

  private async storeWaiting(): Promise<void> {
    this.storing = true;
    try {
      // the answers that arrived together are stored together
      await new Promise((resolve) => setImmediate(resolve));
      while (this.waiting.length) {
        const batch = this.waiting.splice(0);
        try {
          await this.repository.recordChecks(batch.map((entry) => entry.outcome));
          await this.repository
            .announcePropagated(batch.filter((entry) => entry.outcome.state === 'in_sync').map((entry) => entry.outcome.id))
            .catch((error: unknown) => {
              this.owe();
              throw error;
            });
          for (const entry of batch) entry.stored();
        } catch (error) {
          for (const entry of batch) entry.failed(error);
        }
      }
    } finally {
      this.storing = false;
    }
  }
}
