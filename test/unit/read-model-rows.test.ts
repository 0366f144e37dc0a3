import { toDomain, toUser } from '../../src/repositories/read-model/rows';

/**
 * A zone's or a user's creation time read as PostgreSQL's text (LAZY_TIMES) is the instant PostgreSQL meant,
 * whatever its offset's form: hours only (`+00`, `-05`), hours and minutes (`+05:30`), with or without a fraction
 * of a second; a Date pg parsed is kept as it is.
 */
const zone = (createdAt: unknown) =>
  toDomain({ id: '1', user_id: '2', name: 'example.com', serial: '1', created_at: createdAt, kind: 'primary' });

test.each([
  ['2026-11-22 02:57:39.346+00', '2026-11-22T02:57:39.346Z'],
  ['2026-11-22 02:57:39+00', '2026-11-22T02:57:39.000Z'],
  ['2026-11-22 02:57:39.5-05', '2026-11-22T07:57:39.500Z'],
  ['2026-11-22 02:57:39.123456+05:30', '2026-11-21T21:27:39.123Z'],
  ['2026-11-22 23:59:59.999+01', '2026-11-22T22:59:59.999Z'],
])('%s is %s', (text, instant) => {
  expect(zone(text).createdAt.toISOString()).toBe(instant);
  expect(toUser({ id: '2', email: 'a@example.com', created_at: text }).createdAt.toISOString()).toBe(instant);
});

test('a Date pg parsed is kept', () => {
  const at = new Date('2026-11-22T02:57:39.346Z');
  expect(zone(at).createdAt).toBe(at);
});
