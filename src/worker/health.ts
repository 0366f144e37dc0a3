/**
 * Zone health's duty (docs/health.md): every zone checked from where resolvers stand every
 * HEALTH_CHECK_INTERVAL seconds (0: the duty does not run), by any number of workers.
 *
 * - every zone gets a schedule row (`zone_health`), its first check within a minute (or the interval, if
 *   shorter); zones made later get theirs at the next tick (a cursor over zone ids; a whole sweep every
 *   SWEEP_MS catches ids committed out of order)
 * - due rows are claimed with FOR UPDATE SKIP LOCKED, as many as the worker has free slots
 *   (HEALTH_ZONES_AT_ONCE), and leased LEASE_SECONDS; a zone's next check comes an interval after its check was
 *   due (a random place in the interval after its first check: zones adopted together spread out)
 * - the checks done are stored in batches (up to RECORD_BATCH zones, waiting RECORD_WAIT_MS at most), a few
 *   statements per batch: the database's share of a check is a fraction of a statement (docs/health.md, «Cost»)
 * - the zones claimed within one round (ROUND_MS) share one resolver: what the root and the TLDs answer is
 *   asked once per round, a dead server costs two timeouts per round, and no server has more than a few
 *   questions in flight (dns-client/iterative-resolver.ts)
 */
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import { noteDatabaseFailure } from '../db/availability';
import type { Logger } from '../logger';
import type { IterativeResolver } from '../dns-client/iterative-resolver';
import { adoptZones, claimDueZones, type DueZone } from '../repositories/health';
import { healthResolver, recordChecked, type CheckedZone, type RootReachNotes } from '../services/operations/health.service';
import { checkZone } from '../services/operations/health-checks';

const TICK_MS = 1000;
/** a claimed check may take this long before another worker takes the zone again (a check ends well within it) */
const LEASE_SECONDS = 120;
/** zones given their schedule row per statement */
const ADOPT_BATCH = 5000;
/** the first check of a zone adopted comes within this (or the interval, if shorter) */
const FIRST_CHECK_WITHIN_SECONDS = 60;
/**
 * a check that ends claims more zones only once this share of HEALTH_ZONES_AT_ONCE is free: with a backlog, one
 * claim statement per batch of zones rather than one per zone (the tick every TICK_MS claims whatever is free)
 */
const CLAIM_WHEN_FREE = 0.25;
/** checks stored per transaction at most (a few statements for them all: repositories/health.ts, recordChecks) */
const RECORD_BATCH = 50;
/** a check waits this long at most for others to be stored with */
const RECORD_WAIT_MS = 200;
/** how often adoption starts again from the lowest zone id */
const SWEEP_MS = 10 * 60_000;
/** the longest a resolver (a check round: its cache, the servers found dead) is kept */
const ROUND_MS = 30_000;

export class HealthWorker {
  private stopped = false;
  private inFlight = 0;
  private adoptAfter = 0;
  private adoptedAt = 0;
  private sweptAt = Date.now();
  private round: IterativeResolver | undefined;
  /** the rounds with checks under way, and how many each: stopped together when the worker stops */
  private readonly busyRounds = new Map<IterativeResolver, number>();
  /** checks done, waiting to be stored (a batch, one transaction) */
  private toRecord: CheckedZone[] = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private recording = false;
  /** counters, for tests and logs */
  readonly stats = { checks: 0, failures: 0 };

  /** `wakeTick`: asks the duty's runner for a tick (duties/zone-health.ts), when checks ending free enough slots */
  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    private readonly wakeTick: () => void,
    /** the process's notes of the root's reach (services/operations/health.service.ts), shared with the asked checks */
    private readonly rootNotes: RootReachNotes,
  ) {}

  /** how often the duty ticks: every TICK_MS, or twice an interval if that is shorter */
  get tickMs(): number {
    return Math.min(TICK_MS, (this.settings.health.interval * 1000) / 2);
  }

  /**
   * Adopts new zones, then claims as many due zones as there are free slots and starts their checks. Its failure
   * is the duty's runner's to tell: it runs again at the next tick.
   */
  async tick(signal?: AbortSignal): Promise<void> {
    if (this.stopped || signal?.aborted) return;
    await this.adopt(signal);
    const free = this.settings.health.zonesAtOnce - this.inFlight;
    // checks done faster than the database stores them: no more until it has caught up
    if (free > 0 && this.toRecord.length < 4 * RECORD_BATCH) {
      const due = await claimDueZones(this.db, free, LEASE_SECONDS);
      if (due.length) {
        const resolver = this.resolver();
        for (const zone of due) void this.check(resolver, zone, due.length === free);
      }
    }
  }

  private async adopt(signal?: AbortSignal): Promise<void> {
    // once a tick: the ticks that checks ending start (many a second with a backlog) only claim
    if (Date.now() - this.adoptedAt < TICK_MS / 2) return;
    this.adoptedAt = Date.now();
    if (Date.now() - this.sweptAt > SWEEP_MS) {
      this.adoptAfter = 0;
      this.sweptAt = Date.now();
    }
    const spread = Math.min(FIRST_CHECK_WITHIN_SECONDS, this.settings.health.interval);
    for (let rounds = 0; rounds < 20 && !this.stopped && !signal?.aborted; rounds++) {
      const last = await adoptZones(this.db, this.adoptAfter, ADOPT_BATCH, spread);
      if (last === undefined) return;
      this.adoptAfter = last;
    }
  }

  /** the round's resolver: a new one when the last is older than ROUND_MS (or half the interval) */
  private resolver(): IterativeResolver {
    const age = Math.min(ROUND_MS, (this.settings.health.interval * 1000) / 2);
    if (!this.round || Date.now() - this.round.startedAt > age) this.round = healthResolver(this.settings.health);
    return this.round;
  }

  private async check(resolver: IterativeResolver, zone: DueZone, claimedAll: boolean): Promise<void> {
    this.inFlight++;
    this.busyRounds.set(resolver, (this.busyRounds.get(resolver) ?? 0) + 1);
    try {
      const { findings, parentNs } = await checkZone(this.db, resolver, this.settings.health, zone);
      // the process stops: what the check met since is not the zone's doing (its lease brings it back)
      if (!resolver.stopped) {
        await this.rootNotes.note(this.db, resolver);
        this.record({ zone, findings, parentNs, blind: resolver.rootReachable === false });
      }
    } catch (error) {
      this.stats.failures++;
      // the lease brings the zone back
      if (!noteDatabaseFailure(error, 'health checks'))
        this.log.warn({ err: error, zone: zone.name }, `health: checking ${zone.name} failed; it is checked again after its lease`);
    } finally {
      this.inFlight--;
      const left = (this.busyRounds.get(resolver) ?? 1) - 1;
      if (left) this.busyRounds.set(resolver, left);
      else this.busyRounds.delete(resolver);
    }
    // the claim took every free slot: more zones may be due than were claimed; claimed once enough slots are free
    if (
      claimedAll &&
      this.settings.health.zonesAtOnce - this.inFlight >= Math.max(1, Math.floor(this.settings.health.zonesAtOnce * CLAIM_WHEN_FREE))
    )
      this.wakeTick();
  }

  /** a check done: stored with others, once RECORD_BATCH are waiting or the first has waited RECORD_WAIT_MS */
  private record(checked: CheckedZone): void {
    this.toRecord.push(checked);
    if (this.toRecord.length >= RECORD_BATCH) void this.storeChecks();
    else this.recordTimer ??= setTimeout(() => void this.storeChecks(), RECORD_WAIT_MS);
  }

  /**
   * Stores the checks waiting, a batch per transaction, one transaction at a time. The timer is let go first, even
   * when a store is under way: kept once it has fired, it would stand for a timer still to come, none would be set
   * again, and no check done from then on would be stored. The store under way sets one as it ends, for what waits.
   */
  private async storeChecks(): Promise<void> {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    if (this.recording) return;
    this.recording = true;
    try {
      while (this.toRecord.length) {
        const batch = this.toRecord.splice(0, RECORD_BATCH);
        try {
          await recordChecked(this.db, this.settings.health, batch);
          this.stats.checks += batch.length;
        } catch (error) {
          this.stats.failures += batch.length;
          // the leases bring the zones back
          if (!noteDatabaseFailure(error, 'health checks'))
            this.log.warn(
              { err: error, zones: batch.map((c) => c.zone.name) },
              `health: storing the checks of ${batch.length} zones failed; they are checked again after their lease`,
            );
        }
        // fewer than a batch left: they wait for more, as the first of them did
        if (this.toRecord.length < RECORD_BATCH && !this.stopped) break;
      }
    } finally {
      this.recording = false;
    }
    if (this.toRecord.length) this.recordTimer ??= setTimeout(() => void this.storeChecks(), this.stopped ? 0 : RECORD_WAIT_MS);
  }

  /** once the duty's tick on its way has ended: the checks under way stopped, those done stored */
  async stop(): Promise<void> {
    this.stopped = true;
    // the checks under way end within a query's timeout, and keep nothing
    this.round?.stop();
    for (const round of this.busyRounds.keys()) round.stop();
    while (this.inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // the checks done before the stop are stored
    while (this.recording) await new Promise((resolve) => setTimeout(resolve, 20));
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    await this.storeChecks();
  }
}
