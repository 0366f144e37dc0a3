import type { HostPort, Settings } from '../../config/settings';
import { isDatabaseUnavailable } from '../../db/availability';
import { JOURNAL_CHANNEL } from '../../db/journal-signal';
import type { Database } from '../../db/pool';
import { serverName } from '../../dns-client/dns-client';
import type { Logger } from '../../logger';
import { outboxDrains, outboxRowsPublished } from '../../metrics';
import { setsOfZones } from '../../repositories/nameserver-sets';
import { ClaimedChange, PropagationRepository } from '../../repositories/propagation';
import { Duty, reportDutyFailure } from '../duties';
import type { Notifier } from '../notifier';
import { FANOUT_BATCH, WebhookFanout } from '../webhook-fanout';
import { NameserverFleet, nameserverSetsDuty, POLL_MS } from './nameserver-sets';
import { FAST_CHECK_MS } from './status-checks';

const CLAIM_BATCH = 500;
/** the shortest time between two outbox drains (see OutboxDrain.wake) */
const DRAIN_INTERVAL_MS = 20;

/** what asked for an outbox drain (the label of zonekeeper_outbox_drains_total) */
export type WakeReason = 'notification' | 'poll' | 'start' | 'listen_restored';

/** the webhook fan-out the drain takes along in its claim's commit, and how it wakes the deliveries after */
export interface FanoutAlong {
  fanout: WebhookFanout;
  /** asks the delivery duty for a pass; `fanOutToo` false when the drain has just taken the fan-out's step */
  wakeDeliveries: (fanOutToo: boolean) => void;
}

export const OUTBOX_DRAIN = 'outbox drain';

/**
 * The outbox (docs/decisions.md §4): journal rows (`changes`) with `published_at is null` are claimed in
 * batches with `FOR UPDATE SKIP LOCKED` (several workers can run; each row is taken by one), and in the same
 * statement the zone's `zone_server_status` rows go to `pending` and the row is marked published. A crash before
 * the commit leaves the rows unpublished for the next worker; after the commit, the durable `pending` status
 * drives NOTIFY (notifier.ts) and the status checks (status-checks.ts), so nothing committed is lost.
 */
export class OutboxDrain {
  private readonly repository: PropagationRepository;
  /** what asked for a drain since the last one started; the first one counts as the start's */
  private readonly wokenBy = new Set<WakeReason>(['start']);
  /** the claim with the fan-out failed at the last drain: told once at warn level until it works again */
  private fanoutAlongFailing = false;

  /**
   * `checkIn`: asks the status checks for a round in so many ms; `webhooks`: the fan-out taken along (worker.ts),
   * none in a worker without webhook deliveries.
   */
  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    private readonly notifier: Notifier,
    private readonly fleet: NameserverFleet,
    private readonly checkIn: (ms: number) => void,
    private readonly webhooks?: FanoutAlong,
  ) {
    this.repository = new PropagationRepository(db);
  }

  /** notes what asked for the next drain (its runner runs it: outboxDrainDuty) */
  wokenFor(reason: WakeReason): void {
    this.wokenBy.add(reason);
  }

  /**
   * Claims batches until the outbox is empty (and the webhook fan-out taken along has caught up). Its failure is
   * its runner's to tell: the next drain comes at the next notification or poll.
   */
  async drain(signal?: AbortSignal): Promise<void> {
    // a drain asked for by a notification and a poll alike counts as woken by the notification; one no wake asked
    // for, by the poll
    const wokenBy = this.wokenBy.has('notification') ? 'notification' : ([...this.wokenBy][0] ?? 'poll');
    this.wokenBy.clear();
    outboxDrains.inc({ woken_by: wokenBy });
    for (let more = true; !signal?.aborted && more;) {
      const batch = await this.claimBatch();
      if (batch.claimed) outboxRowsPublished.inc({ woken_by: wokenBy }, batch.claimed);
      more = batch.claimed === CLAIM_BATCH || batch.fanoutMore;
    }
  }

  /**
   * Claims and publishes one batch of journal rows (one statement: PropagationRepository.claimChanges); returns
   * how many, and whether the webhook fan-out taken along has more to do at once.
   *
   * With the webhook fan-out taken along (worker.ts), its step goes in the same commit: what the worker does
   * after a write (publish its journal row, pass its event to the deliveries) is one WAL flush, not two, and one
   * statement while no subscription is enabled (claimChangesPassingFanout), else one transaction (the claim, then
   * the fan-out's step). Both durable, all or nothing, as each was alone. Should the two together fail, the claim
   * goes alone (propagation does not wait on the fan-out) and the delivery duty's own pass runs the fan-out.
   */
  async claimBatch(): Promise<{ claimed: number; fanoutMore: boolean }> {
    const servers = this.settings.secondaries.map(serverName);
    const along = this.webhooks;
    if (along) {
      const { fanout } = along;
      let done: { claimed: ClaimedChange[]; events: number; more: boolean } | undefined;
      try {
        done = fanout.passesUnsubscribed
          ? await this.repository
              .claimChangesPassingFanout(CLAIM_BATCH, servers, FAST_CHECK_MS, FANOUT_BATCH)
              .then(({ claimed, fanout: pass }) => ({ claimed, events: pass?.events ?? 0, more: fanout.passed(pass) }))
          : await this.db.transaction(async (sql) => {
              const claimed = await new PropagationRepository(sql).claimChanges(CLAIM_BATCH, servers, FAST_CHECK_MS);
              const events = await fanout.fanOutIn(sql);
              return { claimed, events, more: events === FANOUT_BATCH };
            });
      } catch (error) {
        // the database away: the claim alone would fail as well (the drain's runner reports it)
        if (isDatabaseUnavailable(error)) throw error;
        // a failure that lasts is told once, not at every drain (up to fifty a second under writes)
        this.log[this.fanoutAlongFailing ? 'debug' : 'warn'](
          { err: error },
          'propagation worker: the claim with the webhook fan-out failed; the claim goes alone until it works again',
        );
        this.fanoutAlongFailing = true;
        along.wakeDeliveries(true);
      }
      // committed: published (and the deliveries written claimed) outside the try, so that nothing here makes the
      // claim run again with its rows already taken
      if (done) {
        if (this.fanoutAlongFailing) this.log.info('propagation worker: the claim with the webhook fan-out works again');
        this.fanoutAlongFailing = false;
        if (done.events) along.wakeDeliveries(false);
        this.publish(done.claimed);
        return { claimed: done.claimed.length, fanoutMore: done.more };
      }
    }
    const claimed = await this.repository.claimChanges(CLAIM_BATCH, servers, FAST_CHECK_MS);
    this.publish(claimed);
    return { claimed: claimed.length, fanoutMore: false };
  }

  /** the views' NOTIFYs (view-notifies.ts), set by the worker that keeps them */
  views?: { publish(zones: Iterable<string>, catalogs: Iterable<string>): void };

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
    if (unknown.length)
      void this.fleet.read().then(
        () => unknown.forEach((catalog) => this.notifyCatalog(catalog)),
        (error: unknown) => reportDutyFailure(this.log, nameserverSetsDuty(this.fleet), error),
      );
    if (this.fleet.sets.length <= 1) for (const zone of zones) this.notifier.notifyAll(zone);
    else void this.notifyBySet([...zones]);
    if (zones.size || catalogs.size) this.checkIn(FAST_CHECK_MS + 5);
    // the views' secondaries, each with its view's key (docs/views.md)
    this.views?.publish(zones, catalogs);
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
    const set = this.fleet.sets.find((s) => s.catalogZone === catalog);
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
        for (const set of this.fleet.sets.filter((s) => setIds.includes(s.id)))
          for (const server of set.servers) servers.set(serverName(server), server);
        this.notifier.notifyAll(zone, [...servers.values()]);
      }
    } catch (error) {
      reportDutyFailure(this.log, NOTIFY_BY_SET, error);
    }
  }
}

/** how a failed read of the zones' sets is told (the status checks NOTIFY again) */
const NOTIFY_BY_SET = {
  name: OUTBOX_DRAIN,
  where: 'propagation worker',
  failure: { level: 'warn', message: "propagation worker: reading zones' nameserver sets failed; status checks NOTIFY again" },
} as const;

/**
 * The drain, run on the journal's channel: the process that committed journal rows notifies after its commit,
 * coalesced (db/journal-signal.ts), on the process's LISTEN connection (db/notifications.ts); when that connection
 * comes back after a loss, changes committed meanwhile sent no notification: they are published at once. The poll
 * (POLL_MS) is the fallback, and drives the drain while the connection is away. Drains start at most once per
 * DRAIN_INTERVAL_MS: a lone change is published at once, while under a stream of writes (a notification per
 * commit) one claim takes the journal rows of the whole interval instead of one claim statement every few commits
 * (docs/performance.md, «The journal's readers»).
 */
export function outboxDrainDuty(drain: OutboxDrain, db: Database): Duty {
  return {
    name: OUTBOX_DRAIN,
    every: POLL_MS,
    firstAfter: 0,
    pace: DRAIN_INTERVAL_MS,
    run: (signal) => drain.drain(signal),
    listen: (wake) =>
      db.notifications.subscribe(
        JOURNAL_CHANNEL,
        () => {
          drain.wokenFor('notification');
          wake();
        },
        () => {
          drain.wokenFor('listen_restored');
          wake();
        },
      ),
    where: 'propagation worker',
    failure: { level: 'error', message: 'propagation worker: outbox drain failed' },
  };
}
