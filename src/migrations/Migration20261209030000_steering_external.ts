import { Migration } from '@mikro-orm/migrations';

/**
 * External checks (docs/steering.md): a check whose status is not probed but reported through the API (as
 * PowerDNS's `ifurlextup`), each report holding for a lease. Such a check has no address or port; `lease_until`
 * is when its last report stops counting (after it, the check counts as failing). The prober still claims it by
 * `next_check_at`, so that a lease running out is noticed without a report. And an index for reading a steered
 * RRset's recent changes of what it serves (its `steering.changed` events, newest first).
 */
export class Migration20261209030000_steering_external extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "steering_checks" drop constraint if exists "steering_checks_protocol_check";`);
    this.addSql(
      `alter table "steering_checks" add constraint "steering_checks_protocol_check" check ("protocol" in ('http', 'https', 'tcp', 'external'));`,
    );
    this.addSql(`alter table "steering_checks" alter column "address" drop not null, alter column "port" drop not null;`);
    this.addSql(
      `alter table "steering_checks" add constraint "steering_checks_target_check" check ("protocol" = 'external' or ("address" is not null and "port" is not null));`,
    );
    this.addSql(`alter table "steering_checks" add column "lease_until" timestamptz null;`);
    // a steered RRset's recent served changes are its steering.changed events, read newest first by zone
    this.addSql(`create index "events_steering_changed_index" on "events" ("domain_id", "id") where "type" = 'steering.changed';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "events_steering_changed_index";`);
    this.addSql(`delete from "steering_checks" where "protocol" = 'external';`);
    this.addSql(`alter table "steering_checks" drop column if exists "lease_until";`);
    this.addSql(`alter table "steering_checks" drop constraint if exists "steering_checks_target_check";`);
    this.addSql(`alter table "steering_checks" alter column "address" set not null, alter column "port" set not null;`);
    this.addSql(`alter table "steering_checks" drop constraint if exists "steering_checks_protocol_check";`);
    this.addSql(
      `alter table "steering_checks" add constraint "steering_checks_protocol_check" check ("protocol" in ('http', 'https', 'tcp'));`,
    );
  }
}
