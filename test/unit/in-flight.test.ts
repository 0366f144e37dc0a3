import { InFlight } from '../../src/services/rate-limits';

/** the turns queued by setImmediate have run */
const turnsRun = () => new Promise((resolve) => setImmediate(resolve));

test('at most perUser run at once for a user, the others start in order as turns end; other users are not held', async () => {
  const gate = new InFlight(2, 10);
  const started: string[] = [];
  const leave = ['a1', 'a2', 'a3', 'a4'].map((name) => gate.enter(1, () => started.push(name))!);
  const other = gate.enter(2, () => started.push('b1'));
  expect(started).toEqual(['a1', 'a2', 'b1']);
  expect(gate.of(1)).toEqual({ running: 2, waiting: 2 });

  leave[1]();
  // ending a turn twice (finish, then close) frees one place only
  leave[1]();
  await turnsRun();
  expect(started).toEqual(['a1', 'a2', 'b1', 'a3']);
  expect(gate.of(1)).toEqual({ running: 2, waiting: 1 });

  leave[0]();
  await turnsRun();
  expect(started).toEqual(['a1', 'a2', 'b1', 'a3', 'a4']);
  for (const end of [...leave, other!]) end();
  expect(gate.of(1)).toEqual({ running: 0, waiting: 0 });
});

test('beyond the queue a request is refused; a waiting request whose client went away leaves the queue and never starts', async () => {
  const gate = new InFlight(1, 2);
  const started: string[] = [];
  const first = gate.enter(7, () => started.push('first'))!;
  const gone = gate.enter(7, () => started.push('gone'))!;
  const third = gate.enter(7, () => started.push('third'))!;
  expect(gate.enter(7, () => started.push('refused'))).toBeUndefined();
  expect(gate.of(7)).toEqual({ running: 1, waiting: 2 });

  gone();
  expect(gate.of(7)).toEqual({ running: 1, waiting: 1 });
  first();
  await turnsRun();
  expect(started).toEqual(['first', 'third']);
  third();
  expect(gate.of(7)).toEqual({ running: 0, waiting: 0 });
});

test('0: no cap', () => {
  const gate = new InFlight(0, 0);
  let started = 0;
  for (let i = 0; i < 100; i++) gate.enter(1, () => (started += 1));
  expect(started).toBe(100);
});
