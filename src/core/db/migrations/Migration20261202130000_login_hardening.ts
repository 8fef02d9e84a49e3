import { Migration } from '@mikro-orm/migrations';

/**
 * Login hardening (issue 46). A refresh-token row keeps the digests of the sign-in's last few
 * tokens besides the current one (`previous_digests`, newest first): a token presented under the
 * row is the current one, a replay of one of those, or a guess, which revokes nothing. Rows
 * rotated before this know none of their earlier tokens: a replay of one is refused as a guess.
 */
export class Migration20261202130000_login_hardening extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "refresh_token" add column "previous_digests" text[] not null default '{}';`);
  }
}
