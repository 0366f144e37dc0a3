import { parseZoneName } from './name';
import { errorFromProblems } from '../errors/catalogue';

/** A zone name from a client, normalised (lower-case, no trailing dot, punycode) or refused with the reasons. */
export function normaliseZoneName(input: string, field = 'zone'): string {
  const parsed = parseZoneName(input, field);
  if (!parsed.ok) throw errorFromProblems(parsed.problems);
  return parsed.name;
}
