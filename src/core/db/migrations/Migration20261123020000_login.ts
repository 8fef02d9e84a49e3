import { Migration } from '@mikro-orm/migrations';

/**
 * Login: signing keys, authorization codes, rotating refresh tokens, browser sessions, pending
 * authorization requests, remembered consents; licences and a face reference on accounts.
 * Foreign keys on plain-id columns are SQL-only (the entities keep ids to avoid loading rows).
 */
export class Migration20261123020000_login extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "account_license" ("id" varchar(40) not null, "account_id" varchar(40) not null, "type" varchar(80) not null, "number" varchar(80) not null, "status" varchar(40) not null, "issuer" varchar(200) not null, "expires_on" varchar(10) null, "verified_from" varchar(200) null, "expire_at" timestamptz null, "created_at" timestamptz not null, constraint "account_license_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "account_license_account_id_index" on "account_license" ("account_id");`);
    this.addSql(
      `create table "authorization_code" ("id" varchar(40) not null, "code_digest" varchar(64) not null, "client_id" varchar(64) not null, "account_id" varchar(40) not null, "redirect_uri" text not null, "scopes" text[] not null, "nonce" text null, "code_challenge" varchar(128) null, "auth_time" timestamptz not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "authorization_code_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "authorization_code" add constraint "authorization_code_code_digest_unique" unique ("code_digest");`,
    );
    this.addSql(
      `create table "oidc_consent" ("account_id" varchar(40) not null, "client_id" varchar(64) not null, "scopes" text[] not null, "created_at" timestamptz not null, constraint "oidc_consent_pkey" primary key ("account_id", "client_id"));`,
    );
    this.addSql(
      `create table "oidc_interaction" ("digest" varchar(64) not null, "request" jsonb not null, "expires_at" timestamptz not null, constraint "oidc_interaction_pkey" primary key ("digest"));`,
    );
    this.addSql(
      `create table "login_session" ("digest" varchar(64) not null, "account_id" varchar(40) not null, "auth_time" timestamptz not null, "expires_at" timestamptz not null, constraint "login_session_pkey" primary key ("digest"));`,
    );
    this.addSql(
      `create table "refresh_token" ("id" varchar(40) not null, "token_digest" varchar(64) not null, "client_id" varchar(64) not null, "account_id" varchar(40) not null, "scopes" text[] not null, "grant_id" varchar(40) not null, "auth_time" timestamptz not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "rotated_at" timestamptz null, "revoked_at" timestamptz null, constraint "refresh_token_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "refresh_token" add constraint "refresh_token_token_digest_unique" unique ("token_digest");`,
    );
    this.addSql(`create index "refresh_token_grant_id_index" on "refresh_token" ("grant_id");`);
    this.addSql(
      `create index "refresh_token_account_id_client_id_index" on "refresh_token" ("account_id", "client_id");`,
    );
    this.addSql(
      `create table "signing_key" ("kid" varchar(64) not null, "public_jwk" jsonb not null, "private_key_sealed" text not null, "created_at" timestamptz not null, constraint "signing_key_pkey" primary key ("kid"));`,
    );
    this.addSql(`alter table "account" add column "face_descriptor_sealed" text null;`);
    this.addSql(`alter table "access_token" add column "grant_id" varchar(40) null;`);
    this.addSql(`create index "access_token_grant_id_index" on "access_token" ("grant_id");`);
    this.addSql(
      `alter table "account_license" add constraint "account_license_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "authorization_code" add constraint "authorization_code_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "refresh_token" add constraint "refresh_token_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "refresh_token" add constraint "refresh_token_client_id_foreign" foreign key ("client_id") references "oidc_client" ("client_id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "login_session" add constraint "login_session_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "oidc_consent" add constraint "oidc_consent_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
  }
}
