import { RefusalLog } from '../../src/primary/refusal-log';
import type { Logger } from '../../src/logger';

/** a logger that keeps what it is given (the object under test is the limiter, not the logger) */
function keepingLogger() {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  const log = { warn: (fields: Record<string, unknown>, message: string) => lines.push({ fields, message }) } as unknown as Logger;
  return { log, lines };
}

test('a refusal is logged once per key and interval, then again with the count suppressed meanwhile', () => {
  const { log, lines } = keepingLogger();
  const refusals = new RefusalLog(log, 60_000);
  refusals.warn('tsig BADSIG k 192.0.2.1', { key: 'k' }, 'TSIG BADSIG', 0);
  refusals.warn('tsig BADSIG k 192.0.2.1', { key: 'k' }, 'TSIG BADSIG', 1_000);
  refusals.warn('tsig BADSIG k 192.0.2.1', { key: 'k' }, 'TSIG BADSIG', 59_999);
  // another key or address is another line
  refusals.warn('tsig BADSIG k 192.0.2.2', { key: 'k' }, 'TSIG BADSIG', 2_000);
  refusals.warn('tsig BADSIG k 192.0.2.1', { key: 'k' }, 'TSIG BADSIG', 60_000);
  expect(lines).toEqual([
    { fields: { key: 'k' }, message: 'TSIG BADSIG' },
    { fields: { key: 'k' }, message: 'TSIG BADSIG' },
    { fields: { key: 'k', suppressedSinceLast: 2 }, message: 'TSIG BADSIG' },
  ]);
});

test('it remembers a bounded number of keys: a flood of made-up names cannot grow it', () => {
  const { log, lines } = keepingLogger();
  const refusals = new RefusalLog(log, 60_000, 3);
  for (let i = 0; i < 10; i++) refusals.warn(`key-${i}`, {}, 'x', 0);
  // the oldest were forgotten, so key-0 logs again; key-9 is still remembered and stays quiet
  refusals.warn('key-0', {}, 'x', 1);
  refusals.warn('key-9', {}, 'x', 1);
  expect(lines).toHaveLength(11);
});
