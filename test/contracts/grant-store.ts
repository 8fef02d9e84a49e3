import { describe, expect, it } from 'vitest';
import type { AuthorizeRequest } from '../../src/core/oidc/authorization/types.js';
import type { GrantStore, NewAccessToken } from '../../src/core/oidc/grant-store.js';

/**
 * What a contract run needs: a store, two accounts and two OIDC clients that exist. `otherAccountId` gets tokens
 * in one rule only, which asks whether it was ever given any.
 */
export interface GrantStoreSubject {
  store: GrantStore;
  accountId: string;
  otherAccountId: string;
  clientId: string;
  otherClientId: string;
}

const at = new Date('2026-06-01T12:00:00.000Z');
const later = (ms: number) => new Date(at.getTime() + ms);
let serial = 0;
const digest = () => `dg_contract_${process.pid}_${++serial}`;
const accessToken = (accountId: string, clientId: string): NewAccessToken => ({
  id: `atk_contract_${process.pid}_${++serial}`,
  digest: digest(),
  accountId,
  clientId,
  scopes: ['openid', 'profile'],
  resource: null,
  createdAt: at,
  expiresAt: later(900_000),
});

/**
 * The rules every GrantStore keeps, run against the in-memory fake (test/fast) and PgGrantStore
 * (test/store-contracts.test.ts): a token only for an account and a client that exist, a revocation that reaches
 * its own client's tokens only and keeps when it first happened, consents per person and client, sign-ins and
 * waiting requests read back expired or not until they are ended.
 */
export function grantStoreContract(kind: string, subject: () => GrantStoreSubject): void {
  describe(`GrantStore contract: ${kind}`, () => {
    it('stores a token for an account and client that exist; refuses others with not_found, storing nothing', async () => {
      const { store, otherAccountId, clientId, otherClientId } = subject();
      expect(await store.issuedToAny(otherAccountId, [clientId])).toBe(false);
      const unknownAccount = accessToken(`${otherAccountId}_unknown`, clientId);
      await expect(store.addAccessToken(unknownAccount)).rejects.toMatchObject({ code: 'not_found' });
      const unknownClient = accessToken(otherAccountId, `${clientId}_unknown`);
      await expect(store.addAccessToken(unknownClient)).rejects.toMatchObject({ code: 'not_found' });
      expect(await store.accessToken(unknownAccount.digest)).toBeNull();
      expect(await store.accessToken(unknownClient.digest)).toBeNull();
      expect(await store.issuedToAny(otherAccountId, [clientId])).toBe(false);

      const token = accessToken(otherAccountId, clientId);
      await store.addAccessToken(token);
      expect(await store.accessToken(token.digest)).toEqual({
        accountId: otherAccountId,
        clientId,
        scopes: ['openid', 'profile'],
        resource: null,
        createdAt: at,
        expiresAt: later(900_000),
        revokedAt: null,
      });
      expect(await store.issuedToAny(otherAccountId, [otherClientId, clientId])).toBe(true);
      expect(await store.issuedToAny(otherAccountId, [otherClientId])).toBe(false);
      expect(await store.issuedToAny(otherAccountId, [])).toBe(false);
    });

    it('revokes an access token for its own client only, and keeps when it was first revoked', async () => {
      const { store, accountId, clientId, otherClientId } = subject();
      const token = accessToken(accountId, clientId);
      await store.addAccessToken(token);
      await store.revokeAccessToken(token.digest, otherClientId, at);
      expect((await store.accessToken(token.digest))?.revokedAt).toBeNull();
      await store.revokeAccessToken(token.digest, clientId, later(1));
      await store.revokeAccessToken(token.digest, clientId, later(2));
      expect((await store.accessToken(token.digest))?.revokedAt).toEqual(later(1));
    });

    it("revokes an account's live tokens of the named clients, and no other", async () => {
      const { store, accountId, otherAccountId, clientId, otherClientId } = subject();
      const named = accessToken(accountId, clientId);
      const otherClient = accessToken(accountId, otherClientId);
      const otherAccount = accessToken(otherAccountId, clientId);
      for (const token of [named, otherClient, otherAccount]) await store.addAccessToken(token);
      await store.revokeForClients(accountId, [], at);
      expect((await store.accessToken(named.digest))?.revokedAt).toBeNull();
      await store.revokeForClients(accountId, [clientId], later(1));
      await store.revokeForClients(accountId, [clientId], later(2));
      expect((await store.accessToken(named.digest))?.revokedAt).toEqual(later(1));
      expect((await store.accessToken(otherClient.digest))?.revokedAt).toBeNull();
      expect((await store.accessToken(otherAccount.digest))?.revokedAt).toBeNull();
    });

    it('remembers one consent per person and client, replaced by the next and gone once forgotten', async () => {
      const { store, accountId, clientId, otherClientId } = subject();
      await store.forgetConsent(accountId, clientId);
      await store.forgetConsent(accountId, otherClientId);
      expect(await store.consent(accountId, clientId)).toBeNull();
      await store.rememberConsent(accountId, clientId, ['openid', 'profile'], at);
      await store.rememberConsent(accountId, otherClientId, ['openid'], at);
      await store.rememberConsent(accountId, clientId, ['openid', 'verifications'], later(1));
      expect(await store.consent(accountId, clientId)).toEqual(['openid', 'verifications']);
      await store.forgetConsent(accountId, clientId);
      expect(await store.consent(accountId, clientId)).toBeNull();
      expect(await store.consent(accountId, otherClientId)).toEqual(['openid']);
    });

    it("reads a browser's sign-in and a waiting request back, expired or not, until they are ended", async () => {
      const { store, accountId, clientId } = subject();
      const cookie = digest();
      const session = { accountId, authTime: at, expiresAt: later(-1) };
      await store.openBrowserSession(cookie, session);
      expect(await store.browserSession(cookie)).toEqual(session);
      await store.endBrowserSession(cookie);
      expect(await store.browserSession(cookie)).toBeNull();

      const waiting = digest();
      const request: AuthorizeRequest = {
        clientId,
        clientName: 'App A',
        redirectUri: 'https://a.example/cb',
        scopes: ['openid', 'profile'],
        state: 'st',
        nonce: 'n-1',
        codeChallenge: 'c'.repeat(43),
        prompt: 'consent',
        maxAge: 60,
      };
      await store.saveInteraction(waiting, request, later(-1));
      expect(await store.interaction(waiting)).toEqual({ request, expiresAt: later(-1) });
      await store.dropInteraction(waiting);
      expect(await store.interaction(waiting)).toBeNull();
    });
  });
}
