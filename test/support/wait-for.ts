/**
 * Waiting for something to happen, not for a time to pass: a test that waits a fixed time either waits too
 * long on a quiet machine or not long enough on a loaded one. `waitFor` polls a condition until it holds and
 * fails with what it was waiting for (and the last error or value seen) after a deadline generous enough for
 * a machine shared with other test runs; the deadline is a bound on a hang, not a latency target.
 */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A poll's interval, unless the caller fixes one, grows with the wait, to a tenth of the time waited so far, up to
 * this: a check is a GraphQL request or a dig process, and a wait of seconds on a loaded host polled every 50 ms
 * was hundreds of them, CPU taken from what the test waits for. What is seen within a second is seen as soon as
 * before; what takes 10 s is seen within a tenth more. A caller that must not miss a short state (a roll's step)
 * fixes its interval.
 */
const LONGEST_INTERVAL_MS = 500;

/** polls until `check` returns a value that is not undefined, or fails with the last error after the deadline */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  /** a fixed interval between two polls; without it, 50 ms growing with the wait (LONGEST_INTERVAL_MS) */
  intervalMs?: number,
): Promise<T> {
  const started = Date.now();
  const deadline = started + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : ''}`,
      );
    await sleep(intervalMs ?? Math.max(50, Math.min(LONGEST_INTERVAL_MS, (Date.now() - started) / 10)));
  }
}

/** polls until `condition` is true (see waitFor) */
export async function waitUntil(
  what: string,
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  intervalMs = 20,
): Promise<void> {
  await waitFor(what, async () => ((await condition()) ? true : undefined), timeoutMs, intervalMs);
}
