import { Migration } from '@mikro-orm/migrations';

/** Shards of each status's count: concurrent sessions seldom wait on one another's counter row. */
export const SESSION_COUNT_SHARDS = 16;

/** Sets the session counts from the table itself (after a bulk load that bypassed the trigger). */
export const RECOUNT_SESSION_STATUSES = `delete from "session_status_count"; insert into "session_status_count" ("status", "shard", "n") select "status", 0, count(*) from "verification_session" group by "status";`;

/**
 * Growth (docs/growth.md): what stays flat when the history reaches 10 million sessions.
 * - `session_status_count`: sessions per status, kept by a trigger, so the `/metrics` scrape reads
 *   a hundred rows instead of counting every session it ever held.
 * - Review images by age: the purge reads the oldest first, a bounded batch per round.
 * - Webhook events and attempts by age: the health of every project's destinations (the metric)
 *   reads the lookback's events and attempts, not the whole outbox and its history.
 * - Unsettled charges: the sweep's refund finds the few left by old versions without reading
 *   every charge ever made.
 */
export class Migration20261204090000_growth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "session_evidence_created_at_index" on "session_evidence" ("created_at");`);
    this.addSql(`create index "webhook_event_recent_index" on "webhook_event" ("created_at") where "url" is not null;`);
    this.addSql(`create index "webhook_attempt_at_index" on "webhook_attempt" ("at");`);
    this.addSql(`create index "charge_unsettled_index" on "charge" ("created_at") where "check_id" is null and not "refunded";`);

    this.addSql(`create table "session_status_count" ("status" varchar(20) not null, "shard" smallint not null, "n" bigint not null, primary key ("status", "shard"));`);
    this.addSql(`create function "session_status_count_row"() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE' and old.status = new.status then return null; end if;
  if tg_op in ('UPDATE', 'DELETE') then
    insert into session_status_count (status, shard, n) values (old.status, floor(random() * ${SESSION_COUNT_SHARDS}), -1)
      on conflict (status, shard) do update set n = session_status_count.n - 1;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into session_status_count (status, shard, n) values (new.status, floor(random() * ${SESSION_COUNT_SHARDS}), 1)
      on conflict (status, shard) do update set n = session_status_count.n + 1;
  end if;
  return null;
end $$;`);
    this.addSql(`create function "session_status_count_truncate"() returns trigger language plpgsql as $$ begin delete from session_status_count; return null; end $$;`);
    this.addSql(`create trigger "session_status_count_row" after insert or delete or update of "status" on "verification_session" for each row execute function "session_status_count_row"();`);
    this.addSql(`create trigger "session_status_count_truncate" after truncate on "verification_session" for each statement execute function "session_status_count_truncate"();`);
    // After the trigger: its lock holds writers back until this commits, so no session is missed or counted twice.
    this.addSql(RECOUNT_SESSION_STATUSES);
  }
}
