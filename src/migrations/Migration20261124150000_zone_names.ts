import { Migration } from '@mikro-orm/migrations';

/**
 * The zone-name rule's lookup of the zones below a name (src/repositories/zone-names.ts): reversed names in
 * byte order, so that the zones under `example.com` are one range of this index.
 */
export class Migration20261124150000_zone_names extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "domains_reversed_name_index" on "domains" ((reverse("name") collate "C"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "domains_reversed_name_index";`);
  }
}
