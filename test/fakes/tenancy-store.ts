import type { KeyMode } from '../../src/core/tenancy/entities.js';
import type {
  AdminTokenRecord,
  Announcement,
  ApiKeyRecord,
  CallbackRecord,
  OidcClientRecord,
  OrgAppRecord,
  ProjectChanges,
  ProjectRecord,
  SealedWebhookSecrets,
  TenancyStore,
  WorkflowRecord,
} from '../../src/core/tenancy/store.js';

type StoredProject = ProjectRecord & { sealed: Record<KeyMode, SealedWebhookSecrets>; logoPng: Buffer | null };

/** The order the store lists rows in: oldest first, then by id. */
const oldestFirst =
  <T extends { createdAt: Date }>(id: (row: T) => string) =>
  (a: T, b: T) =>
    a.createdAt.getTime() - b.createdAt.getTime() || (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0);

/** A key or token as the store answers it: its secret's digest stays in the table. */
const withoutDigest = <T extends object>({
  secretDigest: _,
  tokenDigest: __,
  ...row
}: T & { secretDigest?: string; tokenDigest?: string }) => row;

/**
 * Tenancy's tables in memory, held to the same contract as PgTenancyStore (test/contracts/tenancy-store.ts); every
 * announcement a write carried is kept in `announced`, and the reads the caches should spare are counted in `reads`.
 */
export class FakeTenancyStore implements TenancyStore {
  projectRows = new Map<string, StoredProject>();
  keys = new Map<string, ApiKeyRecord & { secretDigest: string }>();
  workflowRows: WorkflowRecord[] = [];
  callbackRows: CallbackRecord[] = [];
  clients = new Map<string, OidcClientRecord>();
  apps = new Map<string, OrgAppRecord>();
  tokens = new Map<string, AdminTokenRecord & { tokenDigest: string }>();
  announced: Announcement[] = [];
  reads = 0;

  private announce<T>(row: T | null | undefined, announcement: Announcement): T | null {
    if (row) this.announced.push(announcement);
    return row ?? null;
  }
  private record({ sealed: _, logoPng: __, ...project }: StoredProject): ProjectRecord {
    return { ...project };
  }
  async addProject(project: Parameters<TenancyStore['addProject']>[0]) {
    const { webhookSecretSealed, testWebhookSecretSealed, balanceMinor, ...rest } = project;
    const sealed = (current: string) => ({ current, previous: null, previousUntil: null });
    const row = {
      ...rest,
      spendableMinor: balanceMinor,
      defaultCallbackUrl: null,
      testDefaultCallbackUrl: null,
      hasTestWebhookSecret: true,
      privacyPolicyUrl: null,
      supportUrl: null,
      hasLogo: false,
      logoPng: null,
      sealed: { live: sealed(webhookSecretSealed), test: sealed(testWebhookSecretSealed) },
    };
    this.projectRows.set(row.id, row);
    return this.record(row);
  }
  async projects(onlyId: string | null) {
    return [...this.projectRows.values()]
      .filter((row) => onlyId === null || row.id === onlyId)
      .map((row) => this.record(row));
  }
  async project(id: string) {
    const row = this.projectRows.get(id);
    return row ? this.record(row) : null;
  }
  async projectSettings(id: string) {
    const row = this.projectRows.get(id);
    return row
      ? {
          evidenceRetentionDays: row.evidenceRetentionDays,
          defaultCallbackUrl: row.defaultCallbackUrl,
          testDefaultCallbackUrl: row.testDefaultCallbackUrl,
        }
      : null;
  }
  async demoProjectId() {
    return [...this.projectRows.values()].find((row) => row.isDemo)?.id ?? null;
  }
  async webhookSecrets(id: string, mode: KeyMode) {
    this.reads += 1;
    const row = this.projectRows.get(id);
    return row ? { ...row.sealed[mode] } : null;
  }
  async rotateWebhookSecret(
    id: string,
    mode: KeyMode,
    sealed: string,
    previousUntil: Date,
    announcement: Announcement,
  ) {
    const row = this.projectRows.get(id);
    if (row) row.sealed[mode] = { current: sealed, previous: row.sealed[mode].current, previousUntil };
    return this.announce(row, announcement) !== null;
  }
  async updateProject(id: string, changes: ProjectChanges, announcement: Announcement) {
    const row = this.projectRows.get(id);
    if (!row) return null;
    const { logoPng, ...rest } = changes;
    for (const [field, value] of Object.entries(rest)) if (value !== undefined) Object.assign(row, { [field]: value });
    if (logoPng !== undefined) Object.assign(row, { logoPng, hasLogo: logoPng !== null });
    return this.announce(this.record(row), announcement);
  }
  async branding(id: string) {
    const row = this.projectRows.get(id);
    return row
      ? { name: row.name, privacyPolicyUrl: row.privacyPolicyUrl, supportUrl: row.supportUrl, hasLogo: row.hasLogo }
      : null;
  }
  async logo(id: string) {
    return this.projectRows.get(id)?.logoPng ?? null;
  }
  async addApiKey(key: Parameters<TenancyStore['addApiKey']>[0]) {
    if (!this.projectRows.has(key.projectId)) return false;
    this.keys.set(key.id, { ...key, revokedAt: null });
    return true;
  }
  async apiKeys(projectId: string): Promise<ApiKeyRecord[]> {
    return [...this.keys.values()]
      .filter((key) => key.projectId === projectId)
      .sort(oldestFirst((key) => key.id))
      .map((key) => withoutDigest({ ...key }));
  }
  async apiKeyDigest(projectId: string, id: string) {
    const key = this.keys.get(id);
    return key?.projectId === projectId ? key.secretDigest : null;
  }
  async revokeApiKey(projectId: string, id: string, at: Date, announcement: Announcement) {
    const key = this.keys.get(id);
    if (key?.projectId !== projectId) return null;
    key.revokedAt ??= at;
    return this.announce(withoutDigest({ ...key }), announcement);
  }
  async liveApiKey(secretDigest: string) {
    this.reads += 1;
    const key = [...this.keys.values()].find((row) => row.secretDigest === secretDigest && !row.revokedAt);
    return key ? { id: key.id, projectId: key.projectId, mode: key.mode } : null;
  }
  async addWorkflow(workflow: WorkflowRecord) {
    if (!this.projectRows.has(workflow.projectId)) return false;
    this.workflowRows.push(structuredClone(workflow));
    return true;
  }
  async workflows(projectId: string) {
    return structuredClone(this.workflowRows.filter((row) => row.projectId === projectId)).sort(
      oldestFirst((row) => row.id),
    );
  }
  async workflow(projectId: string, id: string) {
    this.reads += 1;
    return structuredClone(this.workflowRows.find((row) => row.projectId === projectId && row.id === id)) ?? null;
  }
  async approveCallback(destination: Omit<CallbackRecord, 'active'>) {
    if (!this.projectRows.has(destination.projectId)) return null;
    const existing = this.callbackRows.find(
      (row) => row.projectId === destination.projectId && row.mode === destination.mode && row.url === destination.url,
    );
    if (existing) existing.active = true;
    else this.callbackRows.push({ ...destination, active: true });
    return { ...(existing ?? this.callbackRows.at(-1)!) };
  }
  async setCallbackActive(projectId: string, mode: KeyMode, url: string, active: boolean, announcement: Announcement) {
    const row = this.callbackRows.find(
      (candidate) => candidate.projectId === projectId && candidate.mode === mode && candidate.url === url,
    );
    if (row) row.active = active;
    return this.announce(row && { ...row }, announcement);
  }
  /** Live destinations before test ones, then oldest first. */
  async callbacks(projectId: string) {
    const byAge = oldestFirst<CallbackRecord>((row) => row.id);
    return this.callbackRows
      .filter((row) => row.projectId === projectId)
      .map((row) => ({ ...row }))
      .sort((a, b) => (a.mode === b.mode ? byAge(a, b) : a.mode === 'live' ? -1 : 1));
  }
  async isApprovedCallback(projectId: string, mode: KeyMode, url: string) {
    return this.callbackRows.some(
      (row) => row.projectId === projectId && row.mode === mode && row.url === url && row.active,
    );
  }
  async addOidcClient(client: OidcClientRecord) {
    if (!this.projectRows.has(client.projectId)) return false;
    this.clients.set(client.clientId, { ...client });
    return true;
  }
  async oidcClients(projectId: string) {
    return [...this.clients.values()]
      .filter((client) => client.projectId === projectId)
      .sort(oldestFirst((client) => client.clientId))
      .map((client) => ({ ...client }));
  }
  async oidcClient(clientId: string) {
    const client = this.clients.get(clientId);
    if (!client) return null;
    const { createdAt: _, ...registered } = client;
    return { ...registered };
  }
  async changeOidcClient(
    projectId: string,
    clientId: string,
    changes: { active?: boolean; clientSecretDigest?: string },
    announcement: Announcement,
  ) {
    const client = this.clients.get(clientId);
    if (client?.projectId !== projectId) return null;
    Object.assign(client, Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)));
    return this.announce({ ...client }, announcement);
  }
  async oidcClientIdsOfOrganization(organizationId: number) {
    return [...this.clients.values()]
      .filter((client) => client.organizationId === organizationId)
      .map((client) => client.clientId);
  }
  async oidcClientIdsOfProject(projectId: string) {
    return (await this.oidcClients(projectId)).map((client) => client.clientId);
  }
  async addOrgApp(app: OrgAppRecord) {
    this.apps.set(app.clientId, { ...app });
  }
  async orgApps() {
    return [...this.apps.values()].sort(oldestFirst((app) => app.clientId)).map((app) => ({ ...app }));
  }
  async orgApp(clientId: string) {
    const app = this.apps.get(clientId);
    return app ? { ...app } : null;
  }
  async changeOrgApp(clientId: string, changes: { active?: boolean; clientSecretDigest?: string }) {
    const app = this.apps.get(clientId);
    if (!app) return null;
    Object.assign(app, Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)));
    return { ...app };
  }
  async addAdminToken(token: Parameters<TenancyStore['addAdminToken']>[0]) {
    if (token.projectId !== null && !this.projectRows.has(token.projectId)) return false;
    this.tokens.set(token.id, { ...token, revokedAt: null });
    return true;
  }
  /** Newest first. */
  async adminTokens(): Promise<AdminTokenRecord[]> {
    const byAge = oldestFirst<AdminTokenRecord>((token) => token.id);
    return [...this.tokens.values()].sort((a, b) => byAge(b, a)).map((token) => withoutDigest({ ...token }));
  }
  async revokeAdminToken(id: string, at: Date): Promise<AdminTokenRecord | null> {
    const token = this.tokens.get(id);
    if (token) token.revokedAt ??= at;
    return token ? withoutDigest({ ...token }) : null;
  }
  async liveAdminToken(tokenDigest: string, now: Date): Promise<AdminTokenRecord | null> {
    const token = [...this.tokens.values()].find(
      (row) => row.tokenDigest === tokenDigest && !row.revokedAt && (!row.expiresAt || row.expiresAt > now),
    );
    return token ? withoutDigest({ ...token }) : null;
  }
}
