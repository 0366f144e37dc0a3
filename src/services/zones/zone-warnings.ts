import { checkZoneRecords, ZoneWarning } from '../../dns/zone-checks';
import type { RequestContext } from '../context';
import { errorFromProblems, type ErrorDetail } from '../../errors/catalogue';

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
 * and on a zone with strictChecks a warning does too. One policy for a change set's plan and a person's
 * single-record write, so that no edge takes what another refuses.
 */
export const refusesChange = (finding: Pick<ZoneWarning, 'severity'>, strictChecks: boolean): boolean =>
  finding.severity === 'error' || strictChecks;

type Records = Parameters<typeof checkZoneRecords>[1];

/**
 * The zone checks' findings about the record a single-record write adds, from the zone as the write read it
 * around it (`ownersToCheck` names what it must have read: no statement more), held to a change set's policy:
 * a finding that refuses (`refusesChange`) throws the refusal, every finding in `details` as a plan names it
 * (409 ZONE_RULE_VIOLATION); the others are answered, for the write to keep in its journal row and to warn of
 * once it is written.
 */
export function findingsOfWrite(zone: string, records: Records, written: Records, strictChecks: boolean): ZoneWarning[] {
  const findings = checkZoneRecords(zone, records, written);
  if (!findings.length) return findings;
  const refusing = findings.filter((f) => refusesChange(f, strictChecks));
  if (refusing.length) throw errorFromProblems(refusing.map((f) => findingDetail(f)));
  return findings;
}

/**
 * A single-record write's findings once it is written: in the caller's warnings (GraphQL `extensions.warnings`,
 * each field, code and message), after the commit, so that a write decided twice warns once
 */
export function warnAbout(ctx: RequestContext, findings: readonly ZoneWarning[]): void {
  if (findings.length && ctx.warnings) ctx.warnings.push(...findings.map(warningDetail));
}
