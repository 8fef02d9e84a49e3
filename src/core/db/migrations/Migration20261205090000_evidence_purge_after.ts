import { Migration } from '@mikro-orm/migrations';

/**
 * The evidence purge reads only what is due (docs/growth.md). Each review image carries
 * `purge_after`: its session's decision time plus its project's retention, null while the session
 * is open or in review. A partial index holds only the images that have one, ordered by it, so a
 * purge round with nothing due reads no row, however many images wait in review.
 * Triggers keep the column right whoever writes the decision or the retention: a decision (or a
 * new one after review) sets its images' time, an image kept after the decision takes it at once,
 * and a retention change moves the time of the project's decided images.
 */
export class Migration20261205090000_evidence_purge_after extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "session_evidence" add column "purge_after" timestamptz null;`);
    this.addSql(`update "session_evidence" e set "purge_after" = s."decided_at" + make_interval(days => p."evidence_retention_days")
      from "verification_session" s join "project" p on p."id" = s."project_id"
      where s."id" = e."session_id" and s."decided_at" is not null;`);
    this.addSql(
      `create index "session_evidence_purge_after_index" on "session_evidence" ("purge_after", "created_at") where "purge_after" is not null;`,
    );
    this.addSql(`drop index "session_evidence_created_at_index";`);

    this.addSql(`create function "session_evidence_purge_after_on_decision"() returns trigger language plpgsql as $$
begin
  update session_evidence set purge_after = new.decided_at + make_interval(days => (
    select evidence_retention_days from project where id = new.project_id))
  where session_id = new.id;
  return null;
end $$;`);
    this.addSql(`create trigger "session_evidence_purge_after_on_decision" after update of "decided_at" on "verification_session"
      for each row when (old."decided_at" is distinct from new."decided_at")
      execute function "session_evidence_purge_after_on_decision"();`);

    this.addSql(`create function "session_evidence_purge_after_on_keep"() returns trigger language plpgsql as $$
begin
  new.purge_after := (select s.decided_at + make_interval(days => p.evidence_retention_days)
    from verification_session s join project p on p.id = s.project_id where s.id = new.session_id);
  return new;
end $$;`);
    this.addSql(`create trigger "session_evidence_purge_after_on_keep" before insert on "session_evidence"
      for each row execute function "session_evidence_purge_after_on_keep"();`);

    this.addSql(`create function "session_evidence_purge_after_on_retention"() returns trigger language plpgsql as $$
begin
  update session_evidence e set purge_after = s.decided_at + make_interval(days => new.evidence_retention_days)
  from verification_session s
  where s.id = e.session_id and s.project_id = new.id and s.decided_at is not null;
  return null;
end $$;`);
    this.addSql(`create trigger "session_evidence_purge_after_on_retention" after update of "evidence_retention_days" on "project"
      for each row when (old."evidence_retention_days" is distinct from new."evidence_retention_days")
      execute function "session_evidence_purge_after_on_retention"();`);
  }
}
