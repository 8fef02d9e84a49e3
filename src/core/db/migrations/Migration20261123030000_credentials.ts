import { Migration } from '@mikro-orm/migrations';

/**
 * Licence boards: states, providers (each with its adapter), and the licence roster the built-in
 * adapter serves. Lookups go through the unique (state, provider, number) index; `do_ai_clean`
 * retries go through (state, provider, key).
 */
export class Migration20261123030000_credentials extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "credential_provider" ("id" varchar(40) not null, "state_code" varchar(2) not null, "provider_code" varchar(40) not null, "provider_display_name" varchar(200) not null, "credential_name" varchar(120) not null, "required_fields" text[] not null, "adapter" varchar(20) not null, "adapter_config" jsonb null, constraint "credential_provider_pkey" primary key ("id"));`,
    );
    this.addSql(
      `alter table "credential_provider" add constraint "credential_provider_state_code_provider_code_unique" unique ("state_code", "provider_code");`,
    );
    this.addSql(
      `create table "credential_state" ("state_code" varchar(2) not null, "state_name" varchar(100) not null, constraint "credential_state_pkey" primary key ("state_code"));`,
    );
    this.addSql(
      `create table "license_record" ("id" bigserial primary key, "state_code" varchar(2) not null, "provider_code" varchar(40) not null, "license_number" varchar(60) not null, "license_key" varchar(60) not null, "first_name" varchar(100) not null, "middle_name" varchar(100) null, "last_name" varchar(100) not null, "status" varchar(20) not null, "issued_at" varchar(10) null, "expires_at" varchar(10) null, "specialty" varchar(120) null, "npi" varchar(10) null);`,
    );
    this.addSql(
      `create index "license_record_state_code_provider_code_license_key_index" on "license_record" ("state_code", "provider_code", "license_key");`,
    );
    this.addSql(
      `alter table "license_record" add constraint "license_record_state_code_provider_code_license_number_unique" unique ("state_code", "provider_code", "license_number");`,
    );
    this.addSql(
      `alter table "credential_provider" add constraint "credential_provider_state_code_foreign" foreign key ("state_code") references "credential_state" ("state_code") on update cascade on delete cascade;`,
    );
  }
}
