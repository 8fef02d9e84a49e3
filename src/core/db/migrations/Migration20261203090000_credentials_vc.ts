import { Migration } from '@mikro-orm/migrations';

/**
 * Verifiable credentials (SD-JWT VC over OpenID4VCI, scope `zkp`): the ES256 keys that sign them
 * live beside the RS256 id_token keys (an `alg` column; each algorithm rotates on its own), every
 * issued credential has a row with its place in a status list (draft-ietf-oauth-status-list),
 * and the nonces a wallet's proof of possession carried are remembered until they expire (each is
 * good once; the nonces handed out are sealed, not stored: an unauthenticated call writes nothing).
 */
export class Migration20261203090000_credentials_vc extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "signing_key" add column "alg" varchar(10) not null default 'RS256';`);
    this.addSql(`create table "credential_status_list" (
      "id" serial primary key,
      "size" int not null,
      "created_at" timestamptz not null
    );`);
    this.addSql(`create table "issued_credential" (
      "id" varchar(40) primary key,
      "account_id" varchar(40) not null,
      "client_id" varchar(64) not null,
      "holder_jkt" varchar(64) not null,
      "list_id" int not null references "credential_status_list" ("id"),
      "idx" int not null,
      "issued_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "revoked_at" timestamptz null,
      "revoked_reason" varchar(40) null,
      constraint "issued_credential_list_idx_unique" unique ("list_id", "idx")
    );`);
    this.addSql(
      `create index "issued_credential_live_by_account" on "issued_credential" ("account_id") where "revoked_at" is null;`,
    );
    this.addSql(`create table "credential_nonce" (
      "digest" varchar(64) primary key,
      "used_at" timestamptz not null,
      "expires_at" timestamptz not null
    );`);
  }
}
