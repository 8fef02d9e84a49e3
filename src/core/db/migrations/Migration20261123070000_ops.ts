import { Migration } from '@mikro-orm/migrations';

/**
 * The ops read models (admin API and console): indexes so that the first filtered page of
 * sessions and the aggregates stay fast on large projects, and `admin_audit`, the record of
 * sensitive admin reads (raw identity data). The table is SQL-only, like `rate_limit`: core writes
 * it with plain SQL and never loads it as an entity.
 */
export class Migration20261123070000_ops extends Migration {
  override async up(): Promise<void> {
    // Sessions: keyset pages in (created_at, id) order per filter; the include columns make the
    // per-day, per-workflow and time-to-decision aggregates index-only scans.
    this.addSql(
      `create index "verification_session_ops_created_index" on "verification_session" ("project_id", "created_at", "id") include ("status", "workflow_id", "decision", "decided_at");`,
    );
    this.addSql(
      `create index "verification_session_ops_status_index" on "verification_session" ("project_id", "status", "created_at", "id");`,
    );
    this.addSql(
      `create index "verification_session_ops_workflow_index" on "verification_session" ("project_id", "workflow_id", "created_at", "id");`,
    );
    this.addSql(
      `create index "verification_session_ops_decision_index" on "verification_session" ("project_id", "decision", "created_at", "id");`,
    );
    this.addSql(
      `create index "verification_session_ops_svc_index" on "verification_session" ("project_id", "svc_id", "created_at", "id") where "svc_id" is not null;`,
    );
    this.addSql(
      `create index "verification_session_ops_vendor_index" on "verification_session" ("project_id", "vendor_data", "created_at", "id");`,
    );
    // Failure reasons: only checks that did not pass.
    this.addSql(
      `create index "session_check_ops_failed_index" on "session_check" ("created_at") include ("session_id", "type", "reason", "status") where "status" <> 'passed';`,
    );
    this.addSql(
      `create index "check_record_ops_failed_index" on "check_record" ("project_id", "created_at") include ("type", "reason", "status") where "status" <> 'passed';`,
    );
    this.addSql(`create index "check_record_ops_page_index" on "check_record" ("project_id", "created_at", "id");`);
    // Webhook deliveries by state (failed, pending) and the delivery figures.
    this.addSql(
      `create index "webhook_event_ops_state_index" on "webhook_event" ("project_id", "state", "created_at", "id");`,
    );
    this.addSql(
      `create index "webhook_event_ops_created_index" on "webhook_event" ("project_id", "created_at", "id") include ("state");`,
    );
    // Roster pages (oldest first) per status.
    this.addSql(
      `create index "member_ops_page_index" on "member" ("organization_id", "created_at", "id") include ("status");`,
    );

    this.addSql(
      `create table "admin_audit" ("id" bigserial primary key, "token_id" varchar(40) not null, "project_id" varchar(40) null, "action" varchar(60) not null, "target" varchar(120) not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "admin_audit_project_id_at_index" on "admin_audit" ("project_id", "created_at", "id");`);
  }
}
