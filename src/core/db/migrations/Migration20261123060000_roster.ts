import { Migration } from '@mikro-orm/migrations';

/**
 * Organization rosters: members (email unique per organization regardless of case, through an
 * index on lower(email)), seat stretches for billing, plans, monthly invoices (unique per period),
 * the audit trail, the re-invite counter, the development mail outbox, and the link from an OIDC
 * client to the organization whose members sign in with it.
 */
export class Migration20261123060000_roster extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "member" ("id" serial primary key, "member_id" varchar(28) not null, "organization_id" int not null, "email" varchar(320) not null, "first_name" varchar(100) not null default '', "last_name" varchar(100) not null default '', "role" varchar(20) not null, "status" varchar(20) not null, "svc_id" varchar(40) null, "activation_digest" varchar(64) null, "activation_expires_at" timestamptz null, "created_at" timestamptz not null);`,
    );
    this.addSql(`alter table "member" add constraint "member_member_id_unique" unique ("member_id");`);
    this.addSql(`alter table "member" add constraint "member_activation_digest_unique" unique ("activation_digest");`);
    this.addSql(`create index "member_organization_id_role_index" on "member" ("organization_id", "role");`);
    this.addSql(
      `create unique index "member_organization_id_lower_email_unique" on "member" ("organization_id", lower("email"));`,
    );
    this.addSql(
      `alter table "member" add constraint "member_organization_id_svc_id_unique" unique ("organization_id", "svc_id");`,
    );
    this.addSql(
      `alter table "member" add constraint "member_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );

    this.addSql(
      `create table "roster_seat" ("id" serial primary key, "organization_id" int not null, "member_id" varchar(28) not null, "started_at" timestamptz not null, "ended_at" timestamptz null);`,
    );
    this.addSql(`create index "roster_seat_member_id_index" on "roster_seat" ("member_id");`);
    this.addSql(
      `create index "roster_seat_organization_id_started_at_index" on "roster_seat" ("organization_id", "started_at");`,
    );

    this.addSql(
      `create table "roster_plan" ("organization_id" int not null, "plan" varchar(60) not null, "price_per_seat_minor" int not null, "currency" varchar(3) not null, "trial_ends_at" timestamptz null, "started_at" timestamptz not null, "updated_at" timestamptz not null, constraint "roster_plan_pkey" primary key ("organization_id"));`,
    );

    this.addSql(
      `create table "roster_invoice" ("id" serial primary key, "organization_id" int not null, "period" varchar(7) not null, "seats" int not null, "amount_minor" int not null, "currency" varchar(3) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `alter table "roster_invoice" add constraint "roster_invoice_organization_id_period_unique" unique ("organization_id", "period");`,
    );

    this.addSql(
      `create table "roster_audit" ("id" bigserial primary key, "organization_id" int not null, "member_id" varchar(28) null, "actor" varchar(100) not null, "action" varchar(40) not null, "before" jsonb null, "after" jsonb null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "roster_audit_member_id_index" on "roster_audit" ("member_id");`);
    this.addSql(`create index "roster_audit_organization_id_id_index" on "roster_audit" ("organization_id", "id");`);

    this.addSql(
      `create table "roster_invite_window" ("member_pk" int not null, "window_start" timestamptz not null, "count" int not null, constraint "roster_invite_window_pkey" primary key ("member_pk", "window_start"));`,
    );

    this.addSql(
      `create table "mail_outbox" ("id" varchar(40) not null, "recipient" varchar(320) not null, "subject" varchar(300) not null, "body_sealed" text not null, "created_at" timestamptz not null, constraint "mail_outbox_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "mail_outbox_recipient_index" on "mail_outbox" ("recipient");`);
    this.addSql(`create index "mail_outbox_created_at_index" on "mail_outbox" ("created_at");`);

    this.addSql(`alter table "oidc_client" add column "organization_id" int null;`);
    this.addSql(
      `alter table "oidc_client" add constraint "oidc_client_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete set null;`,
    );
    this.addSql(`create index "oidc_client_organization_id_index" on "oidc_client" ("organization_id");`);
  }
}
