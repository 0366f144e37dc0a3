/**
 * The preferences of a request's Prefer header (RFC 7240): a list of `token[=value][; parameter]`, separated by
 * commas, possibly over several header lines; tokens compare case-insensitively (§2). A server honours what it
 * can and ignores the rest; the ones it applied it names in Preference-Applied (§3).
 */
export const PREFERENCE_APPLIED = 'Preference-Applied';

/** does the request prefer `respond-async` (RFC 7240 §4.1: answer 202 for work that is not done at once)? */
export function prefersRespondAsync(header: string | readonly string[] | undefined): boolean {
  if (header === undefined) return false;
  const lines = typeof header === 'string' ? [header] : header;
  return lines
    .flatMap((line) => line.split(','))
    .some((preference) => preference.split(/[=;]/)[0].trim().toLowerCase() === 'respond-async');
}
