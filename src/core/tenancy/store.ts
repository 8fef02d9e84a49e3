import type { EntityManager } from '@mikro-orm/core';
import type { Orm } from '../db/orm.js';
import { preparedQuery, preparedQueryWith, sqlDate, sqlDateOrNull } from '../db/prepared.js';
import type { AdminRole, KeyMode, OidcScope, WorkflowFeature } from './entities.js';
import type { RegisteredClient } from './views.js';

/** A project as it is stored, with what its wallet can spend (never its secrets or logo). */
export interface ProjectRecord {
  id: string;
  name: string;
  defaultCallbackUrl: string | null;
  testDefaultCallbackUrl: string | null;
  /** Whether test mode has its signing secret yet (projects made before test webhooks get one by rotating). */
  hasTestWebhookSecret: boolean;
  evidenceRetentionDays: number;
  privacyPolicyUrl: string | null;
  supportUrl: string | null;
  hasLogo: boolean;
  /** The balance plus the unspent part of open wallet leases (billing's `wallet` view), in minor units. */
  spendableMinor: number;
  currency: string;
  isDemo: boolean;
  createdAt: Date;
}

/** What a session's decision reads of its project. */
export interface ProjectSettings {
  evidenceRetentionDays: number;
  defaultCallbackUrl: string | null;
  /** Test mode's default destination: test events never fall back to the live one. */
  testDefaultCallbackUrl: string | null;
}

/** What the hosted page shows of a project. */
export interface ProjectBranding {
  name: string;
  privacyPolicyUrl: string | null;
  /** Where a declined person can ask for help (the end screen links to it). */
  supportUrl: string | null;
  hasLogo: boolean;
}

/**
 * A project's webhook signing secrets of one mode, sealed: the current one (null in test mode for
 * a project made before test webhooks, until it rotates one), and the previous one until its
 * overlap ends.
 */
export interface SealedWebhookSecrets {
  current: string | null;
  previous: string | null;
  previousUntil: Date | null;
}

/** What an admin may change of a project; a field left out stays as it is. */
export interface ProjectChanges {
  defaultCallbackUrl?: string | null;
  testDefaultCallbackUrl?: string | null;
  evidenceRetentionDays?: number;
  privacyPolicyUrl?: string | null;
  supportUrl?: string | null;
  /** The re-encoded logo, or null to remove it. */
  logoPng?: Buffer | null;
}

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  name: string;
  prefix: string;
  mode: KeyMode;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface WorkflowRecord {
  id: string;
  projectId: string;
  name: string;
  features: WorkflowFeature[];
  maxStepTries: number;
  createdAt: Date;
}

export interface CallbackRecord {
  id: string;
  projectId: string;
  url: string;
  mode: KeyMode;
  active: boolean;
  createdAt: Date;
}

export interface OidcClientRecord extends RegisteredClient {
  createdAt: Date;
}

/** What changeOidcClient may change (an absent field stays as it is). */
export interface OidcClientChanges {
  active?: boolean;
  clientSecretDigest?: string;
  requirePkce?: boolean;
}

export interface OrgAppRecord {
  clientId: string;
  organizationId: number;
  name: string;
  clientSecretDigest: string;
  active: boolean;
  createdAt: Date;
}

export interface AdminTokenRecord {
  id: string;
  name: string;
  role: AdminRole;
  projectId: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

/** A change to announce to every instance's cache (SharedCache.change): sent with the write, when it commits. */
export interface Announcement {
  channel: string;
  payload: string;
}

/**
 * Projects, API keys, workflows, callback destinations, OIDC clients, organization apps and admin
 * tokens: the only code that touches their tables. A write that cached values depend on carries
 * its Announcement and sends it in the same statement, so it is heard exactly when it commits.
 * Writes naming a project that does not exist answer false or null, never throw.
 */
export interface TenancyStore {
  addProject(
    project: Omit<
      ProjectRecord,
      | 'spendableMinor'
      | 'defaultCallbackUrl'
      | 'testDefaultCallbackUrl'
      | 'hasTestWebhookSecret'
      | 'privacyPolicyUrl'
      | 'supportUrl'
      | 'hasLogo'
    > & {
      balanceMinor: number;
      webhookSecretSealed: string;
      testWebhookSecretSealed: string;
    },
  ): Promise<ProjectRecord>;
  /** Every project, or the one with `onlyId`, oldest first. */
  projects(onlyId: string | null): Promise<ProjectRecord[]>;
  project(id: string): Promise<ProjectRecord | null>;
  /** Read in the caller's transaction when given one. */
  projectSettings(id: string, tx?: EntityManager): Promise<ProjectSettings | null>;
  /** The oldest demo project's id. */
  demoProjectId(): Promise<string | null>;
  webhookSecrets(id: string, mode: KeyMode): Promise<SealedWebhookSecrets | null>;
  /**
   * The mode's current secret becomes its previous one until `previousUntil`, and `sealed` the current; false without
   * such a project.
   */
  rotateWebhookSecret(
    id: string,
    mode: KeyMode,
    sealed: string,
    previousUntil: Date,
    announce: Announcement,
  ): Promise<boolean>;
  updateProject(id: string, changes: ProjectChanges, announce: Announcement): Promise<ProjectRecord | null>;
  branding(id: string): Promise<ProjectBranding | null>;
  logo(id: string): Promise<Buffer | null>;

  /** False when the project does not exist. */
  addApiKey(key: Omit<ApiKeyRecord, 'revokedAt'> & { secretDigest: string }): Promise<boolean>;
  apiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  /** The digest an API key of this project is cached under. */
  apiKeyDigest(projectId: string, id: string): Promise<string | null>;
  /** Marks the key revoked at `at` unless it already was (the first revocation's time stays). */
  revokeApiKey(projectId: string, id: string, at: Date, announce: Announcement): Promise<ApiKeyRecord | null>;
  /** The unrevoked key with this digest. */
  liveApiKey(secretDigest: string): Promise<{ id: string; projectId: string; mode: KeyMode } | null>;

  /** False when the project does not exist. */
  addWorkflow(workflow: WorkflowRecord): Promise<boolean>;
  workflows(projectId: string): Promise<WorkflowRecord[]>;
  workflow(projectId: string, id: string): Promise<WorkflowRecord | null>;

  /**
   * Approves a destination for a mode, or makes the approved one active again (one row however many approve at once);
   * null without the project.
   */
  approveCallback(destination: Omit<CallbackRecord, 'active'>): Promise<CallbackRecord | null>;
  setCallbackActive(
    projectId: string,
    mode: KeyMode,
    url: string,
    active: boolean,
    announce: Announcement,
  ): Promise<CallbackRecord | null>;
  /** Both modes' destinations. */
  callbacks(projectId: string): Promise<CallbackRecord[]>;
  isApprovedCallback(projectId: string, mode: KeyMode, url: string): Promise<boolean>;

  /** False when the project does not exist. */
  addOidcClient(client: OidcClientRecord): Promise<boolean>;
  oidcClients(projectId: string): Promise<OidcClientRecord[]>;
  oidcClient(clientId: string): Promise<RegisteredClient | null>;
  changeOidcClient(
    projectId: string,
    clientId: string,
    changes: OidcClientChanges,
    announce: Announcement,
  ): Promise<OidcClientRecord | null>;
  oidcClientIdsOfOrganization(organizationId: number): Promise<string[]>;
  oidcClientIdsOfProject(projectId: string): Promise<string[]>;

  addOrgApp(app: OrgAppRecord): Promise<void>;
  orgApps(): Promise<OrgAppRecord[]>;
  orgApp(clientId: string): Promise<OrgAppRecord | null>;
  changeOrgApp(
    clientId: string,
    changes: { active?: boolean; clientSecretDigest?: string },
  ): Promise<OrgAppRecord | null>;

  /** False when it names a project that does not exist. */
  addAdminToken(token: Omit<AdminTokenRecord, 'revokedAt'> & { tokenDigest: string }): Promise<boolean>;
  /** Newest first. */
  adminTokens(): Promise<AdminTokenRecord[]>;
  /** Marks the token revoked at `at` unless it already was. */
  revokeAdminToken(id: string, at: Date): Promise<AdminTokenRecord | null>;
  /** The token with this digest if it is neither revoked nor expired at `now`. */
  liveAdminToken(tokenDigest: string, now: Date): Promise<AdminTokenRecord | null>;
}

type SqlDate = Date | string;

const PROJECT_COLUMNS =
  'id, name, default_callback_url, test_default_callback_url, test_webhook_signing_secret_sealed is not null as has_test_webhook_secret, evidence_retention_days, privacy_policy_url, support_url, has_logo, balance_minor, (select w.balance_minor from wallet w where w.project_id = project.id) as spendable_minor, currency, is_demo, created_at';
interface ProjectRow {
  id: string;
  name: string;
  default_callback_url: string | null;
  test_default_callback_url: string | null;
  has_test_webhook_secret: boolean;
  evidence_retention_days: number;
  privacy_policy_url: string | null;
  support_url: string | null;
  has_logo: boolean;
  balance_minor: string | number;
  /** Null in an insert's RETURNING: the statement's subquery cannot see the row it inserts. */
  spendable_minor: string | number | null;
  currency: string;
  is_demo: boolean;
  created_at: SqlDate;
}
const projectOf = (row: ProjectRow): ProjectRecord => ({
  id: row.id,
  name: row.name,
  defaultCallbackUrl: row.default_callback_url,
  testDefaultCallbackUrl: row.test_default_callback_url,
  hasTestWebhookSecret: row.has_test_webhook_secret,
  evidenceRetentionDays: row.evidence_retention_days,
  privacyPolicyUrl: row.privacy_policy_url,
  supportUrl: row.support_url,
  hasLogo: row.has_logo,
  spendableMinor: Number(row.spendable_minor ?? row.balance_minor),
  currency: row.currency,
  isDemo: row.is_demo,
  createdAt: sqlDate(row.created_at),
});

const API_KEY_COLUMNS = 'id, project_id, name, prefix, mode, created_at, revoked_at';
interface ApiKeyRow {
  id: string;
  project_id: string;
  name: string;
  prefix: string;
  mode: KeyMode;
  created_at: SqlDate;
  revoked_at: SqlDate | null;
}
const apiKeyOf = (row: ApiKeyRow): ApiKeyRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  prefix: row.prefix,
  mode: row.mode,
  createdAt: sqlDate(row.created_at),
  revokedAt: sqlDateOrNull(row.revoked_at),
});

const WORKFLOW_COLUMNS = 'id, project_id, name, features, max_step_tries, created_at';
interface WorkflowRow {
  id: string;
  project_id: string;
  name: string;
  features: WorkflowFeature[];
  max_step_tries: number;
  created_at: SqlDate;
}
const workflowOf = (row: WorkflowRow): WorkflowRecord => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  features: row.features,
  maxStepTries: row.max_step_tries,
  createdAt: sqlDate(row.created_at),
});

const CALLBACK_COLUMNS = 'id, project_id, url, mode, active, created_at';
interface CallbackRow {
  id: string;
  project_id: string;
  url: string;
  mode: KeyMode;
  active: boolean;
  created_at: SqlDate;
}
const callbackOf = (row: CallbackRow): CallbackRecord => ({
  id: row.id,
  projectId: row.project_id,
  url: row.url,
  mode: row.mode,
  active: row.active,
  createdAt: sqlDate(row.created_at),
});

/** A mode's webhook secret columns of `project`. */
const SECRET_COLUMNS: Record<KeyMode, { current: string; previous: string; until: string }> = {
  live: {
    current: 'webhook_signing_secret_sealed',
    previous: 'previous_webhook_secret_sealed',
    until: 'previous_webhook_secret_until',
  },
  test: {
    current: 'test_webhook_signing_secret_sealed',
    previous: 'previous_test_webhook_secret_sealed',
    until: 'previous_test_webhook_secret_until',
  },
};

const OIDC_CLIENT_COLUMNS =
  'client_id, project_id, organization_id, name, client_secret_digest, redirect_uris, scopes, active, require_pkce, created_at';
interface OidcClientRow {
  client_id: string;
  project_id: string;
  organization_id: number | null;
  name: string;
  client_secret_digest: string;
  redirect_uris: string[];
  scopes: OidcScope[];
  active: boolean;
  require_pkce: boolean;
  created_at: SqlDate;
}
const oidcClientOf = (row: OidcClientRow): OidcClientRecord => ({
  clientId: row.client_id,
  projectId: row.project_id,
  organizationId: row.organization_id,
  name: row.name,
  clientSecretDigest: row.client_secret_digest,
  redirectUris: row.redirect_uris,
  scopes: row.scopes,
  active: row.active,
  requirePkce: row.require_pkce,
  createdAt: sqlDate(row.created_at),
});

const ORG_APP_COLUMNS = 'client_id, organization_id, name, client_secret_digest, active, created_at';
interface OrgAppRow {
  client_id: string;
  organization_id: number;
  name: string;
  client_secret_digest: string;
  active: boolean;
  created_at: SqlDate;
}
const orgAppOf = (row: OrgAppRow): OrgAppRecord => ({
  clientId: row.client_id,
  organizationId: row.organization_id,
  name: row.name,
  clientSecretDigest: row.client_secret_digest,
  active: row.active,
  createdAt: sqlDate(row.created_at),
});

const ADMIN_TOKEN_COLUMNS = 'id, name, role, project_id, created_at, expires_at, revoked_at';
interface AdminTokenRow {
  id: string;
  name: string;
  role: AdminRole;
  project_id: string | null;
  created_at: SqlDate;
  expires_at: SqlDate | null;
  revoked_at: SqlDate | null;
}
const adminTokenOf = (row: AdminTokenRow): AdminTokenRecord => ({
  id: row.id,
  name: row.name,
  role: row.role,
  projectId: row.project_id,
  createdAt: sqlDate(row.created_at),
  expiresAt: sqlDateOrNull(row.expires_at),
  revokedAt: sqlDateOrNull(row.revoked_at),
});

/** TenancyStore on PostgreSQL: one named statement per call. */
export class PgTenancyStore implements TenancyStore {
  constructor(private readonly orm: Orm) {}

  private query<T>(name: string, text: string, values: unknown[]): Promise<T[]> {
    return preparedQuery<T>(this.orm, name, text, values);
  }

  /**
   * A write (its RETURNING as `changed`) that announces its change when it commits: pg_notify runs
   * once per changed row, so a write that changed nothing announces nothing.
   */
  private announcing<T>(name: string, write: string, values: unknown[], announce: Announcement): Promise<T[]> {
    const channel = values.length + 1;
    return this.query<T>(
      name,
      `with changed as (${write}) select changed.*, pg_notify($${channel}, $${channel + 1}) from changed`,
      [...values, announce.channel, announce.payload],
    );
  }

  async addProject(project: Parameters<TenancyStore['addProject']>[0]) {
    const [row] = await this.query<ProjectRow>(
      'project_add',
      `insert into project (id, name, webhook_signing_secret_sealed, test_webhook_signing_secret_sealed, balance_minor, evidence_retention_days, currency, is_demo, has_logo, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, false, $9) returning ${PROJECT_COLUMNS}`,
      [
        project.id,
        project.name,
        project.webhookSecretSealed,
        project.testWebhookSecretSealed,
        project.balanceMinor,
        project.evidenceRetentionDays,
        project.currency,
        project.isDemo,
        project.createdAt,
      ],
    );
    return projectOf(row!);
  }

  async projects(onlyId: string | null) {
    const rows = await this.query<ProjectRow>(
      'projects',
      `select ${PROJECT_COLUMNS} from project where $1::text is null or id = $1 order by created_at, id`,
      [onlyId],
    );
    return rows.map(projectOf);
  }

  async project(id: string) {
    const [row] = await this.query<ProjectRow>(
      'project_by_id',
      `select ${PROJECT_COLUMNS} from project where id = $1`,
      [id],
    );
    return row ? projectOf(row) : null;
  }

  async projectSettings(id: string, tx?: EntityManager) {
    const [row] = await preparedQueryWith<{
      evidence_retention_days: number;
      default_callback_url: string | null;
      test_default_callback_url: string | null;
    }>(
      this.orm,
      tx,
      'project_settings',
      'select evidence_retention_days, default_callback_url, test_default_callback_url from project where id = $1',
      [id],
    );
    return row
      ? {
          evidenceRetentionDays: row.evidence_retention_days,
          defaultCallbackUrl: row.default_callback_url,
          testDefaultCallbackUrl: row.test_default_callback_url,
        }
      : null;
  }

  async demoProjectId() {
    const [row] = await this.query<{ id: string }>(
      'project_demo',
      'select id from project where is_demo order by created_at limit 1',
      [],
    );
    return row?.id ?? null;
  }

  async webhookSecrets(id: string, mode: KeyMode) {
    const columns = SECRET_COLUMNS[mode];
    const [row] = await this.query<{ current: string | null; previous: string | null; previous_until: SqlDate | null }>(
      `project_webhook_secrets_${mode}`,
      `select ${columns.current} as current, ${columns.previous} as previous, ${columns.until} as previous_until from project where id = $1`,
      [id],
    );
    return row
      ? { current: row.current, previous: row.previous, previousUntil: sqlDateOrNull(row.previous_until) }
      : null;
  }

  async rotateWebhookSecret(id: string, mode: KeyMode, sealed: string, previousUntil: Date, announce: Announcement) {
    const columns = SECRET_COLUMNS[mode];
    const rows = await this.announcing(
      `project_rotate_webhook_secret_${mode}`,
      // The right-hand sides read the row as it was: the current secret becomes the previous one.
      `update project set ${columns.previous} = ${columns.current}, ${columns.until} = $3, ${columns.current} = $2 where id = $1 returning id`,
      [id, sealed, previousUntil],
      announce,
    );
    return rows.length > 0;
  }

  async updateProject(id: string, changes: ProjectChanges, announce: Announcement) {
    const given = (field: keyof ProjectChanges) => changes[field] !== undefined;
    const [row] = await this.announcing<ProjectRow>(
      'project_update',
      `update project set
           default_callback_url = case when $2::boolean then $3::text else default_callback_url end,
           evidence_retention_days = coalesce($4::int, evidence_retention_days),
           privacy_policy_url = case when $5::boolean then $6::text else privacy_policy_url end,
           logo_png = case when $7::boolean then $8::bytea else logo_png end,
           has_logo = case when $7::boolean then $8::bytea is not null else has_logo end,
           test_default_callback_url = case when $9::boolean then $10::text else test_default_callback_url end,
           support_url = case when $11::boolean then $12::text else support_url end
         where id = $1 returning ${PROJECT_COLUMNS}`,
      [
        id,
        given('defaultCallbackUrl'),
        changes.defaultCallbackUrl ?? null,
        changes.evidenceRetentionDays ?? null,
        given('privacyPolicyUrl'),
        changes.privacyPolicyUrl ?? null,
        given('logoPng'),
        changes.logoPng ?? null,
        given('testDefaultCallbackUrl'),
        changes.testDefaultCallbackUrl ?? null,
        given('supportUrl'),
        changes.supportUrl ?? null,
      ],
      announce,
    );
    return row ? projectOf(row) : null;
  }

  async branding(id: string) {
    const [row] = await this.query<{
      name: string;
      privacy_policy_url: string | null;
      support_url: string | null;
      has_logo: boolean;
    }>('project_branding', 'select name, privacy_policy_url, support_url, has_logo from project where id = $1', [id]);
    return row
      ? { name: row.name, privacyPolicyUrl: row.privacy_policy_url, supportUrl: row.support_url, hasLogo: row.has_logo }
      : null;
  }

  async logo(id: string) {
    const [row] = await this.query<{ logo_png: Uint8Array | null }>(
      'project_logo',
      'select logo_png from project where id = $1',
      [id],
    );
    return row?.logo_png ? Buffer.from(row.logo_png) : null;
  }

  async addApiKey(key: Parameters<TenancyStore['addApiKey']>[0]) {
    const rows = await this.query(
      'api_key_add',
      `insert into api_key (id, project_id, name, prefix, secret_digest, mode, created_at)
       select $1, $2::text, $3, $4, $5, $6, $7::timestamptz where exists (select 1 from project where id = $2::text) returning id`,
      [key.id, key.projectId, key.name, key.prefix, key.secretDigest, key.mode, key.createdAt],
    );
    return rows.length > 0;
  }

  async apiKeys(projectId: string) {
    const rows = await this.query<ApiKeyRow>(
      'api_keys_of_project',
      `select ${API_KEY_COLUMNS} from api_key where project_id = $1 order by created_at, id`,
      [projectId],
    );
    return rows.map(apiKeyOf);
  }

  async apiKeyDigest(projectId: string, id: string) {
    const [row] = await this.query<{ secret_digest: string }>(
      'api_key_digest',
      'select secret_digest from api_key where id = $1 and project_id = $2',
      [id, projectId],
    );
    return row?.secret_digest ?? null;
  }

  async revokeApiKey(projectId: string, id: string, at: Date, announce: Announcement) {
    const [row] = await this.announcing<ApiKeyRow>(
      'api_key_revoke',
      `update api_key set revoked_at = coalesce(revoked_at, $3) where id = $1 and project_id = $2 returning ${API_KEY_COLUMNS}`,
      [id, projectId, at],
      announce,
    );
    return row ? apiKeyOf(row) : null;
  }

  async liveApiKey(secretDigest: string) {
    const [row] = await this.query<{ id: string; project_id: string; mode: KeyMode }>(
      'api_key_live',
      'select id, project_id, mode from api_key where secret_digest = $1 and revoked_at is null',
      [secretDigest],
    );
    return row ? { id: row.id, projectId: row.project_id, mode: row.mode } : null;
  }

  async addWorkflow(workflow: WorkflowRecord) {
    const rows = await this.query(
      'workflow_add',
      `insert into workflow (id, project_id, name, features, max_step_tries, created_at)
       select $1, $2::text, $3, $4::text[], $5::int, $6::timestamptz where exists (select 1 from project where id = $2::text) returning id`,
      [workflow.id, workflow.projectId, workflow.name, workflow.features, workflow.maxStepTries, workflow.createdAt],
    );
    return rows.length > 0;
  }

  async workflows(projectId: string) {
    const rows = await this.query<WorkflowRow>(
      'workflows_of_project',
      `select ${WORKFLOW_COLUMNS} from workflow where project_id = $1 order by created_at, id`,
      [projectId],
    );
    return rows.map(workflowOf);
  }

  async workflow(projectId: string, id: string) {
    const [row] = await this.query<WorkflowRow>(
      'workflow_by_id',
      `select ${WORKFLOW_COLUMNS} from workflow where id = $1 and project_id = $2`,
      [id, projectId],
    );
    return row ? workflowOf(row) : null;
  }

  async approveCallback(destination: Omit<CallbackRecord, 'active'>) {
    const [row] = await this.query<CallbackRow>(
      'callback_approve',
      `insert into callback_destination (id, project_id, url, mode, active, created_at)
       select $1, $2::text, $3, $5, true, $4::timestamptz where exists (select 1 from project where id = $2::text)
       on conflict (project_id, mode, url) do update set active = true returning ${CALLBACK_COLUMNS}`,
      [destination.id, destination.projectId, destination.url, destination.createdAt, destination.mode],
    );
    return row ? callbackOf(row) : null;
  }

  async setCallbackActive(projectId: string, mode: KeyMode, url: string, active: boolean, announce: Announcement) {
    const [row] = await this.announcing<CallbackRow>(
      'callback_set_active',
      `update callback_destination set active = $3 where project_id = $1 and url = $2 and mode = $4 returning ${CALLBACK_COLUMNS}`,
      [projectId, url, active, mode],
      announce,
    );
    return row ? callbackOf(row) : null;
  }

  async callbacks(projectId: string) {
    const rows = await this.query<CallbackRow>(
      'callbacks_of_project',
      `select ${CALLBACK_COLUMNS} from callback_destination where project_id = $1 order by mode, created_at, id`,
      [projectId],
    );
    return rows.map(callbackOf);
  }

  async isApprovedCallback(projectId: string, mode: KeyMode, url: string) {
    const rows = await this.query(
      'callback_is_approved',
      'select 1 from callback_destination where project_id = $1 and url = $2 and mode = $3 and active',
      [projectId, url, mode],
    );
    return rows.length > 0;
  }

  async addOidcClient(client: OidcClientRecord) {
    const rows = await this.query(
      'oidc_client_add',
      `insert into oidc_client (client_id, project_id, organization_id, name, client_secret_digest, redirect_uris, scopes, active, require_pkce, created_at)
       select $1, $2::text, $3::int, $4, $5, $6::text[], $7::text[], $8::boolean, $9::boolean, $10::timestamptz where exists (select 1 from project where id = $2::text) returning client_id`,
      [
        client.clientId,
        client.projectId,
        client.organizationId,
        client.name,
        client.clientSecretDigest,
        client.redirectUris,
        client.scopes,
        client.active,
        client.requirePkce,
        client.createdAt,
      ],
    );
    return rows.length > 0;
  }

  async oidcClients(projectId: string) {
    const rows = await this.query<OidcClientRow>(
      'oidc_clients_of_project',
      `select ${OIDC_CLIENT_COLUMNS} from oidc_client where project_id = $1 order by created_at, client_id`,
      [projectId],
    );
    return rows.map(oidcClientOf);
  }

  async oidcClient(clientId: string): Promise<RegisteredClient | null> {
    const [row] = await this.query<OidcClientRow>(
      'oidc_client_by_id',
      `select ${OIDC_CLIENT_COLUMNS} from oidc_client where client_id = $1`,
      [clientId],
    );
    if (!row) return null;
    const { createdAt: _, ...client } = oidcClientOf(row);
    return client;
  }

  async changeOidcClient(projectId: string, clientId: string, changes: OidcClientChanges, announce: Announcement) {
    const [row] = await this.announcing<OidcClientRow>(
      'oidc_client_change',
      `update oidc_client set active = coalesce($3, active), client_secret_digest = coalesce($4, client_secret_digest), require_pkce = coalesce($5, require_pkce)
       where client_id = $1 and project_id = $2 returning ${OIDC_CLIENT_COLUMNS}`,
      [clientId, projectId, changes.active ?? null, changes.clientSecretDigest ?? null, changes.requirePkce ?? null],
      announce,
    );
    return row ? oidcClientOf(row) : null;
  }

  async oidcClientIdsOfOrganization(organizationId: number) {
    const rows = await this.query<{ client_id: string }>(
      'oidc_client_ids_of_organization',
      'select client_id from oidc_client where organization_id = $1',
      [organizationId],
    );
    return rows.map((row) => row.client_id);
  }

  async oidcClientIdsOfProject(projectId: string) {
    const rows = await this.query<{ client_id: string }>(
      'oidc_client_ids_of_project',
      'select client_id from oidc_client where project_id = $1',
      [projectId],
    );
    return rows.map((row) => row.client_id);
  }

  async addOrgApp(app: OrgAppRecord) {
    await this.query(
      'org_app_add',
      'insert into org_app (client_id, organization_id, name, client_secret_digest, active, created_at) values ($1, $2, $3, $4, $5, $6)',
      [app.clientId, app.organizationId, app.name, app.clientSecretDigest, app.active, app.createdAt],
    );
  }

  async orgApps() {
    const rows = await this.query<OrgAppRow>(
      'org_apps',
      `select ${ORG_APP_COLUMNS} from org_app order by created_at, client_id`,
      [],
    );
    return rows.map(orgAppOf);
  }

  async orgApp(clientId: string) {
    const [row] = await this.query<OrgAppRow>(
      'org_app_by_id',
      `select ${ORG_APP_COLUMNS} from org_app where client_id = $1`,
      [clientId],
    );
    return row ? orgAppOf(row) : null;
  }

  async changeOrgApp(clientId: string, changes: { active?: boolean; clientSecretDigest?: string }) {
    const [row] = await this.query<OrgAppRow>(
      'org_app_change',
      `update org_app set active = coalesce($2, active), client_secret_digest = coalesce($3, client_secret_digest) where client_id = $1 returning ${ORG_APP_COLUMNS}`,
      [clientId, changes.active ?? null, changes.clientSecretDigest ?? null],
    );
    return row ? orgAppOf(row) : null;
  }

  async addAdminToken(token: Parameters<TenancyStore['addAdminToken']>[0]) {
    const rows = await this.query(
      'admin_token_add',
      `insert into admin_token (id, name, role, project_id, token_digest, created_at, expires_at)
       select $1, $2, $3, $4::text, $5, $6::timestamptz, $7::timestamptz where $4::text is null or exists (select 1 from project where id = $4::text) returning id`,
      [token.id, token.name, token.role, token.projectId, token.tokenDigest, token.createdAt, token.expiresAt],
    );
    return rows.length > 0;
  }

  async adminTokens() {
    const rows = await this.query<AdminTokenRow>(
      'admin_tokens',
      `select ${ADMIN_TOKEN_COLUMNS} from admin_token order by created_at desc, id desc`,
      [],
    );
    return rows.map(adminTokenOf);
  }

  async revokeAdminToken(id: string, at: Date) {
    const [row] = await this.query<AdminTokenRow>(
      'admin_token_revoke',
      `update admin_token set revoked_at = coalesce(revoked_at, $2) where id = $1 returning ${ADMIN_TOKEN_COLUMNS}`,
      [id, at],
    );
    return row ? adminTokenOf(row) : null;
  }

  async liveAdminToken(tokenDigest: string, now: Date) {
    const [row] = await this.query<AdminTokenRow>(
      'admin_token_live',
      `select ${ADMIN_TOKEN_COLUMNS} from admin_token where token_digest = $1 and revoked_at is null and (expires_at is null or expires_at > $2)`,
      [tokenDigest, now],
    );
    return row ? adminTokenOf(row) : null;
  }
}
