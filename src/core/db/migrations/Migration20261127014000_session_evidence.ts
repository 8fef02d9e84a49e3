import { Migration } from '@mikro-orm/migrations';

/** Sealed review images per session, the project's retention period for them, and when a session's data was erased. */
export class Migration20261127014000_session_evidence extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "session_evidence" ("id" bigserial primary key, "session_id" varchar(40) not null, "kind" varchar(30) not null, "sealed" bytea not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "session_evidence_session_id_index" on "session_evidence" ("session_id");`);
    this.addSql(`alter table "project" add column "evidence_retention_days" int not null default 30;`);
    this.addSql(`alter table "verification_session" add column "data_erased_at" timestamptz null;`);
  }
}
