/**
 * A secondary's NOTIFY pace (src/worker/notify-pacing.ts) on a clock of the test's: a token bucket at
 * NOTIFY_RATE_PER_SECONDARY that follows what the secondary takes (the zones it asks for after their NOTIFY).
 */
import { AWAIT_MS, MAX_RATE, MIN_RATE, NotifyPace } from '../../src/worker/notify-pacing';

/** a pace on a clock the test moves */
function paceAt(startRate: number) {
  let now = 1_000_000;
  const pace = new NotifyPace(startRate, () => now);
  return { pace, advance: (ms: number) => (now += ms) };
}

/**
 * `seconds` of a change to many zones: NOTIFYs leave as the pace allows (checked every 10 ms), the secondary asks
 * for at most `takesPerSecond` of the zones it was NOTIFYed of, oldest first; `adapt` once a second. Answers the
 * NOTIFYs sent in each second.
 */
function run(pace: NotifyPace, advance: (ms: number) => void, seconds: number, takesPerSecond: number, observing = true): number[] {
  const waiting: string[] = [];
  const sentPerSecond: number[] = [];
  let next = 0;
  let intake = 0;
  for (let second = 0; second < seconds; second += 1) {
    let sent = 0;
    for (let tick = 0; tick < 100; tick += 1) {
      advance(10);
      while (pace.take()) {
        const zone = `z${next++}.example`;
        pace.sent(zone);
        waiting.push(zone);
        sent += 1;
      }
      // the secondary's intake, spread over the second
      intake = Math.min(intake + takesPerSecond / 100, waiting.length);
      for (; intake >= 1; intake -= 1) pace.asked(waiting.shift()!);
    }
    sentPerSecond.push(sent);
    // the queue here never empties: a change to every zone
    pace.adapt(1000, observing);
  }
  return sentPerSecond;
}

test('before anything is seen of the secondary, NOTIFYs leave at the configured pace, a tenth of a second at most at once', () => {
  const { pace, advance } = paceAt(200);
  // a full bucket holds 20: the first burst is no larger
  let burst = 0;
  while (pace.take()) burst += 1;
  expect(burst).toBe(20);
  expect(pace.waitMs()).toBe(5);
  advance(5);
  expect(pace.take()).toBe(true);
  expect(pace.take()).toBe(false);
  // a secondary that never asks (its requests go to another process's primary): the pace stays
  const sent = run(pace, advance, 10, 0);
  expect(pace.rate).toBe(200);
  expect(sent.slice(1).every((n) => n >= 195 && n <= 205)).toBe(true);
});

test('a secondary that takes 20 a second (BIND’s default serial-query-rate) is paced at what it takes', () => {
  const { pace, advance } = paceAt(200);
  pace.sent('first.example');
  pace.asked('first.example'); // seen once: its pace is learnt from now on
  const sent = run(pace, advance, 30, 20);
  // within a few seconds the pace falls to what it takes, a fifth more to find out when it takes more
  expect(pace.rate).toBeGreaterThanOrEqual(20);
  expect(pace.rate).toBeLessThanOrEqual(20 * 1.2 + 1);
  const last10 = sent.slice(-10).reduce((a, b) => a + b, 0) / 10;
  expect(last10).toBeLessThanOrEqual(26);
  // the NOTIFYs not yet asked for stay bounded: a few seconds of its intake, not the whole change
  expect(pace.outstanding).toBeLessThan(200 * 4);
});

test('a secondary that takes all it is sent is paced ever faster, up to the ceiling', () => {
  const { pace, advance } = paceAt(200);
  pace.sent('first.example');
  pace.asked('first.example');
  run(pace, advance, 5, 1_000_000);
  expect(pace.rate).toBeGreaterThan(200 * 1.5 ** 4 - 1);
  run(pace, advance, 30, 1_000_000);
  expect(pace.rate).toBe(MAX_RATE);
});

test('a secondary that stops asking is paced down to the floor, and back up once it takes again', () => {
  const { pace, advance } = paceAt(1000);
  pace.sent('first.example');
  pace.asked('first.example');
  run(pace, advance, 10, 0);
  expect(pace.rate).toBe(MIN_RATE);
  // NOTIFYs unanswered for AWAIT_MS are forgotten; it takes again: the pace rises by half a second
  advance(AWAIT_MS + 1000);
  pace.adapt(1000, true);
  run(pace, advance, 12, 1_000_000);
  expect(pace.rate).toBeGreaterThan(100);
});

test('re-NOTIFYs of zones a slow secondary has queued do not read as NOTIFYs it dropped', () => {
  const { pace, advance } = paceAt(200);
  pace.sent('first.example');
  pace.asked('first.example');
  // each zone NOTIFYed, then again (the status checks' nudges of a lagging zone), before it is asked for
  const waiting: string[] = [];
  let next = 0;
  let intake = 0;
  for (let second = 0; second < 30; second += 1) {
    for (let tick = 0; tick < 100; tick += 1) {
      advance(10);
      while (pace.take()) {
        const zone = `z${next++}.example`;
        pace.sent(zone);
        waiting.push(zone);
        if (next % 2 === 0 && waiting.length > 1) pace.sent(waiting[0]);
      }
      intake = Math.min(intake + 50 / 100, waiting.length);
      for (; intake >= 1; intake -= 1) pace.asked(waiting.shift()!);
    }
    pace.adapt(1000, true);
  }
  // paced at what it takes (50 a second), not driven down to the floor by the repeats
  expect(pace.rate).toBeGreaterThanOrEqual(45);
  expect(pace.rate).toBeLessThanOrEqual(50 * 1.2 + 5);
});

test('where nothing of the secondaries is seen in the process, the pace stays the configured one', () => {
  const { pace, advance } = paceAt(200);
  pace.sent('first.example');
  pace.asked('first.example');
  run(pace, advance, 10, 20, false);
  expect(pace.rate).toBe(200);
});
