import { Migration } from '@mikro-orm/migrations';

/** Revocable credentials: admin tokens may expire. */
export class Migration20261124100000_security extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "admin_token" add column "expires_at" timestamptz null;`);
    // Webhook signing secret rotation: the previous secret keeps signing until the overlap ends.
    this.addSql(
      `alter table "project" add column "previous_webhook_secret_sealed" text null, add column "previous_webhook_secret_until" timestamptz null;`,
    );
  }
}
