import { Migration } from '@mikro-orm/migrations';

/**
 * Live updates: a secondary's state or served serial for a zone changing wakes the API processes'
 * change feeds (LISTEN zonekeeper_propagation, payload: the zone's id), which push propagationChanged to
 * subscribers. pg_notify is transactional: delivered at commit, once per distinct payload per transaction.
 * Only real changes notify: the worker's checks that find nothing new (attempts, next check time) stay quiet.
 */
export class Migration20261122140100_propagation_notify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function "zonekeeper_propagation_notify"() returns trigger language plpgsql as $fn$
      begin
        if TG_OP = 'INSERT' or NEW."state" is distinct from OLD."state" or NEW."served_serial" is distinct from OLD."served_serial" then
          perform pg_notify('zonekeeper_propagation', NEW."domain_id"::text);
        end if;
        return null;
      end $fn$;`);
    this.addSql(
      `create trigger "zone_server_status_notify" after insert or update on "zone_server_status" for each row execute function "zonekeeper_propagation_notify"();`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger "zone_server_status_notify" on "zone_server_status";`);
    this.addSql(`drop function "zonekeeper_propagation_notify"();`);
  }
}
