import type { Core } from '../../src/core/index.js';

// Tenants as an attacker or an integrator holds them, for tests across projects and modes.

/** A project with its live key, a test key (vk_test_...) and an app people sign in to. */
export interface Tenant {
  projectId: string;
  liveKey: string;
  testKey: string;
  clientId: string;
}

export async function tenantWithKeys(core: Core, name: string): Promise<Tenant> {
  const { project, key } = await core.tenancy.createProject({ name, balance: 100 });
  const testKey = (await core.tenancy.createApiKey({ projectId: project.id, name: 'sandbox', mode: 'test' })).key;
  const client = await core.tenancy.createOidcClient({
    projectId: project.id,
    name: `${name} app`,
    redirectUris: ['https://app.example/cb'],
    scopes: ['openid', 'profile'],
  });
  return { projectId: project.id, liveKey: key, testKey, clientId: client.client.clientId };
}

/**
 * A person with an account who signed in to each tenant's app: one access token per tenant (what `svc_access_token`
 * carries).
 */
export async function personSignedInTo(
  core: Core,
  email: string,
  tenants: Tenant[],
): Promise<{ svcId: string; tokens: string[] }> {
  const { svcId } = await core.accounts.createAccount({ email, password: 'correct horse battery staple' });
  const tokens = [];
  for (const tenant of tenants)
    tokens.push((await core.accessTokens.issue(svcId, tenant.clientId, ['openid', 'profile'])).token);
  return { svcId, tokens };
}
