import { Migration } from '@mikro-orm/migrations';

/** A workflow says how many tries a hosted step gets when it fails for a reason the person can fix. */
export class Migration20261125220000_workflow_step_tries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "workflow" add column "max_step_tries" int not null default 3;`);
  }
}
