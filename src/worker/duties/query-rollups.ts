import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { pruneAnalytics, rollUp } from '../../repositories/query-analytics';
import { inTransaction } from '../../services/db-errors';
import type { Duty } from '../duties';

/** how often the query counts are rolled up and pruned */
export const QUERY_ROLLUPS_EVERY_MS = 5 * 60_000;

/**
 * The query analytics' rollups and retention (docs/analytics.md): the minutes of the hours ended since the last
 * run rolled up into hours, the hours into days (each again for a while after it ends, for late frames), then
 * each resolution pruned past ANALYTICS_MINUTES_KEEP_HOURS, ANALYTICS_HOURS_KEEP_DAYS, ANALYTICS_DAYS_KEEP_DAYS.
 * Any worker may run it: a rollup is one worker's at a time (its advisory lock).
 */
export function queryRollupsDuty(settings: Settings, db: Database, log: Logger): Duty {
  const { minutesKeepHours, hoursKeepDays, daysKeepDays } = settings.analytics;
  return {
    name: 'query rollups',
    every: QUERY_ROLLUPS_EVERY_MS,
    firstAfter: 0,
    run: async () => {
      await inTransaction(db, (sql) => rollUp(sql, 60, 3600));
      await inTransaction(db, (sql) => rollUp(sql, 3600, 86400));
      const pruned = await inTransaction(db, (sql) =>
        pruneAnalytics(sql, { 60: minutesKeepHours * 3600, 3600: hoursKeepDays * 86400, 86400: daysKeepDays * 86400 }),
      );
      if (pruned > 0) log.info(`analytics: pruned ${pruned} rows of query counts and coverage past their retention`);
    },
    failure: { level: 'warn', message: 'analytics: rolling up the query counts failed; the next run rolls them up' },
  };
}
