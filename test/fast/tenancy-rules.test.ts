// Tenancy's rules on a fake store, in milliseconds: which callback URLs may be approved, who an
// API key, an organization app or an admin token authenticates, what a project-scoped or
// low-role admin token may reach, how long a rotated webhook secret keeps signing, and that every
// change other instances cache is announced under the key they cache it by. The SQL behind the
// store runs through the admin API, the hosted page and the webhooks in tenancy.test.ts,
// admin-api.test.ts, project-branding.test.ts and instance-caches.test.ts.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { Notifications } from '../../src/core/db/notifications.js';
import { DomainError } from '../../src/core/errors.js';
import { digestSecret, Sealer } from '../../src/core/secrets.js';
import { TenancyService } from '../../src/core/tenancy/service.js';
import type { Announcement } from '../../src/core/tenancy/store.js';
import { FakeTenancyStore } from '../fakes/tenancy-store.js';

/** LISTEN/NOTIFY as one live instance that hears nothing from others: values are cached, changes wait for no one. */
const aloneAndListening = {
  live: true,
  on() {},
  onLost() {},
  listeners: async () => 0,
  send: async () => {},
} as unknown as Notifications;

function tenancy(options: { insecure?: boolean } = {}) {
  const store = new FakeTenancyStore();
  const clock = new ManualClock(new Date('2026-11-29T12:00:00Z'));
  const organizations = {
    exists: async (id: number) => id === 7,
    create: async () => 8,
    names: async (ids: readonly number[]) => new Map(ids.map((id) => [id, `org ${id}`])),
  };
  const service = new TenancyService({
    store,
    clock,
    sealer: new Sealer(Buffer.alloc(32, 7).toString('base64')),
    allowInsecureCallbacks: options.insecure ?? false,
    notifications: aloneAndListening,
    organizations,
  });
  return { service, store, clock };
}

async function notFound(promise: Promise<unknown>, code = 'not_found') {
  await expect(promise).rejects.toSatisfy((error: unknown) => error instanceof DomainError && error.code === code);
}

/** The key an announcement names (SharedCache's `<change id>:<key>` payload). */
const keyOf = (announcement: Announcement) => announcement.payload.slice(announcement.payload.indexOf(':') + 1);

describe('projects and API keys', () => {
  it('a new project comes with a live default key that authenticates, and its balance in minor units', async () => {
    const { service } = tenancy();
    const { project, key, apiKey, webhookSigningSecret } = await service.createProject({
      name: 'Acme',
      balance: 12.345,
    });
    expect(project.balance).toBe(12.35);
    expect(apiKey.name).toBe('default');
    expect(key).toMatch(/^vk_live_/);
    expect(webhookSigningSecret).toMatch(/^whsec_/);
    expect(await service.authenticateApiKey(key)).toEqual({
      projectId: project.id,
      apiKeyId: apiKey.id,
      livemode: true,
    });
    const test = await service.createApiKey({ projectId: project.id, mode: 'test' });
    expect((await service.authenticateApiKey(test.key))?.livemode).toBe(false);
  });

  it('a key for a project that does not exist is not_found', async () => {
    await notFound(tenancy().service.createApiKey({ projectId: 'prj_nope' }));
  });

  it('a revoked key stops authenticating, the change is announced under its digest, and the first revocation time stays', async () => {
    const { service, store, clock } = tenancy();
    const { project, key, apiKey } = await service.createProject({ name: 'Acme' });
    await service.authenticateApiKey(key);
    const first = await service.revokeApiKey({ projectId: project.id, apiKeyId: apiKey.id });
    expect(store.announced.map(keyOf)).toEqual([digestSecret(key)]);
    expect(store.announced[0]!.channel).toBe('verity_api_key_changed');
    expect(await service.authenticateApiKey(key)).toBeNull();
    clock.advance(60_000);
    expect((await service.revokeApiKey({ projectId: project.id, apiKeyId: apiKey.id })).revokedAt).toBe(
      first.revokedAt,
    );
  });

  it("another project's key is not_found, and revoking it changes nothing", async () => {
    const { service, store } = tenancy();
    const mine = await service.createProject({ name: 'Mine' });
    const theirs = await service.createProject({ name: 'Theirs' });
    await notFound(service.revokeApiKey({ projectId: mine.project.id, apiKeyId: theirs.apiKey.id }));
    expect(store.announced).toEqual([]);
    expect(await service.authenticateApiKey(theirs.key)).not.toBeNull();
  });

  it('a key longer than any we issue is refused without a lookup', async () => {
    const { service, store } = tenancy();
    expect(await service.authenticateApiKey(`vk_live_${'a'.repeat(300)}`)).toBeNull();
    expect(await service.authenticateApiKey('')).toBeNull();
    expect(store.reads).toBe(0);
  });
});

describe('callback destinations', () => {
  it('takes public HTTPS only: no plain http, credentials, fragments, loopback or private addresses', async () => {
    const { service } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    for (const url of [
      'http://hooks.example.com/x',
      'https://user:pw@hooks.example.com/x',
      'https://hooks.example.com/x#frag',
      'https://localhost/x',
      'https://10.1.2.3/x',
      'https://[::1]/x',
      'https://169.254.169.254/latest',
      // IPv6 spellings of 127.0.0.1: IPv4-compatible, 6to4, IPv4-mapped
      'https://[::127.0.0.1]/x',
      'https://[2002:7f00:1::]/x',
      'https://[::ffff:127.0.0.1]/x',
      'not a url',
    ]) {
      await notFound(service.approveCallback({ projectId: project.id, url }), 'callback_not_allowed');
    }
    expect((await service.approveCallback({ projectId: project.id, url: 'https://hooks.example.com/x' })).url).toBe(
      'https://hooks.example.com/x',
    );
  });

  it('plain http to loopback only with VERITY_ALLOW_INSECURE_CALLBACKS', async () => {
    const { service } = tenancy({ insecure: true });
    const { project } = await service.createProject({ name: 'Acme' });
    expect((await service.approveCallback({ projectId: project.id, url: 'http://127.0.0.1:9/hook' })).active).toBe(
      true,
    );
    await notFound(
      service.approveCallback({ projectId: project.id, url: 'http://hooks.example.com/x' }),
      'callback_not_allowed',
    );
  });

  it('approving twice keeps one destination; a disabled one is approved again, and disabling is announced under project and URL', async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const url = 'https://hooks.example.com/x';
    const first = await service.approveCallback({ projectId: project.id, url });
    expect((await service.approveCallback({ projectId: project.id, url })).id).toBe(first.id);
    expect(await service.isApprovedCallback(project.id, url, 'live')).toBe(true);
    await service.disableCallback(project.id, url, 'live');
    expect(store.announced.map(keyOf)).toEqual([`${project.id} live ${url}`]);
    expect(await service.isApprovedCallback(project.id, url, 'live')).toBe(false);
    expect((await service.approveCallback({ projectId: project.id, url })).active).toBe(true);
    expect(await service.listCallbacks(project.id)).toHaveLength(1);
    await notFound(
      service.setCallbackActive({ projectId: project.id, url: 'https://other.example.com/', active: true }),
    );
  });

  it('are approved per mode: a live destination is not one for test sessions, nor the other way round', async () => {
    const { service } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const live = 'https://hooks.example.com/live';
    const test = 'https://hooks.example.com/test';
    expect((await service.approveCallback({ projectId: project.id, url: live })).mode).toBe('live');
    expect((await service.approveCallback({ projectId: project.id, url: test, mode: 'test' })).mode).toBe('test');
    expect(await service.isApprovedCallback(project.id, live, 'test')).toBe(false);
    expect(await service.isApprovedCallback(project.id, test, 'live')).toBe(false);
    expect(await service.isApprovedCallback(project.id, test, 'test')).toBe(true);
    // The same URL approved for both modes is two destinations, disabled one at a time.
    await service.approveCallback({ projectId: project.id, url: live, mode: 'test' });
    await service.setCallbackActive({ projectId: project.id, url: live, mode: 'test', active: false });
    expect(await service.isApprovedCallback(project.id, live, 'live')).toBe(true);
    expect((await service.listCallbacks(project.id)).map((d) => [d.url, d.mode, d.active])).toEqual(
      expect.arrayContaining([
        [live, 'live', true],
        [live, 'test', false],
        [test, 'test', true],
      ]),
    );
  });
});

describe('webhook signing secrets', () => {
  it('after a rotation both secrets sign until the overlap ends, then only the new one', async () => {
    const { service, store, clock } = tenancy();
    const { project, webhookSigningSecret: old } = await service.createProject({ name: 'Acme' });
    expect(await service.webhookSigningSecrets(project.id, 'live')).toEqual({ current: old, previous: null });
    const { webhookSigningSecret: fresh } = await service.rotateWebhookSecret({
      projectId: project.id,
      overlapHours: 2,
    });
    expect(store.announced.map(keyOf)).toEqual([`${project.id} live`]);
    expect(await service.webhookSigningSecrets(project.id, 'live')).toEqual({ current: fresh, previous: old });
    clock.advance(2 * 3_600_000 + 1);
    expect(await service.webhookSigningSecrets(project.id, 'live')).toEqual({ current: fresh, previous: null });
    await notFound(service.rotateWebhookSecret({ projectId: 'prj_nope', overlapHours: 1 }));
  });

  it('test mode has its own secret, made with the project and rotated apart from the live one', async () => {
    const { service } = tenancy();
    const {
      project,
      webhookSigningSecret: live,
      testWebhookSigningSecret: test,
    } = await service.createProject({ name: 'Acme' });
    expect(test).not.toBe(live);
    expect(await service.webhookSigningSecrets(project.id, 'test')).toEqual({ current: test, previous: null });
    const rotated = await service.rotateWebhookSecret({ projectId: project.id, mode: 'test', overlapHours: 0 });
    expect(rotated.mode).toBe('test');
    expect(await service.webhookSigningSecrets(project.id, 'test')).toEqual({
      current: rotated.webhookSigningSecret,
      previous: null,
    });
    expect(await service.webhookSigningSecrets(project.id, 'live')).toEqual({ current: live, previous: null });
  });

  it('are cached outside an overlap only', async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    await service.webhookSigningSecrets(project.id, 'live');
    await service.webhookSigningSecrets(project.id, 'live');
    expect(store.reads).toBe(1);
    await service.rotateWebhookSecret({ projectId: project.id, overlapHours: 1 });
    await service.webhookSigningSecrets(project.id, 'live');
    await service.webhookSigningSecrets(project.id, 'live');
    expect(store.reads).toBe(3);
  });
});

describe('project settings', () => {
  it('each change is announced to the cache that holds it, and a setting left out stays', async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    await service.setBranding({ projectId: project.id, privacyPolicyUrl: 'https://acme.example/privacy' });
    await service.setEvidenceRetention({ projectId: project.id, days: 0 });
    const changed = await service.setDefaultCallback({ projectId: project.id, url: 'https://hooks.example.com/d' });
    expect(store.announced.map((announcement) => announcement.channel)).toEqual([
      'verity_project_branding_changed',
      'verity_project_settings_changed',
      'verity_project_settings_changed',
    ]);
    expect(changed).toMatchObject({
      privacyPolicyUrl: 'https://acme.example/privacy',
      evidenceRetentionDays: 0,
      defaultCallbackUrl: 'https://hooks.example.com/d',
      testDefaultCallbackUrl: null,
    });
    const test = await service.setDefaultCallback({
      projectId: project.id,
      url: 'https://hooks.example.com/t',
      mode: 'test',
    });
    expect(test).toMatchObject({
      defaultCallbackUrl: 'https://hooks.example.com/d',
      testDefaultCallbackUrl: 'https://hooks.example.com/t',
    });
    expect(await service.projectSettingsOf(project.id)).toMatchObject({
      defaultCallbackUrl: 'https://hooks.example.com/d',
      testDefaultCallbackUrl: 'https://hooks.example.com/t',
    });
    expect(await service.evidenceRetentionDays(project.id)).toBe(0);
    await notFound(service.setEvidenceRetention({ projectId: 'prj_nope', days: 3 }));
    await notFound(
      service.setDefaultCallback({ projectId: project.id, url: 'http://hooks.example.com/d' }),
      'callback_not_allowed',
    );
  });
});

describe('workflows', () => {
  it("are read once per process, a caller's copy cannot change the cached one, and another project's id is workflow_not_found", async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const other = await service.createProject({ name: 'Other' });
    const workflow = await service.createWorkflow({
      projectId: project.id,
      name: 'kyc',
      features: ['id_verification'],
    });
    const first = await service.getWorkflow(project.id, workflow.id);
    first.features.push('liveness');
    expect((await service.getWorkflow(project.id, workflow.id)).features).toEqual(['id_verification']);
    expect(store.reads).toBe(1);
    await notFound(service.getWorkflow(other.project.id, workflow.id), 'workflow_not_found');
  });
});

describe('OIDC clients and organization apps', () => {
  it('a client needs its project and an organization that exists; deactivation and rotation are announced under the client id', async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const base = {
      projectId: project.id,
      name: 'Portal',
      redirectUris: ['https://rp.example/cb', 'https://rp.example/cb'],
      scopes: ['openid'],
    };
    await notFound(service.createOidcClient({ ...base, organizationId: 99 }));
    await notFound(service.createOidcClient({ ...base, projectId: 'prj_nope' }));
    const { client, clientSecret } = await service.createOidcClient({ ...base, organizationId: 7 });
    expect(client.redirectUris).toEqual(['https://rp.example/cb']);
    expect((await service.oidcClient(client.clientId))?.clientSecretDigest).toBe(digestSecret(clientSecret));
    expect(
      (await service.setOidcClientActive({ projectId: project.id, clientId: client.clientId, active: false })).active,
    ).toBe(false);
    const rotated = await service.rotateOidcClientSecret({ projectId: project.id, clientId: client.clientId });
    expect(store.announced.map(keyOf)).toEqual([client.clientId, client.clientId]);
    expect((await service.oidcClient(client.clientId))?.clientSecretDigest).toBe(digestSecret(rotated.clientSecret));
    const other = await service.createProject({ name: 'Other' });
    await notFound(
      service.setOidcClientActive({ projectId: other.project.id, clientId: client.clientId, active: true }),
    );
  });

  it('requires PKCE of a client unless it is registered or changed without it (a confidential legacy client), announced like any change', async () => {
    const { service, store } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const base = { projectId: project.id, name: 'Portal', redirectUris: ['https://rp.example/cb'] };
    const { client } = await service.createOidcClient(base);
    expect(client.requirePkce).toBe(true);
    const { client: legacy } = await service.createOidcClient({ ...base, name: 'Legacy', requirePkce: false });
    expect((await service.oidcClient(legacy.clientId))?.requirePkce).toBe(false);
    expect(
      (await service.setOidcClientPkce({ projectId: project.id, clientId: legacy.clientId, requirePkce: true }))
        .requirePkce,
    ).toBe(true);
    expect((await service.oidcClient(legacy.clientId))?.requirePkce).toBe(true);
    expect(store.announced.map(keyOf)).toEqual([legacy.clientId]);
    await expect(service.setOidcClientPkce({ projectId: project.id, clientId: legacy.clientId })).rejects.toMatchObject(
      { code: 'validation_error' },
    );
    const other = await service.createProject({ name: 'Other' });
    await notFound(
      service.setOidcClientPkce({ projectId: other.project.id, clientId: client.clientId, requirePkce: false }),
    );
  });

  it('an organization app authenticates with its current secret while active only', async () => {
    const { service } = tenancy();
    const { app, clientSecret } = await service.createOrgApp({ organizationName: 'Clinic', name: 'HR' });
    expect(app).toMatchObject({ organizationId: 8, organizationName: 'org 8' });
    expect(await service.authenticateOrgApp(app.clientId, clientSecret)).toEqual({
      organizationId: 8,
      clientId: app.clientId,
    });
    expect(await service.authenticateOrgApp(app.clientId, `${clientSecret}x`)).toBeNull();
    const rotated = await service.rotateOrgAppSecret({ clientId: app.clientId });
    expect(await service.authenticateOrgApp(app.clientId, clientSecret)).toBeNull();
    expect(await service.authenticateOrgApp(app.clientId, rotated.clientSecret)).not.toBeNull();
    await service.setOrgAppActive({ clientId: app.clientId, active: false });
    expect(await service.authenticateOrgApp(app.clientId, rotated.clientSecret)).toBeNull();
    await notFound(service.createOrgApp({ organizationId: 99, name: 'HR' }));
  });
});

describe('admin tokens', () => {
  it('roles rank viewer < reviewer < admin, and a project-scoped token sees another project as not_found', async () => {
    const { service } = tenancy();
    const { project } = await service.createProject({ name: 'Acme' });
    const { token } = await service.createAdminToken({ role: 'reviewer', projectId: project.id });
    const scope = (await service.authenticateAdminToken(token))!;
    expect(scope).toMatchObject({ role: 'reviewer', projectId: project.id });
    expect(() => service.requireRole(scope, 'viewer')).not.toThrow();
    expect(() => service.requireRole(scope, 'admin')).toThrow(expect.objectContaining({ code: 'forbidden' }));
    expect(() => service.requireProjectAccess(scope, project.id)).not.toThrow();
    expect(() => service.requireProjectAccess(scope, 'prj_other')).toThrow(
      expect.objectContaining({ code: 'not_found' }),
    );
    await notFound(service.createAdminToken({ role: 'admin', projectId: 'prj_nope' }));
  });

  it('a token stops authenticating when it expires or is revoked, and shows as inactive', async () => {
    const { service, clock } = tenancy();
    const expiring = await service.createAdminToken({ role: 'admin', expiresInDays: 1 });
    const revoked = await service.createAdminToken({ role: 'admin' });
    await service.revokeAdminToken({ tokenId: revoked.id });
    expect(await service.authenticateAdminToken(revoked.token)).toBeNull();
    expect(await service.authenticateAdminToken(expiring.token)).not.toBeNull();
    clock.advance(86_400_000 + 1);
    expect(await service.authenticateAdminToken(expiring.token)).toBeNull();
    expect((await service.adminTokens()).map((token) => token.active)).toEqual([false, false]);
    await notFound(service.revokeAdminToken({ tokenId: 'adm_nope' }));
  });
});
