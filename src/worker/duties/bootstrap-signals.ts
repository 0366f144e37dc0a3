import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { syncBootstrapSignals } from '../../services/dnssec/bootstrap-signals';
import type { DnssecWriter } from '../../services/dnssec/dnssec-writer';
import type { Duty } from '../duties';
import { dnssecTickMs } from './dnssec-tick';

/**
 * RFC 9615's signalling records of every signed zone brought up to date, every DNSSEC_BOOTSTRAP_SWEEP_INTERVAL
 * (services/dnssec/bootstrap-signals.ts); a key step updates its own zone's at once. The first sweep comes at the
 * first tick of the signed zones' duties.
 */
export function bootstrapSignalsDuty(settings: Settings, db: Database, log: Logger, dnssec: DnssecWriter): Duty {
  return {
    name: 'bootstrap signals',
    every: settings.dnssecBootstrapSweepInterval * 1000,
    firstAfter: dnssecTickMs(settings),
    run: async () => {
      const signalled = await syncBootstrapSignals(dnssec, db, settings);
      if (signalled > 0) log.info(`dnssec: the RFC 9615 signalling records of ${signalled} zones brought up to date`);
    },
    where: 'signature refresh',
    failure: { level: 'warn', message: 'dnssec: bringing the RFC 9615 signalling records up to date failed; it runs again later' },
  };
}
