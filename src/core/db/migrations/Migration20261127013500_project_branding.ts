import { Migration } from '@mikro-orm/migrations';

/** The hosted page's branding per project: a privacy policy link and a logo (a PNG we re-encoded). */
export class Migration20261127013500_project_branding extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "project" add column "privacy_policy_url" text null, add column "logo_png" bytea null, add column "has_logo" boolean not null default false;`,
    );
  }
}
