import { Migration } from '@mikro-orm/migrations';

/**
 * Key rotation relying parties survive: a signing key is published before it signs. Keys made
 * before this migration signed from their creation, so that is their activation.
 */
export class Migration20261125200000_key_activation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "signing_key" add column "activates_at" timestamptz null;`);
    this.addSql(`update "signing_key" set "activates_at" = "created_at";`);
    this.addSql(`alter table "signing_key" alter column "activates_at" set not null;`);
  }
}
