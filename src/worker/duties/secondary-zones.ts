import type { Database } from '../../db/pool';
import { SECONDARY_CHANNEL } from '../../repositories/secondary-zones';
import type { Duty } from '../duties';
import { LEASE_RENEWAL, POLL_MS, RENEW_MS, SecondaryZonesWorker } from '../secondary-zones';

export const SECONDARY_ZONE_CLAIMS = 'secondary zone refreshes';

/**
 * Secondary zones (secondary-zones.ts, docs/transfers.md): the due zones claimed and their refreshes started,
 * as slots free, on a NOTIFY from a primary (SECONDARY_CHANNEL), when a refresh ends, and every POLL_MS; the
 * zones past their EXPIRE no longer served, every POLL_MS; the leases of the refreshes under way renewed, every
 * RENEW_MS. At stop, the refreshes under way end (secondary-zones.ts, stop).
 */
export function secondaryZonesDuties(zones: SecondaryZonesWorker, db: Database): Duty[] {
  return [
    {
      name: SECONDARY_ZONE_CLAIMS,
      every: POLL_MS,
      firstAfter: 0,
      run: (signal) => zones.claim(signal),
      listen: (wake) => db.notifications.subscribe(SECONDARY_CHANNEL, wake),
      stop: () => zones.stop(),
      where: 'secondary zones',
      failure: { level: 'error', message: 'secondary zones: claiming due zones failed' },
    },
    {
      name: 'secondary zone expiry',
      every: POLL_MS,
      firstAfter: 0,
      run: (signal) => zones.expireOverdue(signal),
      where: 'secondary zones',
      failure: { level: 'error', message: 'secondary zones: expiring zones failed' },
    },
    { ...LEASE_RENEWAL, every: RENEW_MS, run: () => zones.renewLeases() },
  ];
}
