import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, sql, type TestService } from './helpers/service.js';

let service: TestService;
let otherProjectId: string;
beforeAll(async () => {
  service = await startTestService();
  otherProjectId = (await service.core.tenancy.createProject({ name: 'Other' })).project.id;
});
afterAll(async () => {
  await service?.close();
});

describe('secrets at rest', () => {
  it('stores API keys, client secrets and admin tokens only as digests', async () => {
    const dump =
      JSON.stringify(await sql(service, 'select * from api_key')) +
      JSON.stringify(await sql(service, 'select * from oidc_client')) +
      JSON.stringify(await sql(service, 'select * from org_app')) +
      JSON.stringify(await sql(service, 'select * from admin_token'));
    for (const secret of [
      service.demo.api_key,
      service.demo.oidc.client_secret,
      service.demo.org.client_secret,
      service.demo.admin_token,
    ]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(secret.slice(-20));
    }
  });

  it('keeps the webhook signing secret sealed but readable by core', async () => {
    const rows = await sql<{ webhook_signing_secret_sealed: string }>(
      service,
      'select webhook_signing_secret_sealed from project where id = ?',
      [service.demo.project_id],
    );
    expect(rows[0]!.webhook_signing_secret_sealed).not.toContain(service.demo.webhook_signing_secret);
    expect(rows[0]!.webhook_signing_secret_sealed).toMatch(/^v1\./);
    expect(await service.core.tenancy.webhookSigningSecret(service.demo.project_id)).toBe(
      service.demo.webhook_signing_secret,
    );
  });

  it('hashes passwords slowly and checks them', async () => {
    const rows = await sql<{ password_hash: string }>(service, 'select password_hash from account where email = ?', [
      service.demo.account.email,
    ]);
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
    expect(rows[0]!.password_hash).not.toContain(service.demo.account.password);
    expect(
      await service.core.accounts.checkPassword(
        service.demo.account.email.toUpperCase(),
        service.demo.account.password,
      ),
    ).toMatchObject({ svcId: service.demo.account.svc_id });
    expect(await service.core.accounts.checkPassword(service.demo.account.email, 'wrong password')).toBeNull();
    await expect(
      service.core.accounts.createAccount({ email: service.demo.account.email, password: 'another-pass' }),
    ).rejects.toMatchObject({ code: 'account_exists', status: 409 });
  });
});

describe('projects and keys', () => {
  it('gives each project its own keys; several keys per project, each revocable', async () => {
    const a = await service.core.tenancy.createApiKey({ projectId: otherProjectId, name: 'a' });
    const b = await service.core.tenancy.createApiKey({ projectId: otherProjectId, name: 'b' });
    expect(await service.core.tenancy.authenticateApiKey(a.key)).toEqual({
      projectId: otherProjectId,
      apiKeyId: a.apiKey.id,
      livemode: true,
    });
    expect(await service.core.tenancy.authenticateApiKey(b.key)).toMatchObject({ projectId: otherProjectId });
    await service.core.tenancy.revokeApiKey({ projectId: otherProjectId, apiKeyId: a.apiKey.id });
    expect(await service.core.tenancy.authenticateApiKey(a.key)).toBeNull();
    expect(await service.core.tenancy.authenticateApiKey(b.key)).not.toBeNull();
  });

  it("treats another project's key id as unknown", async () => {
    const { apiKey } = await service.core.tenancy.createApiKey({ projectId: otherProjectId });
    await expect(
      service.core.tenancy.revokeApiKey({ projectId: service.demo.project_id, apiKeyId: apiKey.id }),
    ).rejects.toMatchObject({ code: 'not_found', status: 404 });
  });
});

describe('workflows', () => {
  it('accepts only the six features, at least one, without repeats', async () => {
    const ok = await service.core.tenancy.createWorkflow({
      projectId: otherProjectId,
      name: 'kyc',
      features: ['id_verification', 'liveness', 'face_match'],
    });
    expect(ok.features).toEqual(['id_verification', 'liveness', 'face_match']);
    for (const features of [[], ['selfie'], ['age', 'age']]) {
      await expect(
        service.core.tenancy.createWorkflow({ projectId: otherProjectId, name: 'bad', features }),
      ).rejects.toMatchObject({ code: 'validation_error' });
    }
  });

  it("answers workflow_not_found for another project's workflow", async () => {
    const theirs = await service.core.tenancy.createWorkflow({
      projectId: otherProjectId,
      name: 'age',
      features: ['age'],
    });
    await expect(service.core.tenancy.getWorkflow(service.demo.project_id, theirs.id)).rejects.toMatchObject({
      code: 'workflow_not_found',
      status: 404,
    });
    expect((await service.core.tenancy.getWorkflow(otherProjectId, theirs.id)).id).toBe(theirs.id);
  });

  it('seeds the demo workflows with the documented features', async () => {
    const kyc = await service.core.tenancy.getWorkflow(service.demo.project_id, service.demo.workflows.kyc);
    expect(kyc.features).toEqual(['id_verification', 'liveness', 'face_match']);
    const full = await service.core.tenancy.getWorkflow(service.demo.project_id, service.demo.workflows.full);
    expect(full.features).toHaveLength(6);
  });
});

describe('callback destinations', () => {
  it('approves HTTPS destinations and refuses plain http and junk with callback_not_allowed', async () => {
    const approved = await service.core.tenancy.approveCallback({
      projectId: otherProjectId,
      url: 'https://hooks.example.com/verity',
    });
    expect(approved.active).toBe(true);
    expect(
      await service.core.tenancy.isApprovedCallback(otherProjectId, 'https://hooks.example.com/verity', 'live'),
    ).toBe(true);
    expect(
      await service.core.tenancy.isApprovedCallback(
        service.demo.project_id,
        'https://hooks.example.com/verity',
        'live',
      ),
    ).toBe(false);
    for (const url of [
      'http://hooks.example.com/x',
      'http://127.0.0.1:9000/hook',
      'ftp://x',
      'not a url',
      'https://user:pw@hooks.example.com/',
    ]) {
      await expect(service.core.tenancy.approveCallback({ projectId: otherProjectId, url })).rejects.toMatchObject({
        code: 'callback_not_allowed',
        status: 422,
      });
    }
  });

  it('approving twice keeps one row; disabling makes it unapproved', async () => {
    const url = 'https://hooks.example.com/twice';
    await Promise.all([1, 2, 3].map(() => service.core.tenancy.approveCallback({ projectId: otherProjectId, url })));
    const rows = await sql(service, 'select * from callback_destination where project_id = ? and url = ?', [
      otherProjectId,
      url,
    ]);
    expect(rows).toHaveLength(1);
    await service.core.tenancy.setCallbackActive({ projectId: otherProjectId, url, active: false });
    expect(await service.core.tenancy.isApprovedCallback(otherProjectId, url, 'live')).toBe(false);
  });

  it('sets and clears the app-level callback under the same rule', async () => {
    const set = await service.core.tenancy.setDefaultCallback({
      projectId: otherProjectId,
      url: 'https://hooks.example.com/app',
    });
    expect(set.defaultCallbackUrl).toBe('https://hooks.example.com/app');
    await expect(
      service.core.tenancy.setDefaultCallback({ projectId: otherProjectId, url: 'http://hooks.example.com/app' }),
    ).rejects.toMatchObject({ code: 'callback_not_allowed' });
    expect(
      (await service.core.tenancy.setDefaultCallback({ projectId: otherProjectId, url: null })).defaultCallbackUrl,
    ).toBeNull();
  });
});

describe('insecure callbacks for local development', () => {
  it('allows http to loopback only with VERITY_ALLOW_INSECURE_CALLBACKS', async () => {
    const local = await startTestService({ allowInsecureCallbacks: true });
    try {
      const projectId = local.demo.project_id;
      expect((await local.core.tenancy.approveCallback({ projectId, url: 'http://127.0.0.1:9000/hook' })).url).toBe(
        'http://127.0.0.1:9000/hook',
      );
      expect((await local.core.tenancy.approveCallback({ projectId, url: 'http://localhost:9000/hook' })).url).toBe(
        'http://localhost:9000/hook',
      );
      await expect(
        local.core.tenancy.approveCallback({ projectId, url: 'http://10.0.0.5/hook' }),
      ).rejects.toMatchObject({ code: 'callback_not_allowed' });
    } finally {
      await local.close();
    }
  });
});

describe('OIDC clients and organization apps', () => {
  it('keeps exact redirect URIs and enabled scopes; openid is required', async () => {
    const { client, clientSecret } = await service.core.tenancy.createOidcClient({
      projectId: otherProjectId,
      name: 'RP',
      redirectUris: ['https://rp.example.com/cb', 'com.example.app://cb'],
      scopes: ['openid', 'verifications'],
    });
    expect(client.redirectUris).toEqual(['https://rp.example.com/cb', 'com.example.app://cb']);
    expect(client.scopes).toEqual(['openid', 'verifications']);
    expect(clientSecret).toMatch(/^vcs_/);
    await expect(
      service.core.tenancy.createOidcClient({
        projectId: otherProjectId,
        name: 'RP',
        redirectUris: ['https://rp.example.com/cb'],
        scopes: ['profile'],
      }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    await expect(
      service.core.tenancy.createOidcClient({
        projectId: otherProjectId,
        name: 'RP',
        redirectUris: ['https://rp.example.com/cb#frag'],
      }),
    ).rejects.toMatchObject({ code: 'validation_error' });
    await expect(
      service.core.tenancy.createOidcClient({ projectId: otherProjectId, name: 'RP', redirectUris: [] }),
    ).rejects.toMatchObject({ code: 'validation_error' });
  });

  it('ties roster credentials to one organization and checks them', async () => {
    const { app, clientSecret } = await service.core.tenancy.createOrgApp({ organizationName: 'Acme Clinics' });
    expect(await service.core.tenancy.authenticateOrgApp(app.clientId, clientSecret)).toEqual({
      organizationId: app.organizationId,
      clientId: app.clientId,
    });
    expect(await service.core.tenancy.authenticateOrgApp(app.clientId, `${clientSecret}x`)).toBeNull();
    expect(await service.core.tenancy.authenticateOrgApp(service.demo.org.client_id, clientSecret)).toBeNull();
    const second = await service.core.tenancy.createOrgApp({ organizationId: app.organizationId, name: 'second' });
    expect(second.app.organizationId).toBe(app.organizationId);
    await expect(service.core.tenancy.createOrgApp({ organizationId: 999999 })).rejects.toMatchObject({
      code: 'not_found',
    });
    // The roster owns organizations: every view of an app names its organization from there.
    expect([app.organizationName, second.app.organizationName]).toEqual(['Acme Clinics', 'Acme Clinics']);
    expect(
      (await service.core.tenancy.setOrgAppActive({ clientId: second.app.clientId, active: false })).organizationName,
    ).toBe('Acme Clinics');
    expect((await service.core.tenancy.rotateOrgAppSecret({ clientId: app.clientId })).app.organizationName).toBe(
      'Acme Clinics',
    );
    expect(
      (await service.core.tenancy.listOrgApps())
        .filter((listed) => listed.organizationId === app.organizationId)
        .map((listed) => listed.organizationName),
    ).toEqual(['Acme Clinics', 'Acme Clinics']);
    await expect(
      service.core.tenancy.createOidcClient({
        projectId: service.demo.project_id,
        name: 'RP',
        redirectUris: ['https://rp.example.com/cb'],
        organizationId: 999999,
      }),
    ).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
