import { Migration } from '@mikro-orm/migrations';

/**
 * Hosted verification sessions (with their checks and timeline) and the webhook outbox with its
 * delivery attempts. Foreign keys are declared here only (the entities hold plain ids, so the
 * ORM may insert a child before its parent in one flush): they are checked at commit.
 */
export class Migration20261123040000_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "verification_session" ("id" varchar(40) not null, "project_id" varchar(40) not null, "workflow_id" varchar(40) not null, "status" varchar(20) not null, "features" text[] not null, "token_digest" varchar(64) not null, "redirect_url" text null, "callback" text null, "vendor_data" text null, "metadata" jsonb null, "svc_id" varchar(40) null, "work_sealed" text null, "decision" varchar(20) null, "decided_at" timestamptz null, "decided_by" varchar(80) null, "started_at" timestamptz null, "expires_at" timestamptz not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "verification_session_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "verification_session" add constraint "verification_session_token_digest_unique" unique ("token_digest");`,
    );
    this.addSql(
      `create index "verification_session_status_expires_at_index" on "verification_session" ("status", "expires_at");`,
    );
    this.addSql(
      `create index "verification_session_project_id_vendor_data_index" on "verification_session" ("project_id", "vendor_data");`,
    );
    this.addSql(
      `create index "verification_session_project_id_status_created_at_index" on "verification_session" ("project_id", "status", "created_at");`,
    );
    this.addSql(
      `create index "verification_session_project_id_created_at_index" on "verification_session" ("project_id", "created_at");`,
    );
    this.addSql(
      `alter table "verification_session" add constraint "verification_session_project_id_foreign" foreign key ("project_id") references "project" ("id") on delete cascade;`,
    );

    this.addSql(
      `create table "session_check" ("id" bigserial primary key, "session_id" varchar(40) not null, "type" varchar(30) not null, "status" varchar(10) not null, "score" double precision null, "detail_sealed" text not null, "reason" varchar(80) null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "session_check_session_id_index" on "session_check" ("session_id");`);
    this.addSql(
      `alter table "session_check" add constraint "session_check_session_id_foreign" foreign key ("session_id") references "verification_session" ("id") on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "session_event" ("id" bigserial primary key, "session_id" varchar(40) not null, "from_status" varchar(20) null, "to_status" varchar(20) not null, "actor" varchar(80) not null, "reason" varchar(200) null, "at" timestamptz not null);`,
    );
    this.addSql(`create index "session_event_session_id_index" on "session_event" ("session_id");`);
    this.addSql(
      `alter table "session_event" add constraint "session_event_session_id_foreign" foreign key ("session_id") references "verification_session" ("id") on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "webhook_event" ("id" varchar(40) not null, "project_id" varchar(40) not null, "session_id" varchar(40) not null, "type" varchar(60) not null, "body" text not null, "url" text null, "state" varchar(20) not null, "attempts" int not null default 0, "next_attempt_at" timestamptz not null, "lease_until" timestamptz null, "delivered_at" timestamptz null, "created_at" timestamptz not null, constraint "webhook_event_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_event_session_id_index" on "webhook_event" ("session_id");`);
    this.addSql(
      `create index "webhook_event_project_id_created_at_index" on "webhook_event" ("project_id", "created_at");`,
    );
    this.addSql(
      `create index "webhook_event_state_next_attempt_at_index" on "webhook_event" ("state", "next_attempt_at");`,
    );
    this.addSql(
      `alter table "webhook_event" add constraint "webhook_event_session_id_foreign" foreign key ("session_id") references "verification_session" ("id") on delete cascade deferrable initially deferred;`,
    );

    this.addSql(
      `create table "webhook_attempt" ("id" varchar(40) not null, "event_id" varchar(40) not null, "attempt" int not null, "at" timestamptz not null, "http_status" int null, "latency_ms" int not null, "error" varchar(300) null, "response_snippet" varchar(200) null, constraint "webhook_attempt_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "webhook_attempt_event_id_at_index" on "webhook_attempt" ("event_id", "at");`);
    this.addSql(
      `alter table "webhook_attempt" add constraint "webhook_attempt_event_id_foreign" foreign key ("event_id") references "webhook_event" ("id") on delete cascade deferrable initially deferred;`,
    );
  }
}
