import { Migration } from '@mikro-orm/migrations';

/**
 * Every try's review images (a refused document and a selfie asked again keep theirs, numbered by
 * try), and the support link the hosted page's end screen shows after a decline.
 */
export class Migration20261202170000_hosted_flow extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "session_evidence" add column "attempt" smallint not null default 1;`);
    this.addSql(`alter table "project" add column "support_url" text null;`);
  }
}
