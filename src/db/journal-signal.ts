import { logger } from '../logger';
import { PacedRun } from '../paced-run';
import { noteDatabaseFailure } from './availability';

/** the LISTEN channel of the journal's readers: the propagation worker and live updates, in every process */
export const JOURNAL_CHANNEL = 'zonekeeper_changes';

/** the shortest time between two notifications of one process (one pool) */
export const SIGNAL_INTERVAL_MS = 10;

/**
 * Wakes the journal's readers after this process committed journal rows (`changes`): a NOTIFY on
 * JOURNAL_CHANNEL, sent on a connection of the process's pool once the write's commit has returned, so a
 * reader that wakes sees the rows. The process has one, owned by its Database (db/pool.ts), which fires it
 * after the COMMIT of every unit of work whose repositories said they wrote journal rows (`Sql.journalWritten`).
 *
 * Why not a trigger on `changes`, as before migration 20261123100000: a transaction that calls pg_notify
 * takes a lock that every notifying transaction of the cluster shares, and holds it from its commit's start
 * to its end, WAL flush included (PostgreSQL's async.c, PreCommit_Notify), so that notifications are queued
 * in commit order. With a notification per write, concurrent writes committed one after another and never
 * shared a WAL flush: the write statement alone at concurrency 16 ran at 1,650 commits/s with the trigger and
 * 2,500 without it (pgbench, docs/performance.md, «The journal's readers»), and every commit woke every listener.
 *
 * Here the commits of one process are announced by at most one notification per SIGNAL_INTERVAL_MS: the
 * first commit after a quiet interval at once (a lone change loses no time), the ones that come during an
 * interval or while a notification is on its way by one notification after it (one that falls due while a
 * statement of the process is on its way goes after that statement, SIGNAL_INTERVAL_MS later at most). A notification that is lost
 * (the process stops, the database is away) loses nothing: the rows are in the journal, and the worker polls
 * it every second and reads it again when its LISTEN connection comes back.
 */
export class JournalSignal {
  private readonly run: PacedRun;

  /**
   * `writing`: whether a statement of the process is on its way. A notification that falls due meanwhile waits
   * for its commit (at most SIGNAL_INTERVAL_MS more), so that it goes between two writes, not beside one.
   */
  constructor(notify: () => Promise<unknown>, writing?: () => boolean) {
    this.run = new PacedRun(
      SIGNAL_INTERVAL_MS,
      () =>
        notify().catch((error: unknown) => {
          if (!noteDatabaseFailure(error, 'journal signal')) logger.warn({ err: error }, 'journal signal: NOTIFY failed; the readers poll');
        }),
      writing,
    );
  }

  /** journal rows of this process were committed */
  committed(): void {
    this.run.request();
  }

  /**
   * Before the pool closes: a notification still waiting for its interval goes out now, while the pool can
   * send it, and none after (a timer firing on a closed pool only logged a warning; the readers' poll finds
   * the rows either way).
   */
  stop(): Promise<void> {
    return this.run.stop({ runPending: true });
  }
}
