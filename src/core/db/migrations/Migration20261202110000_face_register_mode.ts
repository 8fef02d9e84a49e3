import { Migration } from '@mikro-orm/migrations';

/**
 * Test mode and live mode keep separate face registers: every enrolled face says which mode
 * enrolled it, and searches, enrolments and unlinks read and write only their own mode's faces.
 * Faces enrolled before this migration were enrolled by live keys (test keys could not be told
 * apart), so they are live. The register index leads with the mode after project and purpose.
 */
export class Migration20261202110000_face_register_mode extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "face_enrollment" add column "livemode" boolean not null default true;`);
    this.addSql(`drop index "face_enrollment_project_id_purpose_seq_index";`);
    this.addSql(
      `create index "face_enrollment_project_id_purpose_livemode_seq_index" on "face_enrollment" ("project_id", "purpose", "livemode", "seq");`,
    );
  }
}
