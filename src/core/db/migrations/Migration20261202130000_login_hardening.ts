import { Migration } from '@mikro-orm/migrations';

/**
 * Login hardening (issue 46).
 *
 * A refresh-token row keeps the digests of the sign-in's last few tokens besides the current one
 * (`previous_digests`, newest first): a token presented under the row is the current one, a
 * replay of one of those, or a guess, which revokes nothing. Rows rotated before this know none
 * of their earlier tokens: a replay of one is refused as a guess.
 *
 * The sign-in throttle's counts move from `rate_limit` (rate-limiter-flexible's rows, counted
 * after the password check) to `signin_throttle`, one row per account or address key, where an
 * attempt takes its slot before the check (LoginThrottle). Times are epoch milliseconds, as in
 * `rate_limit`. SQL-only like `rate_limit`: core writes it with plain SQL, no entity. Failures and
 * locks in force are carried over.
 *
 * Every OIDC client must use PKCE (S256) at authorize (`require_pkce`, RFC 9700 2.1.1), the ones
 * registered before included: a relying party that sends no code_challenge is refused until it
 * does, or until an operator turns the requirement off for it (a confidential legacy client).
 */
export class Migration20261202130000_login_hardening extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "refresh_token" add column "previous_digests" text[] not null default '{}';`);

    this.addSql(
      `create table "signin_throttle" ("key" varchar(255) primary key, "failures" integer not null default 0, "checking" integer not null default 0, "checking_until" bigint not null default 0, "locked_until" bigint not null default 0, "forget_at" bigint not null default 0);`,
    );
    this.addSql(
      `insert into "signin_throttle" ("key", "failures", "forget_at")
       select substr("key", length('signin_failures:') + 1), "points", "expire" from "rate_limit"
       where starts_with("key", 'signin_failures:') and "expire" > extract(epoch from now()) * 1000;`,
    );
    this.addSql(
      `update "signin_throttle" t set "locked_until" = r."expire" from "rate_limit" r
       where r."key" = 'signin_lock:' || t."key" and r."points" > 1;`,
    );
    this.addSql(`alter table "oidc_client" add column "require_pkce" boolean not null default true;`);
    this.addSql(
      `delete from "rate_limit" where starts_with("key", 'signin_failures:') or starts_with("key", 'signin_lock:');`,
    );
  }
}
