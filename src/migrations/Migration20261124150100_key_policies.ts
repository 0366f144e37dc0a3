import { Migration } from '@mikro-orm/migrations';

/**
 * Least-privilege keys (docs/least-privilege.md): a policy on every API key and TSIG key. `rules` is the list
 * of rules as JSON (zone, owner, types, access), read whole with the key on authentication and never queried
 * on its own; null is an unrestricted key, which every key made before this migration stays. The flags count
 * only for a key with rules. `last_used_at` is written at most once a minute per key and process (the idle
 * limit counts days); null: never used, so idleness counts from `created_at`.
 */
export class Migration20261124150100_key_policies extends Migration {
  override async up(): Promise<void> {
    for (const table of ['api_keys', 'tsig_keys']) {
      this.addSql(`alter table "${table}"
        add column "rules" jsonb null constraint "${table}_rules_is_array" check ("rules" is null or jsonb_typeof("rules") = 'array'),
        add column "preset" text null,
        add column "may_create_zones" boolean not null default false,
        add column "may_delete_zones" boolean not null default false,
        add column "may_manage_keys" boolean not null default false,
        add column "expires_at" timestamptz null,
        add column "idle_days" integer null constraint "${table}_idle_days_positive" check ("idle_days" is null or "idle_days" > 0),
        add column "allowed_networks" text[] null,
        add column "last_used_at" timestamptz null;`);
    }
  }

  override async down(): Promise<void> {
    for (const table of ['api_keys', 'tsig_keys']) {
      this.addSql(`alter table "${table}"
        drop column "rules", drop column "preset", drop column "may_create_zones", drop column "may_delete_zones",
        drop column "may_manage_keys", drop column "expires_at", drop column "idle_days", drop column "allowed_networks",
        drop column "last_used_at";`);
    }
  }
}
