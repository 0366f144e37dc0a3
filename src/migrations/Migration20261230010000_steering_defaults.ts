import { Migration } from '@mikro-orm/migrations';

/**
 * A zone's steering defaults (docs/steering.md, «A zone's defaults for new members' checks»): what the check the
 * service makes for a new member of an octoDNS dynamic record takes (protocol, port, path, Host and TLS server
 * name, the status range that passes, a text the body must contain, certificate verification, interval), since
 * octodns-powerdns does not send the YAML's `octodns.healthcheck`. A column left null is not set: the service's
 * own default applies (octoDNS's: HTTPS, 443, `/_dns`, the record's name as Host). One row a zone, gone with it.
 */
export class Migration20261230010000_steering_defaults extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "steering_defaults" (
      "domain_id" bigint primary key constraint "steering_defaults_domain_id_foreign" references "domains" ("id") on delete cascade,
      "protocol" text null check ("protocol" in ('http', 'https', 'tcp')),
      "port" integer null check ("port" between 1 and 65535),
      "host" text null,
      "path" text null,
      "status_min" integer null,
      "status_max" integer null,
      "body_contains" text null,
      "verify_tls" boolean null,
      "interval_seconds" integer null check ("interval_seconds" between 1 and 300),
      "updated_at" timestamptz not null default now());`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "steering_defaults";`);
  }
}
