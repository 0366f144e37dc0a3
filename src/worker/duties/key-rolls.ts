import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { advanceKeyRolls } from '../../services/dnssec/key-rollover';
import { checkParentDs } from '../../services/dnssec/parent-ds';
import type { DnssecWriter } from '../../services/dnssec/dnssec-writer';
import type { Duty } from '../duties';
import { dnssecTickMs } from './dnssec-tick';

/**
 * The signed zones' key rolls (services/dnssec/key-rollover.ts): the parent's DS looked at where a roll waits for
 * it (services/dnssec/parent-ds.ts), then the steps that are due. The parent's DS first: a zone it lets move on
 * takes its step in the same run.
 */
export function keyRollsDuty(settings: Settings, db: Database, log: Logger, dnssec: DnssecWriter): Duty {
  return {
    name: 'key rolls',
    every: dnssecTickMs(settings),
    run: async () => {
      const seen = await checkParentDs(dnssec, db, settings);
      if (seen > 0) log.info(`dnssec: the parent's DS of ${seen} zones is as awaited`);
      const steps = await advanceKeyRolls(dnssec, db, settings);
      if (steps > 0) log.info(`dnssec: ${steps} key roll steps taken`);
    },
    where: 'signature refresh',
    failure: { level: 'warn', message: 'dnssec: taking key roll steps failed; it runs again at the next tick' },
  };
}
