import { describe, expect, it } from 'vitest';
import type { AccountStore } from '../../src/core/accounts/store.js';

/** What a contract run needs: a store (accounts need no parent rows). */
export interface AccountStoreSubject {
  store: AccountStore;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
/** A new account's fields, with an id and an address no other run uses. */
const newAccount = () => {
  const id = `svc_contract_${process.pid}_${++serial}`;
  return { id, email: `${id}@example.com`, passwordHash: 'hash-1', displayName: 'Ada', createdAt: at };
};
const newLink = (accountId: string, purpose: 'verify_email' | 'reset_password', expiresAt = later(900_000)) => ({
  digest: `digest_contract_${process.pid}_${++serial}`,
  purpose,
  accountId,
  email: `${accountId}@example.com`,
  createdAt: at,
  expiresAt,
});

/**
 * The rules every AccountStore keeps, run against the in-memory fake (test/fast) and PgAccountStore
 * (test/store-contracts.test.ts): one account per address, a password hash upgraded only from the hash it
 * replaces, an identity that keeps what it was not told, an address verified only while the account has it, an
 * emailed link used once before it expires.
 */
export function accountStoreContract(kind: string, subject: () => AccountStoreSubject): void {
  describe(`AccountStore contract: ${kind}`, () => {
    it('keeps one account per address, among concurrent sign-ups too', async () => {
      const { store } = subject();
      const first = newAccount();
      expect(await store.add(first)).toBe(true);
      expect(await store.add({ ...newAccount(), email: first.email })).toBe(false);
      expect(await store.byEmail(first.email)).toEqual({
        id: first.id,
        email: first.email,
        passwordHash: 'hash-1',
        emailVerifiedAt: null,
        displayName: 'Ada',
        identitySealed: null,
        idVerified: false,
        humanVerified: null,
        identityVerifiedAt: null,
        faceDescriptorSealed: null,
        faceDescriptorKind: null,
        createdAt: at,
      });
      const email = newAccount().email;
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.add({ ...newAccount(), email })));
      expect(outcomes.filter(Boolean)).toHaveLength(1);
    });

    it('replaces a password hash only while it is still the one it upgrades, or whatever it is when told so', async () => {
      const { store } = subject();
      const account = newAccount();
      await store.add(account);
      await store.setPasswordHash(account.id, 'hash-2', 'hash-0');
      expect((await store.byId(account.id))?.passwordHash).toBe('hash-1');
      await store.setPasswordHash(account.id, 'hash-2', 'hash-1');
      expect((await store.byId(account.id))?.passwordHash).toBe('hash-2');
      await store.setPasswordHash(account.id, 'hash-3', null);
      expect((await store.byId(account.id))?.passwordHash).toBe('hash-3');
    });

    it('stores an identity, keeping the human check it was not told about; clearing leaves no identity', async () => {
      const { store } = subject();
      const account = newAccount();
      await store.add(account);
      expect(await store.setIdentity(`${account.id}_unknown`, { sealed: 's', humanVerified: true, at })).toBeNull();
      expect(await store.setIdentity(account.id, { sealed: 's1', humanVerified: true, at })).toMatchObject({
        identitySealed: 's1',
        idVerified: true,
        humanVerified: true,
        identityVerifiedAt: at,
      });
      expect(
        await store.setIdentity(account.id, { sealed: 's2', humanVerified: undefined, at: later(1) }),
      ).toMatchObject({ identitySealed: 's2', humanVerified: true, identityVerifiedAt: later(1) });
      expect(await store.clearIdentity(account.id)).toBe(true);
      expect(await store.byId(account.id)).toMatchObject({
        identitySealed: null,
        idVerified: false,
        identityVerifiedAt: null,
      });
      expect(await store.clearIdentity(`${account.id}_unknown`)).toBe(false);
    });

    it('verifies an address only while the account still has it, once; later calls say it is verified', async () => {
      const { store } = subject();
      const account = newAccount();
      await store.add(account);
      expect(await store.verifyEmail(account.id, `old-${account.email}`, at)).toBe(false);
      expect((await store.byId(account.id))?.emailVerifiedAt).toBeNull();
      expect(await store.verifyEmail(account.id, account.email, at)).toBe(true);
      expect(await store.verifyEmail(account.id, account.email, later(1))).toBe(true);
      expect((await store.byId(account.id))?.emailVerifiedAt).toEqual(at);
      expect(await store.verifyEmail(`${account.id}_unknown`, account.email, at)).toBe(false);
    });

    it('uses a link once, for its purpose, before its expiry and not at it; one winner among concurrent uses', async () => {
      const { store } = subject();
      const account = newAccount();
      await store.add(account);
      const link = newLink(account.id, 'reset_password');
      await store.addLink(link);
      expect(await store.useLink(link.digest, 'verify_email', at)).toBeNull();
      const outcomes = await Promise.all(Array.from({ length: 6 }, () => store.useLink(link.digest, link.purpose, at)));
      expect(outcomes.filter(Boolean)).toEqual([
        {
          digest: link.digest,
          purpose: link.purpose,
          accountId: account.id,
          email: link.email,
          expiresAt: link.expiresAt,
          usedAt: at,
        },
      ]);
      const lapsing = newLink(account.id, 'reset_password', later(60_000));
      await store.addLink(lapsing);
      expect(await store.useLink(lapsing.digest, lapsing.purpose, later(60_000))).toBeNull();
      expect(await store.link(lapsing.digest, lapsing.purpose)).toMatchObject({ usedAt: null });
      expect(await store.useLink(lapsing.digest, lapsing.purpose, later(59_999))).not.toBeNull();
    });

    it('counts the links sent after a moment, and ends only the unused ones of their purpose', async () => {
      const { store } = subject();
      const account = newAccount();
      await store.add(account);
      const reset = newLink(account.id, 'reset_password');
      const used = newLink(account.id, 'reset_password');
      const verify = newLink(account.id, 'verify_email');
      for (const link of [reset, used, verify]) await store.addLink(link);
      expect(await store.linksSentSince(account.id, 'reset_password', later(-1))).toBe(2);
      expect(await store.linksSentSince(account.id, 'reset_password', at)).toBe(0);
      await store.markLinkUsed(used.digest, later(1));
      await store.markLinkUsed(used.digest, later(2));
      await store.endLinks(account.id, 'reset_password', later(3));
      expect((await store.link(reset.digest, 'reset_password'))?.usedAt).toEqual(later(3));
      expect((await store.link(used.digest, 'reset_password'))?.usedAt).toEqual(later(1));
      expect((await store.link(verify.digest, 'verify_email'))?.usedAt).toBeNull();
    });
  });
}
