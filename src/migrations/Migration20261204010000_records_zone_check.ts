import { Migration } from '@mikro-orm/migrations';

/**
 * A record's zone is checked once per statement rather than once per row. The foreign key records → domains
 * ran its check (a `select … for key share` on the zone's row) for every record inserted: in a change set of
 * 1,000 records, 1,000 executions of the same look-up of the same zone row, about an eighth of PostgreSQL's
 * work for the statement (bench/FINDINGS.md, «The bulk write's floor»). Its three parts are kept, each by a
 * trigger:
 *   - a statement that inserts records locks every zone its rows name (`for key share`, as the foreign key's
 *     check: a concurrent delete of the zone waits for this transaction, and a zone deleted before is not
 *     found) and fails with the foreign key's error (23503, the constraint's name: db-errors.ts) if one is not
 *     there; once per statement, over its rows (a transition table);
 *   - an update that moves a record to another zone is checked the same way (no statement does; kept whole);
 *   - deleting a zone deletes its records (the key's `on delete cascade`), and a zone's id that changed takes
 *     its records with it (`on update cascade`).
 * The column stays not null and indexed as before; the entity no longer asks for the constraint.
 */
export class Migration20261204010000_records_zone_check extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "records" drop constraint "records_domain_id_foreign";`);
    // the foreign key's own error, as PostgreSQL words it
    this.addSql(`create function records_zone_missing(missing bigint) returns void language plpgsql as $$
      begin
        raise foreign_key_violation using
          message = 'insert or update on table "records" violates foreign key constraint "records_domain_id_foreign"',
          detail = format('Key (domain_id)=(%s) is not present in table "domains".', missing),
          constraint = 'records_domain_id_foreign', table = 'records', schema = current_schema();
      end $$;`);
    this.addSql(`create function records_zone_exists() returns trigger language plpgsql as $$
      declare
        missing bigint;
      begin
        select n.domain_id into missing
          from (select distinct domain_id from records_written) n
          left join lateral (select d.id from domains d where d.id = n.domain_id for key share) d on true
         where d.id is null
         limit 1;
        if missing is not null then
          perform records_zone_missing(missing);
        end if;
        return null;
      end $$;`);
    // a transition table cannot go with a column list (UPDATE OF): an update is checked row by row, and only
    // one that changes the zone is
    this.addSql(`create function records_zone_moved() returns trigger language plpgsql as $$
      begin
        perform 1 from domains d where d.id = new.domain_id for key share;
        if not found then
          perform records_zone_missing(new.domain_id);
        end if;
        return null;
      end $$;`);
    this.addSql(`create function domains_records_deleted() returns trigger language plpgsql as $$
      begin
        delete from records r using domains_deleted d where r.domain_id = d.id;
        return null;
      end $$;`);
    this.addSql(`create function domains_records_renumbered() returns trigger language plpgsql as $$
      begin
        update records set domain_id = new.id where domain_id = old.id;
        return null;
      end $$;`);
    // each part by its trigger, once the functions are there
    this.addSql(`create trigger "records_zone_exists" after insert on "records"
      referencing new table as records_written for each statement execute function records_zone_exists();`);
    this.addSql(`create trigger "records_zone_moved" after update of "domain_id" on "records"
      for each row when (old.domain_id is distinct from new.domain_id) execute function records_zone_moved();`);
    this.addSql(`create trigger "domains_records_deleted" after delete on "domains"
      referencing old table as domains_deleted for each statement execute function domains_records_deleted();`);
    this.addSql(`create trigger "domains_records_renumbered" after update of "id" on "domains"
      for each row when (old.id is distinct from new.id) execute function domains_records_renumbered();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "domains_records_renumbered" on "domains";`);
    this.addSql(`drop function domains_records_renumbered();`);
    this.addSql(`drop trigger "domains_records_deleted" on "domains";`);
    this.addSql(`drop function domains_records_deleted();`);
    this.addSql(`drop trigger "records_zone_moved" on "records";`);
    this.addSql(`drop function records_zone_moved();`);
    this.addSql(`drop trigger "records_zone_exists" on "records";`);
    this.addSql(`drop function records_zone_exists();`);
    this.addSql(`drop function records_zone_missing(bigint);`);
    this.addSql(
      `alter table "records" add constraint "records_domain_id_foreign" foreign key ("domain_id") references "domains" ("id") on update cascade on delete cascade;`,
    );
  }
}
