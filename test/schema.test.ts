import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrm, migrate, type Orm } from '../src/core/db/orm.js';
import { preparedQuery } from '../src/core/db/prepared.js';
import type { Store } from '../src/core/db/store.js';
import { entities } from '../src/core/entities.js';
import { freshStore } from './helpers/store.js';

// The schema is declared twice: by the migrations, which make the database, and by the entities
// (src/core/entities.ts), which say what each table holds. Nothing queries through the entities,
// so only this test keeps them true: it migrates a fresh database and asks MikroORM's schema
// generator what it would change to make that database match the entities (tables, columns,
// types, nullability, defaults, primary keys, unique constraints and indexes). That must be
// nothing, but for what the entities leave out on purpose, listed below. The generator compares
// an index declared by its statement (a partial index, or one with `include`) by name only.

/**
 * Foreign keys: entities do not cross areas (docs/development.md, "Data access"), so a row names
 * another's by id and the migrations alone keep the foreign keys. The generator would drop them.
 */
const FOREIGN_KEYS_OF_THE_MIGRATIONS = [
  'access_token access_token_account_id_foreign',
  'access_token access_token_client_id_foreign',
  'account_license account_license_account_id_foreign',
  'account_link account_link_account_id_foreign',
  'authorization_code authorization_code_account_id_foreign',
  'charge charge_project_id_foreign',
  'check_record check_record_project_id_foreign',
  'credential_provider credential_provider_state_code_foreign',
  'face_challenge face_challenge_project_id_foreign',
  'face_enrollment face_enrollment_project_id_foreign',
  'idempotency_record idempotency_record_project_id_foreign',
  'issued_credential issued_credential_list_id_fkey',
  'login_session login_session_account_id_foreign',
  'mcp_tool_call mcp_tool_call_account_id_foreign',
  'mcp_tool_call mcp_tool_call_client_id_foreign',
  'oidc_client oidc_client_organization_id_foreign',
  'oidc_consent oidc_consent_account_id_foreign',
  'org_app org_app_organization_id_foreign',
  'refresh_token refresh_token_account_id_foreign',
  'refresh_token refresh_token_client_id_foreign',
  'sandbox_usage sandbox_usage_project_id_fkey',
  'session_check session_check_session_id_foreign',
  'session_event session_event_session_id_foreign',
  'session_handoff session_handoff_session_id_fkey',
  'verification_session verification_session_project_id_foreign',
  'wallet_lease wallet_lease_project_id_foreign',
  'webhook_attempt webhook_attempt_event_id_foreign',
  'webhook_event webhook_event_session_id_foreign',
];

/** The statements the generator would run to make the database match the entities, one per line. */
async function differences(orm: Orm): Promise<string[]> {
  const sql = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
  return sql
    .split(/;\s*\n/)
    .map((statement) => statement.replace(/;\s*$/, '').trim())
    .filter(Boolean);
}

const dropForeignKey = (entry: string) => {
  const [table, constraint] = entry.split(' ');
  return `alter table "${table}" drop constraint "${constraint}"`;
};

describe('the entities declare the schema the migrations make', () => {
  let store: Store;
  let orm: Orm;

  beforeAll(async () => {
    store = await freshStore();
    orm = await createOrm(store.url, { entities, poolMax: store.poolMax, ownSessions: !store.embedded });
    await migrate(orm);
  });
  afterAll(async () => {
    await orm?.close();
    await store?.close();
  });

  it('differs from the migrated database in nothing but the foreign keys', async () => {
    expect((await differences(orm)).sort()).toEqual(FOREIGN_KEYS_OF_THE_MIGRATIONS.map(dropForeignKey).sort());
  });

  it('would see a column that drifted: its nullability, its type, or a table no entity declares', async () => {
    await preparedQuery(orm, 'schema_test_drift', 'alter table admin_audit alter column target drop not null', []);
    await preparedQuery(orm, 'schema_test_retype', 'alter table admin_audit alter column action type varchar(61)', []);
    await preparedQuery(orm, 'schema_test_table', 'create table schema_test_extra (id int primary key)', []);
    const found = (await differences(orm)).filter((statement) => !statement.includes('drop constraint'));
    expect(found.join('\n')).toMatch(/alter table "admin_audit" alter column "target"[^\n]*set not null/);
    expect(found.join('\n')).toMatch(/alter table "admin_audit" alter column "action" type varchar\(60\)/);
    expect(found).toContain('drop table if exists "schema_test_extra" cascade');
  });
});
