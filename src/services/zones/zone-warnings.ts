import type { ZoneWarning } from '../../dns/zone-checks';
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

/**
 * Whether a finding refuses the change that makes it: an error does (docs/changes.md, "Checks on every plan"),
 * and on a zone with strictChecks a warning does too. The plan's one policy (change-plan.ts), and every
 * person's write is a plan (a single record's, a set of one change), so that no edge takes what another refuses.
 */
export const refusesChange = (finding: Pick<ZoneWarning, 'severity'>, strictChecks: boolean): boolean =>
  finding.severity === 'error' || strictChecks;
