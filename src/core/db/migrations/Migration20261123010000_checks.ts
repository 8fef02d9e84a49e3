import { Migration } from '@mikro-orm/migrations';

/**
 * Standalone check records, wallet charges, idempotency records; verified identity on accounts.
 * The project foreign keys are SQL-only (the entities keep plain ids to avoid loading projects).
 */
export class Migration20261123010000_checks extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "charge" ("id" varchar(40) not null, "project_id" varchar(40) not null, "item" varchar(60) not null, "check_id" varchar(40) null, "amount_minor" bigint not null, "currency" varchar(3) not null, "refunded" boolean not null default false, "created_at" timestamptz not null, constraint "charge_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "charge_project_id_created_at_index" on "charge" ("project_id", "created_at");`);
    this.addSql(
      `create table "check_record" ("id" varchar(40) not null, "project_id" varchar(40) not null, "type" text check ("type" in ('id_verification', 'liveness', 'face_match', 'age', 'credential', 'kyc_credential', 'location', 'antispoof', 'face_uniqueness')) not null, "status" text check ("status" in ('passed', 'failed', 'review')) not null, "mode" varchar(10) not null, "svc_id" varchar(40) null, "reason" varchar(80) null, "duration_ms" int not null, "created_at" timestamptz not null, constraint "check_record_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "check_record_project_id_created_at_index" on "check_record" ("project_id", "created_at");`,
    );
    this.addSql(
      `create table "idempotency_record" ("project_id" varchar(40) not null, "key" varchar(255) not null, "fingerprint" varchar(64) not null, "state" varchar(12) not null, "response_status" int null, "response_sealed" text null, "locked_until" timestamptz not null, "expires_at" timestamptz not null, "created_at" timestamptz not null, constraint "idempotency_record_pkey" primary key ("project_id", "key"));`,
    );
    this.addSql(`create index "idempotency_record_expires_at_index" on "idempotency_record" ("expires_at");`);
    this.addSql(
      `alter table "account" add column "identity_sealed" text null, add column "id_verified" boolean not null default false, add column "human_verified" boolean null, add column "identity_verified_at" timestamptz null;`,
    );
    this.addSql(
      `alter table "charge" add constraint "charge_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "check_record" add constraint "check_record_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "idempotency_record" add constraint "idempotency_record_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    // rate-limiter-flexible's table (RateLimiterPostgres), created here rather than at run time.
    this.addSql(
      `create table "rate_limit" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`,
    );
  }
}
