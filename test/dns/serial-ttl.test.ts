import { initialSerial, nextSerial, serialAdd, serialGreaterThan } from '../../src/dns/serial';
import { checkTtl, clampTtl, DEFAULT_ALLOWED_TTLS, parseAllowedTtls, parseDuration } from '../../src/dns/ttl';

describe('RFC 1982 serial arithmetic', () => {
  it.each([
    [1, 0, true],
    [0, 1, false],
    [5, 5, false],
    [0, 4294967295, true], // wrapped: 0 comes after 2^32-1
    [4294967295, 0, false],
    [100, 4294967200, true],
    [2147483647, 0, true], // just under half the circle ahead
    [2147483648, 0, false], // exactly half: undefined, never "greater"
    [0, 2147483648, false],
    [2147483649, 0, false], // more than half ahead = behind
    [0, 2147483649, true],
  ])('%d > %d is %s', (a, b, expected) => {
    expect(serialGreaterThan(a, b)).toBe(expected);
  });

  it('refuses values outside 0..2^32-1', () => {
    expect(() => serialGreaterThan(-1, 0)).toThrow(RangeError);
    expect(() => serialGreaterThan(2 ** 32, 0)).toThrow(RangeError);
    expect(() => serialAdd(1, 2 ** 31)).toThrow(RangeError);
  });

  it('adds modulo 2^32', () => {
    expect(serialAdd(4294967295, 1)).toBe(0);
    expect(serialAdd(4294967290, 10)).toBe(4);
  });
});

describe('next serial', () => {
  const day = new Date('2025-03-07T12:00:00Z');

  it('increment wraps at 2^32', () => {
    expect(nextSerial(41, 'increment', day)).toBe(42);
    expect(nextSerial(4294967295, 'increment', day)).toBe(0);
  });

  it('date: jumps to today YYYYMMDD00 when behind, else +1 (no daily limit)', () => {
    expect(nextSerial(2025010105, 'date', day)).toBe(2025030700);
    expect(nextSerial(2025030700, 'date', day)).toBe(2025030701);
    expect(nextSerial(2025030799, 'date', day)).toBe(2025030800); // the 100th change of the day still increases
    expect(nextSerial(2025030899, 'date', day)).toBe(2025030900);
    expect(nextSerial(1, 'date', day)).toBe(2025030700);
  });

  it('date: never goes backwards, even if the current serial is far ahead or wraps', () => {
    expect(nextSerial(4000000000, 'date', day)).toBe(4000000001);
    // from 2^32-1 the date value is 2025030701 ahead (a legal step below 2^31), so the serial wraps back to it
    const wrapped = nextSerial(4294967295, 'date', day);
    expect(wrapped).toBe(2025030700);
    expect(serialGreaterThan(wrapped, 4294967295)).toBe(true);
    // from 4000000000 the date value is 2320064996 ahead: more than 2^31, i.e. behind; so +1
    expect(nextSerial(4000000000, 'date', day)).toBe(4000000001);
    // exactly 2^31 ahead of current is undefined (RFC 1982 §3.2): not used
    expect(nextSerial((2025030700 + 2 ** 31) % 2 ** 32, 'date', day)).toBe((2025030700 + 2 ** 31 + 1) % 2 ** 32);
    expect(nextSerial((2025030700 + 2 ** 31 + 1) % 2 ** 32, 'date', day)).toBe(2025030700);
  });

  it('unixtime: max(now, current + 1)', () => {
    const now = new Date(1700000000 * 1000 + 999);
    expect(nextSerial(5, 'unixtime', now)).toBe(1700000000);
    expect(nextSerial(1700000000, 'unixtime', now)).toBe(1700000001);
    expect(nextSerial(1800000000, 'unixtime', now)).toBe(1800000001);
  });

  it('every policy gives a serial greater than the current one', () => {
    for (const current of [0, 1, 2025030799, 2147483647, 2147483648, 4294967294, 4294967295]) {
      for (const policy of ['date', 'increment', 'unixtime'] as const) {
        expect(serialGreaterThan(nextSerial(current, policy, day), current)).toBe(true);
      }
    }
  });

  it('initial serials', () => {
    expect(initialSerial('date', day)).toBe(2025030700);
    expect(initialSerial('increment', day)).toBe(1);
    expect(initialSerial('unixtime', new Date(1700000000000))).toBe(1700000000);
  });
});

describe('TTL', () => {
  it.each([
    [3600, []],
    ['300', []],
    [3601, ['TTL_NOT_ALLOWED']],
    [-1, ['TTL_RANGE']],
    [2147483648, ['TTL_RANGE']],
    [1.5, ['TTL_NOT_INTEGER']],
    ['1h', ['TTL_NOT_INTEGER']],
    [null, ['TTL_NOT_INTEGER']],
    [undefined, ['TTL_NOT_INTEGER']],
  ])('%j -> %j', (ttl, expected) => {
    expect(checkTtl(ttl, DEFAULT_ALLOWED_TTLS).map((p) => p.code)).toEqual(expected);
  });

  it('names the allowed values', () => {
    const [p] = checkTtl(60, [300, 3600]);
    expect(p).toMatchObject({ field: 'ttl', code: 'TTL_NOT_ALLOWED' });
    expect(p.message).toContain('300, 3600');
  });

  it('an empty allow-list allows every TTL in range', () => {
    expect(checkTtl(0, [])).toEqual([]);
    expect(checkTtl(2147483647, [])).toEqual([]);
  });

  it.each([
    ['3600', 3600],
    ['1h', 3600],
    ['1h30m', 5400],
    ['2W', 1209600],
    ['1d2s', 86402],
    ['x', undefined],
    ['1x', undefined],
    ['', undefined],
  ])('duration %j = %j', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });
});

describe('ALLOWED_TTLS policy: values, ranges, any', () => {
  it('parses values and ranges, longest first; any is the empty policy; malformed is undefined', () => {
    expect(parseAllowedTtls('300, 60-86400 3600')).toEqual([[60, 86400], 3600, 300]);
    expect(parseAllowedTtls('any')).toEqual([]);
    for (const bad of ['', '10-5', 'x', '1-2147483648', '60-']) expect(parseAllowedTtls(bad)).toBeUndefined();
  });

  it('checks and clamps against ranges and values', () => {
    const policy = parseAllowedTtls('60-3600,86400')!;
    expect(checkTtl(120, policy)).toEqual([]);
    expect(checkTtl(7200, policy)[0].message).toBe('ttl: 7200 is not one of the allowed values 60–3600, 86400');
    expect([59, 7200, 50000, 100000].map((t) => clampTtl(t, policy))).toEqual([60, 3600, 86400, 86400]);
    expect(clampTtl(5, [])).toBe(5);
  });
});
