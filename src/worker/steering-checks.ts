/**
 * Steering's prober (docs/steering.md), kept by two duties of every worker (or prober) process
 * (duties/steering.ts): its claims, every STEERING_TICK_MS, and its reconciliation. A prober probes from its
 * vantage (STEERING_VANTAGE): each tick claims the checks due for its vantage before the next tick in PostgreSQL
 * (FOR UPDATE SKIP LOCKED, the claim moving the vantage's vote row one interval on: the schedule is the lease), so
 * each check is probed once per interval from each vantage however many processes run; probes each one when it is
 * due (so a probe is not up to a tick late; outbound/probes.ts, under the outbound rule); stores its vote and
 * decides each check from every sound vantage's votes (services/steering/decision.ts: the quorum, fall/rise,
 * flap damping, the panic freeze); and hands the zones whose checks changed status to the publisher, which waits
 * PUBLISH_COALESCE_MS so that the changes of one zone in that time go out as one serial. Through a database
 * failover it needs no restart: its ticks fail while no primary is writable, and a zone whose publication met the
 * outage is published again at the first tick once the database is back.
 */
import type { Settings } from '../config/settings';
import type { Database, Sql } from '../db/pool';
import type { Logger } from '../logger';
import type { WriteEngine } from '../services/write-engine';
import { databaseReachable, noteDatabaseFailure } from '../db/availability';
import { claimDueExternalChecks, ClaimedCheck, isProbed, ProbeToSave, saveProbes, steeredZones } from '../repositories/steering';
import {
  claimDueVotes,
  ClaimedVote,
  lockChecks,
  panicMeasure,
  recentVotes,
  registerVantage,
  saveVotes,
  setVantagePanic,
  setVantageIsolation,
  vantageAgreement,
} from '../repositories/steering-vantages';
import { appendEvent } from '../repositories/events';
import { probe, ProbeResult } from '../outbound/probes';
import {
  externalObservation,
  externalThresholds,
  isolationReason,
  nextCheckState,
  nextCheckStateByVotes,
  panicking,
} from '../services/steering/decision';
import { publishSteeredZone } from '../services/steering/materialise';
import { steeringPanic, steeringProbes, steeringVantageIsolated } from '../metrics';

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
/**
 * how often a prober says its vantage is alive (new checks get its vote rows then, too) and weighs whether its
 * vantage is isolated: within two of the shortest intervals an isolated vantage is seen as such
 */
export const VANTAGE_HEARTBEAT_MS = 1_000;

export class SteeringProber {
  private stopped = false;
  private inFlight = 0;
  /** the zones waiting for their publication, with their timers */
  private readonly waiting = new Map<number, NodeJS.Timeout>();
  private readonly publishing = new Set<Promise<unknown>>();
  /** this process's vantage was last found isolated, and why */
  private isolated: string | null = null;
  private lastHeartbeat = 0;
  private votesAddedAt = 0;
  /** the canaries' last round (STEERING_VANTAGE_CANARIES): how many failed, of how many; and when it began */
  private canaries: { failed: number; tried: number } | null = null;
  private canariesAt = 0;
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

  private get vantage(): string {
    return this.settings.steering.vantage;
  }

  /** decides every steered zone again (publishing only those whose served records differ) */
  async reconcile(): Promise<void> {
    for (const domainId of await steeredZones(this.db)) this.zoneChanged(domainId);
  }

  /**
   * one tick: says the vantage is alive (each VANTAGE_HEARTBEAT_MS), claims the due checks this process has room
   * for, this vantage's probed ones and the external ones, and sets their probes going; answers how many it
   * claimed (the runner runs one tick at a time and tells a failure to claim)
   */
  async run(): Promise<number> {
    if (this.stopped) return 0;
    this.publishAgain();
    if (Date.now() - this.lastHeartbeat >= VANTAGE_HEARTBEAT_MS) await this.heartbeat();
    if (this.inFlight >= MAX_IN_FLIGHT) return 0;
    const { checkInterval } = this.settings.steering;
    // the checks due before the next tick too: each probe starts when it is due, not up to a tick later
    const votes = await claimDueVotes(this.db, this.vantage, MAX_IN_FLIGHT - this.inFlight, checkInterval, STEERING_TICK_MS);
    const external = await claimDueExternalChecks(this.db, MAX_IN_FLIGHT - this.inFlight - votes.length, checkInterval, STEERING_TICK_MS);
    const claimed = votes.length + external.length;
    if (!claimed) return 0;
    this.inFlight += claimed;
    const batch = Promise.all([
      votes.length ? this.probeBatch(votes) : undefined,
      external.length ? this.observeExternal(external) : undefined,
    ])
      .then(() => undefined)
      .finally(() => {
        this.inFlight -= claimed;
        this.publishing.delete(batch);
      });
    this.publishing.add(batch);
    return claimed;
  }

  /**
   * The vantage says it is alive (and takes a vote row for every new check), probes its canaries each interval,
   * and weighs whether it is isolated: it fails what the other sound vantages pass, or its canaries fail
   * (services/steering/decision.ts, isolationReason). Told once when it begins and once when it ends (log,
   * metric, a `steering.vantage` event).
   */
  private async heartbeat(): Promise<void> {
    this.lastHeartbeat = Date.now();
    const { canaries, checkInterval, checkTimeoutMs } = this.settings.steering;
    // every check's vote row at the start and each reconciliation's while: a check made while this vantage was
    // known got its row when it was made
    const withVotes = Date.now() - this.votesAddedAt >= STEERING_RECONCILE_MS;
    const stored = await registerVantage(this.db, this.vantage, withVotes);
    if (withVotes) this.votesAddedAt = Date.now();
    this.isolated = stored.isolatedReason;
    if (canaries.length && Date.now() - this.canariesAt >= checkInterval * 1000) {
      this.canariesAt = Date.now();
      void Promise.all(
        canaries.map((c) => probe(canaryTarget(c), { timeoutMs: Math.min(checkTimeoutMs, checkInterval * 800), allow: [c.address] })),
      ).then((results) => {
        this.canaries = { failed: results.filter((r) => !r.ok).length, tried: results.length };
      });
    }
    const reason = isolationReason(await vantageAgreement(this.db, this.vantage, checkInterval), this.canaries, this.isolated !== null);
    steeringVantageIsolated.set({ vantage: this.vantage }, reason === null ? 0 : 1);
    if (reason === this.isolated) return;
    const wasIsolated = this.isolated !== null;
    const changed = await this.db.transaction(async (tx) => {
      if (!(await setVantageIsolation(tx, this.vantage, reason))) return false;
      // its reason changing (more checks contradicted, say) is no new event
      if (wasIsolated !== (reason !== null))
        await appendEvent(tx, { type: 'steering.vantage', data: { vantage: this.vantage, isolated: reason !== null, reason } });
      return wasIsolated !== (reason !== null);
    });
    this.isolated = reason;
    if (!changed) return;
    if (reason !== null)
      this.log.warn(`steering: vantage ${this.vantage} is isolated: ${reason}; its probes are not counted until it agrees again`);
    else this.log.info(`steering: vantage ${this.vantage} is sound again; its probes count`);
  }

  /**
   * probes this vantage's batch, each check when it is due, then, in one transaction, stores the vantage's votes
   * and decides each check from every sound vantage's recent votes (services/steering/decision.ts: the quorum,
   * fall/rise per vantage, flap damping, the panic freeze when one vantage decides alone); the zones whose checks
   * changed status are published
   */
  private async probeBatch(checks: ClaimedVote[]): Promise<void> {
    const { checkTimeoutMs, allowNetworks, checkInterval } = this.settings.steering;
    const results = await Promise.all(
      checks.map(async (check) => {
        if (check.dueInMs > 0) await new Promise((resolve) => setTimeout(resolve, check.dueInMs));
        // claimDueVotes claims probed checks only
        if (!isProbed(check)) return externalObservation(check, new Date());
        return probe(check, { timeoutMs: Math.min(checkTimeoutMs, intervalOf(check, this.settings) * 800), allow: allowNetworks });
      }),
    );
    for (const result of results) steeringProbes.inc({ outcome: result.ok ? 'passed' : 'failed' });
    const now = new Date();
    const byId = new Map(checks.map((check, i) => [check.id, { check, result: results[i] }]));
    try {
      const outcome = await this.db.transaction(async (tx) => {
        await saveVotes(
          tx,
          this.vantage,
          checks.map((check, i) => ({
            checkId: check.id,
            passes: results[i].ok ? check.vote.passes + 1 : 0,
            failures: results[i].ok ? 0 : check.vote.failures + 1,
            probe: results[i],
            at: now,
          })),
        );
        const began = await this.panicFreeze(tx);
        const ids = checks.map((c) => c.id);
        const locked = await lockChecks(tx, ids);
        const votes = await recentVotes(tx, ids, checkInterval);
        const saved: ProbeToSave[] = [];
        const changed: { check: ClaimedCheck; status: string; pinned: boolean; result: ProbeResult }[] = [];
        for (const check of locked) {
          const probed = byId.get(check.id);
          if (!probed) continue;
          const own = votes.filter((v) => v.checkId === check.id);
          const sound = own.filter((v) => !v.isolated);
          // the panic freeze holds where one vantage decides alone (with more, the quorum and isolation decide)
          const frozen = sound.length === 1 && sound[0].panic;
          const decision = nextCheckStateByVotes(check, sound, own.length - sound.length, now, this.settings.steering, frozen);
          saved.push({ id: check.id, state: decision.state, probe: probed.result, at: now, held: decision.held });
          if (decision.state.status !== check.status)
            changed.push({ check: probed.check, status: decision.state.status, pinned: decision.state.pinned, result: probed.result });
        }
        await saveProbes(tx, saved);
        return { changed, began };
      });
      if (outcome.began) this.tellPanic(outcome.began);
      const changes = outcome.changed;
      for (const { check, status, pinned, result } of changes) {
        this.log.info(
          `steering: check ${check.name} of ${check.zone} (${check.protocol} ${check.address}:${check.port}) is ${status}${pinned ? ' (flapping: held down until stable)' : ''}${result.error ? `: ${result.error}` : ''}`,
        );
      }
      for (const domainId of new Set(changes.map((c) => c.check.domainId))) this.zoneChanged(domainId);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'steering checks')) this.log.warn({ err: error }, 'steering: storing probe results failed');
    }
  }

  /**
   * An external check is not probed: its last report is observed again, a failure once its lease has run out;
   * neither the quorum nor the panic freeze holds it (its reporter has decided, from its own network).
   */
  private async observeExternal(checks: ClaimedCheck[]): Promise<void> {
    const now = new Date();
    const saved: ProbeToSave[] = [];
    const changed = new Set<number>();
    for (const check of checks) {
      const observed = externalObservation(check, now);
      const next = nextCheckState(check, observed.ok, now, externalThresholds(this.settings.steering.holdSeconds));
      saved.push({ id: check.id, state: next, probe: observed, at: now });
      if (next.status === check.status) continue;
      changed.add(check.domainId);
      this.log.info(
        `steering: check ${check.name} of ${check.zone} (external) is ${next.status}${observed.error ? `: ${observed.error}` : ''}`,
      );
    }
    try {
      await saveProbes(this.db, saved);
      for (const domainId of changed) this.zoneChanged(domainId);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'steering checks')) this.log.warn({ err: error }, 'steering: storing external observations failed');
    }
  }

  /**
   * The panic freeze (services/steering/decision.ts, panicking): weighed on this vantage's own probes, it holds a
   * check only where one sound vantage votes on it (with more, the quorum and isolation take its place). This
   * vantage's own panic is stored on its row, so that whichever process decides a check sees it; a change is an
   * event in the same transaction, and told (log, metric) once it has committed.
   */
  private async panicFreeze(tx: Sql): Promise<PanicChange | null> {
    const measure = await panicMeasure(tx, this.vantage, this.settings.steering.checkInterval);
    const panic = panicking(measure, this.settings.steering.panic);
    let began: PanicChange | null = null;
    if (await setVantagePanic(tx, this.vantage, panic)) {
      began = { ...measure, panic };
      await appendEvent(tx, { type: 'steering.panic', data: { ...measure, frozen: panic, vantage: this.vantage } });
    }
    return began;
  }

  private tellPanic(change: PanicChange): void {
    steeringPanic.set(change.panic ? 1 : 0);
    const { failing, total, failingNetworks } = change;
    if (change.panic)
      this.log.warn(
        `steering: panic freeze at vantage ${this.vantage}: ${failing} of ${total} checks fail, across ${failingNetworks} networks; nothing is taken out (the prober's own network is the likelier fault)`,
      );
    else this.log.info(`steering: the panic freeze at vantage ${this.vantage} ended (${failing} of ${total} checks fail)`);
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
const intervalOf = (check: ClaimedCheck, settings: Settings) => check.intervalSeconds ?? settings.steering.checkInterval;

/** the panic freeze of this vantage begun or ended, with its measure */
interface PanicChange {
  panic: boolean;
  failing: number;
  total: number;
  failingNetworks: number;
}

/** a canary (STEERING_VANTAGE_CANARIES) is probed as a TCP check of the operator's own choosing */
const canaryTarget = (canary: { address: string; port: number }) => ({
  protocol: 'tcp' as const,
  address: canary.address,
  port: canary.port,
  host: null,
  path: '/',
  statusMin: 200,
  statusMax: 399,
  bodyContains: null,
  verifyTls: false,
});
