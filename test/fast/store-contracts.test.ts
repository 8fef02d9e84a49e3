import type { EntityManager } from '@mikro-orm/core';
import { challengeStoreContract } from '../contracts/challenge-store.js';
import { evidenceStoreContract } from '../contracts/evidence-store.js';
import { idempotencyStoreContract } from '../contracts/idempotency-store.js';
import { sessionStoreContract } from '../contracts/session-store.js';
import { walletStoreContract } from '../contracts/wallet-store.js';
import { webhookStoreContract } from '../contracts/webhook-store.js';
import { FakeChallengeStore } from '../fakes/challenge-store.js';
import { FakeEvidenceStore } from '../fakes/evidence-store.js';
import { FakeIdempotencyStore } from '../fakes/idempotency-store.js';
import { FakeSessionStore } from '../fakes/session-store.js';
import { FakeWalletStore } from '../fakes/wallet-store.js';
import { FakeWebhookStore } from '../fakes/webhook-store.js';

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
