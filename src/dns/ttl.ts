import { Problem, problem } from './problem';

/** RFC 2181 §8: a TTL is an unsigned 32-bit number whose top bit is clear, i.e. 0..2^31-1 */
export const MAX_TTL = 2147483647;

/** the TTL of a record the service writes by itself, with none given: a new zone's SOA and default NS, a template's */
export const DEFAULT_RECORD_TTL = 3600;

/** the preserved TTL values of RESTKnot, our default allow-list (docs/decisions.md §3) */
export const DEFAULT_ALLOWED_TTLS = [86400, 43200, 28800, 14400, 7200, 3600, 1800, 900, 300];

/**
 * A TTL policy: single values and inclusive ranges `[min, max]`. An empty list allows every TTL in range (the
 * setting's `any`). A plain `number[]` is a policy of single values. `setting` names the setting it is
 * (ALLOWED_TTLS, ALLOWED_TTLS_BEYOND_REST), so that a refusal says which to change; it survives a worker's
 * message (structured clone keeps an array's own properties).
 */
export type AllowedTtls = readonly (number | readonly [number, number])[] & { readonly setting?: string };

/** `allowed` as the policy of `setting` */
export function namedTtlPolicy(allowed: AllowedTtls, setting: string): AllowedTtls {
  return Object.assign([...allowed], { setting });
}

export function ttlAllowed(value: number, allowed: AllowedTtls): boolean {
  return allowed.length === 0 || allowed.some((a) => (typeof a === 'number' ? a === value : value >= a[0] && value <= a[1]));
}

/** the policy in words: `60–86400, 300` */
export function describeAllowedTtls(allowed: AllowedTtls): string {
  const key = (a: number | readonly [number, number]) => (typeof a === 'number' ? a : a[0]);
  return [...allowed]
    .sort((a, b) => key(a) - key(b))
    .map((a) => (typeof a === 'number' ? String(a) : `${a[0]}–${a[1]}`))
    .join(', ');
}

/** the allowed TTL nearest to `value` (a tie goes to the longer TTL); `value` itself when allowed */
export function clampTtl(value: number, allowed: AllowedTtls): number {
  if (ttlAllowed(value, allowed)) return value;
  let best = value;
  let distance = Infinity;
  for (const a of allowed) {
    const candidate = typeof a === 'number' ? a : Math.min(Math.max(value, a[0]), a[1]);
    const d = Math.abs(candidate - value);
    if (d < distance || (d === distance && candidate > best)) {
      best = candidate;
      distance = d;
    }
  }
  return best;
}

/**
 * Reads a TTL policy setting (ALLOWED_TTLS, ALLOWED_TTLS_BEYOND_REST): comma-separated values and ranges
 * (`60-86400`), or `any`. Undefined when malformed.
 */
export function parseAllowedTtls(raw: string): AllowedTtls | undefined {
  const items = raw.split(/[\s,]+/).filter(Boolean);
  if (!items.length) return undefined;
  if (items.length === 1 && items[0].toLowerCase() === 'any') return [];
  const out: (number | [number, number])[] = [];
  for (const item of items) {
    const m = /^([0-9]+)(?:-([0-9]+))?$/.exec(item);
    if (!m) return undefined;
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    // RFC 2181 §8: a TTL is an unsigned 31-bit number
    if (high > MAX_TTL || low > high) return undefined;
    if (m[2] !== undefined) out.push([low, high]);
    else if (!out.includes(low)) out.push(low);
  }
  // longest first, as RESTKnot listed its values
  const key = (a: number | readonly [number, number]) => (typeof a === 'number' ? a : a[1]);
  return out.sort((a, b) => key(b) - key(a));
}

/**
 * Checks a TTL: a whole number (a number, or a string of digits), 0..2147483647 (RFC 2181 §8) and allowed by
 * the policy. An empty policy allows every value in range.
 */
export function checkTtl(ttl: unknown, allowed: AllowedTtls, field = 'ttl'): Problem[] {
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
  if (!ttlAllowed(value, allowed)) {
    const setting = allowed.setting ? ` (${allowed.setting})` : '';
    return [
      problem(field, 'TTL_NOT_ALLOWED', `${field}: ${value} is not one of the allowed values ${describeAllowedTtls(allowed)}${setting}`),
    ];
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
