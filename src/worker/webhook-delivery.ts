import http from 'node:http';
import https from 'node:https';
import type { Settings } from '../config/settings';
import type { Database } from '../db/pool';
import type { Logger } from '../logger';
import { noteDatabaseFailure } from '../db/availability';
import { appendEvent } from '../repositories/events';
import { ClaimedDelivery, ClaimedQueue, claimQueues, QueueLease, recordAttemptFailed, recordDelivered } from '../repositories/webhooks';
import { eventView } from '../services/events/events.service';
import { FANOUT_BATCH, WebhookFanout } from './webhook-fanout';
import { signatureHeader, WebhookSecrets } from '../services/events/webhook-secrets';
import { postMessage, type PostResult } from '../outbound/webhook-post';

/**
 * The webhook deliveries (docs/events.md), a duty of every worker process (duties/webhook-deliveries.ts):
 *
 * 1. The fan-out (webhook-fanout.ts) reads the settled events after its place in the feed (repositories/events.ts says why they come
 *    in an order no later commit can break), matches each against the enabled subscriptions (their user, types,
 *    zones, and their creator's read rules) and writes a delivery row per match, moving its place, in one
 *    transaction; the place's row is locked SKIP LOCKED, so one process does it at a time and a process that
 *    dies mid-way leaves nothing half done.
 * 2. (Endpoint, zone) queues are claimed in batches, each leased as a whole (webhook_queue_leases), with a run of its
 *    first pending deliveries (QUEUE_RUN): a queue sends its run in order, one at a time, the next only once the one
 *    before it is delivered, so that a zone's events reach an endpoint in order; a failure ends the run (the
 *    delivery waits for its retry, the rest behind it). At most WEBHOOK_CONCURRENCY queues (so deliveries under
 *    way) per endpoint across every process; a queue whose run ends is released, and the next pass claims again.
 * 3. Each queue sends on its own (nothing awaits another queue or endpoint): keep-alive agents, a connect and a
 *    total timeout, no redirect followed, a little of the answer read. A 2xx delivers it; anything else retries it after a delay
 *    that doubles from WEBHOOK_RETRY_BASE_MS up to WEBHOOK_RETRY_MAX_SECONDS, with jitter, until
 *    WEBHOOK_RETRY_HOURS after its first attempt, when it is failed (visible, redeliverable). An endpoint failing
 *    for WEBHOOK_DISABLE_AFTER_DAYS is disabled, and its owner gets a `webhook.disabled` event.
 *
 * At least once: a delivery is marked only after its answer; a process that dies before leaves its lease to expire
 * and the delivery to be sent again (a receiver dedupes by webhook-id).
 */
/** queues claimed by one pass at most */
const CLAIM_BATCH = 200;
/**
 * the deliveries of a queue one claim leases at most: sent in order under one lease, the queue's next claim only
 * when they are done (a claim visits every queue of the endpoints with room; fewer claims, less of that)
 */
const QUEUE_RUN = 50;
/** queues sending in one process at most (each one delivery at a time), whatever the endpoints */
const MAX_IN_FLIGHT = 512;
/** outcomes held while the database is away, at most (beyond, their deliveries are sent again at their lease's end) */
const MAX_HELD = 10_000;

/** the headers and body of a delivery (Standard Webhooks) */
export function webhookMessage(
  secrets: WebhookSecrets,
  delivery: Pick<ClaimedDelivery, 'subscriptionId' | 'secrets' | 'event' | 'readRules'>,
  now = new Date(),
): { body: string; headers: Record<string, string> } {
  const view = eventView(delivery.event, { readRules: delivery.readRules ?? undefined });
  const body = JSON.stringify({ type: view.type, timestamp: view.timestamp, data: view.data });
  const id = `evt_${delivery.event.id}`;
  const timestamp = Math.floor(now.getTime() / 1000);
  // the current secret and every previous one still in its own overlap: one signature each (Standard Webhooks)
  const signing = [delivery.secrets.secret, ...delivery.secrets.previous].map((sealed) => secrets.open(delivery.subscriptionId, sealed));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Zonekeeper-Webhooks',
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(signing, id, timestamp, body),
    },
  };
}

/** the delay before attempt `attempts + 1`: doubling from the base, at most the maximum, with jitter (half to whole) */
export function retryDelayMs(settings: Settings, attempts: number): number {
  const ceiling = Math.min(settings.webhooks.retryMaxSeconds * 1000, settings.webhooks.retryBaseMs * 2 ** Math.min(attempts - 1, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/**
 * What a delivery's attempt came to, as stored (or held until the database answers again); a queue's lease to
 * release goes with its run's last outcome, or alone when its run ended without sending.
 */
type Outcome = {
  /** when the claim's lease runs out: after that, a failed attempt or a release need not be stored */
  leaseEnds: number;
  release?: QueueLease;
} & (
  | { kind: 'delivered'; id: number; status: number }
  | { kind: 'failed'; id: number; status: number | null; error: string; attempts: number }
  | { kind: 'released' }
);

export class WebhookDeliveries {
  private readonly agents = {
    http: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    https: new https.Agent({ keepAlive: true, maxSockets: 64 }),
  };
  private readonly inFlight = new Set<Promise<void>>();
  /** outcomes of deliveries not stored yet: being stored, or held while the database is away */
  private readonly outcomes: Outcome[] = [];
  private storing?: Promise<void>;
  private stopped = false;
  /** a wake since the last pass asked for the fan-out (a send ended, the fan-out along the drain failed) */
  private fanoutAsked = false;
  /** a wake since the last pass asked for claims only: the outbox drain took the fan-out's step (wake's `fanOutToo`) */
  private claimsAsked = false;

  /**
   * `fanout`: the process's one (the outbox drain takes its steps too, in its claim's commit); `requestPass`
   * asks the duty's runner for a pass (duties/webhook-deliveries.ts).
   */
  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly log: Logger,
    private readonly fanout: WebhookFanout,
    private readonly requestPass: () => void,
    /** the webhooks' secrets, opened in the process's key vault (services/index.ts) */
    private readonly secrets: WebhookSecrets,
  ) {}

  /**
   * Asks for a pass. `fanOutToo` false: the caller has just taken the fan-out's step (the outbox drain, in its
   * claim's commit), so a pass that only this woke claims the deliveries it wrote without a fan-out step of its
   * own; with no subscription seen, there are none, and no pass is asked. A pass that no wake asked for (the tick)
   * takes the fan-out's step: an event written by no journal writer's unit of work, whose NOTIFY may not come, is
   * fanned out within a tick.
   */
  wake(fanOutToo = true): void {
    if (this.stopped) return;
    if (fanOutToo) this.fanoutAsked = true;
    else if (this.fanout.seesSubscriptions) this.claimsAsked = true;
    else return;
    this.requestPass();
  }

  /**
   * One pass: the fan-out (until it has caught up), then claims while there is room. Its failure is the runner's
   * to tell (duties/webhook-deliveries.ts): the next pass comes at the next tick or wake.
   */
  async pass(signal?: AbortSignal): Promise<void> {
    const stopping = () => this.stopped || signal?.aborted === true;
    await this.storeOutcomes();
    const fanout = this.fanoutAsked || !this.claimsAsked;
    this.fanoutAsked = this.claimsAsked = false;
    while (fanout && !stopping() && (await this.fanout.fanOut()) === FANOUT_BATCH);
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (stopping() || room <= 0 || !this.fanout.seesSubscriptions) return;
    const leaseSeconds = Math.ceil((this.settings.webhooks.connectTimeoutMs + this.settings.webhooks.timeoutMs) / 1000) + 30;
    // counted from before the claim: the process's idea of the lease ends no later than the database's
    const leaseEnds = Date.now() + leaseSeconds * 1000;
    const claimed = await claimQueues(this.db, Math.min(CLAIM_BATCH, room), this.settings.webhooks.concurrency, leaseSeconds, QUEUE_RUN);
    for (const queue of claimed) {
      const sending = this.sendQueue(queue, leaseEnds).finally(() => {
        this.inFlight.delete(sending);
        // its endpoint has a queue free: another of its queues (or this one's next run) may be claimed
        this.wake();
      });
      this.inFlight.add(sending);
    }
  }

  /**
   * Sends a claimed queue's run in order, one delivery at a time, while each is delivered; ends at a failure, at
   * the stop, or when the lease has no longer room for a whole attempt (another worker may take the queue at its
   * end). The lease is released with the last outcome, so that the queue's next claim sees it.
   */
  private async sendQueue(queue: ClaimedQueue, leaseEnds: number): Promise<void> {
    const attemptMs = this.settings.webhooks.connectTimeoutMs + this.settings.webhooks.timeoutMs;
    let last: Outcome | undefined;
    for (const delivery of queue.deliveries) {
      if (this.stopped || Date.now() + attemptMs > leaseEnds) break;
      if (last) this.record(last);
      last = await this.attempt(delivery, leaseEnds);
      if (last.kind !== 'delivered') break;
    }
    this.record(last ? { ...last, release: queue.lease } : { kind: 'released', leaseEnds, release: queue.lease });
  }

  private async attempt(delivery: ClaimedDelivery, leaseEnds: number): Promise<Outcome> {
    let result: PostResult;
    try {
      result = await postMessage(this.settings.webhooks, this.agents, delivery.url, webhookMessage(this.secrets, delivery));
    } catch (error) {
      result = { status: null, error: error instanceof Error ? error.message : String(error) };
    }
    return result.status !== null && result.status >= 200 && result.status < 300
      ? { kind: 'delivered', id: delivery.id, status: result.status, leaseEnds }
      : {
          kind: 'failed',
          id: delivery.id,
          status: result.status,
          error: result.error ?? `the endpoint answered ${result.status}`,
          attempts: delivery.attempts,
          leaseEnds,
        };
  }

  /** an outcome to store: stored with those waiting, or held until the database answers again */
  private record(outcome: Outcome): void {
    this.outcomes.push(outcome);
    this.storeOutcomes().catch((error) => {
      // kept, and stored by the next pass once the database answers again: a delivery whose answer is not stored is
      // otherwise sent again only when its lease runs out, its zone's queue held behind it meanwhile
      if (!noteDatabaseFailure(error, 'webhook delivery')) this.log.warn({ err: error }, 'webhooks: a delivery outcome was not stored');
    });
  }

  /**
   * Stores the outcomes waiting, one run at a time: the successes answered since the last run in one statement,
   * each failure in its own (its retry delay and its endpoint's state are its own). Under load the successes of
   * many deliveries share a round trip; alone, one is stored at once. What a database outage keeps from being
   * stored waits here for the next pass (at most MAX_HELD); a failed attempt whose lease has run out meanwhile is
   * dropped: the delivery is sent again anyway (at least once). A success is stored whenever it can be: it spares
   * the endpoint a duplicate.
   */
  private storeOutcomes(): Promise<void> {
    if (!this.storing && this.outcomes.length) this.storing = this.storeWaiting();
    return this.storing ?? Promise.resolve();
  }

  private async storeWaiting(): Promise<void> {
    try {
      while (this.outcomes.length) {
        const now = Date.now();
        const batch = this.outcomes.splice(0).filter((o) => o.kind === 'delivered' || o.leaseEnds > now);
        // the successes and the leases released after them in one statement; each failure (and its lease) after it
        const together = batch.filter((o) => o.kind !== 'failed');
        const failed = batch.filter((o) => o.kind === 'failed');
        try {
          await recordDelivered(
            this.db,
            together.flatMap((o) => (o.kind === 'delivered' ? [{ id: o.id, responseCode: o.status }] : [])),
            // a lease past its end is not released: it may be another worker's now (the token says so too)
            together.flatMap((o) => (o.release && o.leaseEnds > now ? [o.release] : [])),
          );
          together.length = 0;
          while (failed.length) {
            await this.storeFailure(failed[0]);
            failed.shift();
          }
        } catch (error) {
          this.outcomes.unshift(...[...together, ...failed, ...this.outcomes.splice(0)].slice(0, MAX_HELD));
          throw error;
        }
      }
    } finally {
      // cleared in the same turn as the last look at the queue: an outcome pushed after it starts a run of its own
      this.storing = undefined;
    }
  }

  private async storeFailure(outcome: Outcome): Promise<void> {
    if (outcome.kind !== 'failed') return;
    const { error } = outcome;
    const stored = await recordAttemptFailed(this.db, {
      id: outcome.id,
      responseCode: outcome.status,
      error,
      retryMs: retryDelayMs(this.settings, outcome.attempts + 1),
      retryHours: this.settings.webhooks.retryHours,
      disableAfterDays: this.settings.webhooks.disableAfterDays,
      release: outcome.release,
    });
    if (stored.disabled) {
      const { subscriptionId, userId, url } = stored.disabled;
      this.log.warn(
        { webhook: subscriptionId },
        `webhooks: endpoint ${subscriptionId} disabled after failing for WEBHOOK_DISABLE_AFTER_DAYS`,
      );
      await this.db.connection((sql) =>
        appendEvent(sql, {
          type: 'webhook.disabled',
          userId,
          data: {
            webhookId: subscriptionId,
            url,
            reason: `failing for ${this.settings.webhooks.disableAfterDays} days`,
            lastError: error,
          },
        }),
      );
    }
  }

  /** once the duty's pass on its way has ended (its runner stops it first) */
  async stop(): Promise<void> {
    this.stopped = true;
    // the deliveries under way end now (their sockets closed), not at their endpoints' timeouts: a dead endpoint does
    // not hold the stop; each is recorded as an attempt that failed, and retried by whichever worker runs next
    this.agents.http.destroy();
    this.agents.https.destroy();
    await Promise.allSettled([...this.inFlight]);
    // what was answered is stored if the database lets it (else those deliveries are sent again after their lease)
    await this.storeOutcomes().catch(() => undefined);
  }
}
