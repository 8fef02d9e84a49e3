import { accountStoreContract } from '../contracts/account-store.js';
import { challengeStoreContract } from '../contracts/challenge-store.js';
import { grantStoreContract } from '../contracts/grant-store.js';
import { idempotencyStoreContract } from '../contracts/idempotency-store.js';
import { rosterStoreContract } from '../contracts/roster-store.js';
import { tenancyStoreContract } from '../contracts/tenancy-store.js';
import { FakeAccountStore } from '../fakes/account-store.js';
import { FakeChallengeStore } from '../fakes/challenge-store.js';
import { FakeGrantStore } from '../fakes/grant-store.js';
import { FakeIdempotencyStore } from '../fakes/idempotency-store.js';
import { FakeRosterStore } from '../fakes/roster-store.js';
import { FakeTenancyStore } from '../fakes/tenancy-store.js';

// The fakes the rule tests run on, held to the contracts their PostgreSQL stores are held to in
// test/store-contracts.test.ts: a rule that passes here on a fake that lies would fail there.
challengeStoreContract('fake', () => ({
  store: new FakeChallengeStore(),
  projectId: 'prj_a',
  otherProjectId: 'prj_b',
}));
const idempotency = new FakeIdempotencyStore();
idempotencyStoreContract('fake', () => ({ store: idempotency, projectId: 'prj_a', otherProjectId: 'prj_b' }));
accountStoreContract('fake', () => ({ store: new FakeAccountStore() }));
grantStoreContract('fake', () => ({
  store: new FakeGrantStore({ accounts: ['svc_a', 'svc_b'], clients: ['client_a', 'client_b'] }),
  accountId: 'svc_a',
  otherAccountId: 'svc_b',
  clientId: 'client_a',
  otherClientId: 'client_b',
}));
tenancyStoreContract('fake', () => {
  const store = new FakeTenancyStore();
  for (const id of ['prj_a', 'prj_b'])
    void store.addProject({
      id,
      name: id,
      evidenceRetentionDays: 30,
      currency: 'USD',
      isDemo: false,
      createdAt: new Date('2026-06-01T00:00:00Z'),
      balanceMinor: 0,
      webhookSecretSealed: `sealed-live-${id}`,
      testWebhookSecretSealed: `sealed-test-${id}`,
    });
  return { store, projectId: 'prj_a', otherProjectId: 'prj_b' };
});
rosterStoreContract('fake', () => ({ store: new FakeRosterStore() }));
