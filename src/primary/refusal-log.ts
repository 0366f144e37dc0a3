import type { Logger } from '../logger';

/**
 * Logs a refusal once per key (say key name + address + reason) per interval, with the count of the ones
 * suppressed since: a client retrying a bad TSIG key in a loop, or a flood of made-up key names, must not fill
 * the log, yet the first of each is always there for the operator. Bounded: at most `maxKeys` keys remembered
 * (the oldest go first).
 */
export class RefusalLog {
  private readonly seen = new Map<string, { loggedAt: number; suppressed: number }>();

  constructor(
    private readonly log: Logger,
    private readonly intervalMs = 60_000,
    private readonly maxKeys = 10_000,
  ) {}

  warn(key: string, fields: Record<string, unknown>, message: string, now = Date.now()): void {
    const entry = this.seen.get(key);
    if (entry && now - entry.loggedAt < this.intervalMs) {
      entry.suppressed++;
      return;
    }
    const suppressed = entry?.suppressed ?? 0;
    this.seen.delete(key);
    this.seen.set(key, { loggedAt: now, suppressed: 0 });
    if (this.seen.size > this.maxKeys) this.seen.delete(this.seen.keys().next().value as string);
    this.log.warn(suppressed ? { ...fields, suppressedSinceLast: suppressed } : fields, message);
  }
}
