import { Migration } from '@mikro-orm/migrations';

/** "Continue on your phone": one-time links (digests) that move a hosted session to another device. */
export class Migration20261127012500_session_handoff extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "session_handoff" (
      "id" varchar(40) not null primary key,
      "session_id" varchar(40) not null references "verification_session" ("id") on delete cascade,
      "link_digest" varchar(64) not null unique,
      "phone_token_digest" varchar(64) null unique,
      "created_at" timestamptz not null,
      "expires_at" timestamptz not null,
      "claimed_at" timestamptz null
    );`);
    this.addSql(`create index "session_handoff_session_id_index" on "session_handoff" ("session_id");`);
  }
}
