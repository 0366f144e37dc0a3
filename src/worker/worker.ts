/**
 * The propagation worker (docs/decisions.md §4).
 *
 * 1. Outbox: journal rows (`changes`) with `published_at is null` are claimed in batches with
 *    `FOR UPDATE SKIP LOCKED` (several workers can run; each row is taken by one), and in the same statement
 *    the zone's `zone_server_status` rows go to `pending` and the row is marked published. A crash before the
 *    commit leaves the rows unpublished for the next worker; after the commit, the durable `pending` status
 *    drives NOTIFY and checks, so nothing committed is lost. Wake-up: LISTEN on `zonekeeper_changes` (the
 *    process that committed journal rows notifies after its commit, coalesced: db/journal-signal.ts), with a
 *    poll every POLL_MS as the fallback.
 * 2. NOTIFY (notifier.ts) to every secondary for the changed zone and for the catalog, coalesced.
 * 3. Status: due `zone_server_status` rows (state not in_sync, next_check_at passed) are claimed with SKIP
 *    LOCKED and leased; the server's SOA serial is asked; the row becomes in_sync, stays pending (NOTIFY again
 *    when it lags), or becomes error with the reason after repeated failures; checks back off exponentially.
 *    Doing a check twice (two workers, a lost lease) changes nothing.
 */
import { refreshDueZones } from '../services/dnssec/signature-refresh';
import { refreshDueAliases } from '../services/alias-flattening';
import { advanceKeyRolls } from '../services/dnssec/key-rollover';
import { checkParentDs } from '../services/dnssec/parent-ds';
import { syncBootstrapSignals } from '../services/dnssec/bootstrap-signals';
import { refreshForeignKeys } from '../services/dnssec/foreign-keys';
import { isDatabaseUnavailable, noteDatabaseFailure } from '../db/availability';
import { pruneAuditEvents } from '../repositories/audit-events';
import { pruneKeyEvents } from '../repositories/dnssec-key-events';
import { pruneEvents } from '../repositories/events';
import { pruneQueueLeases, pruneRetiredSecrets } from '../repositories/webhooks';
import { endTimedOutSessionsNow } from '../services/sessions.service';
import { JOURNAL_CHANNEL } from '../db/journal-signal';
import type { Database } from '../db/pool';
import { ClaimedChange, DueCheck, PropagationRepository, ServerState } from '../repositories/propagation';
import type { HostPort, Settings } from '../config/settings';
import { serialGreaterThan } from '../dns/serial';
import type { Logger } from '../logger';
import { querySoaSerial, serverName } from '../dns-client/dns-client';
import { Notifier } from './notifier';
import { PacedRun } from '../paced-run';
import { outboxDrains, outboxRowsPublished } from '../metrics';
import { hasWaitingMembers } from '../repositories/catalog';
import type { WriteEngine } from '../services/write-engine';
import type { DnssecWriter } from '../services/dnssec/dnssec-writer';
import type { Services } from '../services';
import { SecondaryZonesWorker } from './secondary-zones';
import { FANOUT_BATCH, WebhookDeliveryDuty } from './webhook-delivery';
import { HealthWorker } from './health';
import { listNameserverSets, setsOfZones } from '../repositories/nameserver-sets';
import { effectiveSet, NameserverSetView } from '../services/nameserver-set-view';

const POLL_MS = 1000;
/** how often due ALIAS/ANAME records are looked for (their refresh is ALIAS_MIN_TTL..ALIAS_MAX_TTL seconds) */
const ALIAS_TICK_MS = 1000;
/** how often the journal's retention runs */
const PRUNE_EVERY_MS = 10 * 60_000;
const STATUS_TICK_MS = 500;
const CLAIM_BATCH = 500;
/** the shortest time between two outbox drains (see wake) */
const DRAIN_INTERVAL_MS = 20;
const STATUS_BATCH = 50;
/**
 * zones given status rows for a newly configured secondary per poll, their first checks spread over the poll
 * interval; the checks themselves go at STATUS_BATCH per STATUS_TICK_MS, so 100,000 zones are adopted in about
 * 100 s and checked in about 17 minutes, without a burst at the secondary
 */
const ADOPT_BATCH = 1000;
const ADOPT_SPREAD_MS = POLL_MS;
/** status rows of removed secondaries deleted per statement */
const FORGET_BATCH = 5000;
/** a claimed status check may take this long before another worker may take it again */
const STATUS_LEASE_SECONDS = 10;
/** failures (no answer, REFUSED, ...) in a row before a server is shown in state error */
const ERROR_AFTER_ATTEMPTS = 14;
/** checks of a server that answers but lags before it is shown in state error */
const LAG_ERROR_AFTER_ATTEMPTS = 20;
/**
 * The first checks of a change come at a steady short interval, then back off. A NOTIFY travels over UDP and
 * can be lost; a quick re-NOTIFY keeps that from leaving a secondary behind until its refresh timer. (It does
 * not shorten Knot's own hold-up of up to a second for a zone that changed within the last second: that is
 * Knot's scheduler, and `block-notify-after-transfer` removes it, docs/propagation.md.)
 */
const FAST_CHECKS = 10;
const FAST_CHECK_MS = 100;
const MAX_CHECK_INTERVAL_MS = 5 * 60_000;

/** true on checks 1, 2, 4, 8, 16, ...: re-NOTIFYs back off as a server keeps lagging */
/** what asked for an outbox drain (the label of zonekeeper_outbox_drains_total) */
type WakeReason = 'notification' | 'poll' | 'start' | 'listen_restored';

const isBackoffTurn = (attempt: number) => attempt > 0 && (attempt & (attempt - 1)) === 0;

export class PropagationWorker {
  private unlisten: (() => void) | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private statusTimer: NodeJS.Timeout | undefined;
  private aliasTimer: NodeJS.Timeout | undefined;
  private flattening = false;
  private stopped = false;
  /** the outbox drain, paced (see wake) */
  private readonly drains = new PacedRun(DRAIN_INTERVAL_MS, () => this.drain());
  /** what asked for a drain since the last one started */
  private readonly wokenBy = new Set<WakeReason>();
  private checking = false;
  private checkAgain = false;
  private kickTimer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private pruning = false;
  private signatureTimer: NodeJS.Timeout | undefined;
  private refreshing = false;
  /** the other signers' keys read again (services/dnssec/foreign-keys.ts) */
  private foreignKeysTimer: NodeJS.Timeout | undefined;
  private followingForeignKeys = false;
  /** when the next sweep of the RFC 9615 signalling records is due (services/dnssec/bootstrap-signals.ts) */
  private signalSweepAt = 0;
  private kickAt = Infinity;
  readonly notifier: Notifier;
  /** secondary zones' refresh from their primaries (secondary-zones.ts) */
  readonly secondaryZones: SecondaryZonesWorker;
  /** every zone's health, checked from where resolvers stand (health.ts) */
  readonly health: HealthWorker;
  /** every nameserver set's secondaries, by name (docs/transfers.md, «Nameserver sets»); refreshed each poll */
  private servers: Map<string, HostPort>;
  /** the nameserver sets as last read (the default one from the settings) */
  private sets: NameserverSetView[] = [];
  private departing = false;

  private readonly repository: PropagationRepository;
  private admitting = false;
  /** the next zone id to adopt from (see reconcileServers); undefined once every zone has its rows */
  private adoptAfter: number | undefined = 0;
  private reconciling = false;
  /** the process's webhook delivery duty, whose fan-out the drain takes along (claimBatch); set by startWorker */
  webhooks: WebhookDeliveryDuty | undefined;
  /** the claim with the fan-out failed at the last drain: told once at warn level until it works again */
  private fanoutAlongFailing = false;

  /** the write engine of the process's database: the catalogs, the transfers and the flattened ALIAS go through it */
  private readonly engine: WriteEngine;
  /** what the DNSSEC duties write with: the same engine, the process's key vault, its NOTIFY(CDS) sent */
  private readonly dnssec: DnssecWriter;

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    services: Pick<Services, 'writeEngine' | 'dnssecWriter' | 'health'>,
  ) {
    this.engine = services.writeEngine;
    this.dnssec = services.dnssecWriter;
    this.repository = new PropagationRepository(db);
    this.notifier = new Notifier(settings, this.repository, log);
    this.secondaryZones = new SecondaryZonesWorker(settings, db, log, this.engine);
    this.health = new HealthWorker(settings, db, log, services.health.rootNotes);
    this.servers = new Map(settings.secondaries.map((s) => [serverName(s), s]));
  }

  async start(): Promise<void> {
    await this.listen();
    await this.refreshSets();
    this.pollTimer = setInterval(() => {
      void this.refreshSets().then(() => {
        this.wake('poll');
        void this.admitWaitingZones();
        void this.reconcileServers();
        void this.endDepartures();
      });
    }, POLL_MS);
    this.statusTimer = setInterval(() => void this.checkDue(), STATUS_TICK_MS);
    this.pruneTimer = setInterval(() => void this.pruneJournal(), PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    void this.pruneJournal();
    // signed zones' key rolls and signatures (refreshed before they expire): a tick a quarter of the shortest
    // wait they involve, 1 s to 1 min
    const shortest = Math.min(this.settings.dnssecSignatureRefresh, Math.max(1, this.settings.dnssecPropagationDelay));
    const signatureTick = Math.min(60_000, Math.max(1000, (shortest * 1000) / 4));
    this.signatureTimer = setInterval(() => void this.refreshSignatures(), signatureTick);
    if (this.settings.dnssecForeignKeysRefreshInterval > 0)
      this.foreignKeysTimer = setInterval(() => void this.followForeignKeys(), this.settings.dnssecForeignKeysRefreshInterval * 1000);
    if (this.settings.aliasResolvers.length) this.aliasTimer = setInterval(() => void this.refreshAliases(), ALIAS_TICK_MS);
    // after a restart: the catalogs may have changed while no worker ran, and pending zones need a NOTIFY
    for (const set of this.sets) this.notifier.notifyAll(set.catalogZone, set.servers);
    await this.admitWaitingZones();
    await this.renotifyPending();
    await this.reconcileServers();
    this.wake('start');
    await this.secondaryZones.start();
    this.health.start();
  }

  /**
   * Makes the status rows follow SECONDARIES whatever its history: rows of servers no longer configured are
   * deleted, and every zone gets a row for each configured server, ADOPT_BATCH zones per poll, from the
   * lowest zone id up, once per start. A zone made before a secondary was configured is thus checked like any
   * other: its first check learns the serial the server already serves (in sync, or behind: NOTIFY on the
   * back-off turns). Zones created later get their rows from their journal row (claimChanges).
   */
  async reconcileServers(): Promise<void> {
    if (this.stopped || this.reconciling || this.adoptAfter === undefined) return;
    this.reconciling = true;
    try {
      const servers = this.settings.secondaries.map(serverName);
      if (this.adoptAfter === 0) {
        let forgotten = 0;
        for (let deleted = FORGET_BATCH; deleted === FORGET_BATCH && !this.stopped;) {
          deleted = await this.repository.forgetServersOtherThan(servers, FORGET_BATCH);
          forgotten += deleted;
        }
        if (forgotten) this.log.info(`propagation worker: forgot ${forgotten} status rows of servers no longer in SECONDARIES`);
      }
      if (!this.servers.size) {
        this.adoptAfter = undefined;
        return;
      }
      const last = await this.repository.adoptZones(servers, this.adoptAfter, ADOPT_BATCH, ADOPT_SPREAD_MS);
      this.adoptAfter = last;
      if (last !== undefined) this.scheduleCheck(FAST_CHECK_MS);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker'))
        this.log.error({ err: error }, 'propagation worker: adopting zones for SECONDARIES failed; it runs again at the next poll');
    } finally {
      this.reconciling = false;
    }
  }

  /**
   * Reads the nameserver sets (an admin may add one or change its secondaries at any time, in another process):
   * whose servers get which NOTIFYs and status checks. A failed read keeps the last ones.
   */
  private async refreshSets(): Promise<void> {
    try {
      this.sets = (await listNameserverSets(this.db)).map((row) => effectiveSet(row, this.settings));
      this.servers = new Map(this.sets.flatMap((set) => set.servers.map((s) => [serverName(s), s] as const)));
      this.notifier.otherCatalogs = new Set(this.sets.filter((set) => !set.isDefault).map((set) => set.catalogZone));
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker'))
        this.log.warn({ err: error }, 'propagation worker: reading the nameserver sets failed; the last ones read stay');
    }
  }

  /**
   * Moved zones leave their old set's catalog once every secondary of their new set serves them (their status
   * rows hold a served serial): until then both sets list them, so some set serves them throughout a move.
   */
  private async endDepartures(): Promise<void> {
    if (this.stopped || this.departing) return;
    this.departing = true;
    try {
      const ended = await this.engine.endServedDepartures(
        (work) => this.db.transaction(work),
        this.settings,
        this.settings.secondaries.map(serverName),
      );
      if (ended) this.log.info(`propagation worker: ${ended} moved zones left their previous nameserver set's catalog`);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker'))
        this.log.error({ err: error }, "propagation worker: ending moved zones' departures failed; it runs again at the next poll");
    } finally {
      this.departing = false;
    }
  }

  /**
   * Wakes on the journal's channel, on the process's LISTEN connection (db/notifications.ts); when that
   * connection comes back after a loss, changes committed meanwhile sent no notification: publish them now.
   * While it is away the poll (POLL_MS) drives the drain.
   */
  private async listen(): Promise<void> {
    this.unlisten = await this.db.notifications.subscribe(
      JOURNAL_CHANNEL,
      () => this.wake('notification'),
      () => this.wake('listen_restored'),
    );
  }

  /**
   * Admits zones still waiting to join the catalog: the API admits a zone right after its create commits,
   * and this catches the ones whose admission did not run (the process stopped or lost the database in
   * between). A zone committed is never left out of the catalog for longer than a poll.
   */
  private async admitWaitingZones(): Promise<void> {
    if (this.stopped || this.admitting) return;
    this.admitting = true;
    try {
      if (await hasWaitingMembers(this.db)) await this.engine.publishWaitingMembers((work) => this.db.transaction(work), this.settings);
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker')) this.log.error({ err: error }, 'propagation worker: catalog admission failed');
    } finally {
      this.admitting = false;
    }
  }

  /**
   * Runs the outbox drain now, or once more after the running one. Drains start at most once per
   * DRAIN_INTERVAL_MS: a lone change is published at once, while under a stream of writes (a notification
   * per commit) one claim takes the journal rows of the whole interval instead of one claim statement every
   * few commits (docs/performance.md, «The journal's readers»).
   */
  wake(reason: WakeReason): void {
    if (this.stopped) return;
    this.wokenBy.add(reason);
    this.drains.request();
  }

  /**
   * claims batches until the outbox is empty (and the webhook fan-out taken along has caught up); a notification
   * that comes meanwhile runs it once more
   */
  private async drain(): Promise<void> {
    // a drain asked for by a notification and a poll alike counts as woken by the notification
    const wokenBy = this.wokenBy.has('notification') ? 'notification' : ([...this.wokenBy][0] ?? 'poll');
    this.wokenBy.clear();
    outboxDrains.inc({ woken_by: wokenBy });
    try {
      for (let more = true; !this.stopped && more;) {
        const batch = await this.claimBatch();
        if (batch.claimed) outboxRowsPublished.inc({ woken_by: wokenBy }, batch.claimed);
        more = batch.claimed === CLAIM_BATCH || batch.fanoutMore;
      }
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker')) this.log.error({ err: error }, 'propagation worker: outbox drain failed');
    }
  }

  /**
   * Claims and publishes one batch of journal rows (one statement: PropagationRepository.claimChanges); returns
   * how many, and whether the webhook fan-out taken along has more to do at once.
   *
   * With the process's webhook delivery duty attached (startWorker), its fan-out goes in the same commit: what
   * the worker does after a write (publish its journal row, pass its event to the deliveries) is one WAL flush,
   * not two, and one statement while no subscription is enabled (claimChangesPassingFanout), else one
   * transaction (the claim, then the duty's step). Both durable, all or nothing, as each was alone. Should the
   * two together fail, the claim goes alone (propagation does not wait on the fan-out) and the duty's own pass
   * runs the fan-out.
   */
  async claimBatch(): Promise<{ claimed: number; fanoutMore: boolean }> {
    const servers = this.settings.secondaries.map(serverName);
    const duty = this.webhooks;
    if (duty) {
      let done: { claimed: ClaimedChange[]; events: number; more: boolean } | undefined;
      try {
        done = duty.passesUnsubscribed
          ? await this.repository
              .claimChangesPassingFanout(CLAIM_BATCH, servers, FAST_CHECK_MS, FANOUT_BATCH)
              .then(({ claimed, fanout }) => ({ claimed, events: fanout?.events ?? 0, more: duty.passed(fanout) }))
          : await this.db.transaction(async (sql) => {
              const claimed = await new PropagationRepository(sql).claimChanges(CLAIM_BATCH, servers, FAST_CHECK_MS);
              const events = await duty.fanOutIn(sql);
              return { claimed, events, more: events === FANOUT_BATCH };
            });
      } catch (error) {
        // the database away: the claim alone would fail as well (the drain's caller reports it)
        if (isDatabaseUnavailable(error)) throw error;
        // a failure that lasts is told once, not at every drain (up to fifty a second under writes)
        this.log[this.fanoutAlongFailing ? 'debug' : 'warn'](
          { err: error },
          'propagation worker: the claim with the webhook fan-out failed; the claim goes alone until it works again',
        );
        this.fanoutAlongFailing = true;
        duty.wake();
      }
      // committed: published (and the deliveries written claimed) outside the try, so that nothing here makes the
      // claim run again with its rows already taken
      if (done) {
        if (this.fanoutAlongFailing) this.log.info('propagation worker: the claim with the webhook fan-out works again');
        this.fanoutAlongFailing = false;
        if (done.events) duty.fannedOut();
        this.publish(done.claimed);
        return { claimed: done.claimed.length, fanoutMore: done.more };
      }
    }
    const claimed = await this.repository.claimChanges(CLAIM_BATCH, servers, FAST_CHECK_MS);
    this.publish(claimed);
    return { claimed: claimed.length, fanoutMore: false };
  }

  /**
   * after commit: NOTIFY the changed zones (not deleted ones: the catalog tells that) and the changed catalogs,
   * each to its nameserver set's secondaries (a moved zone's also to the set it leaves, which still serves it)
   */
  private publish(claimed: ClaimedChange[]): void {
    const zones = new Set<string>();
    const catalogs = new Set<string>();
    for (const change of claimed) {
      if (change.domainId === 0 || change.zone === this.settings.catalogZone) catalogs.add(change.zone);
      else if (change.kind !== 'zone-deleted') zones.add(change.zone);
    }
    // the catalogs first: a new member zone must be known before its NOTIFY makes sense
    const unknown = [...catalogs].filter((catalog) => !this.notifyCatalog(catalog));
    // a set created since the last poll: read the sets, then tell its secondaries
    if (unknown.length) void this.refreshSets().then(() => unknown.forEach((catalog) => this.notifyCatalog(catalog)));
    if (this.sets.length <= 1) for (const zone of zones) this.notifier.notifyAll(zone);
    else void this.notifyBySet([...zones]);
    if (zones.size || catalogs.size) this.scheduleCheck(FAST_CHECK_MS + 5);
    // NOTIFY (RFC 1996) to the changed zones' extra secondaries (a customer's own servers, docs/transfers.md),
    // each signed with its own TSIG key, read with the claim. They are not the fleet: no status rows, the
    // notifier's retries and their own refresh timers bring them along.
    const extraNotified = new Set<string>();
    for (const change of claimed) {
      if (!zones.has(change.zone) || extraNotified.has(change.zone)) continue;
      extraNotified.add(change.zone);
      for (const target of change.extraSecondaries)
        this.notifier.request(target.zone, { host: target.address, port: target.port }, target.key);
    }
  }

  /** NOTIFY a catalog to its set's secondaries; false when no set read so far has it */
  private notifyCatalog(catalog: string): boolean {
    const set = this.sets.find((s) => s.catalogZone === catalog);
    if (!set && catalog !== this.settings.catalogZone) return false;
    this.notifier.notifyAll(catalog, set ? set.servers : this.settings.secondaries);
    return true;
  }

  /** NOTIFY each zone to its set's secondaries, and to the set it leaves while a move is under way */
  private async notifyBySet(zones: string[]): Promise<void> {
    try {
      const byZone = await setsOfZones(this.db, zones);
      for (const [zone, setIds] of byZone) {
        const servers = new Map<string, HostPort>();
        for (const set of this.sets.filter((s) => setIds.includes(s.id)))
          for (const server of set.servers) servers.set(serverName(server), server);
        this.notifier.notifyAll(zone, [...servers.values()]);
      }
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker'))
        this.log.warn({ err: error }, "propagation worker: reading zones' nameserver sets failed; status checks NOTIFY again");
    }
  }

  /** runs a status round in `ms` (or earlier if one is already scheduled earlier) */
  private scheduleCheck(ms: number): void {
    if (this.stopped) return;
    const at = Date.now() + ms;
    if (this.kickTimer && this.kickAt <= at) return;
    if (this.kickTimer) clearTimeout(this.kickTimer);
    this.kickAt = at;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = undefined;
      this.kickAt = Infinity;
      void this.checkDue();
    }, ms);
    this.kickTimer.unref();
  }

  private async renotifyPending(): Promise<void> {
    for (const row of await this.repository.unsyncedZoneServers()) {
      const server = this.servers.get(row.server);
      if (server) this.notifier.request(row.zone, server);
    }
  }

  /** one round of status checks of the due rows */
  async checkDue(): Promise<void> {
    if (this.stopped || !this.servers.size) return;
    if (this.checking) {
      this.checkAgain = true;
      return;
    }
    this.checking = true;
    this.checkAgain = false;
    try {
      const due = await this.repository.claimDueChecks(STATUS_BATCH, STATUS_LEASE_SECONDS);
      await Promise.all(due.map((row) => this.checkOne(row)));
    } catch (error) {
      if (!noteDatabaseFailure(error, 'propagation worker')) this.log.error({ err: error }, 'propagation worker: status check failed');
    } finally {
      this.checking = false;
    }
    if (this.checkAgain) void this.checkDue();
  }

  private async checkOne(row: DueCheck): Promise<void> {
    const server = this.servers.get(row.server);
    if (!server) {
      // no longer configured: nothing to check
      await this.repository.markServerRemoved(row.id);
      return;
    }
    const attempts = row.attempts + 1;
    const delayMs =
      attempts <= FAST_CHECKS
        ? FAST_CHECK_MS
        : Math.min(MAX_CHECK_INTERVAL_MS, Math.round(FAST_CHECK_MS * 1.6 ** Math.min(attempts - FAST_CHECKS, 30)));
    const result = await querySoaSerial(server, row.zone);
    let state: ServerState = 'pending';
    let error: string | null = null;
    let served: number | null = null;
    if (result.ok) {
      served = result.serial;
      if (served === row.serial) state = 'in_sync';
      else if (serialGreaterThan(served, row.serial)) {
        state = 'error';
        error = `server serves serial ${served}, newer than the zone's ${row.serial}: it will not follow until the serial passes it`;
      } else {
        error = `serves serial ${served}, zone is at ${row.serial}`;
        if (attempts >= LAG_ERROR_AFTER_ATTEMPTS) state = 'error';
        // nudge it again, on a backing-off schedule (checks 1, 2, 4, 8, ...): a NOTIFY that reached the server
        // during a transfer can be lost, and must not leave it behind until its refresh timer
        if (isBackoffTurn(attempts)) this.notifier.request(row.zone, server);
      }
    } else {
      error = result.reason;
      if (attempts >= ERROR_AFTER_ATTEMPTS) state = 'error';
      // a secondary that does not know the zone yet (it has not read the new catalog) refuses its NOTIFY:
      // re-send on checks 2, 4, 8, ..., not on every check (PowerDNS got 161 NOTIFYs for 30 changes)
      if (attempts >= 2 && isBackoffTurn(attempts)) this.notifier.request(row.zone, server);
    }
    await this.repository.recordCheck({ id: row.id, served, state, error, checkedSerial: row.serial, attempts, nextInMs: delayMs });
    // after its own statement committed: of two servers found in sync at once, the later's sees both (propagation.ts)
    if (state === 'in_sync') await this.repository.announcePropagated(row.id);
    if (state !== 'in_sync') this.scheduleCheck(delayMs);
  }

  /**
   * the journal's retention (HISTORY_KEEP_DAYS, HISTORY_KEEP_ROWS), and the audit log's and the DNSSEC key
   * events', which are kept as long as the history (HISTORY_KEEP_DAYS; the per-zone row count does not apply);
   * and the sweep of sessions that timed out unseen; one pass at a time, any worker may run it
   */
  async pruneJournal(): Promise<number> {
    if (this.pruning || this.stopped) return 0;
    this.pruning = true;
    try {
      const pruned = await this.repository.pruneJournal(this.settings.historyKeepDays, this.settings.historyKeepRows);
      if (pruned > 0)
        this.log.info(
          `journal: pruned ${pruned} change rows past HISTORY_KEEP_DAYS=${this.settings.historyKeepDays} / HISTORY_KEEP_ROWS=${this.settings.historyKeepRows}`,
        );
      const audit = await pruneAuditEvents(this.db, this.settings.historyKeepDays);
      if (audit > 0) this.log.info(`audit log: pruned ${audit} events past HISTORY_KEEP_DAYS=${this.settings.historyKeepDays}`);
      const keyEvents = await pruneKeyEvents(this.db, this.settings.historyKeepDays);
      if (keyEvents > 0) this.log.info(`dnssec: pruned ${keyEvents} key events past HISTORY_KEEP_DAYS=${this.settings.historyKeepDays}`);
      // events (and their webhook deliveries) are kept as long as the history (docs/events.md)
      const events = await pruneEvents(this.db, this.settings.historyKeepDays);
      if (events > 0) this.log.info(`events: pruned ${events} past HISTORY_KEEP_DAYS=${this.settings.historyKeepDays}`);
      await pruneQueueLeases(this.db);
      await pruneRetiredSecrets(this.db);
      // sessions that timed out and were never presented again: ended and audited now, not never
      const sessions = await endTimedOutSessionsNow(this.db, this.settings.sessions);
      if (sessions > 0) this.log.info(`sessions: ended ${sessions} that timed out (SESSION_IDLE_TIMEOUT / SESSION_ABSOLUTE_TIMEOUT)`);
      return pruned;
    } catch (error) {
      if (!noteDatabaseFailure(error, 'journal pruning')) this.log.warn({ err: error }, 'journal: pruning failed; it runs again later');
      return 0;
    } finally {
      this.pruning = false;
    }
  }

  /** re-signs the signed zones whose signatures near their expiry (services/dnssec/signature-refresh.ts) */
  async refreshSignatures(): Promise<number> {
    if (this.refreshing || this.stopped) return 0;
    this.refreshing = true;
    try {
      // the parent's DS first: a zone it lets move on takes its step in the same tick
      const seen = await checkParentDs(this.dnssec, this.db, this.settings);
      if (seen > 0) this.log.info(`dnssec: the parent's DS of ${seen} zones is as awaited`);
      const steps = await advanceKeyRolls(this.dnssec, this.db, this.settings);
      if (steps > 0) this.log.info(`dnssec: ${steps} key roll steps taken`);
      const remade = await refreshDueZones(this.dnssec, this.db, this.settings);
      if (remade > 0) this.log.info(`dnssec: refreshed ${remade} signatures nearing expiry`);
      // RFC 9615's signalling records, all of them now and then (a key step updates its zone's at once)
      if (Date.now() >= this.signalSweepAt) {
        this.signalSweepAt = Date.now() + this.settings.dnssecBootstrapSweepInterval * 1000;
        const signalled = await syncBootstrapSignals(this.dnssec, this.db, this.settings);
        if (signalled > 0) this.log.info(`dnssec: the RFC 9615 signalling records of ${signalled} zones brought up to date`);
      }
      return remade;
    } catch (error) {
      if (!noteDatabaseFailure(error, 'signature refresh'))
        this.log.warn({ err: error }, 'dnssec: refreshing signatures failed; it runs again at the next tick');
      return 0;
    } finally {
      this.refreshing = false;
    }
  }

  /**
   * multi-signer zones: the other signers' DNSKEY RRsets read again where they were read from, their key rolls
   * followed (services/dnssec/foreign-keys.ts, refreshForeignKeys)
   */
  async followForeignKeys(): Promise<number> {
    if (this.followingForeignKeys || this.stopped) return 0;
    this.followingForeignKeys = true;
    try {
      const changed = await refreshForeignKeys(this.dnssec, this.db, this.settings, this.log);
      if (changed > 0) this.log.info(`dnssec: the other signer's keys of ${changed} zones followed`);
      return changed;
    } catch (error) {
      if (!noteDatabaseFailure(error, 'foreign keys refresh'))
        this.log.warn({ err: error }, 'dnssec: reading the other signers’ keys again failed; it runs again later');
      return 0;
    } finally {
      this.followingForeignKeys = false;
    }
  }

  /** flattens the due ALIAS/ANAME records (services/alias-flattening.ts) */
  async refreshAliases(): Promise<number> {
    if (this.flattening || this.stopped) return 0;
    this.flattening = true;
    try {
      const changed = await refreshDueAliases(this.engine, this.db, this.settings);
      if (changed > 0) this.log.info(`alias: ${changed} zones got new ALIAS addresses`);
      return changed;
    } catch (error) {
      if (!noteDatabaseFailure(error, 'alias refresh'))
        this.log.warn({ err: error }, 'alias: refreshing failed; it runs again at the next tick');
      return 0;
    } finally {
      this.flattening = false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.aliasTimer) clearInterval(this.aliasTimer);
    if (this.signatureTimer) clearInterval(this.signatureTimer);
    if (this.foreignKeysTimer) clearInterval(this.foreignKeysTimer);
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.statusTimer) clearInterval(this.statusTimer);
    if (this.pruneTimer) clearInterval(this.pruneTimer);
    if (this.kickTimer) clearTimeout(this.kickTimer);
    this.notifier.stop();
    await this.secondaryZones.stop();
    await this.health.stop();
    await this.drains.stop();
    while (this.departing || this.checking || this.admitting || this.pruning || this.reconciling || this.refreshing || this.flattening)
      await new Promise((resolve) => setTimeout(resolve, 20));
    this.unlisten?.();
  }
}

/** Starts the worker role on the process's Database (its one pool and its LISTEN connection). */
export async function startWorker(
  settings: Settings,
  db: Database,
  log: Logger,
  services: Pick<Services, 'writeEngine' | 'dnssecWriter' | 'health' | 'events'>,
): Promise<{ worker: PropagationWorker; stop(): Promise<void> }> {
  const worker = new PropagationWorker(settings, db, log, services);
  // events out: webhook deliveries (docs/events.md), a duty of every worker process beside propagation; its
  // fan-out goes with the outbox claim, in one commit (PropagationWorker.claimBatch)
  const webhooks = new WebhookDeliveryDuty(settings, db, log, services.events.secrets, true);
  worker.webhooks = webhooks;
  await worker.start();
  await webhooks.start();
  return {
    worker,
    stop: async () => {
      await webhooks.stop();
      await worker.stop();
    },
  };
}
