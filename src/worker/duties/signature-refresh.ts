import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { refreshDueZones } from '../../services/dnssec/signature-refresh';
import type { DnssecWriter } from '../../services/dnssec/dnssec-writer';
import type { Duty } from '../duties';
import { dnssecTickMs } from './dnssec-tick';

/** re-signs the signed zones whose signatures near their expiry (services/dnssec/signature-refresh.ts) */
export function signatureRefreshDuty(settings: Settings, db: Database, log: Logger, dnssec: DnssecWriter): Duty {
  return {
    name: 'signature refresh',
    every: dnssecTickMs(settings),
    run: async () => {
      const remade = await refreshDueZones(dnssec, db, settings);
      if (remade > 0) log.info(`dnssec: refreshed ${remade} signatures nearing expiry`);
    },
    where: 'signature refresh',
    failure: { level: 'warn', message: 'dnssec: refreshing signatures failed; it runs again at the next tick' },
  };
}
