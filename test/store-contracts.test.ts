import { afterAll, beforeAll } from 'vitest';
import { PgAccountStore } from '../src/core/accounts/store.js';
import { PgIdempotencyStore } from '../src/core/billing/idempotency.js';
import { PostgresWalletStore } from '../src/core/billing/wallet-store.js';
import { PgChallengeStore } from '../src/core/checks/challenge-store.js';
import { transaction } from '../src/core/db/prepared.js';
import { PgGrantStore } from '../src/core/oidc/grant-store.js';
import { PgRosterStore } from '../src/core/roster/store.js';
import { PgEvidenceStore } from '../src/core/sessions/evidence.js';
import { PgSessionStore } from '../src/core/sessions/store.js';
import { PgTenancyStore } from '../src/core/tenancy/store.js';
import { PgWebhookStore } from '../src/core/webhooks/store.js';
import { accountStoreContract } from './contracts/account-store.js';
import { challengeStoreContract } from './contracts/challenge-store.js';
import { evidenceStoreContract } from './contracts/evidence-store.js';
import { grantStoreContract } from './contracts/grant-store.js';
import { idempotencyStoreContract } from './contracts/idempotency-store.js';
import { rosterStoreContract } from './contracts/roster-store.js';
import { insertSession, sessionOf, sessionStoreContract } from './contracts/session-store.js';
import { tenancyStoreContract } from './contracts/tenancy-store.js';
import { walletStoreContract } from './contracts/wallet-store.js';
import { webhookStoreContract } from './contracts/webhook-store.js';
import { startTestService, type TestService } from './helpers/service.js';

// The PostgreSQL stores held to the contracts their fakes are held to in test/fast/store-contracts.test.ts.
let service: TestService;
let otherProjectId: string;
// A session of the demo project, which the webhook events name.
let sessionId: string;
beforeAll(async () => {
  service = await startTestService();
  otherProjectId = (await service.core.tenancy.createProject({ name: 'Contract other' })).project.id;
  const session = sessionOf(service.demo.project_id, service.demo.workflows.location);
  await insertSession(new PgSessionStore(service.core.orm), session);
  sessionId = session.id;
});
afterAll(async () => {
  await service?.close();
});

const projects = () => ({ projectId: service.demo.project_id, otherProjectId });
challengeStoreContract('PostgreSQL', () => ({ store: new PgChallengeStore(service.core.orm), ...projects() }));
idempotencyStoreContract('PostgreSQL', () => ({ store: new PgIdempotencyStore(service.core.orm), ...projects() }));
const sessions = () => new PgSessionStore(service.core.orm);
sessionStoreContract('PostgreSQL', () => ({
  store: sessions(),
  ...projects(),
  workflowId: service.demo.workflows.location,
}));
// The demo project keeps evidence for the default 30 days.
evidenceStoreContract('PostgreSQL', () => ({
  store: new PgEvidenceStore(service.core.orm, service.core.sealer),
  sessions: sessions(),
  projectId: service.demo.project_id,
  retentionDays: 30,
  workflowId: service.demo.workflows.location,
}));
walletStoreContract('PostgreSQL', () => ({
  store: new PostgresWalletStore(service.core.orm),
  newProject: async () => (await service.core.tenancy.createProject({ name: 'Contract wallet' })).project.id,
}));
webhookStoreContract('PostgreSQL', () => ({
  store: new PgWebhookStore(service.core.orm),
  transaction: (work) => transaction(service.core.orm, work),
  ...projects(),
  sessionId,
}));
accountStoreContract('PostgreSQL', () => ({ store: new PgAccountStore(service.core.orm) }));

// The grant contract's parents: a second account and a second OIDC client beside the demo's.
let grantParents: { otherAccountId: string; otherClientId: string };
beforeAll(async () => {
  const otherAccountId = `svc_contract_grants_${process.pid}`;
  await new PgAccountStore(service.core.orm).add({
    id: otherAccountId,
    email: `${otherAccountId}@example.com`,
    passwordHash: 'none',
    displayName: null,
    createdAt: new Date(),
  });
  const { client } = await service.core.tenancy.createOidcClient({
    projectId: service.demo.project_id,
    name: 'Contract other',
    redirectUris: ['https://other.example/cb'],
  });
  grantParents = { otherAccountId, otherClientId: client.clientId };
});
grantStoreContract('PostgreSQL', () => ({
  store: new PgGrantStore(service.core.orm),
  accountId: service.demo.account.svc_id,
  clientId: service.demo.oidc.client_id,
  ...grantParents,
}));
tenancyStoreContract('PostgreSQL', () => ({ store: new PgTenancyStore(service.core.orm), ...projects() }));
rosterStoreContract('PostgreSQL', () => ({ store: new PgRosterStore(service.core.orm) }));
