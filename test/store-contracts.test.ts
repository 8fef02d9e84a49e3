import { afterAll, beforeAll } from 'vitest';
import { PgAccountStore } from '../src/core/accounts/store.js';
import { PgIdempotencyStore } from '../src/core/billing/idempotency.js';
import { PgChallengeStore } from '../src/core/checks/challenge-store.js';
import { PgGrantStore } from '../src/core/oidc/grant-store.js';
import { PgRosterStore } from '../src/core/roster/store.js';
import { PgTenancyStore } from '../src/core/tenancy/store.js';
import { accountStoreContract } from './contracts/account-store.js';
import { challengeStoreContract } from './contracts/challenge-store.js';
import { grantStoreContract } from './contracts/grant-store.js';
import { idempotencyStoreContract } from './contracts/idempotency-store.js';
import { rosterStoreContract } from './contracts/roster-store.js';
import { tenancyStoreContract } from './contracts/tenancy-store.js';
import { startTestService, type TestService } from './helpers/service.js';

// The PostgreSQL stores held to the contracts their fakes are held to in test/fast/store-contracts.test.ts.
let service: TestService;
let otherProjectId: string;
beforeAll(async () => {
  service = await startTestService();
  otherProjectId = (await service.core.tenancy.createProject({ name: 'Contract other' })).project.id;
});
afterAll(async () => {
  await service?.close();
});

const projects = () => ({ projectId: service.demo.project_id, otherProjectId });
challengeStoreContract('PostgreSQL', () => ({ store: new PgChallengeStore(service.core.orm), ...projects() }));
idempotencyStoreContract('PostgreSQL', () => ({ store: new PgIdempotencyStore(service.core.orm), ...projects() }));
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
