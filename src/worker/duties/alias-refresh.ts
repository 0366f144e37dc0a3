import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { refreshDueAliases } from '../../services/zones/alias-flattening';
import type { WriteEngine } from '../../services/write-engine';
import type { Duty } from '../duties';

/** how often due ALIAS/ANAME records are looked for (their refresh is ALIAS_MIN_TTL..ALIAS_MAX_TTL seconds) */
const ALIAS_TICK_MS = 1000;

/** flattens the due ALIAS/ANAME records (services/zones/alias-flattening.ts); none without ALIAS_RESOLVERS */
export function aliasRefreshDuties(settings: Settings, db: Database, log: Logger, engine: WriteEngine): Duty[] {
  if (!settings.aliasResolvers.length) return [];
  return [
    {
      name: 'ALIAS refresh',
      every: ALIAS_TICK_MS,
      run: async () => {
        const changed = await refreshDueAliases(engine, db, settings);
        if (changed > 0) log.info(`alias: ${changed} zones got new ALIAS addresses`);
      },
      where: 'alias refresh',
      failure: { level: 'warn', message: 'alias: refreshing failed; it runs again at the next tick' },
    },
  ];
}
