import { Migration } from '@mikro-orm/migrations';

export class Migration20261122020000_keyset_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "domains_user_id_index";`);

    this.addSql(`create index "domains_user_id_id_index" on "domains" ("user_id", "id");`);

    this.addSql(`create index "records_domain_id_id_index" on "records" ("domain_id", "id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "domains_user_id_id_index";`);

    this.addSql(`create index "domains_user_id_index" on "domains" ("user_id");`);

    this.addSql(`drop index "records_domain_id_id_index";`);
  }
}
