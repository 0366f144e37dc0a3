import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { Logger } from '../../logger';
import { refreshForeignKeys } from '../../services/dnssec/foreign-keys';
import type { DnssecWriter } from '../../services/dnssec/dnssec-writer';
import type { Duty } from '../duties';

/**
 * Multi-signer zones: the other signers' DNSKEY RRsets read again where they were read from, their key rolls
 * followed (services/dnssec/foreign-keys.ts), every DNSSEC_FOREIGN_KEYS_REFRESH_INTERVAL; none when it is 0.
 */
export function foreignKeysDuties(settings: Settings, db: Database, log: Logger, dnssec: DnssecWriter): Duty[] {
  if (settings.dnssecForeignKeysRefreshInterval <= 0) return [];
  return [
    {
      name: 'foreign keys',
      every: settings.dnssecForeignKeysRefreshInterval * 1000,
      run: async () => {
        const changed = await refreshForeignKeys(dnssec, db, settings, log);
        if (changed > 0) log.info(`dnssec: the other signer's keys of ${changed} zones followed`);
      },
      where: 'foreign keys refresh',
      failure: { level: 'warn', message: 'dnssec: reading the other signers’ keys again failed; it runs again later' },
    },
  ];
}
