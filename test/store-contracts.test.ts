import { afterAll, beforeAll } from 'vitest';
import { PgAccountStore } from '../src/core/accounts/store.js';
import { PgIdempotencyStore } from '../src/core/billing/idempotency.js';
import { PgChallengeStore } from '../src/core/checks/challenge-store.js';
import { accountStoreContract } from './contracts/account-store.js';
import { challengeStoreContract } from './contracts/challenge-store.js';
import { idempotencyStoreContract } from './contracts/idempotency-store.js';
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
