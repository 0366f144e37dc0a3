import { Migration } from '@mikro-orm/migrations';

/**
 * Webhook deliveries leased by queue, not by row (docs/events.md, «The delivery duty»): a worker that claims an
 * (endpoint, zone) queue holds it by one row here until its lease ends, and sends a run of the queue's pending
 * deliveries in order, one at a time, under that one lease. A delivery's row is then written once, with its
 * outcome, where a lease per row wrote it twice; the leases held count an endpoint's deliveries under way
 * (WEBHOOK_CONCURRENCY) without reading its queues. `lease_until` is also the holder's token: it releases its
 * lease only if it is still its own. A queue's row goes when its lease is released, or with its subscription.
 * The deliveries' own `lease_until` is no longer written.
 */
export class Migration20261203000000_webhook_queue_leases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "webhook_queue_leases" (
      "subscription_id" bigint not null references "webhook_subscriptions" ("id") on delete cascade,
      "zone_key" text not null,
      "lease_until" timestamptz not null,
      primary key ("subscription_id", "zone_key"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "webhook_queue_leases";`);
  }
}
