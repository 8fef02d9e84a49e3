import { DEFAULT_STEP_TRIES } from '../vocabulary.js';
import net from 'node:net';
import { isPrivateAddress } from '../net/destinations.js';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { Clock } from '../clock.js';
import type { Notifications } from '../db/notifications.js';
import type { Orm } from '../db/orm.js';
import { preparedQuery } from '../db/prepared.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, newSecret, safeEqual, type Sealer } from '../secrets.js';
import { parseInput } from '../validation.js';
import { SharedCache } from '../db/shared-cache.js';
import { AdminToken, ApiKey, CallbackDestination, OidcClient, OrgApp, Project, Workflow, type AdminRole, type OidcScope } from './entities.js';
import {
  callbackUrlInput,
  createAdminTokenInput,
  revokeAdminTokenInput,
  rotateWebhookSecretInput,
  oidcClientActiveInput,
  oidcClientRefInput,
  orgAppActiveInput,
  orgAppRefInput,
  createApiKeyInput,
  createOidcClientInput,
  createOrgAppInput,
  createProjectInput,
  createWorkflowInput,
  brandingInput,
  defaultCallbackInput,
  evidenceRetentionInput,
  revokeApiKeyInput,
  setCallbackActiveInput,
} from './inputs.js';
import { safeLogo } from './logo.js';
import { type AdminTokenView, apiKeyView, callbackView, oidcClientView, orgAppView, projectView, type RegisteredClient, type WorkflowView, workflowView } from './views.js';

export interface TenancyDeps {
  orm: Orm;
  clock: Clock;
  sealer: Sealer;
  allowInsecureCallbacks: boolean;
  /** LISTEN/NOTIFY between instances: without it nothing is cached. */
  notifications?: Notifications;
  /** The roster's organizations, which roster apps and OIDC clients name by id. */
  organizations: OrganizationDirectory;
}

/** What tenancy asks the roster about organizations (it owns them; tenancy only names them). */
export interface OrganizationDirectory {
  exists(organizationId: number): Promise<boolean>;
  /** A new organization; its id. */
  create(name: string): Promise<number>;
  /** The names of these organizations, by id (unknown ids are left out). */
  names(organizationIds: readonly number[]): Promise<Map<number, string>>;
}

/** What a session's decision reads of its project (TenancyService.projectSettingsOf). */
export interface ProjectSettings {
  evidenceRetentionDays: number;
  defaultCallbackUrl: string | null;
}

/** The approvedCallbacks cache key of a project's destination. */
const approvedCallbackKey = (projectId: string, url: string) => `${projectId} ${url}`;

export interface ApiKeyCaller {
  projectId: string;
  apiKeyId: string;
  /** False for a test key: nothing is charged and only test data is seen. */
  livemode: boolean;
}

/** Who is asking through the admin API: a role, and a project when the token is scoped to one. */
/** Who calls the admin API: the token's role, its project (null: every project) and its id (audits, `admin:<id>`). */
export interface AdminScope {
  tokenId: string;
  role: AdminRole;
  projectId: string | null;
}

const ROLE_RANK: Record<AdminRole, number> = { viewer: 0, reviewer: 1, admin: 2 };
export const roleAtLeast = (role: AdminRole, wanted: AdminRole) => ROLE_RANK[role] >= ROLE_RANK[wanted];

/** What the hosted page shows of a project. */
export interface ProjectBranding {
  name: string;
  privacyPolicyUrl: string | null;
  hasLogo: boolean;
}

/** Workflows kept per process at most (the oldest read go first). */
const MAX_CACHED_WORKFLOWS = 10_000;

/** Projects, their credentials, workflows and callbacks; organization apps; admin tokens. */
export class TenancyService {
  /**
   * Workflows by project and id. A workflow never changes once created (nothing updates or
   * deletes one), so what was read stays true: no expiry, no invalidation. Misses are not kept,
   * so a workflow created on another instance is found at once.
   */
  private readonly workflows = new Map<string, WorkflowView>();
  /** Known API keys by the SHA-256 digest of the key (never the key). */
  private readonly apiKeys: SharedCache<ApiKeyCaller>;
  /** What the hosted page shows of a project, by project id (the page reads it on every call). */
  private readonly brandings: SharedCache<ProjectBranding>;
  /** OIDC clients by client id (the token endpoint authenticates one on every call). */
  private readonly oidcClients: SharedCache<RegisteredClient>;
  /** Projects' webhook signing secrets, sealed, by project id (every delivery signs with them). */
  private readonly webhookSecrets: SharedCache<{ current: string; previous: string | null; previousUntil: Date | null }>;
  /** What every decision reads of its project, by project id: how long evidence is kept, where webhooks go by default. */
  private readonly projectSettings: SharedCache<ProjectSettings>;
  /** Active approved callback destinations, by `approvedCallbackKey` (every session created with a callback checks one). */
  private readonly approvedCallbacks: SharedCache<true>;

  constructor(private readonly deps: TenancyDeps) {
    this.apiKeys = new SharedCache(deps.notifications, 'api_key');
    this.brandings = new SharedCache(deps.notifications, 'project_branding');
    this.oidcClients = new SharedCache(deps.notifications, 'oidc_client');
    this.webhookSecrets = new SharedCache(deps.notifications, 'webhook_secret');
    this.projectSettings = new SharedCache(deps.notifications, 'project_settings');
    this.approvedCallbacks = new SharedCache(deps.notifications, 'approved_callback');
  }

  /**
   * Runs `work` in a transaction and announces that the cached value under the key it returns
   * changed, in the same transaction (sent when it commits); answers once every instance has
   * dropped it, so the next request anywhere sees the change.
   */
  private async changeCached<T>(cache: SharedCache<unknown>, work: (em: EntityManager) => Promise<{ row: T; key: string }>): Promise<T> {
    let change: ReturnType<SharedCache<unknown>['change']> | undefined;
    const row = await this.em().transactional(async (em) => {
      const { row, key } = await work(em);
      await em.flush();
      change = cache.change(key);
      await em.getConnection().execute('select pg_notify(?, ?)', [change.channel, change.payload], 'all', em.getTransactionContext());
      return row;
    });
    await change!.everywhereDropped();
    return row;
  }

  private em() {
    return this.deps.orm.em.fork();
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  // ---- admin scope ----

  /** Throws unless the scope holds at least `role`. */
  requireRole(scope: AdminScope, role: AdminRole): void {
    if (!roleAtLeast(scope.role, role)) {
      throw new DomainError('forbidden', `this needs the ${role} role; the token has ${scope.role}`);
    }
  }

  /** A project-scoped token sees only its own project; anything else is "not found", never 403. */
  requireProjectAccess(scope: AdminScope, projectId: string): void {
    if (scope.projectId !== null && scope.projectId !== projectId) throw new DomainError('not_found', 'project not found');
  }

  // ---- projects ----

  async createProject(input: unknown, options: { isDemo?: boolean } = {}) {
    const { name, balance } = parseInput(createProjectInput, input);
    const em = this.em();
    const webhookSigningSecret = newSecret('whsec', 24);
    const project = em.create(Project, {
      id: newId('prj'),
      name,
      webhookSigningSecretSealed: this.deps.sealer.seal(webhookSigningSecret),
      balanceMinor: Math.round((balance ?? 0) * 100),
      evidenceRetentionDays: 30,
      currency: 'USD',
      isDemo: options.isDemo ?? false,
      hasLogo: false,
      createdAt: this.now(),
    });
    await em.flush();
    const { apiKey, key } = await this.createApiKey({ projectId: project.id, name: 'default' });
    return { project: projectView(project), apiKey, key, webhookSigningSecret };
  }

  async listProjects(scope?: AdminScope) {
    const where = scope?.projectId ? { id: scope.projectId } : {};
    const projects = await this.em().find(Project, where, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return projects.map(projectView);
  }

  private async loadProject(em: EntityManager, projectId: string): Promise<Project> {
    const project = await em.findOne(Project, { id: projectId });
    if (!project) throw new DomainError('not_found', 'project not found');
    return project;
  }

  async getProject(projectId: string) {
    return projectView(await this.loadProject(this.em(), projectId));
  }

  /**
   * How long a project keeps evidence and where its webhooks go by default, cached (a change is
   * dropped everywhere before it answers). A miss reads inside the caller's transaction when
   * given: a second pooled connection there could wait on a full pool forever.
   */
  async projectSettingsOf(projectId: string, em: EntityManager = this.em()): Promise<ProjectSettings> {
    const settings = await this.projectSettings.read(projectId, async () => {
      const project = await em.findOne(Project, { id: projectId }, { fields: ['evidenceRetentionDays', 'defaultCallbackUrl'] });
      return project && { evidenceRetentionDays: project.evidenceRetentionDays, defaultCallbackUrl: project.defaultCallbackUrl ?? null };
    });
    if (!settings) throw new DomainError('not_found', 'project not found');
    return settings;
  }

  /** Days a decided session's review images are kept (0: deleted at the decision). */
  async evidenceRetentionDays(projectId: string, em?: EntityManager): Promise<number> {
    return (await this.projectSettingsOf(projectId, em)).evidenceRetentionDays;
  }

  async demoProjectId(): Promise<string | null> {
    const project = await this.em().findOne(Project, { isDemo: true }, { orderBy: { createdAt: 'asc' } });
    return project?.id ?? null;
  }

  /** The secret a project's webhooks are signed with. */
  async webhookSigningSecret(projectId: string): Promise<string> {
    return (await this.webhookSigningSecrets(projectId)).current;
  }

  /**
   * The secrets a project's webhooks are signed with now: the current one and, while a rotation's
   * overlap lasts, the previous one (deliveries carry both signatures), else null. Cached sealed,
   * outside an overlap only: while one lasts (rare, hours) its end is read from the database.
   */
  async webhookSigningSecrets(projectId: string): Promise<{ current: string; previous: string | null }> {
    const overlapping = (sealed: { previous: string | null; previousUntil: Date | null }) => sealed.previous !== null && sealed.previousUntil !== null && sealed.previousUntil > this.now();
    const sealed = await this.webhookSecrets.read(
      projectId,
      async () => {
        const project = await this.em().findOne(Project, { id: projectId }, { fields: ['webhookSigningSecretSealed', 'previousWebhookSecretSealed', 'previousWebhookSecretUntil'] });
        return project && { current: project.webhookSigningSecretSealed, previous: project.previousWebhookSecretSealed ?? null, previousUntil: project.previousWebhookSecretUntil ?? null };
      },
      (found) => !overlapping(found),
    );
    if (!sealed) throw new DomainError('not_found', 'project not found');
    return { current: this.deps.sealer.open(sealed.current), previous: overlapping(sealed) ? this.deps.sealer.open(sealed.previous!) : null };
  }

  /** A new webhook signing secret (shown once); the old one keeps signing alongside for the overlap. */
  async rotateWebhookSecret(input: unknown) {
    const { projectId, overlapHours } = parseInput(rotateWebhookSecretInput, input);
    const webhookSigningSecret = newSecret('whsec', 24);
    const previousValidUntil = new Date(this.now().getTime() + overlapHours * 3_600_000);
    await this.changeCached(this.webhookSecrets, async (em) => {
      const row = await this.loadProject(em, projectId);
      row.previousWebhookSecretSealed = row.webhookSigningSecretSealed;
      row.previousWebhookSecretUntil = previousValidUntil;
      row.webhookSigningSecretSealed = this.deps.sealer.seal(webhookSigningSecret);
      return { row, key: row.id };
    });
    return { projectId, webhookSigningSecret, previousValidUntil: previousValidUntil.toISOString() };
  }

  // ---- API keys ----

  async createApiKey(input: unknown) {
    const { projectId, name, mode } = parseInput(createApiKeyInput, input);
    const em = this.em();
    const project = await this.loadProject(em, projectId);
    const key = newSecret(mode === 'test' ? 'vk_test' : 'vk_live');
    const apiKey = em.create(ApiKey, {
      id: newId('key'),
      project,
      name: name ?? '',
      prefix: key.slice(0, 12),
      secretDigest: digestSecret(key),
      mode,
      createdAt: this.now(),
    });
    await em.flush();
    return { apiKey: apiKeyView(apiKey), key };
  }

  async listApiKeys(projectId: string) {
    const keys = await this.em().find(ApiKey, { project: projectId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return keys.map(apiKeyView);
  }

  /** Revokes a key on every instance: the answer comes once every listening instance has dropped it from its cache. */
  async revokeApiKey(input: unknown) {
    const { projectId, apiKeyId } = parseInput(revokeApiKeyInput, input);
    const apiKey = await this.changeCached(this.apiKeys, async (em) => {
      const row = await em.findOne(ApiKey, { id: apiKeyId, project: projectId });
      if (!row) throw new DomainError('not_found', 'API key not found');
      row.revokedAt ??= this.now();
      return { row, key: row.secretDigest };
    });
    return apiKeyView(apiKey);
  }

  /** The project an API key belongs to, or null for an unknown or revoked key (from the cache while revocations are heard). */
  async authenticateApiKey(key: string): Promise<ApiKeyCaller | null> {
    if (!key || key.length > 200) return null;
    return this.apiKeys.read(digestSecret(key), async () => {
      const apiKey = await this.em().findOne(ApiKey, { secretDigest: digestSecret(key), revokedAt: null }, { fields: ['id', 'project', 'mode'] });
      return apiKey ? { projectId: apiKey.project.id, apiKeyId: apiKey.id, livemode: apiKey.mode === 'live' } : null;
    });
  }

  // ---- workflows ----

  async createWorkflow(input: unknown) {
    const { projectId, name, features, maxStepTries } = parseInput(createWorkflowInput, input);
    const em = this.em();
    const project = await this.loadProject(em, projectId);
    const workflow = em.create(Workflow, { id: newId('wf'), project, name, features, maxStepTries: maxStepTries ?? DEFAULT_STEP_TRIES, createdAt: this.now() });
    await em.flush();
    return workflowView(workflow);
  }

  async listWorkflows(projectId: string) {
    const workflows = await this.em().find(Workflow, { project: projectId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return workflows.map(workflowView);
  }

  /**
   * A workflow of this project; another project's id is `workflow_not_found` like an unknown one.
   * Read from the database once per process (see `workflows`).
   */
  async getWorkflow(projectId: string, workflowId: string): Promise<WorkflowView> {
    const key = `${projectId}/${workflowId}`;
    let view = this.workflows.get(key);
    if (!view) {
      const workflow = await this.em().findOne(Workflow, { id: workflowId, project: projectId });
      if (!workflow) throw new DomainError('workflow_not_found');
      view = workflowView(workflow);
      if (this.workflows.size >= MAX_CACHED_WORKFLOWS) this.workflows.delete(this.workflows.keys().next().value!);
      this.workflows.set(key, view);
    }
    return { ...view, features: [...view.features] };
  }

  // ---- callbacks ----

  /** HTTPS only; plain http to loopback only when VERITY_ALLOW_INSECURE_CALLBACKS is on. */
  private checkCallbackUrl(raw: string): string {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new DomainError('callback_not_allowed', 'callback must be an absolute HTTPS URL');
    }
    if (url.username || url.password || url.hash) {
      throw new DomainError('callback_not_allowed', 'callback must not carry credentials or a fragment');
    }
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!this.deps.allowInsecureCallbacks && (host === 'localhost' || (net.isIP(host) && isPrivateAddress(host)))) {
      // Names are checked again at each delivery, on the address actually connected to.
      throw new DomainError('callback_not_allowed', 'callback must be a public address: loopback, private and link-local addresses need VERITY_ALLOW_INSECURE_CALLBACKS=1');
    }
    const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && loopback && this.deps.allowInsecureCallbacks);
    if (!allowed) {
      throw new DomainError('callback_not_allowed', loopback ? 'plain http callbacks to loopback need VERITY_ALLOW_INSECURE_CALLBACKS=1' : 'callback must be an HTTPS URL');
    }
    return url.toString();
  }

  async approveCallback(input: unknown) {
    const { projectId, url } = parseInput(callbackUrlInput, input);
    const normalized = this.checkCallbackUrl(url);
    const em = this.em();
    const project = await this.loadProject(em, projectId);
    const existing = await em.findOne(CallbackDestination, { project, url: normalized });
    if (existing) {
      existing.active = true;
      await em.flush();
      return callbackView(existing);
    }
    const destination = em.create(CallbackDestination, {
      id: newId('cbd'),
      project,
      url: normalized,
      active: true,
      createdAt: this.now(),
    });
    try {
      await em.flush();
    } catch (error) {
      // Approved at the same moment by someone else: the row exists, which is what was asked.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      const row = await this.em().findOneOrFail(CallbackDestination, { project: projectId, url: normalized });
      return callbackView(row);
    }
    return callbackView(destination);
  }

  async setCallbackActive(input: unknown) {
    const { projectId, url, active } = parseInput(setCallbackActiveInput, input);
    const destination = await this.changeCached(this.approvedCallbacks, async (em) => {
      const row = await em.findOne(CallbackDestination, { project: projectId, url });
      if (!row) throw new DomainError('not_found', 'callback destination not found');
      row.active = active;
      return { row, key: approvedCallbackKey(projectId, url) };
    });
    return callbackView(destination);
  }

  /** A receiver answered 410 Gone: nothing more goes to this destination until ops enable it again. */
  async disableCallback(projectId: string, url: string): Promise<void> {
    await this.changeCached(this.approvedCallbacks, async (em) => {
      await em.nativeUpdate(CallbackDestination, { project: projectId, url }, { active: false });
      return { row: null, key: approvedCallbackKey(projectId, url) };
    });
  }

  async listCallbacks(projectId: string) {
    const rows = await this.em().find(CallbackDestination, { project: projectId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
    return rows.map(callbackView);
  }

  /** True when `url` is exactly an active approved destination of the project. */
  async isApprovedCallback(projectId: string, url: string): Promise<boolean> {
    const approved = await this.approvedCallbacks.read(approvedCallbackKey(projectId, url), async () =>
      (await this.em().findOne(CallbackDestination, { project: projectId, url, active: true }, { fields: ['id'] })) ? true : null,
    );
    return approved === true;
  }

  async setDefaultCallback(input: unknown) {
    const { projectId, url } = parseInput(defaultCallbackInput, input);
    const checked = url === null ? null : this.checkCallbackUrl(url);
    const project = await this.changeCached(this.projectSettings, async (em) => {
      const row = await this.loadProject(em, projectId);
      row.defaultCallbackUrl = checked;
      return { row, key: row.id };
    });
    return projectView(project);
  }

  async setEvidenceRetention(input: unknown) {
    const { projectId, days } = parseInput(evidenceRetentionInput, input);
    const project = await this.changeCached(this.projectSettings, async (em) => {
      const row = await this.loadProject(em, projectId);
      row.evidenceRetentionDays = days;
      return { row, key: row.id };
    });
    return projectView(project);
  }

  /** The hosted page's privacy policy link and logo (the logo re-encoded by safeLogo). */
  async setBranding(input: unknown) {
    const { projectId, privacyPolicyUrl, logo } = parseInput(brandingInput, input);
    const logoPng = logo === undefined || logo === null ? logo : await safeLogo(logo);
    const project = await this.changeCached(this.brandings, async (em) => {
      const row = await this.loadProject(em, projectId);
      if (privacyPolicyUrl !== undefined) row.privacyPolicyUrl = privacyPolicyUrl;
      if (logoPng !== undefined) {
        row.logoPng = logoPng;
        row.hasLogo = logoPng !== null;
      }
      return { row, key: row.id };
    });
    return projectView(project);
  }

  /** What the hosted page shows of a project: its name, privacy policy link and whether it has a logo. */
  async projectBranding(projectId: string): Promise<ProjectBranding> {
    const branding = await this.brandings.read(projectId, async () => {
      const project = await this.em().findOne(Project, { id: projectId }, { fields: ['name', 'privacyPolicyUrl', 'hasLogo'] });
      return project && { name: project.name, privacyPolicyUrl: project.privacyPolicyUrl ?? null, hasLogo: project.hasLogo };
    });
    if (!branding) throw new DomainError('not_found', 'project not found');
    return branding;
  }

  /** The project's logo (PNG), or null. */
  async projectLogo(projectId: string): Promise<Buffer | null> {
    const project = await this.em().findOne(Project, { id: projectId }, { populate: ['logoPng'] });
    return project?.logoPng ?? null;
  }

  // ---- OIDC clients ----

  async createOidcClient(input: unknown) {
    const { projectId, name, redirectUris, scopes, organizationId } = parseInput(createOidcClientInput, input);
    const em = this.em();
    const project = await this.loadProject(em, projectId);
    if (organizationId !== undefined && !(await this.deps.organizations.exists(organizationId))) throw new DomainError('not_found', 'organization not found');
    const clientSecret = newSecret('vcs');
    const client = em.create(OidcClient, {
      clientId: newId('vc'),
      project,
      name,
      clientSecretDigest: digestSecret(clientSecret),
      redirectUris: [...new Set(redirectUris)],
      scopes: [...new Set(scopes)],
      organizationId: organizationId ?? null,
      active: true,
      createdAt: this.now(),
    });
    await em.flush();
    return { client: oidcClientView(client), clientSecret };
  }

  async listOidcClients(projectId: string) {
    const clients = await this.em().find(OidcClient, { project: projectId }, { orderBy: { createdAt: 'asc' } });
    return clients.map(oidcClientView);
  }

  // ---- organization apps ----

  async createOrgApp(input: unknown) {
    const { organizationId, organizationName, name } = parseInput(createOrgAppInput, input);
    const em = this.em();
    if (organizationId !== undefined && !(await this.deps.organizations.exists(organizationId))) throw new DomainError('not_found', 'organization not found');
    // A new organization is the roster's to create; should the app's insert then fail (a new
    // random id, a live database), the organization stays, empty, and a retry names it by id.
    const appOrganizationId = organizationId ?? (await this.deps.organizations.create(organizationName!));
    const clientSecret = newSecret('ocs');
    const app = em.create(OrgApp, {
      clientId: newId('oc'),
      organizationId: appOrganizationId,
      name,
      clientSecretDigest: digestSecret(clientSecret),
      active: true,
      createdAt: this.now(),
    });
    await em.flush();
    return { app: await this.orgAppWithName(app), clientSecret };
  }

  async listOrgApps() {
    const apps = await this.em().find(OrgApp, {}, { orderBy: { createdAt: 'asc' } });
    const names = await this.deps.organizations.names([...new Set(apps.map((app) => app.organizationId))]);
    return apps.map((app) => orgAppView(app, names.get(app.organizationId) ?? null));
  }

  private async orgAppWithName(app: OrgApp) {
    const names = await this.deps.organizations.names([app.organizationId]);
    return orgAppView(app, names.get(app.organizationId) ?? null);
  }

  /** The organization behind roster API credentials, or null when they are wrong or inactive. */
  async authenticateOrgApp(clientId: string, clientSecret: string): Promise<{ organizationId: number; clientId: string } | null> {
    if (!clientId || !clientSecret || clientId.length > 64 || clientSecret.length > 200) return null;
    const app = await this.em().findOne(OrgApp, { clientId, active: true });
    // Digest comparison in constant time; an unknown client id still pays for one digest.
    const presented = digestSecret(clientSecret);
    if (!app) return null;
    return safeEqual(presented, app.clientSecretDigest) ? { organizationId: app.organizationId, clientId: app.clientId } : null;
  }

  // ---- deactivation and secret rotation ----

  /** Deactivates (or reactivates) an OIDC client: an inactive one signs nobody in and gets no tokens. */
  async setOidcClientActive(input: unknown) {
    const { projectId, clientId, active } = parseInput(oidcClientActiveInput, input);
    const client = await this.changeCached(this.oidcClients, async (em) => {
      const row = await this.loadOidcClient(em, projectId, clientId);
      row.active = active;
      return { row, key: row.clientId };
    });
    return oidcClientView(client);
  }

  /** A new client secret, shown once; the old one stops working at once. */
  async rotateOidcClientSecret(input: unknown) {
    const { projectId, clientId } = parseInput(oidcClientRefInput, input);
    const clientSecret = newSecret('vcs');
    const client = await this.changeCached(this.oidcClients, async (em) => {
      const row = await this.loadOidcClient(em, projectId, clientId);
      row.clientSecretDigest = digestSecret(clientSecret);
      return { row, key: row.clientId };
    });
    return { client: oidcClientView(client), clientSecret };
  }

  /** An OIDC client by id (from the cache while changes are heard), or null. Read-only: change clients through this service. */
  oidcClient(clientId: string): Promise<RegisteredClient | null> {
    return this.oidcClients.read(clientId, async () => {
      const [row] = await preparedQuery<{
        client_id: string;
        project_id: string;
        organization_id: number | null;
        name: string;
        client_secret_digest: string;
        redirect_uris: string[];
        scopes: OidcScope[];
        active: boolean;
      }>(this.deps.orm, 'oidc_client_by_id', 'select client_id, project_id, organization_id, name, client_secret_digest, redirect_uris, scopes, active from oidc_client where client_id = $1', [clientId]);
      if (!row) return null;
      return {
        clientId: row.client_id,
        projectId: row.project_id,
        organizationId: row.organization_id,
        name: row.name,
        clientSecretDigest: row.client_secret_digest,
        redirectUris: row.redirect_uris,
        scopes: row.scopes,
        active: row.active,
      };
    });
  }

  /** The ids of the OIDC clients of an organization (whose roster members sign in with them). */
  async oidcClientIdsOfOrganization(organizationId: number): Promise<string[]> {
    const rows = await preparedQuery<{ client_id: string }>(this.deps.orm, 'oidc_client_ids_of_organization', 'select client_id from oidc_client where organization_id = $1', [organizationId]);
    return rows.map((row) => row.client_id);
  }

  /** The ids of the project's OIDC clients, active or not. */
  async oidcClientIdsOf(projectId: string): Promise<string[]> {
    const rows = await preparedQuery<{ client_id: string }>(this.deps.orm, 'oidc_client_ids_of_project', 'select client_id from oidc_client where project_id = $1', [projectId]);
    return rows.map((row) => row.client_id);
  }

  private async loadOidcClient(em: EntityManager, projectId: string, clientId: string): Promise<OidcClient> {
    const client = await em.findOne(OidcClient, { clientId, project: projectId });
    if (!client) throw new DomainError('not_found', 'OIDC client not found');
    return client;
  }

  /** Deactivates (or reactivates) an organization app: an inactive one is refused by the roster API. */
  async setOrgAppActive(input: unknown) {
    const { clientId, active } = parseInput(orgAppActiveInput, input);
    const em = this.em();
    const app = await this.loadOrgApp(em, clientId);
    app.active = active;
    await em.flush();
    return this.orgAppWithName(app);
  }

  /** A new organization app secret, shown once; the old one stops working at once. */
  async rotateOrgAppSecret(input: unknown) {
    const { clientId } = parseInput(orgAppRefInput, input);
    const em = this.em();
    const app = await this.loadOrgApp(em, clientId);
    const clientSecret = newSecret('ocs');
    app.clientSecretDigest = digestSecret(clientSecret);
    await em.flush();
    return { app: await this.orgAppWithName(app), clientSecret };
  }

  private async loadOrgApp(em: ReturnType<TenancyService['em']>, clientId: string): Promise<OrgApp> {
    const app = await em.findOne(OrgApp, { clientId });
    if (!app) throw new DomainError('not_found', 'organization app not found');
    return app;
  }

  // ---- admin tokens ----

  async createAdminToken(input: unknown) {
    const { role, projectId, name, expiresInDays } = parseInput(createAdminTokenInput, input);
    const em = this.em();
    const project = projectId ? await this.loadProject(em, projectId) : null;
    const token = newSecret('vat');
    const now = this.now();
    const row = em.create(AdminToken, {
      id: newId('adm'),
      name: name ?? '',
      role,
      project,
      tokenDigest: digestSecret(token),
      createdAt: now,
      expiresAt: expiresInDays ? new Date(now.getTime() + expiresInDays * 86_400_000) : null,
    });
    await em.flush();
    return { id: row.id, role, projectId: project?.id ?? null, token, expiresAt: row.expiresAt?.toISOString() ?? null };
  }

  /** Admin tokens (never the tokens themselves): which exist, whose, until when, revoked or not. */
  async adminTokens() {
    const rows = await this.em().find(AdminToken, {}, { orderBy: { createdAt: 'desc', id: 'desc' } });
    return rows.map((row) => adminTokenView(row, this.now()));
  }

  /** Revokes an admin token at once (idempotent); it no longer authenticates. */
  async revokeAdminToken(input: unknown) {
    const { tokenId } = parseInput(revokeAdminTokenInput, input);
    const em = this.em();
    const row = await em.findOne(AdminToken, { id: tokenId });
    if (!row) throw new DomainError('not_found', 'admin token not found');
    row.revokedAt ??= this.now();
    await em.flush();
    return adminTokenView(row, this.now());
  }

  async authenticateAdminToken(token: string): Promise<AdminScope | null> {
    if (!token || token.length > 200) return null;
    const row = await this.em().findOne(AdminToken, { tokenDigest: digestSecret(token), revokedAt: null, $or: [{ expiresAt: null }, { expiresAt: { $gt: this.now() } }] });
    return row ? { tokenId: row.id, role: row.role, projectId: row.project?.id ?? null } : null;
  }
}

const adminTokenView = (row: AdminToken, now: Date): AdminTokenView => ({
  id: row.id,
  name: row.name,
  role: row.role,
  projectId: row.project?.id ?? null,
  createdAt: row.createdAt.toISOString(),
  expiresAt: row.expiresAt?.toISOString() ?? null,
  revokedAt: row.revokedAt?.toISOString() ?? null,
  active: !row.revokedAt && (!row.expiresAt || row.expiresAt > now),
});
