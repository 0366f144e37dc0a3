import { Migration } from '@mikro-orm/migrations';

/**
 * The operator as a person (docs/people.md, «The operator»): a person with `operator_grant` set acts, when signed
 * in, with the admin key's rights across every account (src/auth/principal.ts). `hand`: granted by the CLI or
 * GraphQL (the admin key or another operator), which only a hand revoke removes; `oidc`: granted by an OpenID
 * Connect sign-in whose claim named an operator value (OIDC_OPERATOR_CLAIM, OIDC_OPERATOR_VALUES), which a
 * sign-in without it removes. `operator_since`: when the grant was made.
 */
export class Migration20261203010000_operators extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "people"
      add column "operator_grant" text null constraint "people_operator_grant_check" check ("operator_grant" in ('hand', 'oidc')),
      add column "operator_since" timestamptz null;`);
    this.addSql(`create index "people_operators_index" on "people" ("id") where "operator_grant" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "people_operators_index";`);
    this.addSql(`alter table "people" drop column "operator_grant", drop column "operator_since";`);
  }
}
