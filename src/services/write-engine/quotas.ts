import { DomainError } from '../../errors/catalogue';
import { quotaRefusals } from '../../metrics';

/**
 * A write refused by a user's quota (README "Rate limits and quotas"): QUOTA_EXCEEDED naming
 * the quota (`maxZones`, `maxRecordsPerZone`) with its limit and the count it was checked against. The quotas
 * are checked by the statement that writes (src/repositories/zone-writes.ts), so a refused write wrote nothing.
 */
export function quotaExceeded(
  field: 'maxZones' | 'maxRecordsPerZone',
  quota: { limit: number; current: number },
  what: string,
  at?: { line: number; reason: string },
): DomainError {
  quotaRefusals.inc({ quota: field === 'maxZones' ? 'zones' : 'records_per_zone' });
  const where = at ? `line ${at.line}: ` : '';
  const reason = at ? ` ${at.reason}` : '';
  const message = `${where}${field}: the quota of ${quota.limit} ${what} would be exceeded (${quota.current} now)${reason}; nothing was written; ${QUOTA_SETTINGS[field]}`;
  return new DomainError('QUOTA_EXCEEDED', message, [
    { field, code: 'QUOTA_EXCEEDED', message, limit: quota.limit, current: quota.current, ...(at ? { line: at.line } : {}) },
  ]);
}

/** what raises each quota: the user's own (the admin's `setUserLimits`), or the default for every user */
const QUOTA_SETTINGS = {
  maxZones: "the admin raises it for the user (setUserLimits' maxZones) or for every user (MAX_ZONES_PER_USER)",
  maxRecordsPerZone: "the admin raises it for the user (setUserLimits' maxRecordsPerZone) or for every user (MAX_RECORDS_PER_ZONE)",
} as const;

/** the most any limit or quota may be set to (a Postgres int, and far beyond any sane value) */
const MAX_LIMIT_VALUE = 1_000_000_000;

/** limit values are whole numbers from 0 (0: no limit); a burst is at least 1 */
export function checkLimitValues(patch: Record<string, number | null | undefined>): void {
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || value === null) continue;
    const min = field === 'rateBurst' ? 1 : 0;
    if (!Number.isInteger(value) || value < min || value > MAX_LIMIT_VALUE)
      throw DomainError.invalid(field, `${field} must be a whole number from ${min} to ${MAX_LIMIT_VALUE}, or null for the default`);
  }
}
