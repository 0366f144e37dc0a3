import type { Database, Sql } from '../db/pool';
import { beginFanout, endFanout, FanoutPass, passFanoutUnsubscribed } from '../repositories/webhooks';
import { scopeSees } from '../services/events/events.service';

/** events read by one step of the fan-out at most */
export const FANOUT_BATCH = 500;

/**
 * The webhook fan-out (docs/events.md): the settled events after its place in the feed matched against the
 * enabled subscriptions, a delivery row written per match and the place moved, in one transaction (the place's row
 * locked SKIP LOCKED: one process at a time, nothing half done by one that dies).
 *
 * Its steps are taken by the webhook delivery duty (its tick, after its sends) and by the outbox drain, in its
 * claim's commit (duties/outbox-drain.ts): what the worker does after a write is then one WAL flush. Both hold the
 * process's one fan-out, whose only state is what it last saw of the subscriptions.
 */
export class WebhookFanout {
  /**
   * whether the last step saw an enabled subscription: while none is, a step is one statement
   * (passFanoutUnsubscribed), and the delivery duty claims no queue (a claim looks at enabled subscriptions' only)
   */
  private subscribed = false;

  constructor(private readonly db: Database) {}

  /** whether an enabled subscription was seen at the last step (deliveries may wait to be claimed) */
  get seesSubscriptions(): boolean {
    return this.subscribed;
  }

  /** whether the step is the one-statement pass (no subscription enabled when it last looked) */
  get passesUnsubscribed(): boolean {
    return !this.subscribed;
  }

  /**
   * The outbox drain ran the one-statement pass in its claim's statement (fanoutPassSql): what it came to.
   * Answers whether a step remains to be taken at once: a full batch passed, or the step must be a transaction
   * (a subscription is enabled, or another process held the place: fanOutIn).
   */
  passed(pass: FanoutPass | undefined): boolean {
    this.subscribed = pass?.subscribed ?? true;
    return !pass || pass.subscribed || pass.events === FANOUT_BATCH;
  }

  /** one step of the fan-out on its own; answers how many events it read */
  async fanOut(): Promise<number> {
    if (!this.subscribed) {
      const pass = await passFanoutUnsubscribed(this.db, FANOUT_BATCH);
      this.subscribed = pass?.subscribed ?? true;
      if (pass && !pass.subscribed) return pass.events;
      // another process holds the place, or a subscription is enabled: the step as a transaction
    }
    return this.db.transaction((sql) => this.fanOutIn(sql));
  }

  /**
   * The fan-out's step as a transaction's part (its own, or the outbox drain's with its claim); answers how many
   * events it read (0 when another process holds the place or none waits).
   */
  async fanOutIn(sql: Sql): Promise<number> {
    const step = await beginFanout(sql, FANOUT_BATCH);
    if (!step || !step.events.length) return 0;
    this.subscribed = step.subscriptions.length > 0;
    const deliveries = step.events.flatMap((event) =>
      step.subscriptions
        .filter(
          (s) =>
            event.createdAt >= s.createdAt &&
            (s.eventTypes === null || s.eventTypes.includes(event.type)) &&
            (s.zones === null || (event.zone !== null && s.zones.includes(event.zone))) &&
            scopeSees({ userId: s.userId ?? undefined, readRules: s.readRules ?? undefined }, event) &&
            // an endpoint disabled is told through its owner's other endpoints, not itself
            !(event.type === 'webhook.disabled' && event.data.webhookId === s.id),
        )
        .map((s) => ({ subscriptionId: s.id, eventId: event.id, xid: event.xid, zoneKey: event.zone ?? '' })),
    );
    const last = step.events.at(-1)!;
    await endFanout(sql, deliveries, { xid: last.xid, id: last.id });
    return step.events.length;
  }
}
