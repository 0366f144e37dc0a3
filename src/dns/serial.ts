/**
 * SOA serial numbers (RFC 1982, SERIAL_BITS = 32). Serials wrap around at 2^32; "greater" means "less than half
 * the circle ahead" (RFC 1982 §3.2). Adding more than 2^31 - 1 at once is undefined (§3.1), so every step here
 * moves forward by at most that much.
 */
export type SerialPolicy = 'date' | 'increment' | 'unixtime';

const MODULUS = 2 ** 32;
const HALF = 2 ** 31;
/** RFC 1982 §3.1: the largest amount that may be added to a serial in one step */
const MAX_STEP = HALF - 1;

function inRange(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n < MODULUS;
}

/** RFC 1982 §3.2: s1 > s2 iff (s1 < s2 and s2 - s1 > 2^31) or (s1 > s2 and s1 - s2 < 2^31); undefined pairs -> false */
export function serialGreaterThan(a: number, b: number): boolean {
  if (!inRange(a) || !inRange(b)) throw new RangeError(`serials must be integers 0..${MODULUS - 1}`);
  return (a < b && b - a > HALF) || (a > b && a - b < HALF);
}

/** RFC 1982 §3.1: addition modulo 2^32 */
export function serialAdd(serial: number, n: number): number {
  if (!inRange(serial) || !Number.isInteger(n) || n < 0 || n > MAX_STEP) throw new RangeError('serial addition out of range');
  return (serial + n) % MODULUS;
}

/** YYYYMMDD00 for the UTC day of `now` (the common BIND convention, nn = 00..99 changes that day) */
export function dateSerial(now: Date): number {
  const yyyymmdd = now.getUTCFullYear() * 10000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate();
  return (yyyymmdd * 100) % MODULUS;
}

function unixSerial(now: Date): number {
  return Math.floor(now.getTime() / 1000) % MODULUS;
}

/**
 * The serial after `current` under a policy. It is always greater than `current` in serial arithmetic, so
 * secondaries always see the change: when the policy's clock value is not ahead of `current` (e.g. more than
 * 99 changes in one day, or a clock set back), the serial simply advances by one.
 */
export function nextSerial(current: number, policy: SerialPolicy, now: Date): number {
  const plusOne = serialAdd(current, 1);
  if (policy === 'increment') return plusOne;
  const candidate = policy === 'date' ? dateSerial(now) : unixSerial(now);
  // the candidate is used only if it is ahead of current + 1 and reachable from current in one legal step
  // (RFC 1982 §3.1: an addition is below 2^31, otherwise the comparison is undefined)
  return serialGreaterThan(candidate, plusOne) && serialGreaterThan(candidate, current) ? candidate : plusOne;
}

/** the serial of a new zone */
export function initialSerial(policy: SerialPolicy, now: Date): number {
  if (policy === 'increment') return 1;
  return policy === 'date' ? dateSerial(now) : unixSerial(now);
}
