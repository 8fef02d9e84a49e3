import { Migration } from '@mikro-orm/migrations';

/**
 * Verified email and recovery: an account records when its address was proved, and the links
 * mailed for that (email verification, password reset) are stored as digests, single use.
 */
export class Migration20261125210000_account_links extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "account" add column "email_verified_at" timestamptz null;`);
    this.addSql(
      `create table "account_link" ("digest" varchar(64) not null, "purpose" varchar(20) not null, "account_id" varchar(40) not null, "email" varchar(320) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "account_link_pkey" primary key ("digest"));`,
    );
    this.addSql(`create index "account_link_account_id_purpose_index" on "account_link" ("account_id", "purpose");`);
    this.addSql(
      `alter table "account_link" add constraint "account_link_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
  }
}
