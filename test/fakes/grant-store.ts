import { DomainError } from '../../src/core/errors.js';
import type { AuthorizeRequest } from '../../src/core/oidc/authorization/types.js';
import type {
  GrantStore,
  NewAccessToken,
  NewCode,
  StoredAccessToken,
  StoredBrowserSession,
  StoredRefreshToken,
} from '../../src/core/oidc/grant-store.js';

/** The accounts and OIDC clients a fake grant store treats as existing (its tables' foreign keys). */
export interface GrantParents {
  accounts: readonly string[];
  clients: readonly string[];
}

/**
 * Grants in memory, held to the same contract as PgGrantStore (test/contracts/grant-store.ts): access tokens by
 * digest, refresh-token rows by id; a grant id ties a refresh token to the access tokens of its sign-in. Only the
 * token endpoint reads codes back and only a password reset ends every sign-in, and no rule test runs either: those
 * methods throw rather than answer what the store would not.
 */
export class FakeGrantStore implements GrantStore {
  constructor(private readonly parents: GrantParents) {}
  access = new Map<string, StoredAccessToken & { grantId: string | null }>();
  refresh = new Map<string, StoredRefreshToken>();
  async addAccessToken(token: NewAccessToken): Promise<void> {
    if (!this.parents.accounts.includes(token.accountId) || !this.parents.clients.includes(token.clientId))
      throw new DomainError('not_found', 'account or client not found');
    this.access.set(token.digest, {
      accountId: token.accountId,
      clientId: token.clientId,
      scopes: [...token.scopes],
      resource: token.resource,
      createdAt: token.createdAt,
      expiresAt: token.expiresAt,
      revokedAt: null,
      grantId: null,
    });
  }
  async accessToken(digest: string): Promise<StoredAccessToken | null> {
    const token = this.access.get(digest);
    if (!token) return null;
    const { grantId: _, ...stored } = token;
    return { ...stored };
  }
  async refreshToken(id: string) {
    const row = this.refresh.get(id);
    return row ? { ...row } : null;
  }
  async code(): Promise<{ grantId: string; clientId: string } | null> {
    throw new Error('code is not in the fake');
  }
  async issuedToAny(accountId: string, clientIds: readonly string[]) {
    return [...this.access.values()].some(
      (token) => token.accountId === accountId && clientIds.includes(token.clientId),
    );
  }
  async revokeGrant(grantId: string, now: Date) {
    for (const token of [...this.access.values(), ...this.refresh.values()])
      if (token.grantId === grantId) token.revokedAt ??= now;
  }
  async revokeAccessToken(digest: string, clientId: string, now: Date) {
    const token = this.access.get(digest);
    if (token?.clientId === clientId) token.revokedAt ??= now;
  }
  /** Each revokeForClients call, for the rules that must see a logout revoke (or not) before any token exists. */
  revokedFor: { accountId: string; clientIds: readonly string[] }[] = [];
  async revokeForClients(accountId: string, clientIds: readonly string[], now: Date) {
    this.revokedFor.push({ accountId, clientIds });
    for (const token of [...this.access.values(), ...this.refresh.values()])
      if (token.accountId === accountId && clientIds.includes(token.clientId)) token.revokedAt ??= now;
  }
  async endEverySignIn(): Promise<void> {
    throw new Error('endEverySignIn is not in the fake');
  }
  consents = new Map<string, string[]>();
  async rememberConsent(accountId: string, clientId: string, scopes: readonly string[]) {
    this.consents.set(`${accountId} ${clientId}`, [...scopes]);
  }
  async consent(accountId: string, clientId: string) {
    const scopes = this.consents.get(`${accountId} ${clientId}`);
    return scopes ? [...scopes] : null;
  }
  async forgetConsent(accountId: string, clientId: string) {
    this.consents.delete(`${accountId} ${clientId}`);
  }
  codes: NewCode[] = [];
  async addCode(code: NewCode) {
    this.codes.push(code);
  }
  sessions = new Map<string, StoredBrowserSession>();
  /** How many times a sign-in was looked up: an oversized cookie must cost no read. */
  sessionReads = 0;
  async openBrowserSession(digest: string, session: StoredBrowserSession) {
    this.sessions.set(digest, { ...session });
  }
  async browserSession(digest: string) {
    this.sessionReads += 1;
    const session = this.sessions.get(digest);
    return session ? { ...session } : null;
  }
  async endBrowserSession(digest: string) {
    this.sessions.delete(digest);
  }
  interactions = new Map<string, { request: AuthorizeRequest; expiresAt: Date }>();
  async saveInteraction(digest: string, request: AuthorizeRequest, expiresAt: Date) {
    this.interactions.set(digest, { request: structuredClone(request), expiresAt });
  }
  async interaction(digest: string) {
    const waiting = this.interactions.get(digest);
    return waiting ? { request: structuredClone(waiting.request), expiresAt: waiting.expiresAt } : null;
  }
  async dropInteraction(digest: string) {
    this.interactions.delete(digest);
  }
}
