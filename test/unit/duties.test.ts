/**
 * The worker's duty runner (src/worker/duties.ts): one run at a time per duty, whatever its ticks and wakes; a
 * run that fails with the database away is noted, not logged as the duty's failure, and the duty runs again; any
 * other failure is logged with the duty's name; stop() waits for the run on its way and starts none after.
 */
import pino from 'pino';
import { noteDatabaseReachable } from '../../src/db/availability';
import type { Logger } from '../../src/logger';
import { Duty, DutyRunner } from '../../src/worker/duties';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** a logger whose lines the test reads */
function capturedLog(): { log: Logger; lines: { level: number; msg: string; duty?: string }[] } {
  const lines: { level: number; msg: string; duty?: string }[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** resolves when `check` holds, looked at every few ms, or fails after `ms` */
async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  for (const end = Date.now() + ms; !check(); await sleep(5)) if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
}

let runner: DutyRunner | undefined;
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  noteDatabaseReachable();
});

test('one run at a time per duty: ticks and wakes during a run are not a second run beside it', async () => {
  const { log } = capturedLog();
  runner = new DutyRunner(log);
  let running = 0;
  let most = 0;
  let runs = 0;
  const slow: Duty = {
    name: 'slow',
    every: 2,
    firstAfter: 0,
    run: async () => {
      running++;
      most = Math.max(most, running);
      runs++;
      await sleep(30);
      running--;
    },
  };
  await runner.start([slow]);
  const waking = setInterval(() => runner?.wake('slow'), 1);
  try {
    await until('five runs', () => runs >= 5);
  } finally {
    clearInterval(waking);
  }
  expect(most).toBe(1);
});

test('the wakes that come during a run are served by one run after it', async () => {
  const { log } = capturedLog();
  runner = new DutyRunner(log);
  let runs = 0;
  let release: () => void = () => undefined;
  const duty: Duty = {
    name: 'woken',
    every: 60_000,
    run: () => {
      runs++;
      return new Promise<void>((resolve) => (release = resolve));
    },
  };
  await runner.start([duty]);
  runner.wake('woken');
  await until('the first run', () => runs === 1);
  for (let i = 0; i < 10; i++) runner.wake('woken');
  expect(runner.running('woken')).toBe(true);
  release();
  await until('the run after', () => runs === 2);
  release();
  await sleep(30);
  expect(runs).toBe(2);
});

test('a run that fails with the database away is noted, not logged as a failure, and the duty runs again', async () => {
  const { log, lines } = capturedLog();
  runner = new DutyRunner(log);
  let runs = 0;
  const duty: Duty = {
    name: 'reads the database',
    every: 5,
    firstAfter: 0,
    run: async () => {
      runs++;
      if (runs <= 3) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    },
  };
  await runner.start([duty]);
  await until('runs after the failures', () => runs >= 5);
  expect(lines.filter((line) => line.level >= 40)).toEqual([]);
});

test("any other failure is logged with the duty's name, and the duty runs again", async () => {
  const { log, lines } = capturedLog();
  runner = new DutyRunner(log);
  let runs = 0;
  const duties: Duty[] = [
    {
      name: 'breaks',
      every: 5,
      firstAfter: 0,
      run: async () => {
        runs++;
        throw new Error('a bug');
      },
    },
    {
      name: 'says how',
      every: 60_000,
      firstAfter: 0,
      run: async () => {
        throw new Error('another bug');
      },
      failure: { level: 'warn', message: 'says how: it went wrong; it runs again later' },
    },
  ];
  await runner.start(duties);
  await until('two failed runs', () => runs >= 2);
  await until('the other failure', () => lines.some((line) => line.duty === 'says how'));
  const breaks = lines.filter((line) => line.duty === 'breaks');
  expect(breaks.length).toBeGreaterThanOrEqual(2);
  expect(breaks[0]).toMatchObject({ level: 50, msg: 'breaks: failed; it runs again at the next tick' });
  expect(lines.find((line) => line.duty === 'says how')).toMatchObject({ level: 40, msg: 'says how: it went wrong; it runs again later' });
});

test('stop() waits for the run on its way, ends what the duty has under way after it, and starts no run after', async () => {
  const { log } = capturedLog();
  runner = new DutyRunner(log);
  const order: string[] = [];
  let runs = 0;
  let release: () => void = () => undefined;
  const duty: Duty = {
    name: 'long',
    every: 5,
    firstAfter: 0,
    run: async (signal) => {
      runs++;
      order.push('run started');
      await new Promise<void>((resolve) => (release = resolve));
      order.push(signal.aborted ? 'run ended, told to stop' : 'run ended');
    },
    stop: async () => {
      order.push('duty stopped');
    },
  };
  await runner.start([duty]);
  await until('the run on its way', () => runs === 1);
  let stopped = false;
  const stopping = runner.stop().then(() => (stopped = true));
  await sleep(30);
  expect(stopped).toBe(false);
  runner.wake('long');
  release();
  await stopping;
  expect(order).toEqual(['run started', 'run ended, told to stop', 'duty stopped']);
  await sleep(30);
  expect(runs).toBe(1);
});

test('the first runs the start waits for come before it resolves, in order; a later wake keeps the earliest', async () => {
  const { log } = capturedLog();
  runner = new DutyRunner(log);
  const order: string[] = [];
  const first = (name: string): Duty => ({
    name,
    every: 60_000,
    awaitFirst: true,
    run: async () => {
      await sleep(10);
      order.push(name);
    },
  });
  const later: Duty = { name: 'later', every: 60_000, run: async () => void order.push('later') };
  await runner.start([first('one'), later, first('two')]);
  expect(order).toEqual(['one', 'two']);
  runner.wake('later', 200);
  runner.wake('later', 20);
  runner.wake('later', 100);
  await until('the wake asked for later', () => order.length === 3);
  await sleep(250);
  expect(order).toEqual(['one', 'two', 'later']);
});
