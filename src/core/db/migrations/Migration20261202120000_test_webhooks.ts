import { Migration } from '@mikro-orm/migrations';

/**
 * Test mode gets its own webhooks (Stripe's model): a project's test signing secret (and its
 * rotation overlap) and test default callback, destinations approved per mode, and each event's
 * mode. Existing secrets, destinations and events stay live. A project made before this has no
 * test secret until it rotates one. Attempt errors stop naming what a destination resolved to:
 * the ones already written are reworded.
 */
export class Migration20261202120000_test_webhooks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "project" add column "test_webhook_signing_secret_sealed" text null, add column "previous_test_webhook_secret_sealed" text null, add column "previous_test_webhook_secret_until" timestamptz null, add column "test_default_callback_url" text null;`,
    );
    this.addSql(`alter table "callback_destination" add column "mode" varchar(4) not null default 'live';`);
    this.addSql(`alter table "callback_destination" drop constraint "callback_destination_project_id_url_unique";`);
    this.addSql(
      `alter table "callback_destination" add constraint "callback_destination_project_id_mode_url_unique" unique ("project_id", "mode", "url");`,
    );
    this.addSql(`alter table "webhook_event" add column "livemode" boolean not null default true;`);
    this.addSql(
      `update "webhook_attempt" set "error" = 'refused: private address' where "error" like '% resolves to %, an address of a private network: not sent';`,
    );
  }
}
