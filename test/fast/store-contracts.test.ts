import { accountStoreContract } from '../contracts/account-store.js';
import { challengeStoreContract } from '../contracts/challenge-store.js';
import { evidenceStoreContract } from '../contracts/evidence-store.js';
import { grantStoreContract } from '../contracts/grant-store.js';
import { idempotencyStoreContract } from '../contracts/idempotency-store.js';
import { rosterStoreContract } from '../contracts/roster-store.js';
import { sessionStoreContract } from '../contracts/session-store.js';
import { tenancyStoreContract } from '../contracts/tenancy-store.js';
import { walletStoreContract } from '../contracts/wallet-store.js';
import { webhookStoreContract } from '../contracts/webhook-store.js';
import { FakeAccountStore } from '../fakes/account-store.js';
import { FakeChallengeStore } from '../fakes/challenge-store.js';
import { FakeEvidenceStore } from '../fakes/evidence-store.js';
import { FakeGrantStore } from '../fakes/grant-store.js';
import { FakeIdempotencyStore } from '../fakes/idempotency-store.js';
import { FakeRosterStore } from '../fakes/roster-store.js';
import { FakeSessionStore } from '../fakes/session-store.js';
import { FakeTenancyStore } from '../fakes/tenancy-store.js';
import { FakeWalletStore } from '../fakes/wallet-store.js';
import { FakeWebhookStore } from '../fakes/webhook-store.js';
import type { EntityManager } from '@mikro-orm/core';

// The fakes the rule tests run on, held to the contracts their PostgreSQL stores are held to in
// test/store-contracts.test.ts: a rule that passes here on a fake that lies would fail there.
challengeStoreContract('fake', () => ({
  store: new FakeChallengeStore(),
  projectId: 'prj_a',
  otherProjectId: 'prj_b',
}));
const idempotency = new FakeIdempotencyStore();
idempotencyStoreContract('fake', () => ({ store: idempotency, projectId: 'prj_a', otherProjectId: 'prj_b' }));
sessionStoreContract('fake', () => ({
  store: new FakeSessionStore(),
  projectId: 'prj_a',
  otherProjectId: 'prj_b',
  workflowId: 'wf_a',
}));
evidenceStoreContract('fake', () => {
  const sessions = new FakeSessionStore();
  return {
    store: new FakeEvidenceStore(sessions, () => 30),
    sessions,
    projectId: 'prj_a',
    retentionDays: 30,
    workflowId: 'wf_a',
  };
});
walletStoreContract('fake', () => {
  const store = new FakeWalletStore();
  let projects = 0;
  return {
    store,
    newProject: async () => {
      const id = `prj_${++projects}`;
      store.balance.set(id, 0);
      return id;
    },
  };
});
webhookStoreContract('fake', () => ({
  store: new FakeWebhookStore(),
  transaction: (work) => work({} as EntityManager),
  projectId: 'prj_a',
  otherProjectId: 'prj_b',
  sessionId: 'ses_a',
}));
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
