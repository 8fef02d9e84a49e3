import { Migration } from '@mikro-orm/migrations';

/** Test calls that ran real models, per project and UTC day: the sandbox's daily quota. */
export class Migration20261202150000_sandbox_quota extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "sandbox_usage" ("project_id" varchar(40) not null references "project" ("id") on delete cascade, "day" date not null, "used" int not null, primary key ("project_id", "day"));`,
    );
  }
}
