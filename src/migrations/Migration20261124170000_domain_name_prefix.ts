import { Migration } from '@mikro-orm/migrations';

/**
 * The zone search by prefix (`domains(nameStartsWith:)`, src/repositories/read-model.ts): the range
 * `name >= prefix and name < prefix || U+10FFFF` compared byte-wise (collate "C"). The unique constraint's index
 * is in the database's default collation, which PostgreSQL cannot use for a comparison in "C" (EXPLAIN showed a
 * sequential scan over 100,000 zones), so this index holds the names in byte order.
 */
export class Migration20261124170000_domain_name_prefix extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "domains_name_bytes_index" on "domains" (("name" collate "C"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "domains_name_bytes_index";`);
  }
}
