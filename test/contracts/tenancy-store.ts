import { describe, expect, it } from 'vitest';
import type { TenancyStore } from '../../src/core/tenancy/store.js';

/** What a contract run needs: a store, and two projects that exist. */
export interface TenancyStoreSubject {
  store: TenancyStore;
  projectId: string;
  otherProjectId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const unique = (prefix: string) => `${prefix}_c${process.pid}_${++serial}`;
/** An announcement no cache listens to: the contract checks the writes, not who hears them. */
const announce = { channel: 'verity_contract_unheard', payload: 'contract' };

/**
 * The rules every TenancyStore keeps, run against the in-memory fake (test/fast) and PgTenancyStore
 * (test/store-contracts.test.ts): a write naming a missing project answers false or null, an API key or an admin
 * token is live until revoked (the first revocation's time stays) and lists without its digest, a callback
 * destination is one row however many approve it, a rotated webhook secret stays as the previous one.
 */
export function tenancyStoreContract(kind: string, subject: () => TenancyStoreSubject): void {
  describe(`TenancyStore contract: ${kind}`, () => {
    it('answers false or null, never throws, for a write naming a project that does not exist', async () => {
      const { store, projectId } = subject();
      const missing = `${projectId}_missing`;
      const key = { id: unique('key'), projectId: missing, name: 'k', prefix: 'vk_live_x', mode: 'live' as const };
      expect(await store.addApiKey({ ...key, createdAt: at, secretDigest: unique('dg') })).toBe(false);
      const workflow = { id: unique('wf'), projectId: missing, name: 'w', features: ['age' as const] };
      expect(await store.addWorkflow({ ...workflow, maxStepTries: 3, createdAt: at })).toBe(false);
      const callback = { id: unique('cb'), projectId: missing, url: 'https://a.example/hook', mode: 'live' as const };
      expect(await store.approveCallback({ ...callback, createdAt: at })).toBeNull();
      const token = { id: unique('adm'), name: 't', role: 'viewer' as const, projectId: missing, expiresAt: null };
      expect(await store.addAdminToken({ ...token, createdAt: at, tokenDigest: unique('dg') })).toBe(false);
      expect(await store.rotateWebhookSecret(missing, 'live', 'sealed', at, announce)).toBe(false);
      expect(await store.updateProject(missing, { evidenceRetentionDays: 30 }, announce)).toBeNull();
      expect(await store.project(missing)).toBeNull();
    });

    it("lists a project's API keys oldest first without digests; a key is live until revoked, once, by its project", async () => {
      const { store, projectId, otherProjectId } = subject();
      const newKey = (createdAt: Date) => ({
        id: unique('key'),
        projectId,
        name: 'k',
        prefix: 'vk_test_x',
        mode: 'test' as const,
        createdAt,
        secretDigest: unique('dg'),
      });
      const younger = newKey(later(1));
      const older = newKey(at);
      expect(await store.addApiKey(younger)).toBe(true);
      expect(await store.addApiKey(older)).toBe(true);
      const listed = (await store.apiKeys(projectId)).filter((key) => key.id === older.id || key.id === younger.id);
      const { secretDigest: _, ...olderRecord } = older;
      expect(listed.map((key) => key.id)).toEqual([older.id, younger.id]);
      expect(listed[0]).toEqual({ ...olderRecord, revokedAt: null });
      expect(await store.liveApiKey(older.secretDigest)).toEqual({ id: older.id, projectId, mode: 'test' });
      expect(await store.apiKeyDigest(otherProjectId, older.id)).toBeNull();
      expect(await store.apiKeyDigest(projectId, older.id)).toBe(older.secretDigest);

      expect(await store.revokeApiKey(otherProjectId, older.id, later(2), announce)).toBeNull();
      expect(await store.liveApiKey(older.secretDigest)).not.toBeNull();
      expect(await store.revokeApiKey(projectId, older.id, later(3), announce)).toEqual({
        ...olderRecord,
        revokedAt: later(3),
      });
      expect((await store.revokeApiKey(projectId, older.id, later(4), announce))?.revokedAt).toEqual(later(3));
      expect(await store.liveApiKey(older.secretDigest)).toBeNull();
    });

    it('keeps one destination per project, mode and URL however many approve it, approved only while active', async () => {
      const { store, projectId } = subject();
      const url = `https://${unique('hooks')}.example/in`;
      const approvals = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          store.approveCallback({ id: unique('cb'), projectId, url, mode: 'live', createdAt: later(i) }),
        ),
      );
      expect(new Set(approvals.map((approved) => approved?.id)).size).toBe(1);
      expect((await store.callbacks(projectId)).filter((row) => row.url === url)).toEqual([approvals[0]]);
      expect(await store.isApprovedCallback(projectId, 'test', url)).toBe(false);
      expect(await store.setCallbackActive(projectId, 'live', url, false, announce)).toMatchObject({ active: false });
      expect(await store.isApprovedCallback(projectId, 'live', url)).toBe(false);
      const again = await store.approveCallback({
        id: unique('cb'),
        projectId,
        url,
        mode: 'live',
        createdAt: later(9),
      });
      expect(again).toEqual(approvals[0]);
      expect(await store.isApprovedCallback(projectId, 'live', url)).toBe(true);
    });

    it('lists admin tokens newest first; one is live until revoked (the first time stays) or until its expiry', async () => {
      const { store, projectId } = subject();
      const newToken = (createdAt: Date, expiresAt: Date | null) => ({
        id: unique('adm'),
        name: 't',
        role: 'reviewer' as const,
        projectId,
        createdAt,
        expiresAt,
        tokenDigest: unique('dg'),
      });
      const lasting = newToken(at, null);
      const expiring = newToken(later(1), later(60_000));
      for (const token of [lasting, expiring]) expect(await store.addAdminToken(token)).toBe(true);
      const ours = (await store.adminTokens()).filter((token) => token.id === lasting.id || token.id === expiring.id);
      const { tokenDigest: _, ...expiringRecord } = expiring;
      expect(ours).toEqual([{ ...expiringRecord, revokedAt: null }, expect.objectContaining({ id: lasting.id })]);
      expect(await store.liveAdminToken(expiring.tokenDigest, later(59_999))).toEqual({
        ...expiringRecord,
        revokedAt: null,
      });
      expect(await store.liveAdminToken(expiring.tokenDigest, later(60_000))).toBeNull();
      expect((await store.revokeAdminToken(lasting.id, later(2)))?.revokedAt).toEqual(later(2));
      expect((await store.revokeAdminToken(lasting.id, later(3)))?.revokedAt).toEqual(later(2));
      expect(await store.liveAdminToken(lasting.tokenDigest, later(4))).toBeNull();
    });

    it("rotates one mode's webhook secret: the current one becomes the previous until the given time", async () => {
      const { store, projectId } = subject();
      const before = await store.webhookSecrets(projectId, 'live');
      const testBefore = await store.webhookSecrets(projectId, 'test');
      expect(await store.rotateWebhookSecret(projectId, 'live', 'sealed-next', later(86_400_000), announce)).toBe(true);
      expect(await store.webhookSecrets(projectId, 'live')).toEqual({
        current: 'sealed-next',
        previous: before?.current,
        previousUntil: later(86_400_000),
      });
      expect(await store.webhookSecrets(projectId, 'test')).toEqual(testBefore);
    });
  });
}
