import type { EntityManager, EventSubscriber, FlushEventArgs, TransactionEventArgs } from '@mikro-orm/core';
import type { Pool } from 'pg';
import { Change } from '../entities/change.entity';
import { logger } from '../logger';
import { PacedRun } from '../paced-run';
import { noteDatabaseFailure } from './availability';

/** the LISTEN channel of the journal's readers: the propagation worker and live updates, in every process */
export const JOURNAL_CHANNEL = 'zonekeeper_changes';

/** the shortest time between two notifications of one process (one pool) */
export const SIGNAL_INTERVAL_MS = 10;

const NOTIFY_SQL = `select pg_notify('${JOURNAL_CHANNEL}', '')`;

/**
 * Wakes the journal's readers after this process committed journal rows (`changes`): a NOTIFY on
 * JOURNAL_CHANNEL, sent on a connection of the writer's pool once the write's commit has returned, so a
 * reader that wakes sees the rows.
 *
 * Why not a trigger on `changes`, as before migration 20261123100000: a transaction that calls pg_notify
 * takes a lock that every notifying transaction of the cluster shares, and holds it from its commit's start
 * to its end, WAL flush included (PostgreSQL's async.c, PreCommit_Notify), so that notifications are queued
 * in commit order. With a notification per write, concurrent writes committed one after another and never
 * shared a WAL flush: the write statement alone at concurrency 16 ran at 1,650 commits/s with the trigger and
 * 2,500 without it (pgbench, bench/FINDINGS.md, session 9), and every commit woke every listener.
 *
 * Here the commits of one process are announced by at most one notification per SIGNAL_INTERVAL_MS: the
 * first commit after a quiet interval at once (a lone change loses no time), the ones that come during an
 * interval or while a notification is on its way by one notification after it. A notification that is lost
 * (the process stops, the database is away) loses nothing: the rows are in the journal, and the worker polls
 * it every second and reads it again when its LISTEN connection comes back.
 */
export class JournalSignal {
  private readonly run: PacedRun;

  constructor(notify: () => Promise<unknown>) {
    this.run = new PacedRun(SIGNAL_INTERVAL_MS, () =>
      notify().catch((error: unknown) => {
        if (!noteDatabaseFailure(error, 'journal signal')) logger.warn({ err: error }, 'journal signal: NOTIFY failed; the readers poll');
      }));
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

/** one signal per pool: a process serving two databases (tests) signals each on its own */
const signals = new WeakMap<object, JournalSignal>();

function signalFor(pool: object, notify: () => Promise<unknown>): JournalSignal {
  let signal = signals.get(pool);
  if (!signal) signals.set(pool, (signal = new JournalSignal(notify)));
  return signal;
}

/** the signal of the ORM's pool (the API's writes, DNS UPDATE, the API's catalog admissions) */
export function journalSignalOf(em: EntityManager): JournalSignal {
  const connection = em.getConnection();
  return signalFor(connection, () => connection.execute(NOTIFY_SQL));
}

/** the signal of a role's own pg pool (the worker's catalog admissions) */
export function journalSignalOfPool(pool: Pool): JournalSignal {
  return signalFor(pool, () => pool.query(NOTIFY_SQL));
}

/** stops the signal of a pool about to close (the ORM's connection, or a role's pg pool), if it has one */
export async function stopJournalSignal(pool: object): Promise<void> {
  const signal = signals.get(pool);
  signals.delete(pool);
  await signal?.stop();
}

/**
 * Journal rows written through the ORM (`Change` entities: zone and user deletes with their catalog change)
 * are signalled when their transaction commits; a flush outside an explicit transaction runs in one of its
 * own, which reports its commit as well.
 */
export class JournalCommitSubscriber implements EventSubscriber {
  /** the EntityManagers whose open transaction flushed journal rows */
  private readonly wroteJournal = new WeakSet<EntityManager>();

  onFlush(args: FlushEventArgs): void {
    for (const changeSet of args.uow.getChangeSets()) {
      if (changeSet.type === 'create' && changeSet.entity instanceof Change) {
        this.wroteJournal.add(args.em);
        return;
      }
    }
  }

  afterTransactionCommit(args: TransactionEventArgs): void {
    if (this.wroteJournal.delete(args.em)) journalSignalOf(args.em).committed();
  }

  afterTransactionRollback(args: TransactionEventArgs): void {
    this.wroteJournal.delete(args.em);
  }
}
