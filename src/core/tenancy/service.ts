import { DEFAULT_STEP_TRIES } from '../vocabulary.js';
import net from 'node:net';
import { isPrivateAddress } from '../net/destinations.js';
import type { EntityManager } from '@mikro-orm/core';
import type { Clock } from '../clock.js';
import type { ChangeFeed } from '../db/notifications.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, newSecret, safeEqual, type Sealer } from '../secrets.js';
import { parseInput } from '../validation.js';
import { SharedCache } from '../db/shared-cache.js';
import type { AdminRole, KeyMode } from './entities.js';
import {
  callbackUrlInput,
  createAdminTokenInput,
  revokeAdminTokenInput,
  rotateWebhookSecretInput,
  oidcClientActiveInput,
  oidcClientPkceInput,
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
import type {
  Announcement,
  OidcClientChanges,
  OrgAppRecord,
  ProjectBranding,
  ProjectChanges,
  ProjectSettings,
  SealedWebhookSecrets,
  TenancyStore,
} from './store.js';
import {
  type AdminScope,
  adminTokenView,
  apiKeyView,
  callbackView,
  oidcClientView,
  orgAppView,
  projectView,
  type RegisteredClient,
  type WorkflowView,
  workflowView,
} from './views.js';

export type { ProjectBranding, ProjectSettings } from './store.js';

export interface TenancyDeps {
  store: TenancyStore;
  clock: Clock;
  sealer: Sealer;
  allowInsecureCallbacks: boolean;
  /** What instances tell each other (notifications.ts): without it nothing is cached. */
  notifications?: ChangeFeed;
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

/** The approvedCallbacks cache key of a project's destination of a mode. */
const approvedCallbackKey = (projectId: string, mode: KeyMode, url: string) => `${projectId} ${mode} ${url}`;

/** The webhookSecrets cache key of a project's secrets of a mode. */
const webhookSecretsKey = (projectId: string, mode: KeyMode) => `${projectId} ${mode}`;

/** The mode of the webhook settings (destinations, secret) that a session's events use. */
export const webhookModeOf = (livemode: boolean): KeyMode => (livemode ? 'live' : 'test');

/** Where a mode's events go when their session names no callback: test events never fall back to the live URL. */
export const defaultCallbackOf = (settings: ProjectSettings, mode: KeyMode): string | null =>
  mode === 'live' ? settings.defaultCallbackUrl : settings.testDefaultCallbackUrl;

export interface ApiKeyCaller {
  projectId: string;
  apiKeyId: string;
  /** False for a test key: nothing is charged and only test data is seen. */
  livemode: boolean;
}

export type { AdminScope } from './views.js';

const ROLE_RANK: Record<AdminRole, number> = { viewer: 0, reviewer: 1, admin: 2 };
export const roleAtLeast = (role: AdminRole, wanted: AdminRole) => ROLE_RANK[role] >= ROLE_RANK[wanted];

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
  /** Projects' webhook signing secrets, sealed, by `webhookSecretsKey` (every delivery signs with them). */
  private readonly webhookSecrets: SharedCache<SealedWebhookSecrets>;
  /**
   * What every decision reads of its project, by project id: how long evidence is kept, where webhooks go by default.
   */
  private readonly projectSettings: SharedCache<ProjectSettings>;
  /**
   * Active approved callback destinations, by `approvedCallbackKey` (every session created with a callback checks one).
   */
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
   * Writes a change of the value cached under `key` with its announcement (the store sends it
   * when the write commits), then waits until every instance has dropped it, so the next request
   * anywhere sees the change. A write that found nothing to change (null) announced nothing.
   */
  private async changeCached<T>(
    cache: SharedCache<unknown>,
    key: string,
    write: (announce: Announcement) => Promise<T | null>,
  ): Promise<T | null> {
    const change = cache.change(key);
    const changed = await write({ channel: change.channel, payload: change.payload });
    if (changed !== null) await change.everywhereDropped();
    return changed;
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
    if (scope.projectId !== null && scope.projectId !== projectId)
      throw new DomainError('not_found', 'project not found');
  }

  // ---- projects ----

  async createProject(input: unknown, options: { isDemo?: boolean } = {}) {
    const { name, balance } = parseInput(createProjectInput, input);
    const webhookSigningSecret = newSecret('whsec', 24);
    const testWebhookSigningSecret = newSecret('whsec_test', 24);
    const project = await this.deps.store.addProject({
      id: newId('prj'),
      name,
      webhookSecretSealed: this.deps.sealer.seal(webhookSigningSecret),
      testWebhookSecretSealed: this.deps.sealer.seal(testWebhookSigningSecret),
      balanceMinor: Math.round((balance ?? 0) * 100),
      evidenceRetentionDays: 30,
      currency: 'USD',
      isDemo: options.isDemo ?? false,
      createdAt: this.now(),
    });
    const { apiKey, key } = await this.createApiKey({ projectId: project.id, name: 'default' });
    return { project: projectView(project), apiKey, key, webhookSigningSecret, testWebhookSigningSecret };
  }

  async listProjects(scope?: AdminScope) {
    return (await this.deps.store.projects(scope?.projectId ?? null)).map(projectView);
  }

  async getProject(projectId: string) {
    return projectView(found(await this.deps.store.project(projectId), 'project not found'));
  }

  /**
   * How long a project keeps evidence and where its webhooks go by default, cached (a change is
   * dropped everywhere before it answers). A miss reads inside the caller's transaction when
   * given: a second pooled connection there could wait on a full pool forever.
   */
  async projectSettingsOf(projectId: string, tx?: EntityManager): Promise<ProjectSettings> {
    const settings = await this.projectSettings.read(projectId, () => this.deps.store.projectSettings(projectId, tx));
    return found(settings, 'project not found');
  }

  /** Days a decided session's review images are kept (0: deleted at the decision). */
  async evidenceRetentionDays(projectId: string, tx?: EntityManager): Promise<number> {
    return (await this.projectSettingsOf(projectId, tx)).evidenceRetentionDays;
  }

  demoProjectId(): Promise<string | null> {
    return this.deps.store.demoProjectId();
  }

  /** The secret a project's live webhooks are signed with. */
  async webhookSigningSecret(projectId: string): Promise<string> {
    return (await this.webhookSigningSecrets(projectId, 'live')).current!;
  }

  /**
   * The secrets a project's webhooks of a mode are signed with now: the current one and, while a
   * rotation's overlap lasts, the previous one (deliveries carry both signatures), else null.
   * `current` is null in test mode for a project made before test webhooks that never rotated
   * its test secret. Cached sealed, outside an overlap only: while one lasts (rare, hours) its
   * end is read from the database.
   */
  async webhookSigningSecrets(
    projectId: string,
    mode: KeyMode,
  ): Promise<{ current: string | null; previous: string | null }> {
    const overlapping = (sealed: SealedWebhookSecrets) =>
      sealed.previous !== null && sealed.previousUntil !== null && sealed.previousUntil > this.now();
    const sealed = found(
      await this.webhookSecrets.read(
        webhookSecretsKey(projectId, mode),
        () => this.deps.store.webhookSecrets(projectId, mode),
        (read) => !overlapping(read),
      ),
      'project not found',
    );
    return {
      current: sealed.current === null ? null : this.deps.sealer.open(sealed.current),
      previous: overlapping(sealed) ? this.deps.sealer.open(sealed.previous!) : null,
    };
  }

  /** A new webhook signing secret of a mode (shown once); the old one keeps signing alongside for the overlap. */
  async rotateWebhookSecret(input: unknown) {
    const { projectId, overlapHours, mode } = parseInput(rotateWebhookSecretInput, input);
    const webhookSigningSecret = newSecret(mode === 'live' ? 'whsec' : 'whsec_test', 24);
    const previousValidUntil = new Date(this.now().getTime() + overlapHours * 3_600_000);
    const sealed = this.deps.sealer.seal(webhookSigningSecret);
    const rotated = await this.changeCached(
      this.webhookSecrets,
      webhookSecretsKey(projectId, mode),
      async (announce) =>
        (await this.deps.store.rotateWebhookSecret(projectId, mode, sealed, previousValidUntil, announce)) || null,
    );
    found(rotated, 'project not found');
    return { projectId, mode, webhookSigningSecret, previousValidUntil: previousValidUntil.toISOString() };
  }

  /** Changes a project and drops what `cache` holds of it everywhere; `not_found` without the project. */
  private async changeProject(cache: SharedCache<unknown>, projectId: string, changes: ProjectChanges) {
    const project = await this.changeCached(cache, projectId, (announce) =>
      this.deps.store.updateProject(projectId, changes, announce),
    );
    return projectView(found(project, 'project not found'));
  }

  // ---- API keys ----

  async createApiKey(input: unknown) {
    const { projectId, name, mode } = parseInput(createApiKeyInput, input);
    const key = newSecret(mode === 'test' ? 'vk_test' : 'vk_live');
    const apiKey = {
      id: newId('key'),
      projectId,
      name: name ?? '',
      prefix: key.slice(0, 12),
      mode,
      createdAt: this.now(),
    };
    if (!(await this.deps.store.addApiKey({ ...apiKey, secretDigest: digestSecret(key) })))
      throw new DomainError('not_found', 'project not found');
    return { apiKey: apiKeyView({ ...apiKey, revokedAt: null }), key };
  }

  async listApiKeys(projectId: string) {
    return (await this.deps.store.apiKeys(projectId)).map(apiKeyView);
  }

  /** Revokes a key on every instance: the answer comes once every listening instance has dropped it from its cache. */
  async revokeApiKey(input: unknown) {
    const { projectId, apiKeyId } = parseInput(revokeApiKeyInput, input);
    // Keys are cached by digest, which never changes: read it first to name the change.
    const digest = found(await this.deps.store.apiKeyDigest(projectId, apiKeyId), 'API key not found');
    const apiKey = await this.changeCached(this.apiKeys, digest, (announce) =>
      this.deps.store.revokeApiKey(projectId, apiKeyId, this.now(), announce),
    );
    return apiKeyView(found(apiKey, 'API key not found'));
  }

  /**
   * The project an API key belongs to, or null for an unknown or revoked key (from the cache while revocations are
   * heard).
   */
  async authenticateApiKey(key: string): Promise<ApiKeyCaller | null> {
    if (!key || key.length > 200) return null;
    const digest = digestSecret(key);
    return this.apiKeys.read(digest, async () => {
      const apiKey = await this.deps.store.liveApiKey(digest);
      return apiKey ? { projectId: apiKey.projectId, apiKeyId: apiKey.id, livemode: apiKey.mode === 'live' } : null;
    });
  }

  // ---- workflows ----

  async createWorkflow(input: unknown) {
    const { projectId, name, features, maxStepTries } = parseInput(createWorkflowInput, input);
    const workflow = {
      id: newId('wf'),
      projectId,
      name,
      features,
      maxStepTries: maxStepTries ?? DEFAULT_STEP_TRIES,
      createdAt: this.now(),
    };
    if (!(await this.deps.store.addWorkflow(workflow))) throw new DomainError('not_found', 'project not found');
    return workflowView(workflow);
  }

  async listWorkflows(projectId: string) {
    return (await this.deps.store.workflows(projectId)).map(workflowView);
  }

  /**
   * A workflow of this project; another project's id is `workflow_not_found` like an unknown one.
   * Read from the database once per process (see `workflows`).
   */
  async getWorkflow(projectId: string, workflowId: string): Promise<WorkflowView> {
    const key = `${projectId}/${workflowId}`;
    let view = this.workflows.get(key);
    if (!view) {
      const workflow = await this.deps.store.workflow(projectId, workflowId);
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
      throw new DomainError(
        'callback_not_allowed',
        'callback must be a public address: loopback, private and link-local addresses need VERITY_ALLOW_INSECURE_CALLBACKS=1',
      );
    }
    const allowed =
      url.protocol === 'https:' || (url.protocol === 'http:' && loopback && this.deps.allowInsecureCallbacks);
    if (!allowed) {
      throw new DomainError(
        'callback_not_allowed',
        loopback
          ? 'plain http callbacks to loopback need VERITY_ALLOW_INSECURE_CALLBACKS=1'
          : 'callback must be an HTTPS URL',
      );
    }
    return url.toString();
  }

  /**
   * Approves a destination, or makes it active again. No cache is told: only active destinations
   * are cached, so one becoming active needs no instance to forget anything.
   */
  async approveCallback(input: unknown) {
    const { projectId, url, mode } = parseInput(callbackUrlInput, input);
    const normalized = this.checkCallbackUrl(url);
    const destination = await this.deps.store.approveCallback({
      id: newId('cbd'),
      projectId,
      url: normalized,
      mode,
      createdAt: this.now(),
    });
    return callbackView(found(destination, 'project not found'));
  }

  async setCallbackActive(input: unknown) {
    const { projectId, url, active, mode } = parseInput(setCallbackActiveInput, input);
    const destination = await this.changeCached(
      this.approvedCallbacks,
      approvedCallbackKey(projectId, mode, url),
      (announce) => this.deps.store.setCallbackActive(projectId, mode, url, active, announce),
    );
    return callbackView(found(destination, 'callback destination not found'));
  }

  /** A receiver answered 410 Gone: nothing more of this mode goes to this destination until ops enable it again. */
  async disableCallback(projectId: string, url: string, mode: KeyMode): Promise<void> {
    await this.changeCached(this.approvedCallbacks, approvedCallbackKey(projectId, mode, url), (announce) =>
      this.deps.store.setCallbackActive(projectId, mode, url, false, announce),
    );
  }

  async listCallbacks(projectId: string) {
    return (await this.deps.store.callbacks(projectId)).map(callbackView);
  }

  /** True when `url` is exactly an active destination of the project approved for this mode's sessions. */
  async isApprovedCallback(projectId: string, url: string, mode: KeyMode): Promise<boolean> {
    const approved = await this.approvedCallbacks.read(approvedCallbackKey(projectId, mode, url), async () =>
      (await this.deps.store.isApprovedCallback(projectId, mode, url)) ? true : null,
    );
    return approved === true;
  }

  /** The app-level callback URL of a mode (null clears it: that mode's events are then kept, not sent). */
  async setDefaultCallback(input: unknown) {
    const { projectId, url, mode } = parseInput(defaultCallbackInput, input);
    const checked = url === null ? null : this.checkCallbackUrl(url);
    return this.changeProject(
      this.projectSettings,
      projectId,
      mode === 'live' ? { defaultCallbackUrl: checked } : { testDefaultCallbackUrl: checked },
    );
  }

  async setEvidenceRetention(input: unknown) {
    const { projectId, days } = parseInput(evidenceRetentionInput, input);
    return this.changeProject(this.projectSettings, projectId, { evidenceRetentionDays: days });
  }

  /** The hosted page's privacy policy link, support link and logo (the logo re-encoded by safeLogo). */
  async setBranding(input: unknown) {
    const { projectId, privacyPolicyUrl, supportUrl, logo } = parseInput(brandingInput, input);
    const logoPng = logo === undefined || logo === null ? logo : await safeLogo(logo);
    return this.changeProject(this.brandings, projectId, { privacyPolicyUrl, supportUrl, logoPng });
  }

  /** What the hosted page shows of a project: its name, privacy policy and support links, and whether it has a logo. */
  async projectBranding(projectId: string): Promise<ProjectBranding> {
    return found(await this.brandings.read(projectId, () => this.deps.store.branding(projectId)), 'project not found');
  }

  /** The project's logo (PNG), or null. */
  projectLogo(projectId: string): Promise<Buffer | null> {
    return this.deps.store.logo(projectId);
  }

  // ---- OIDC clients ----

  async createOidcClient(input: unknown) {
    const { projectId, name, redirectUris, scopes, organizationId, requirePkce } = parseInput(
      createOidcClientInput,
      input,
    );
    found(await this.deps.store.project(projectId), 'project not found');
    if (organizationId !== undefined && !(await this.deps.organizations.exists(organizationId)))
      throw new DomainError('not_found', 'organization not found');
    const clientSecret = newSecret('vcs');
    const client = {
      clientId: newId('vc'),
      projectId,
      name,
      clientSecretDigest: digestSecret(clientSecret),
      redirectUris: [...new Set(redirectUris)],
      scopes: [...new Set(scopes)],
      organizationId: organizationId ?? null,
      active: true,
      requirePkce,
      createdAt: this.now(),
    };
    if (!(await this.deps.store.addOidcClient(client))) throw new DomainError('not_found', 'project not found');
    return { client: oidcClientView(client), clientSecret };
  }

  async listOidcClients(projectId: string) {
    return (await this.deps.store.oidcClients(projectId)).map(oidcClientView);
  }

  // ---- organization apps ----

  async createOrgApp(input: unknown) {
    const { organizationId, organizationName, name } = parseInput(createOrgAppInput, input);
    if (organizationId !== undefined && !(await this.deps.organizations.exists(organizationId)))
      throw new DomainError('not_found', 'organization not found');
    // A new organization is the roster's to create; should the app's insert then fail (a new
    // random id, a live database), the organization stays, empty, and a retry names it by id.
    const appOrganizationId = organizationId ?? (await this.deps.organizations.create(organizationName!));
    const clientSecret = newSecret('ocs');
    const app = {
      clientId: newId('oc'),
      organizationId: appOrganizationId,
      name,
      clientSecretDigest: digestSecret(clientSecret),
      active: true,
      createdAt: this.now(),
    };
    await this.deps.store.addOrgApp(app);
    return { app: await this.orgAppWithName(app), clientSecret };
  }

  async listOrgApps() {
    const apps = await this.deps.store.orgApps();
    const names = await this.deps.organizations.names([...new Set(apps.map((app) => app.organizationId))]);
    return apps.map((app) => orgAppView(app, names.get(app.organizationId) ?? null));
  }

  private async orgAppWithName(app: OrgAppRecord) {
    const names = await this.deps.organizations.names([app.organizationId]);
    return orgAppView(app, names.get(app.organizationId) ?? null);
  }

  /** The organization behind roster API credentials, or null when they are wrong or inactive. */
  async authenticateOrgApp(
    clientId: string,
    clientSecret: string,
  ): Promise<{ organizationId: number; clientId: string } | null> {
    if (!clientId || !clientSecret || clientId.length > 64 || clientSecret.length > 200) return null;
    const app = await this.deps.store.orgApp(clientId);
    // Digest comparison in constant time; an unknown client id still pays for one digest.
    const presented = digestSecret(clientSecret);
    if (!app?.active) return null;
    return safeEqual(presented, app.clientSecretDigest)
      ? { organizationId: app.organizationId, clientId: app.clientId }
      : null;
  }

  // ---- deactivation and secret rotation ----

  /** Deactivates (or reactivates) an OIDC client: an inactive one signs nobody in and gets no tokens. */
  async setOidcClientActive(input: unknown) {
    const { projectId, clientId, active } = parseInput(oidcClientActiveInput, input);
    return oidcClientView(await this.changeOidcClient(projectId, clientId, { active }));
  }

  /** A new client secret, shown once; the old one stops working at once. */
  async rotateOidcClientSecret(input: unknown) {
    const { projectId, clientId } = parseInput(oidcClientRefInput, input);
    const clientSecret = newSecret('vcs');
    const client = await this.changeOidcClient(projectId, clientId, { clientSecretDigest: digestSecret(clientSecret) });
    return { client: oidcClientView(client), clientSecret };
  }

  /**
   * Whether the client must use PKCE (S256) at authorize. Every client must by default (RFC 9700);
   * turn it off only for a confidential legacy client that cannot send a code_challenge.
   */
  async setOidcClientPkce(input: unknown) {
    const { projectId, clientId, requirePkce } = parseInput(oidcClientPkceInput, input);
    return oidcClientView(await this.changeOidcClient(projectId, clientId, { requirePkce }));
  }

  private async changeOidcClient(projectId: string, clientId: string, changes: OidcClientChanges) {
    const client = await this.changeCached(this.oidcClients, clientId, (announce) =>
      this.deps.store.changeOidcClient(projectId, clientId, changes, announce),
    );
    return found(client, 'OIDC client not found');
  }

  /**
   * An OIDC client by id (from the cache while changes are heard), or null. Read-only: change clients through this
   * service.
   */
  oidcClient(clientId: string): Promise<RegisteredClient | null> {
    return this.oidcClients.read(clientId, () => this.deps.store.oidcClient(clientId));
  }

  /** The ids of the OIDC clients of an organization (whose roster members sign in with them). */
  oidcClientIdsOfOrganization(organizationId: number): Promise<string[]> {
    return this.deps.store.oidcClientIdsOfOrganization(organizationId);
  }

  /** The ids of the project's OIDC clients, active or not. */
  oidcClientIdsOf(projectId: string): Promise<string[]> {
    return this.deps.store.oidcClientIdsOfProject(projectId);
  }

  /** Deactivates (or reactivates) an organization app: an inactive one is refused by the roster API. */
  async setOrgAppActive(input: unknown) {
    const { clientId, active } = parseInput(orgAppActiveInput, input);
    return this.orgAppWithName(
      found(await this.deps.store.changeOrgApp(clientId, { active }), 'organization app not found'),
    );
  }

  /** A new organization app secret, shown once; the old one stops working at once. */
  async rotateOrgAppSecret(input: unknown) {
    const { clientId } = parseInput(orgAppRefInput, input);
    const clientSecret = newSecret('ocs');
    const app = found(
      await this.deps.store.changeOrgApp(clientId, { clientSecretDigest: digestSecret(clientSecret) }),
      'organization app not found',
    );
    return { app: await this.orgAppWithName(app), clientSecret };
  }

  // ---- admin tokens ----

  async createAdminToken(input: unknown) {
    const { role, projectId, name, expiresInDays } = parseInput(createAdminTokenInput, input);
    const token = newSecret('vat');
    const now = this.now();
    const row = {
      id: newId('adm'),
      name: name ?? '',
      role,
      projectId: projectId ?? null,
      createdAt: now,
      expiresAt: expiresInDays ? new Date(now.getTime() + expiresInDays * 86_400_000) : null,
    };
    if (!(await this.deps.store.addAdminToken({ ...row, tokenDigest: digestSecret(token) })))
      throw new DomainError('not_found', 'project not found');
    return { id: row.id, role, projectId: row.projectId, token, expiresAt: row.expiresAt?.toISOString() ?? null };
  }

  /** Admin tokens (never the tokens themselves): which exist, whose, until when, revoked or not. */
  async adminTokens() {
    return (await this.deps.store.adminTokens()).map((row) => adminTokenView(row, this.now()));
  }

  /** Revokes an admin token at once (idempotent); it no longer authenticates. */
  async revokeAdminToken(input: unknown) {
    const { tokenId } = parseInput(revokeAdminTokenInput, input);
    const row = found(await this.deps.store.revokeAdminToken(tokenId, this.now()), 'admin token not found');
    return adminTokenView(row, this.now());
  }

  async authenticateAdminToken(token: string): Promise<AdminScope | null> {
    if (!token || token.length > 200) return null;
    const row = await this.deps.store.liveAdminToken(digestSecret(token), this.now());
    return row ? { tokenId: row.id, role: row.role, projectId: row.projectId } : null;
  }
}

/** What a store found, or 404 `not_found` with `message`. */
function found<T>(value: T | null, message: string): T {
  if (value === null) throw new DomainError('not_found', message);
  return value;
}
