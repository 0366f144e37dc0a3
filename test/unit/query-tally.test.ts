/**
 * The collector's counts between two writes (src/analytics/query-tally.ts) and its zone matching
 * (src/analytics/zone-matcher.ts): a random-subdomain flood stays within ANALYTICS_NAMES_PER_MINUTE owners per
 * zone and minute plus one "other"; nothing counted is lost across a failed write; connected time is split over
 * the minutes it spans; a name goes to the longest zone it is in.
 */
import { MINUTE_MS, OTHER_OWNER, QueryTally } from '../../src/analytics/query-tally';
import { ZoneMatcher } from '../../src/analytics/zone-matcher';

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);

it('a flood of 100,000 unique names in one zone and minute adds at most the bound + 1 owners, and counts every answer', () => {
  const tally = new QueryTally(1000);
  for (let i = 0; i < 100_000; i++) tally.answer(1, `r${i}`, 1, 3, 'ns1', T0 + (i % 60_000));
  const { counts } = tally.take();
  expect(new Set(counts.map((row) => row.owner)).size).toBe(1001);
  expect(counts.find((row) => row.owner === OTHER_OWNER)?.count).toBe(99_000);
  expect(counts.reduce((sum, row) => sum + row.count, 0)).toBe(100_000);
  // the next minute has its own bound; the owners of the first stay remembered across a take
  tally.answer(1, 'r5000', 1, 3, 'ns1', T0 + 1000);
  tally.answer(1, 'r5000', 1, 3, 'ns1', T0 + MINUTE_MS);
  expect(
    tally
      .take()
      .counts.map((row) => [row.minute - T0, row.owner])
      .sort(),
  ).toEqual([
    [0, OTHER_OWNER],
    [MINUTE_MS, 'r5000'],
  ]);
});

it('a batch whose write failed is counted again with what came since', () => {
  const tally = new QueryTally(10);
  tally.answer(1, 'www', 1, 0, 'ns1', T0);
  const failed = tally.take();
  tally.answer(1, 'www', 1, 0, 'ns1', T0 + 5);
  tally.putBack(failed);
  expect(tally.take().counts).toEqual([expect.objectContaining({ owner: 'www', type: 'A', count: 2, lastAt: T0 + 5 })]);
});

it('a batch dropped is told as dropped in its secondaries’ coverage', () => {
  const tally = new QueryTally(10);
  for (let i = 0; i < 3; i++) tally.answer(1, 'www', 28, 0, 'ns1', T0);
  expect(tally.drop(tally.take())).toBe(3);
  expect(tally.take()).toEqual({ counts: [], coverage: [expect.objectContaining({ secondary: 'ns1', dropped: 3, answers: 3 })] });
});

it('connected time is split over the minutes it spans, from when it began', () => {
  const tally = new QueryTally(10);
  tally.connected('ns1', T0 + 50_000, T0 + 2 * MINUTE_MS + 5_000);
  expect(tally.take().coverage.map((row) => [row.minute - T0, row.coveredMs, row.firstAt - T0])).toEqual([
    [0, 10_000, 50_000],
    [MINUTE_MS, MINUTE_MS, MINUTE_MS],
    [2 * MINUTE_MS, 5_000, 2 * MINUTE_MS],
  ]);
});

it('a name goes to the longest of the zones it is in, its owner relative', () => {
  const matcher = new ZoneMatcher(
    new Map([
      ['example.com', 1],
      ['sub.example.com', 2],
    ]),
  );
  expect(matcher.match('example.com.')).toEqual({ zoneId: 1, owner: '@' });
  expect(matcher.match('www.example.com.')).toEqual({ zoneId: 1, owner: 'www' });
  expect(matcher.match('a.b.sub.example.com.')).toEqual({ zoneId: 2, owner: 'a.b' });
  expect(matcher.match('a\\.sub.example.com.')).toEqual({ zoneId: 1, owner: 'a\\.sub' });
  expect(matcher.match('example.org.')).toBeUndefined();
  expect(matcher.match('.')).toBeUndefined();
});
