import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { pruneAuditEvents } from '../../repositories/audit-events';
import { pruneKeyEvents } from '../../repositories/dnssec-key-events';
import { pruneEvents } from '../../repositories/events';
import { PropagationRepository } from '../../repositories/propagation';
import { pruneQueueLeases, pruneRetiredSecrets } from '../../repositories/webhooks';
import type { Duty } from '../duties';

/** how often the retention runs */
export const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * The journal's retention (HISTORY_KEEP_DAYS, HISTORY_KEEP_ROWS), and the audit log's, the DNSSEC key events' and
 * the events' (with their webhook deliveries), which are kept as long as the history (HISTORY_KEEP_DAYS; the
 * per-zone row count does not apply); then the webhook queues' spent leases and the secrets past their overlap.
 * At start, then every PRUNE_EVERY_MS; any worker may run it.
 */
export function retentionDuty(settings: Settings, db: Database, log: Logger): Duty {
  const repository = new PropagationRepository(db);
  const { historyKeepDays, historyKeepRows } = settings;
  return {
    name: 'retention',
    every: PRUNE_EVERY_MS,
    firstAfter: 0,
    run: async () => {
      const pruned = await repository.pruneJournal(historyKeepDays, historyKeepRows);
      if (pruned > 0)
        log.info(`journal: pruned ${pruned} change rows past HISTORY_KEEP_DAYS=${historyKeepDays} / HISTORY_KEEP_ROWS=${historyKeepRows}`);
      const audit = await pruneAuditEvents(db, historyKeepDays);
      if (audit > 0) log.info(`audit log: pruned ${audit} events past HISTORY_KEEP_DAYS=${historyKeepDays}`);
      const keyEvents = await pruneKeyEvents(db, historyKeepDays);
      if (keyEvents > 0) log.info(`dnssec: pruned ${keyEvents} key events past HISTORY_KEEP_DAYS=${historyKeepDays}`);
      // events (and their webhook deliveries) are kept as long as the history (docs/events.md)
      const events = await pruneEvents(db, historyKeepDays);
      if (events > 0) log.info(`events: pruned ${events} past HISTORY_KEEP_DAYS=${historyKeepDays}`);
      await pruneQueueLeases(db);
      await pruneRetiredSecrets(db);
    },
    where: 'journal pruning',
    failure: { level: 'warn', message: 'journal: pruning failed; it runs again later' },
  };
}
