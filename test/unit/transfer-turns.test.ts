/**
 * The process's turns for transfers in (src/dns-client/zone-transfer-in.ts): at most TRANSFERS_AT_ONCE run at once,
 * the others wait in the order they asked, and a task that fails frees its turn.
 */
import { Turns, TRANSFERS_AT_ONCE } from '../../src/dns-client/zone-transfer-in';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('no more tasks run at once than there are turns; the rest start in order as turns free up, after failures too', async () => {
  const turns = new Turns(TRANSFERS_AT_ONCE);
  let running = 0;
  let most = 0;
  const started: number[] = [];
  const finish: (() => void)[] = [];
  const tasks = Array.from({ length: 7 }, (_, i) =>
    turns.take(async () => {
      started.push(i);
      running++;
      most = Math.max(most, running);
      await new Promise<void>((resolve) => finish.push(resolve));
      running--;
      if (i === 1) throw new Error('a transfer that failed');
      return i;
    }),
  );
  // observed from the start: task 1's failure is expected, not unhandled
  const settled = Promise.allSettled(tasks);
  await tick();
  expect(started).toEqual([0, 1]);
  // each task that ends (task 1 by failing) hands its turn to the next in line
  for (let done = 0; done < 7; done++) {
    finish[done]();
    await tick();
    await tick();
    expect(running).toBeLessThanOrEqual(TRANSFERS_AT_ONCE);
  }
  const outcomes = await settled;
  expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
  expect(started).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(most).toBe(TRANSFERS_AT_ONCE);
  // every turn is free again: as many new tasks as turns start at once
  let now = 0;
  await Promise.all(Array.from({ length: TRANSFERS_AT_ONCE }, () => turns.take(async () => void now++)));
  expect(now).toBe(TRANSFERS_AT_ONCE);
});
