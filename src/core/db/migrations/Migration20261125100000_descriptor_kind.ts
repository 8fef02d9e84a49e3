import { Migration } from '@mikro-orm/migrations';

/**
 * Every stored face descriptor says which model made it, so a new model is never compared with
 * descriptors of the old one. The descriptors stored before this migration were all made by
 * face-api's 128-d recognition net, so they are marked 'face-api-128' (FACE_DESCRIPTOR_KIND);
 * when the kind changes, rows of the old kind are ignored by searches and account references of
 * the old kind answer face_not_enrolled until the person enrols again.
 */
export class Migration20261125100000_descriptor_kind extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "face_enrollment" add column "descriptor_kind" varchar(40) not null default 'face-api-128';`,
    );
    // from here on every insert names its kind
    this.addSql(`alter table "face_enrollment" alter column "descriptor_kind" drop default;`);
    this.addSql(`alter table "account" add column "face_descriptor_kind" varchar(40) null;`);
    this.addSql(
      `update "account" set "face_descriptor_kind" = 'face-api-128' where "face_descriptor_sealed" is not null;`,
    );
  }
}
