import { Migration } from '@mikro-orm/migrations';

/**
 * The search across zones (docs/search.md): a record is found by a part of its name or of its content, a
 * substring anywhere in either, which no btree serves. pg_trgm's trigram GIN indexes do (LIKE '%…%' through an
 * index scan), over lower() so that the search ignores letter case; the zones' names get one too, since a name
 * is found through its zone's part as well. The audit log gets an index by subject, for the operator's
 * audit screen's zone filter. pg_trgm is a trusted extension (PostgreSQL 13 and later), shipped
 * with the embedded PostgreSQL and with Debian's postgresql-contrib, so the database's owner may create it; where
 * it cannot be created, the search still answers, by scanning (the block below leaves the indexes out).
 */
export class Migration20261202030000_record_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`do $$ begin
      create extension if not exists pg_trgm;
    exception when others then
      raise notice 'pg_trgm is not available (%): the record search scans', sqlerrm;
    end $$;`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        create index if not exists "records_owner_trgm_index" on "records" using gin (lower("owner") gin_trgm_ops);
        create index if not exists "records_rdata_trgm_index" on "records" using gin (lower("rdata") gin_trgm_ops);
        create index if not exists "domains_name_trgm_index" on "domains" using gin ("name" gin_trgm_ops);
      end if;
    end $$;`);
    // the operator's audit screen filters by zone (its subject), newest first
    this.addSql(`create index "audit_events_subject_index" on "audit_events" ("subject", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "records_owner_trgm_index";`);
    this.addSql(`drop index if exists "records_rdata_trgm_index";`);
    this.addSql(`drop index if exists "domains_name_trgm_index";`);
    this.addSql(`drop index "audit_events_subject_index";`);
  }
}
