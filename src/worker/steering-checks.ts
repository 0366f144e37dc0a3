/**
 * Steering's prober (docs/steering.md), kept by two duties of every worker process (duties/steering.ts): its
 * claims, every STEERING_TICK_MS, and its reconciliation. Each tick claims the checks due before the next tick in
 * PostgreSQL (FOR UPDATE SKIP LOCKED, the claim moving each check one interval on: the schedule is the lease), so
 * each check is probed once per interval however many processes run; probes each one when it is due (so a probe is
 * not up to a tick late; outbound/probes.ts, under the outbound rule); moves each check's state (services/steering/decision.ts: fall/rise, flap damping, the panic
 * freeze) and stores it; and hands the zones whose checks changed status to the publisher, which waits
 * PUBLISH_COALESCE_MS so that the changes of one zone in that time go out as one serial. Through a database
 * failover it needs no restart: its ticks fail while no primary is writable, and a zone whose publication met the
 * outage is published again at the first tick once the database is back.
 */
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import type { WriteEngine } from '../services/write-engine';
import { databaseReachable, noteDatabaseFailure } from '../db/availability';
import {
  claimDueChecks,
  CheckRow,
  ClaimedCheck,
  failingChecks,
  isProbed,
  ProbeToSave,
  saveProbes,
  steeredZones,
} from '../repositories/steering';
import { appendEvent } from '../repositories/events';
import { probe, ProbeResult } from '../outbound/probes';
import { externalThresholds, externalObservation, nextCheckState, panicking } from '../services/steering/decision';
import { publishSteeredZone } from '../services/steering/materialise';
import { steeringPanic, steeringProbes } from '../metrics';

/** how often due checks are looked for (a check's interval is 1 s at the shortest) */
export const STEERING_TICK_MS = 200;
/** probes under way at once in a process; the rest wait for the next tick */
const MAX_IN_FLIGHT = 500;
/** a zone's status changes within this time are published as one change (one serial) */
export const PUBLISH_COALESCE_MS = 250;
/**
 * how often every steered zone is decided again: a process that stored a status change and stopped before it
 * published it leaves the zone to this (and to the start of the next prober)
 */
export const STEERING_RECONCILE_MS = 60_000;

export class SteeringProber {
  private stopped = false;
  private inFlight = 0;
  /** the zones waiting for their publication, with their timers */
  private readonly waiting = new Map<number, NodeJS.Timeout>();
  private readonly publishing = new Set<Promise<unknown>>();
  /** this process's prober last found more than half of all checks failing */
  private panic = false;
  /**
   * the zones whose publication met a database outage (a failover longer than DATABASE_FAILOVER_WAIT_MS): their
   * checks' new states are stored, so they are published again at the first tick once the database is back, not
   * left to the next reconciliation, up to a minute later
   */
  private readonly unpublished = new Set<number>();

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    /** the write engine of the process's database: the served records are written through it */
    private readonly engine: WriteEngine,
  ) {}

  /** decides every steered zone again (publishing only those whose served records differ) */
  async reconcile(): Promise<void> {
    for (const domainId of await steeredZones(this.db)) this.zoneChanged(domainId);
  }

  /**
   * one tick: claims the due checks this process has room for and sets their probes going; answers how many it
   * claimed (the runner runs one tick at a time and tells a failure to claim)
   */
  async run(): Promise<number> {
    if (this.stopped) return 0;
    this.publishAgain();
    if (this.inFlight >= MAX_IN_FLIGHT) return 0;
    // the checks due before the next tick too: each probe starts when it is due, not up to a tick later
    const claimed = await claimDueChecks(this.db, MAX_IN_FLIGHT - this.inFlight, this.settings.steering.checkInterval, STEERING_TICK_MS);
    if (!claimed.length) return 0;
    this.inFlight += claimed.length;
    const batch = this.probeBatch(claimed).finally(() => {
      this.inFlight -= claimed.length;
      this.publishing.delete(batch);
    });
    this.publishing.add(batch);
    return claimed.length;
  }

  /**
   * probes a batch, each check when it is due, then stores each check's next state; the zones whose checks changed
   * status are published. An external check is not probed: its last report is observed again, a failure once its
   * lease has run out; the panic freeze neither counts nor holds it (its reporter's network is not the prober's).
   */
  private async probeBatch(checks: ClaimedCheck[]): Promise<void> {
    const { checkTimeoutMs, allowNetworks } = this.settings.steering;
    const results = await Promise.all(
      checks.map(async (check) => {
        if (!isProbed(check)) return externalObservation(check, new Date());
        if (check.dueInMs > 0) await new Promise((resolve) => setTimeout(resolve, check.dueInMs));
        return probe(check, { timeoutMs: Math.min(checkTimeoutMs, intervalOf(check, this.settings) * 800), allow: allowNetworks });
      }),
    );
    for (const [i, result] of results.entries()) if (isProbed(checks[i])) steeringProbes.inc({ outcome: result.ok ? 'passed' : 'failed' });
    try {
      const probed = checks.flatMap((check, i) => (isProbed(check) ? [{ check, result: results[i] }] : []));
      const frozen = probed.length
        ? await this.panicFreeze(
            probed.map((p) => p.check),
            probed.map((p) => p.result),
          )
        : false;
      const now = new Date();
      const changed = new Set<number>();
      const saved: ProbeToSave[] = [];
      for (const [i, check] of checks.entries()) {
        const next = isProbed(check)
          ? nextCheckState(check, results[i].ok, now, this.settings.steering, frozen)
          : nextCheckState(check, results[i].ok, now, externalThresholds(this.settings.steering.holdSeconds));
        saved.push({ id: check.id, state: next, probe: results[i], at: now });
        if (next.status !== check.status) {
          changed.add(check.domainId);
          this.log.info(
            `steering: check ${check.name} of ${check.zone} (${isProbed(check) ? `${check.protocol} ${check.address}:${check.port}` : 'external'}) is ${next.status}${next.pinned ? ' (flapping: held down until stable)' : ''}${results[i].error ? `: ${results[i].error}` : ''}`,
          );
        }
      }
      await saveProbes(this.db, saved);
      for (const domainId of changed) this.zoneChanged(domainId);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'steering checks')) this.log.warn({ err: error }, 'steering: storing probe results failed');
    }
  }

  /**
   * The panic freeze: more than half of all checks failing their last probe (stored, within two of their
   * intervals; this batch's in place of theirs). Told once when it begins and once when it ends (log, metric, event).
   */
  private async panicFreeze(checks: CheckRow[], results: ProbeResult[]): Promise<boolean> {
    const stored = await failingChecks(this.db, this.settings.steering.checkInterval);
    const recent = (check: CheckRow) =>
      check.checkedAt !== null && Date.now() - check.checkedAt.getTime() < 2 * intervalOf(check, this.settings) * 1000;
    const before = checks.filter((c) => c.lastOk === false && recent(c)).length;
    const failing = stored.failing - before + results.filter((r) => !r.ok).length;
    const frozen = panicking(failing, stored.total);
    if (frozen !== this.panic) {
      this.panic = frozen;
      steeringPanic.set(frozen ? 1 : 0);
      if (frozen) {
        this.log.warn(
          `steering: panic freeze: ${failing} of ${stored.total} checks fail; nothing is taken out (the prober's own network is the likelier fault)`,
        );
        await appendEvent(this.db, { type: 'steering.panic', data: { failing, total: stored.total, frozen: true } });
      } else {
        this.log.info(`steering: the panic freeze ended (${failing} of ${stored.total} checks fail)`);
        await appendEvent(this.db, { type: 'steering.panic', data: { failing, total: stored.total, frozen: false } });
      }
    }
    return frozen;
  }

  /** publishes the zone's steered RRsets after PUBLISH_COALESCE_MS, once for every status change meanwhile */
  zoneChanged(domainId: number): void {
    if (this.waiting.has(domainId)) return;
    const timer = setTimeout(() => {
      this.waiting.delete(domainId);
      this.publishNow(domainId);
    }, PUBLISH_COALESCE_MS);
    this.waiting.set(domainId, timer);
  }

  private publishNow(domainId: number): void {
    const published: Promise<unknown> = publishSteeredZone(this.engine, this.db, this.settings, domainId)
      .catch((error: unknown) => {
        // an outage: published again once the database is back (a publication decides the zone afresh, so one
        // whose commit did reach the database before the connection was lost finds nothing to write then)
        if (noteDatabaseFailure(error, 'steering publication')) {
          if (!this.stopped) this.unpublished.add(domainId);
        } else this.log.warn({ err: error }, `steering: publishing zone ${domainId} failed; the next reconciliation publishes it`);
      })
      .finally(() => this.publishing.delete(published));
    this.publishing.add(published);
  }

  /** the zones whose publication met an outage, published again once the database is reachable */
  private publishAgain(): void {
    if (!this.unpublished.size || !databaseReachable()) return;
    for (const domainId of this.unpublished) this.zoneChanged(domainId);
    this.unpublished.clear();
  }

  /**
   * stops claiming; the probes under way are stored and the zones waiting are published before it answers (the
   * runner calls it once the tick on its way has ended)
   */
  async stop(): Promise<void> {
    this.stopped = true;
    while (this.publishing.size || this.waiting.size) {
      for (const [domainId, timer] of this.waiting) {
        clearTimeout(timer);
        this.waiting.delete(domainId);
        this.publishNow(domainId);
      }
      await Promise.allSettled([...this.publishing]);
    }
  }
}

/** a check's interval in seconds: its own, or STEERING_CHECK_INTERVAL */
const intervalOf = (check: CheckRow, settings: Settings) => check.intervalSeconds ?? settings.steering.checkInterval;
