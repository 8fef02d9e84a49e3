import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Core } from './index.js';
import type { WorkflowFeature } from './tenancy/entities.js';

/** Everything a newcomer needs to try each surface; written to `<data dir>/demo.json`. */
export interface DemoTenant {
  base_url: string;
  org_api_url: string;
  project_id: string;
  api_key: string;
  webhook_signing_secret: string;
  workflows: { kyc: string; age: string; credential: string; location: string; full: string };
  oidc: { client_id: string; client_secret: string; redirect_uris: string[]; scopes: string[] };
  org: { id: number; client_id: string; client_secret: string };
  account: { email: string; password: string; svc_id: string };
  admin_token: string;
}

const DEMO_WORKFLOWS: Record<keyof DemoTenant['workflows'], WorkflowFeature[]> = {
  kyc: ['id_verification', 'liveness', 'face_match'],
  age: ['age'],
  credential: ['credential'],
  location: ['location'],
  full: ['id_verification', 'liveness', 'face_match', 'age', 'credential', 'location'],
};

/** `data/sample-licenses.csv` of the package, from src/ or from dist/src/. */
function sampleRoster(): string | null {
  for (const relative of ['../../data/sample-licenses.csv', '../../../data/sample-licenses.csv']) {
    const candidate = fileURLToPath(new URL(relative, import.meta.url));
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/**
 * Seeds the demo tenant on an empty database and returns its credentials (shown once), or null
 * when a demo tenant exists already: a second start never reseeds.
 */
export async function seedDemoTenant(
  core: Core,
  urls: { baseUrl: string; orgApiUrl: string },
  options: { licenses?: boolean } = {},
): Promise<DemoTenant | null> {
  if (await core.tenancy.demoProjectId()) return null;
  const { project, key, webhookSigningSecret } = await core.tenancy.createProject(
    { name: 'Demo', balance: 1000 },
    { isDemo: true },
  );
  const workflows = {} as DemoTenant['workflows'];
  for (const [name, features] of Object.entries(DEMO_WORKFLOWS) as [
    keyof DemoTenant['workflows'],
    WorkflowFeature[],
  ][]) {
    workflows[name] = (await core.tenancy.createWorkflow({ projectId: project.id, name, features })).id;
  }
  const redirectUris = [`${urls.baseUrl}/demo/callback`, 'http://localhost:3000/callback'];
  const scopes = ['openid', 'profile', 'verifications', 'doctor_license'];
  const { app, clientSecret: orgSecret } = await core.tenancy.createOrgApp({
    organizationName: 'Demo Health',
    name: 'Demo roster',
  });
  // The demo app belongs to the demo organization: its members' id_tokens carry svc_org_member_id.
  const { client, clientSecret } = await core.tenancy.createOidcClient({
    projectId: project.id,
    name: 'Demo app',
    redirectUris,
    scopes,
    organizationId: app.organizationId,
  });
  await core.roster.setPlan({
    organizationId: app.organizationId,
    plan: 'team',
    pricePerSeat: 5,
    currency: 'USD',
    trialDays: 14,
  });
  const password = randomBytes(12).toString('base64url');
  const account = await core.accounts.createAccount({
    email: 'demo@verity.example',
    password,
    displayName: 'Demo User',
  });
  const admin = await core.tenancy.createAdminToken({ role: 'admin', name: 'demo' });
  // The fictional licence roster behind the built-in board adapter (docs/licences.md: "Licence rosters").
  const roster = options.licenses === false ? null : sampleRoster();
  if (roster) await core.credentials.importCsv(await readFile(roster, 'utf8'));
  return {
    base_url: urls.baseUrl,
    org_api_url: urls.orgApiUrl,
    project_id: project.id,
    api_key: key,
    webhook_signing_secret: webhookSigningSecret,
    workflows,
    oidc: {
      client_id: client.clientId,
      client_secret: clientSecret,
      redirect_uris: client.redirectUris,
      scopes: client.scopes,
    },
    org: { id: app.organizationId, client_id: app.clientId, client_secret: orgSecret },
    account: { email: account.email, password, svc_id: account.svcId },
    admin_token: admin.token,
  };
}
