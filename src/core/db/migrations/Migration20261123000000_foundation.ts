import { Migration } from '@mikro-orm/migrations';

/** Tenants and credentials: projects, API keys, workflows, callbacks, OIDC clients, organizations, accounts. */
export class Migration20261123000000_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "account" ("id" varchar(40) not null, "email" varchar(320) not null, "password_hash" text not null, "display_name" varchar(200) null, "created_at" timestamptz not null, constraint "account_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "account" add constraint "account_email_unique" unique ("email");`);
    this.addSql(
      `create table "organization" ("id" serial primary key, "name" varchar(200) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(
      `create table "org_app" ("client_id" varchar(64) not null, "organization_id" int not null, "name" varchar(120) not null, "client_secret_digest" varchar(64) not null, "active" boolean not null default true, "created_at" timestamptz not null, constraint "org_app_pkey" primary key ("client_id"));`,
    );
    this.addSql(`create index "org_app_organization_id_index" on "org_app" ("organization_id");`);
    this.addSql(
      `create table "project" ("id" varchar(40) not null, "name" varchar(200) not null, "webhook_signing_secret_sealed" text not null, "default_callback_url" text null, "balance_minor" bigint not null default 0, "currency" varchar(3) not null default 'USD', "is_demo" boolean not null default false, "created_at" timestamptz not null, constraint "project_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create table "oidc_client" ("client_id" varchar(64) not null, "project_id" varchar(40) not null, "name" varchar(120) not null, "client_secret_digest" varchar(64) not null, "redirect_uris" text[] not null, "scopes" text[] not null, "active" boolean not null default true, "created_at" timestamptz not null, constraint "oidc_client_pkey" primary key ("client_id"));`,
    );
    this.addSql(`create index "oidc_client_project_id_index" on "oidc_client" ("project_id");`);
    this.addSql(
      `create table "access_token" ("id" varchar(40) not null, "token_digest" varchar(64) not null, "account_id" varchar(40) not null, "client_id" varchar(64) not null, "scopes" text[] not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, constraint "access_token_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "access_token" add constraint "access_token_token_digest_unique" unique ("token_digest");`,
    );
    this.addSql(`create index "access_token_account_id_index" on "access_token" ("account_id");`);
    this.addSql(
      `create table "callback_destination" ("id" varchar(40) not null, "project_id" varchar(40) not null, "url" text not null, "active" boolean not null default true, "created_at" timestamptz not null, constraint "callback_destination_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "callback_destination" add constraint "callback_destination_project_id_url_unique" unique ("project_id", "url");`,
    );
    this.addSql(
      `create table "api_key" ("id" varchar(40) not null, "project_id" varchar(40) not null, "name" varchar(200) not null default '', "prefix" varchar(16) not null, "secret_digest" varchar(64) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, constraint "api_key_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "api_key_project_id_index" on "api_key" ("project_id");`);
    this.addSql(`alter table "api_key" add constraint "api_key_secret_digest_unique" unique ("secret_digest");`);
    this.addSql(
      `create table "admin_token" ("id" varchar(40) not null, "name" varchar(120) not null default '', "role" text check ("role" in ('viewer', 'reviewer', 'admin')) not null, "project_id" varchar(40) null, "token_digest" varchar(64) not null, "created_at" timestamptz not null, "revoked_at" timestamptz null, constraint "admin_token_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "admin_token" add constraint "admin_token_token_digest_unique" unique ("token_digest");`);
    this.addSql(
      `create table "workflow" ("id" varchar(40) not null, "project_id" varchar(40) not null, "name" varchar(200) not null, "features" text[] not null, "created_at" timestamptz not null, constraint "workflow_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "workflow_project_id_index" on "workflow" ("project_id");`);
    this.addSql(
      `alter table "org_app" add constraint "org_app_organization_id_foreign" foreign key ("organization_id") references "organization" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "oidc_client" add constraint "oidc_client_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "access_token" add constraint "access_token_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "access_token" add constraint "access_token_client_id_foreign" foreign key ("client_id") references "oidc_client" ("client_id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "callback_destination" add constraint "callback_destination_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "api_key" add constraint "api_key_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "admin_token" add constraint "admin_token_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "workflow" add constraint "workflow_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
  }
}
