import { checkZoneRecords, ZoneWarning } from '../../dns/zone-checks';
import type { RequestContext } from '../context';
import type { ErrorDetail } from '../../errors/catalogue';

/** a zone check's warning as the API shows warnings (GraphQL `extensions.warnings`, field, code and message) */
export const warningDetail = (warning: ZoneWarning) => ({
  field: warning.code === 'OCCLUDED_DATA' ? 'owner' : 'rdata',
  code: warning.code,
  message: warning.message,
});

/**
 * a zone check's finding as a change set's plan answers it: the warning's three fields, its severity, the RRset
 * it is about and the RFC; `index`, the change that adds its record (`changes[3].rdata`)
 */
export function findingDetail(finding: ZoneWarning, index?: number): ErrorDetail {
  const { field, code, message } = warningDetail(finding);
  const at = index !== undefined ? `changes[${index}].` : '';
  return {
    field: `${at}${field}`,
    code,
    message: at ? `${at}${field}: ${message}` : message,
    severity: finding.severity,
    owner: finding.owner,
    type: finding.type,
    ...(finding.rfc ? { rfc: finding.rfc } : {}),
  };
}

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
