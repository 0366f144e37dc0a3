import { Migration } from '@mikro-orm/migrations';

export class Migration20261122054319_drop_redundant_record_index extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index "records_domain_owner_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "records_domain_owner_index" on "records" ("domain_id", "owner");`);
  }
}
