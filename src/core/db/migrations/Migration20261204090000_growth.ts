import { Migration } from '@mikro-orm/migrations';

/** Shards of each status's count: concurrent sessions seldom wait on one another's counter row. */
export const SESSION_COUNT_SHARDS = 16;

/** Sets the session counts from the table itself (after a bulk load that bypassed the trigger). */
export const RECOUNT_SESSION_STATUSES = `delete from "session_status_count"; insert into "session_status_count" ("status", "shard", "n") select "status", 0, count(*) from "verification_session" group by "status";`;

/** Each destination's run of failed attempts, from the last week's attempts (after a load that bypassed the store). */
export const STREAKS_FROM_ATTEMPTS = `delete from "webhook_destination_streak"; insert into "webhook_destination_streak" ("project_id", "url", "livemode", "failures", "last_attempt_at", "last_ok_at")
      with tried as (
        select e.project_id, e.url, e.livemode, a.at, coalesce(a.http_status between 200 and 299, false) as ok
        from webhook_attempt a join webhook_event e on e.id = a.event_id where e.url is not null and a.at >= now() - interval '7 days'
      ), last as (select project_id, url, livemode, max(at) as last_at, max(at) filter (where ok) as last_ok from tried group by project_id, url, livemode)
      select l.project_id, l.url, l.livemode, count(*) filter (where not t.ok and (l.last_ok is null or t.at > l.last_ok)), l.last_at, l.last_ok
      from last l join tried t on t.project_id = l.project_id and t.url = l.url and t.livemode = l.livemode
      group by l.project_id, l.url, l.livemode, l.last_at, l.last_ok;`;

/**
 * Growth (docs/growth.md): what stays flat when the history reaches 10 million sessions.
 * - `session_status_count`: sessions per status, kept by a trigger, so the `/metrics` scrape reads
 *   a hundred rows instead of counting every session it ever held.
 * - Review images by age: the purge reads the oldest first, a bounded batch per round.
 * - `webhook_destination_streak`: each destination's run of failed attempts, so the health of
 *   every project's destinations (the metric) reads a row a destination and the last hour's
 *   attempts (`webhook_attempt_at_index`), not a week of the outbox; `webhook_event_recent_index`
 *   keeps the console's lookback of events a range.
 * - Unsettled charges: the sweep's refund finds the few left by old versions without reading
 *   every charge ever made.
 */
export class Migration20261204090000_growth extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "session_evidence_created_at_index" on "session_evidence" ("created_at");`);
    this.addSql(`create index "webhook_event_recent_index" on "webhook_event" ("created_at") where "url" is not null;`);
    this.addSql(`create index "webhook_attempt_at_index" on "webhook_attempt" ("at");`);
    this.addSql(
      `create index "charge_unsettled_index" on "charge" ("created_at") where "check_id" is null and not "refunded";`,
    );

    this.addSql(
      `create table "session_status_count" ("status" varchar(20) not null, "shard" smallint not null, "n" bigint not null, primary key ("status", "shard"));`,
    );
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
    this.addSql(
      `create function "session_status_count_truncate"() returns trigger language plpgsql as $$ begin delete from session_status_count; return null; end $$;`,
    );
    this.addSql(
      `create trigger "session_status_count_row" after insert or delete or update of "status" on "verification_session" for each row execute function "session_status_count_row"();`,
    );
    this.addSql(
      `create trigger "session_status_count_truncate" after truncate on "verification_session" for each statement execute function "session_status_count_truncate"();`,
    );
    // After the trigger: its lock holds writers back until this commits, so no session is missed or counted twice.
    this.addSql(RECOUNT_SESSION_STATUSES);

    // Each destination's run of failed attempts, written with the attempts (webhooks/store.ts),
    // started from the last week's attempts.
    this.addSql(
      `create table "webhook_destination_streak" ("project_id" varchar(40) not null, "url" text not null, "livemode" boolean not null, "failures" int not null, "last_attempt_at" timestamptz not null, "last_ok_at" timestamptz null, primary key ("project_id", "url", "livemode"));`,
    );
    this.addSql(STREAKS_FROM_ATTEMPTS);
  }
}
