import { Migration } from '@mikro-orm/migrations';

/**
 * DNSSEC key events (docs/dnssec.md, «Key events»): one row per step of a key's RFC 7583 life (made, published,
 * active, retired, removed), written in the transaction of the step itself, with why it happened. The zone's
 * history shows them beside its changes (`Domain.dnssecEvents`) and live updates push them
 * (`dnssecKeyChanged`), while the journal's `zone-signed` rows of the same steps stay out of both.
 *
 * `key_id` has no foreign key: disabling DNSSEC destroys the keys, and their last events (to `removed`) must
 * outlive them. The rows go with their zone (`on delete cascade`). `(domain_id, id)` serves the zone's list
 * (newest first, keyset paging) and the change feed's read of new events of the subscribed zones.
 */
export class Migration20261125003000_dnssec_key_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "dnssec_key_events" (
      "id" bigserial primary key,
      "domain_id" bigint not null references "domains" ("id") on delete cascade,
      "key_id" bigint not null,
      "key_tag" int not null,
      "role" text not null check ("role" in ('KSK', 'ZSK', 'CSK')),
      "algorithm" smallint not null,
      "from_state" text null check ("from_state" in ('generated', 'published', 'ready', 'active', 'retired', 'removed')),
      "to_state" text not null check ("to_state" in ('generated', 'published', 'ready', 'active', 'retired', 'removed')),
      "reason" text not null check ("reason" in ('enabled', 'rolled-by-hand', 'lifetime', 'scheduled', 'ds-seen', 'ds-confirmed', 'disabled')),
      "at" timestamptz not null default now());`);
    this.addSql(`create index "dnssec_key_events_domain_index" on "dnssec_key_events" ("domain_id", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table "dnssec_key_events";`);
  }
}
