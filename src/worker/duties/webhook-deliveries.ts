import { JOURNAL_CHANNEL } from '../../db/journal-signal';
import type { Database } from '../../db/pool';
import type { Duty } from '../duties';
import type { WebhookDeliveries } from '../webhook-delivery';

export const WEBHOOK_DELIVERIES = 'webhook deliveries';
const TICK_MS = 250;
/** the shortest time between two passes: the wakes of many sends ending, one pass */
const PASS_INTERVAL_MS = 20;

/**
 * Webhook deliveries (webhook-delivery.ts, docs/events.md): a pass takes the fan-out's steps, then claims the
 * queues with room and starts their sends. Passes come on the tick, when a send ends, and after an outbox drain
 * that took the fan-out's step in its claim's commit (it calls the deliveries' wake). `listens`: with no drain
 * taking the fan-out along, the duty listens on the journal's channel itself.
 */
export function webhookDeliveriesDuty(deliveries: WebhookDeliveries, db: Database, listens = false): Duty {
  return {
    name: WEBHOOK_DELIVERIES,
    every: TICK_MS,
    firstAfter: 0,
    pace: PASS_INTERVAL_MS,
    run: (signal) => deliveries.pass(signal),
    listen: listens
      ? () =>
          db.notifications.subscribe(
            JOURNAL_CHANNEL,
            () => deliveries.wake(),
            () => deliveries.wake(),
          )
      : undefined,
    // the deliveries under way end now, their outcomes stored if the database lets it
    stop: () => deliveries.stop(),
    where: 'webhook delivery',
    failure: { level: 'warn', message: 'webhooks: a delivery pass failed; the next runs shortly' },
  };
}
