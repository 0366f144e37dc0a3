import { Migration } from '@mikro-orm/migrations';

/**
 * Why a key's planned step may run, kept until it runs and then written as its key event's reason
 * (docs/dnssec.md, «Key events»). A KSK/CSK roll's swap under a parent outside Zonekeeper waits for the new DS
 * (RFC 7583 §3.3.2) and runs a DS TTL plus the propagation delay after it is known: known because the parent's
 * servers (DNSSEC_PARENT_DS_SERVERS) were seen serving it (`ds-seen`), or because the operator said so
 * (`ds-confirmed`). The swap happens in a later worker turn than that knowledge, so the reason is stored with
 * the plan. Null: the step's own reason (`scheduled`, or `ds-seen` for a Zonekeeper parent, asked at the swap).
 */
export class Migration20261125004000_dnssec_key_next_event_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "dnssec_keys" add column "next_event_reason" text null check ("next_event_reason" in ('ds-seen', 'ds-confirmed'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "dnssec_keys" drop column "next_event_reason";`);
  }
}
