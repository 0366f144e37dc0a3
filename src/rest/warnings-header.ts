/**
 * A REST write's warnings (what GraphQL answers as `extensions.warnings`: TARGET_MISSING, NAME_NOT_HOSTNAME, …)
 * go in a response header, so that the documented bodies keep their shape (docs/decisions.md §1).
 */
export const WARNINGS_HEADER = 'X-Zonekeeper-Warnings';

/** a header is no place for a long list: a change set of 10,000 records could warn about each */
export const MAX_HEADER_WARNINGS = 20;

export interface Warning {
  field: string;
  code: string;
  message: string;
}

/**
 * The header's value: a JSON array of the first warnings, every character past ASCII escaped (\uXXXX) since
 * header values are octets (RFC 9110 §5.5) and clients read them as ISO-8859-1 at best.
 */
export function warningsHeaderValue(warnings: readonly Warning[]): string {
  const shown = warnings.slice(0, MAX_HEADER_WARNINGS).map(({ field, code, message }) => ({ field, code, message }));
  return JSON.stringify(shown).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
