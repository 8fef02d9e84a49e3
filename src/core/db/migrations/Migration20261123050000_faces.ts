import { Migration } from '@mikro-orm/migrations';

/**
 * Gesture challenges and enrolled face descriptors (sealed; never images). `seq` orders each
 * register's enrolments so instances can catch up on `seq > last seen` (index on project,
 * purpose, seq). The project foreign keys are SQL-only (the entities keep plain ids).
 */
export class Migration20261123050000_faces extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "face_challenge" ("id" varchar(40) not null, "project_id" varchar(40) not null, "gesture" varchar(20) not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "face_challenge_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create table "face_enrollment" ("id" varchar(40) not null, "seq" bigserial, "project_id" varchar(40) not null, "purpose" varchar(12) not null, "reference" varchar(200) null, "descriptor_sealed" text not null, "created_at" timestamptz not null, constraint "face_enrollment_pkey" primary key ("id"));`,
    );
    this.addSql(
      `create index "face_enrollment_project_id_purpose_seq_index" on "face_enrollment" ("project_id", "purpose", "seq");`,
    );
    this.addSql(
      `alter table "face_challenge" add constraint "face_challenge_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "face_enrollment" add constraint "face_enrollment_project_id_foreign" foreign key ("project_id") references "project" ("id") on update cascade on delete cascade;`,
    );
  }
}
