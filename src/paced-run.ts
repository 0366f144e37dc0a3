/**
 * Runs a task when asked, one run at a time and at most once per `intervalMs`. The first request after a quiet
 * interval runs at once; requests that come while a run is on its way or within the interval are served by one
 * run after it. Used where every event could start the same work but one run can serve many events: the
 * worker's outbox drain (one claim per interval, not per commit) and the journal signal (one NOTIFY per
 * interval, not per commit).
 */
export class PacedRun {
  private lastStartAt = Number.NEGATIVE_INFINITY;
  private running?: Promise<void>;
  private requested = false;
  private timer?: NodeJS.Timeout;
  private stopped = false;
  /** a run fell due on the timer while `busy` said so: it waits for the next request (see the constructor) */
  private held = false;

  /**
   * `task` reports its own failures: a rejection is dropped here, and the next request runs it again.
   *
   * `busy`: while it answers true, a run that falls due on the timer waits for the next request, for one more
   * interval at most. The journal signal's says a statement of the process is on its way: its commit asks
   * again, and the NOTIFY then goes right after that commit instead of beside it. At concurrency 1 a NOTIFY
   * fired by the timer fell inside the next write in about one request of five, on two cores, and that write
   * took 1–1.8 ms more (bench/FINDINGS.md, «One PATCH at concurrency 1»).
   */
  constructor(
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
    private readonly busy?: () => boolean,
  ) {}

  request(): void {
    this.requested = true;
    if (this.held) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.held = false;
    }
    this.schedule();
  }

  /**
   * Starts no run after this; resolves when the running one has ended. With `runPending`, a request still
   * waiting for its turn is served by one last run, at once, before it resolves.
   */
  async stop({ runPending = false }: { runPending?: boolean } = {}): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
    if (runPending && this.requested) {
      this.requested = false;
      await this.task().catch(() => undefined);
    }
  }

  private schedule(onTimer = false): void {
    if (this.stopped || !this.requested || this.running || this.timer) return;
    const wait = this.lastStartAt + this.intervalMs - Date.now();
    if (wait > 0) {
      this.arm(wait);
      return;
    }
    if (onTimer && wait > -this.intervalMs && this.busy?.()) {
      // looked at again every millisecond, in case what is on its way asks nothing when it ends
      this.held = true;
      this.arm(1);
      return;
    }
    this.requested = false;
    this.lastStartAt = Date.now();
    this.running = this.task()
      .then(
        () => undefined,
        () => undefined,
      )
      .finally(() => {
        this.running = undefined;
        this.schedule();
      });
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.held = false;
      this.schedule(true);
    }, ms);
    this.timer.unref();
  }
}
