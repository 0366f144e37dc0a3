import { Migration } from '@mikro-orm/migrations';

/**
 * Review and scheduled changes (docs/changes.md): a zone may require approvals (`required_approvals`, 0: none);
 * a change request keeps the changes as they were given, their author, the serial and the plan they were
 * proposed on, its status and an optional time; its reviews are the approvals and rejections, each by a person.
 *
 * `claimed_until`: the lease of the process applying an approved request (the scheduled changes' duty, or an
 * approval's own apply), so that a request is applied once whatever the number of processes, and taken up
 * again if its process died before the apply committed (the apply commits the status in its own transaction).
 */
export class Migration20261209040000_change_requests extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "domains" add column "required_approvals" integer not null default 0
         constraint "domains_required_approvals_check" check ("required_approvals" between 0 and 10);`,
    );
    this.addSql(`create table "change_requests" (
      "id" bigserial primary key,
      "domain_id" bigint not null constraint "change_requests_domain_id_foreign" references "domains" ("id") on delete cascade,
      "zone" text not null,
      "author_key_id" bigint null,
      "author_tsig_key_id" bigint null,
      "author_key_name" text null,
      "author_user_id" bigint null,
      "author_person_id" bigint null,
      "author_email" text null,
      "author_admin" boolean not null default false,
      "author_policy" jsonb null,
      "changes" jsonb not null,
      "planned_serial" bigint not null,
      "plan" jsonb not null,
      "required_approvals" integer not null,
      "status" text not null constraint "change_requests_status_check"
        check ("status" in ('pending', 'approved', 'applied', 'rejected', 'refused', 'cancelled')),
      "scheduled_at" timestamptz null,
      "claimed_until" timestamptz null,
      "created_at" timestamptz not null default now(),
      "closed_at" timestamptz null,
      "applied_serial" bigint null,
      "conflicts" jsonb null,
      "reason" text null
    );`);
    this.addSql(`create index "change_requests_domain_index" on "change_requests" ("domain_id", "id" desc);`);
    // the scheduled changes' duty reads only the approved requests, by time
    this.addSql(`create index "change_requests_due_index" on "change_requests" ("scheduled_at") where "status" = 'approved';`);
    this.addSql(`create table "change_request_reviews" (
      "id" bigserial primary key,
      "request_id" bigint not null constraint "change_request_reviews_request_id_foreign" references "change_requests" ("id") on delete cascade,
      "person_id" bigint not null,
      "reviewer" text not null,
      "verdict" text not null constraint "change_request_reviews_verdict_check" check ("verdict" in ('approve', 'reject')),
      "comment" text null,
      "created_at" timestamptz not null default now(),
      constraint "change_request_reviews_once" unique ("request_id", "person_id")
    );`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "change_request_reviews";`);
    this.addSql(`drop table if exists "change_requests";`);
    this.addSql(`alter table "domains" drop column if exists "required_approvals";`);
  }
}
