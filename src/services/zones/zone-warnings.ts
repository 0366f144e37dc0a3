import { checkZoneRecords, ZoneWarning } from '../../dns/zone-checks';
import type { RequestContext } from '../context';

/** a zone check's warning as the API shows warnings (GraphQL `extensions.warnings`, field, code and message) */
export const warningDetail = (warning: ZoneWarning) => ({
  field: warning.code === 'OCCLUDED_DATA' ? 'owner' : 'rdata',
  code: warning.code,
  message: warning.message,
});

type Records = Parameters<typeof checkZoneRecords>[1];

/**
 * The zone checks' warnings about the records a write added, from the zone as the write read it around them
 * (`ownersToCheck` names what it must have read); warnings, never a refusal. Not computed for a caller that
 * collects none (the PowerDNS API answers a PATCH with 204 and no body): the checks cost as much as the rules.
 */
export function warnAbout(ctx: RequestContext, zone: string, records: Records, written: Records): void {
  if (!written.length || !ctx.warnings) return;
  ctx.warnings.push(...checkZoneRecords(zone, records, written).map(warningDetail));
}
