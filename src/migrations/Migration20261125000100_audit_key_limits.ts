import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log of keys refused for their limits (docs/audit-log.md). A key presented after it expired, or
 * after it was idle too long, is recorded once (`key-expired`, `key-idle`), whichever process sees it first:
 * `expiry_audited_at` / `idle_audited_at` are set by the one update that finds them null, as `first_used_at`
 * is; changing the key's policy clears them. A key presented from outside its allowedNetworks is summarised
 * per key and minute (`key-wrong-network`), as the other refusals: the refusals' unique index takes the kind.
 */
export class Migration20261125000100_audit_key_limits extends Migration {
  override async up(): Promise<void> {
    for (const table of ['api_keys', 'tsig_keys']) {
      this.addSql(`alter table "${table}"
        add column "expiry_audited_at" timestamptz null,
        add column "idle_audited_at" timestamptz null;`);
    }
    this.addSql(`drop index "audit_events_refusal_unique";`);
    this.addSql(
      `create unique index "audit_events_refusal_unique" on "audit_events" ("kind", "at", "actor_key_type", "actor_key_id") where "kind" in ('policy-refused', 'rate-limited', 'quota-exceeded', 'key-wrong-network');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "audit_events" where "kind" = 'key-wrong-network';`);
    this.addSql(`drop index "audit_events_refusal_unique";`);
    this.addSql(
      `create unique index "audit_events_refusal_unique" on "audit_events" ("kind", "at", "actor_key_type", "actor_key_id") where "kind" in ('policy-refused', 'rate-limited', 'quota-exceeded');`,
    );
    for (const table of ['api_keys', 'tsig_keys']) {
      this.addSql(`alter table "${table}" drop column "expiry_audited_at", drop column "idle_audited_at";`);
    }
  }
}
