import { Problem, problem } from './problem';

/** RFC 2181 §8: a TTL is an unsigned 32-bit number whose top bit is clear, i.e. 0..2^31-1 */
export const MAX_TTL = 2147483647;

/** the preserved TTL values of RESTKnot, our default allow-list (contract-decisions §3) */
export const DEFAULT_ALLOWED_TTLS = [86400, 43200, 28800, 14400, 7200, 3600, 1800, 900, 300];

/**
 * Checks a TTL: a whole number (a number, or a string of digits), 0..2147483647 (RFC 2181 §8) and one of the
 * allowed values. An empty allow-list allows every value in range.
 */
export function checkTtl(ttl: unknown, allowed: number[], field = 'ttl'): Problem[] {
  let value: number;
  if (typeof ttl === 'number') value = ttl;
  else if (typeof ttl === 'string' && /^\s*[0-9]+\s*$/.test(ttl)) value = Number(ttl);
  else return [problem(field, 'TTL_NOT_INTEGER', `${field}: ${JSON.stringify(ttl ?? null)} is not a whole number of seconds`)];
  if (!Number.isInteger(value)) {
    return [problem(field, 'TTL_NOT_INTEGER', `${field}: ${value} is not a whole number of seconds`)];
  }
  if (value < 0 || value > MAX_TTL) {
    return [problem(field, 'TTL_RANGE', `${field}: ${value} is out of range 0–${MAX_TTL} (RFC 2181 §8)`, MAX_TTL)];
  }
  if (allowed.length > 0 && !allowed.includes(value)) {
    const list = [...allowed].sort((a, b) => a - b).join(', ');
    return [problem(field, 'TTL_NOT_ALLOWED', `${field}: ${value} is not one of the allowed values ${list}`)];
  }
  return [];
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * A TTL-like duration as BIND and Knot accept it in master files: plain seconds (`3600`) or units (`1h30m`,
 * `2w`, case-insensitive). Returns undefined when the text is neither; the caller reports the problem.
 */
export function parseDuration(text: string): number | undefined {
  if (/^[0-9]+$/.test(text)) return Number(text);
  if (!/^([0-9]+[smhdwSMHDW])+$/.test(text)) return undefined;
  let total = 0;
  for (const [, digits, unit] of text.matchAll(/([0-9]+)([smhdwSMHDW])/g)) {
    total += Number(digits) * UNIT_SECONDS[unit.toLowerCase()];
  }
  return total;
}
