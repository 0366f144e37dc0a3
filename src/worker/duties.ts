/**
 * The worker's duties as a table, and the one runner that keeps them (docs/architecture.md, «The duties»).
 *
 * A duty is a name, an interval and a run. The runner runs each on its interval, one run at a time per duty: a
 * tick that falls while the duty's run is on its way is dropped (the next tick comes), a wake (a LISTEN
 * notification, another duty asking) is served at once, or by one run right after the one on its way. A run that
 * fails is told once here: a database that cannot be reached is noted (db/availability.ts: one line when it goes,
 * one when it is back), anything else is logged with the duty's name; either way the duty runs again at its next
 * tick. stop() starts no run after it and resolves once the runs on their way have ended.
 */
import { noteDatabaseFailure } from '../db/availability';
import type { Logger } from '../logger';
import { PacedRun } from '../paced-run';

export interface Duty {
  /** what the duty does, in a few words: its failures are logged under it */
  name: string;
  /** ms between two runs */
  every: number;
  /** one run; `signal` is aborted when the worker stops, for a run that loops to end early */
  run: (signal: AbortSignal) => Promise<unknown>;
  /** ms before the first run: 0 runs it at start (the default is `every`) */
  firstAfter?: number;
  /** the worker's start waits for its first run (what the worker did before it counted as started) */
  awaitFirst?: boolean;
  /** the shortest ms between the starts of two runs, wakes included (PacedRun): many wakes, one run */
  pace?: number;
  /** subscribes the duty's wake-ups (LISTEN on a channel), at start; answers how to unsubscribe */
  listen?: (wake: () => void) => Promise<() => void>;
  /** what a failure's log line says, and at which level (default: `<name>: failed; it runs again at the next tick`) */
  failure?: { message: string; level?: 'warn' | 'error' };
  /** where a lost database is noted (noteDatabaseFailure's one line; default: the name) */
  where?: string;
  /** ends what the duty has under way beyond its run (sends, refreshes, checks), at stop, once its run has ended */
  stop?: () => Promise<void>;
}

/** a failure of a duty's run (or of work it started and did not await), told as the runner tells it */
export function reportDutyFailure(log: Logger, duty: Pick<Duty, 'name' | 'failure' | 'where'>, error: unknown): void {
  if (noteDatabaseFailure(error, duty.where ?? duty.name)) return;
  const message = duty.failure?.message ?? `${duty.name}: failed; it runs again at the next tick`;
  log[duty.failure?.level ?? 'error']({ err: error, duty: duty.name }, message);
}

/** a duty in the runner: its timers, its paced run, whether a run is on its way */
class Slot {
  readonly paced: PacedRun;
  running: Promise<void> | undefined;
  timer: NodeJS.Timeout | undefined;
  first: NodeJS.Timeout | undefined;
  /** a wake asked for later (wake's `inMs`): the earliest one asked is kept */
  later: NodeJS.Timeout | undefined;
  laterAt = Infinity;
  unlisten: (() => void) | undefined;

  constructor(
    readonly duty: Duty,
    log: Logger,
    signal: AbortSignal,
  ) {
    this.paced = new PacedRun(duty.pace ?? 0, () => {
      // a run that throws before its first await fails like one that rejects
      this.running = Promise.resolve()
        .then(() => duty.run(signal))
        .then(
          () => undefined,
          (error: unknown) => reportDutyFailure(log, duty, error),
        )
        .finally(() => {
          this.running = undefined;
        });
      return this.running;
    });
  }
}

export class DutyRunner {
  private readonly slots = new Map<string, Slot>();
  private readonly stopping = new AbortController();
  private started = false;

  constructor(private readonly log: Logger) {}

  get stopped(): boolean {
    return this.stopping.signal.aborted;
  }

  /**
   * Starts the duties: their LISTENs first (in order), then the first runs the start waits for (in order), then
   * the timers and the first runs at start.
   */
  async start(duties: readonly Duty[]): Promise<void> {
    if (this.started) throw new Error('the duties are started once');
    this.started = true;
    for (const duty of duties) {
      if (this.slots.has(duty.name)) throw new Error(`two duties named ${duty.name}`);
      this.slots.set(duty.name, new Slot(duty, this.log, this.stopping.signal));
    }
    for (const slot of this.slots.values()) {
      if (!slot.duty.listen || this.stopped) continue;
      const unlisten = await slot.duty.listen(() => this.wake(slot.duty.name));
      // stopped while it subscribed: stop() has unsubscribed the others already
      if (this.stopped) unlisten();
      else slot.unlisten = unlisten;
    }
    for (const slot of this.slots.values()) {
      if (!slot.duty.awaitFirst || this.stopped) continue;
      slot.paced.request();
      await slot.running;
    }
    for (const slot of this.slots.values()) {
      if (this.stopped) return;
      const { every } = slot.duty;
      // a first run the start waited for counts as the first
      const firstAfter = slot.duty.awaitFirst ? every : (slot.duty.firstAfter ?? every);
      const tick = () => {
        if (!slot.running) slot.paced.request();
      };
      if (firstAfter === every) slot.timer = setInterval(tick, every);
      else
        slot.first = setTimeout(() => {
          slot.first = undefined;
          if (this.stopped) return;
          slot.timer = setInterval(tick, every);
          tick();
        }, firstAfter);
    }
  }

  /**
   * Runs the named duty now (or right after its run on its way, or when its pace allows), or in `inMs`: of the
   * wakes asked for later, the earliest counts. Nothing after stop, nor for a duty not in the table.
   */
  wake(name: string, inMs = 0): void {
    const slot = this.slots.get(name);
    if (!slot || this.stopped) return;
    if (inMs <= 0) {
      slot.paced.request();
      return;
    }
    const at = Date.now() + inMs;
    if (slot.later && slot.laterAt <= at) return;
    clearTimeout(slot.later);
    slot.laterAt = at;
    slot.later = setTimeout(() => {
      slot.later = undefined;
      slot.laterAt = Infinity;
      slot.paced.request();
    }, inMs);
    slot.later.unref();
  }

  /** whether the named duty's run is on its way */
  running(name: string): boolean {
    return this.slots.get(name)?.running !== undefined;
  }

  /** Starts no run after this; resolves once every run on its way and what the duties had under way have ended. */
  async stop(): Promise<void> {
    this.stopping.abort();
    for (const slot of this.slots.values()) {
      clearInterval(slot.timer);
      clearTimeout(slot.first);
      clearTimeout(slot.later);
      slot.unlisten?.();
    }
    // the runs on their way first (told to stop by the signal), then what they started: what a duty ends at its
    // stop (sends, refreshes, checks) may have been started by its last run
    await Promise.all([...this.slots.values()].map((slot) => slot.paced.stop()));
    await Promise.all([...this.slots.values()].map((slot) => slot.duty.stop?.() ?? Promise.resolve()));
  }
}
