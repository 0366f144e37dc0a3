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

  /** `task` reports its own failures: a rejection is dropped here, and the next request runs it again */
  constructor(
    private readonly intervalMs: number,
    private readonly task: () => Promise<unknown>,
  ) {}

  request(): void {
    this.requested = true;
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

  private schedule(): void {
    if (this.stopped || !this.requested || this.running || this.timer) return;
    const wait = this.lastStartAt + this.intervalMs - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      this.timer.unref();
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
}
