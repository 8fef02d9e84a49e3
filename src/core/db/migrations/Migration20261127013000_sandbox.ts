import { Migration } from '@mikro-orm/migrations';

/** Test API keys (`vk_test_...`): the key's mode, and which checks and sessions were made in test mode. */
export class Migration20261127013000_sandbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "api_key" add column "mode" varchar(4) not null default 'live';`);
    this.addSql(`alter table "check_record" add column "livemode" boolean not null default true;`);
    this.addSql(`alter table "verification_session" add column "livemode" boolean not null default true;`);
  }
}
