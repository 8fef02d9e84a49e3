import { Migration } from '@mikro-orm/migrations';

/**
 * MCP (docs/mcp.md): the resource a grant is for (RFC 8707 resource indicator, null for the
 * account endpoints), carried from the authorization code to its access and refresh tokens; and
 * the audit of every tool call an agent made for a person.
 */
export class Migration20261202190000_mcp_agents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "authorization_code" add column "resource" text null;`);
    this.addSql(`alter table "refresh_token" add column "resource" text null;`);
    this.addSql(`alter table "access_token" add column "resource" text null;`);
    this.addSql(
      `create table "mcp_tool_call" ("id" bigserial primary key, "account_id" varchar(40) not null, "client_id" varchar(64) not null, "tool" varchar(60) not null, "outcome" varchar(60) not null, "detail" jsonb null, "duration_ms" int not null, "created_at" timestamptz not null);`,
    );
    this.addSql(`create index "mcp_tool_call_account_id_id_index" on "mcp_tool_call" ("account_id", "id");`);
    this.addSql(
      `alter table "mcp_tool_call" add constraint "mcp_tool_call_account_id_foreign" foreign key ("account_id") references "account" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "mcp_tool_call" add constraint "mcp_tool_call_client_id_foreign" foreign key ("client_id") references "oidc_client" ("client_id") on update cascade on delete cascade;`,
    );
  }
}
