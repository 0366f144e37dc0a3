/**
 * The pacing of the journal signal (src/db/journal-signal.ts, paced by src/paced-run.ts, which the worker's
 * outbox drain shares), with a recording `notify` in place of the
 * NOTIFY statement (what reaches PostgreSQL is tested in test/propagation/journal-signal.test.ts): a lone
 * commit is announced at once, a burst by the first notification and one after the interval, a
 * notification on its way holds the next one back until it is answered, one that falls due while a statement
 * of the process is on its way goes at that statement's commit (one more interval at most), and stopping
 * (before the pool closes) sends a waiting notification at once and none after.
 *
 * Time is Jest's fake clock (timers and Date.now): the interval is passed exactly, so no assertion depends on
 * how busy the machine is. `advanceTimersByTimeAsync` also lets the promise callbacks run between timers.
 */
import { afterEach, beforeEach, expect, jest, test } from '@jest/globals';
import { JournalSignal, SIGNAL_INTERVAL_MS } from '../../src/db/journal-signal';

beforeEach(() => {
  jest.useFakeTimers();
});

afterEach(() => {
  jest.useRealTimers();
});

/** lets time pass on the fake clock, running the timers that fall due and the promise callbacks they start */
const pass = (ms: number) => jest.advanceTimersByTimeAsync(ms);

function recordingSignal(writing?: () => boolean) {
  const sent: number[] = [];
  let answer: (() => void) | undefined;
  const signal = new JournalSignal(() => {
    sent.push(Date.now());
    return new Promise<void>((resolve) => {
      answer = resolve;
    });
  }, writing);
  return { signal, sent, answer: () => answer?.() };
}

test('a lone commit is announced at once', () => {
  const { signal, sent } = recordingSignal();
  signal.committed();
  expect(sent).toHaveLength(1);
});

test('a burst of commits sends the first at once and one more after the interval', async () => {
  const { signal, sent, answer } = recordingSignal();
  for (let i = 0; i < 100; i++) signal.committed();
  expect(sent).toHaveLength(1);
  answer();
  await pass(SIGNAL_INTERVAL_MS - 1);
  // answered, but the interval has not passed yet
  expect(sent).toHaveLength(1);
  await pass(1);
  expect(sent).toHaveLength(2);
  expect(sent[1] - sent[0]).toBe(SIGNAL_INTERVAL_MS);
  answer();
  await pass(SIGNAL_INTERVAL_MS * 3);
  // nothing committed since the second: nothing more
  expect(sent).toHaveLength(2);
});

test('a notification on its way holds the next one back until it is answered', async () => {
  const { signal, sent, answer } = recordingSignal();
  signal.committed();
  signal.committed();
  await pass(SIGNAL_INTERVAL_MS * 3);
  expect(sent).toHaveLength(1);
  answer();
  // the interval is long past: the answer alone lets the next one go, with no more time passing
  await pass(0);
  expect(sent).toHaveLength(2);
});

test('a failed notification does not stop the next', async () => {
  let calls = 0;
  const signal = new JournalSignal(async () => {
    calls += 1;
    if (calls === 1) throw new Error('connection lost');
  });
  signal.committed();
  await pass(SIGNAL_INTERVAL_MS);
  signal.committed();
  expect(calls).toBe(2);
});

test('stopping sends a notification still waiting for its interval at once, and none after', async () => {
  const { signal, sent, answer } = recordingSignal();
  signal.committed();
  signal.committed(); // waits: the first is on its way
  expect(sent).toHaveLength(1);
  answer();
  const stopping = signal.stop();
  await pass(0);
  // sent without waiting out the interval: the pool is about to close
  expect(sent).toHaveLength(2);
  expect(sent[1]).toBe(sent[0]);
  answer();
  await stopping;
  signal.committed();
  await pass(SIGNAL_INTERVAL_MS * 3);
  expect(sent).toHaveLength(2);
});

test('stopping with nothing waiting sends nothing', async () => {
  const { signal, sent, answer } = recordingSignal();
  signal.committed();
  answer();
  await signal.stop();
  await pass(SIGNAL_INTERVAL_MS * 3);
  expect(sent).toHaveLength(1);
});

test('a notification due while a statement is on its way goes at its commit, not beside it', async () => {
  let writing = false;
  const { signal, sent, answer } = recordingSignal(() => writing);
  signal.committed();
  answer();
  signal.committed(); // within the interval: waits for it
  writing = true; // the next write is on its way when the interval ends
  await pass(SIGNAL_INTERVAL_MS + 3);
  expect(sent).toHaveLength(1);
  // its commit: the waiting notification goes at once, with the one of this commit
  writing = false;
  signal.committed();
  expect(sent).toHaveLength(2);
  expect(sent[1] - sent[0]).toBe(SIGNAL_INTERVAL_MS + 3);
});

test('a notification waits for a statement on its way one more interval at most', async () => {
  let writing = false;
  const { signal, sent, answer } = recordingSignal(() => writing);
  signal.committed();
  answer();
  signal.committed();
  writing = true; // a statement on its way that never commits journal rows (a read, a failed write)
  await pass(SIGNAL_INTERVAL_MS * 2 - 1);
  expect(sent).toHaveLength(1);
  await pass(1);
  expect(sent).toHaveLength(2);
  expect(sent[1] - sent[0]).toBe(SIGNAL_INTERVAL_MS * 2);
});

test('a notification due with no statement on its way goes at once', async () => {
  let writing = false;
  const { signal, sent, answer } = recordingSignal(() => writing);
  signal.committed();
  answer();
  writing = true; // on its way at the commit, done before the interval ends
  signal.committed();
  writing = false;
  await pass(SIGNAL_INTERVAL_MS);
  expect(sent).toHaveLength(2);
  expect(sent[1] - sent[0]).toBe(SIGNAL_INTERVAL_MS);
});
