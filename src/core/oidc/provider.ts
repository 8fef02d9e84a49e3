import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { Account, AccountLicense } from '../accounts/entities.js';
import type { LoginThrottle } from '../accounts/login-throttle.js';
import type { AccountService } from '../accounts/service.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import { DomainError } from '../errors.js';
import { digestSecret, newId, newSecret, safeEqual } from '../secrets.js';
import { Member } from '../roster/entities.js';
import { OidcClient, OIDC_SCOPES } from '../tenancy/entities.js';
import { AccessToken, AuthorizationCode, Consent, Interaction, LoginSession, RefreshToken } from './entities.js';
import type { SigningKeys } from './keys.js';
import { pickUiLocale, UI_LOCALES_SUPPORTED, type UiLocale } from './ui-locales.js';
import { ACCESS_TOKEN_TTL_SECONDS, ID_TOKEN_TTL_SECONDS, type AccessGrant, type AccessTokenService } from './tokens.js';

const CODE_TTL_MS = 120_000;
const REFRESH_TTL_MS = 30 * 24 * 3600_000;
const SESSION_TTL_MS = 12 * 3600_000;
const INTERACTION_TTL_MS = 10 * 60_000;

/** The authorization request once its client and redirect URI are trusted. */
/** The prompt values a request may list (space-separated, OIDC Core 3.1.2.1); select_account is accepted and means nothing here (one account per browser). */
const PROMPT_VALUES = ['none', 'login', 'consent', 'select_account'];

const promptsOf = (prompt: string | undefined): string[] => (prompt ?? '').split(' ').filter(Boolean);

export interface AuthorizeRequest {
  clientId: string;
  clientName: string;
  redirectUri: string;
  scopes: string[];
  state: string;
  nonce?: string;
  codeChallenge?: string;
  prompt?: string;
  maxAge?: number;
  /** The pages' language, picked from `ui_locales` (see ui-locales.ts). */
  uiLocale?: UiLocale;
}

export type AuthorizeStep =
  | { kind: 'error_page'; message: string }
  | { kind: 'redirect'; url: string }
  | { kind: 'login'; interaction: string; clientName: string; error?: string; locale?: UiLocale }
  | { kind: 'consent'; interaction: string; clientName: string; scopes: string[]; locale?: UiLocale };

/** Who a resource call is for, as the bearer-token check found it. */
export type ResourceGrant = Pick<AccessGrant, 'svcId' | 'scopes'>;

export interface BrowserSession {
  accountId: string;
  authTime: Date;
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  id_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

interface StoredTokens {
  accessToken: string;
  refreshToken: string;
  scopes: string[];
  claims: Record<string, unknown>;
}

/** Why a claimed code cannot be exchanged: expired, another redirect URI, or a PKCE verifier that does not fit. */
function codeProblem(row: AuthorizationCode, redirectUri: string, verifier: string | undefined, now: Date): DomainError | null {
  if (row.expiresAt <= now) return new DomainError('invalid_grant', 'the code expired');
  if (row.redirectUri !== redirectUri) return new DomainError('invalid_grant', 'redirect_uri differs from the authorization request');
  if (row.codeChallenge) {
    if (!verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return new DomainError('invalid_grant', 'code_verifier is missing or malformed');
    if (!safeEqual(createHash('sha256').update(verifier).digest('base64url'), row.codeChallenge)) return new DomainError('invalid_grant', 'code_verifier does not match the code_challenge');
  } else if (verifier !== undefined) {
    return new DomainError('invalid_grant', 'code_verifier sent for a code issued without PKCE');
  }
  return null;
}

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined);

/** `at_hash`: the left half of the SHA-256 of the access token, base64url (OIDC Core 3.1.3.6). */
export function atHash(accessToken: string): string {
  return createHash('sha256').update(accessToken, 'ascii').digest().subarray(0, 16).toString('base64url');
}

/** The OpenID Connect provider: authorization code with PKCE, rotating refresh tokens, logout, account reads. */
export class OidcProvider {
  constructor(
    private readonly deps: { orm: Orm; clock: Clock; keys: SigningKeys; accounts: AccountService; accessTokens: AccessTokenService; throttle: LoginThrottle; issuer: string },
  ) {}

  get issuer(): string {
    return this.deps.issuer;
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  private em() {
    return this.deps.orm.em.fork();
  }

  discovery() {
    const base = `${this.issuer}/api/auth/oidc`;
    return {
      issuer: this.issuer,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      userinfo_endpoint: `${base}/userinfo`,
      jwks_uri: `${base}/jwks.json`,
      end_session_endpoint: `${base}/logout`,
      revocation_endpoint: `${base}/revoke`,
      revocation_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      introspection_endpoint: `${base}/introspect`,
      introspection_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      scopes_supported: [...OIDC_SCOPES],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      id_token_signing_alg_values_supported: ['RS256'],
      subject_types_supported: ['public'],
      claims_supported: ['iss', 'sub', 'aud', 'exp', 'iat', 'auth_time', 'nonce', 'at_hash', 'svc_id', 'svc_org_member_id', 'email', 'email_verified', 'name', 'preferred_username', 'id_verified'],
      prompt_values_supported: ['none', 'login', 'consent'],
      authorization_response_iss_parameter_supported: true,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      claims_parameter_supported: false,
      ui_locales_supported: [...UI_LOCALES_SUPPORTED],
    };
  }

  // ---- authorize ----

  private redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
    const url = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
    url.searchParams.set('iss', this.issuer);
    return url.toString();
  }

  private errorRedirect(redirectUri: string, error: string, description: string, state?: string): AuthorizeStep {
    return { kind: 'redirect', url: this.redirectWith(redirectUri, { error, error_description: description, state }) };
  }

  /**
   * Checks an authorization request. Until the client and its exact redirect URI are known, errors
   * are shown on a page (never redirected: that would be an open redirect); after, they go back
   * to the client with `error`, `state` and `iss`.
   */
  async checkAuthorize(query: Record<string, unknown>): Promise<{ request: AuthorizeRequest } | { step: AuthorizeStep }> {
    const clientId = one(query.client_id);
    const redirectUri = one(query.redirect_uri);
    if (!clientId) return { step: { kind: 'error_page', message: 'client_id is missing.' } };
    const client = await this.em().findOne(OidcClient, { clientId });
    if (!client || !client.active) return { step: { kind: 'error_page', message: 'This application is unknown or not active.' } };
    if (!redirectUri || !client.redirectUris.includes(redirectUri)) {
      return { step: { kind: 'error_page', message: 'The redirect_uri is not registered for this application.' } };
    }
    const state = one(query.state);
    const fail = (error: string, description: string) => ({ step: this.errorRedirect(redirectUri, error, description, state) });
    // Request objects are not supported (discovery says so); OIDC Core 6 names the errors.
    if (query.request !== undefined) return fail('request_not_supported', 'request objects are not supported: send the parameters themselves');
    if (query.request_uri !== undefined) return fail('request_uri_not_supported', 'request_uri is not supported: send the parameters themselves');
    if (one(query.response_type) !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');
    if (!state) return fail('invalid_request', 'state is required');
    const scopes = [...new Set((one(query.scope) ?? '').split(' ').filter(Boolean))];
    if (!scopes.includes('openid')) return fail('invalid_scope', 'the openid scope is required');
    const notEnabled = scopes.filter((scope) => !client.scopes.includes(scope as (typeof client.scopes)[number]));
    if (notEnabled.length) return fail('invalid_scope', `scope not enabled for this application: ${notEnabled.join(' ')}`);
    const codeChallenge = one(query.code_challenge);
    const method = one(query.code_challenge_method);
    if (codeChallenge !== undefined && (method ?? 'plain') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
    if (codeChallenge !== undefined && !/^[A-Za-z0-9_-]{43,128}$/.test(codeChallenge)) return fail('invalid_request', 'code_challenge is malformed');
    const maxAgeText = one(query.max_age);
    const maxAge = maxAgeText === undefined ? undefined : Number(maxAgeText);
    if (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0)) return fail('invalid_request', 'max_age must be a non-negative integer');
    const prompt = one(query.prompt);
    const prompts = promptsOf(prompt);
    if (prompts.some((value) => !PROMPT_VALUES.includes(value))) return fail('invalid_request', 'unsupported prompt value');
    if (prompts.includes('none') && prompts.length > 1) return fail('invalid_request', 'prompt=none cannot be combined with another value');
    const nonce = one(query.nonce);
    if (nonce !== undefined && nonce.length > 512) return fail('invalid_request', 'nonce is too long');
    const uiLocale = pickUiLocale(one(query.ui_locales));
    return { request: { clientId, clientName: client.name, redirectUri, scopes, state, nonce, codeChallenge, prompt, maxAge, uiLocale } };
  }

  /** What happens next for a checked request, given who is signed in to this browser. */
  async nextStep(request: AuthorizeRequest, session: BrowserSession | null, options: { freshLogin?: boolean } = {}): Promise<AuthorizeStep> {
    const tooOld = session && request.maxAge !== undefined && this.now().getTime() - session.authTime.getTime() > request.maxAge * 1000;
    const prompts = promptsOf(request.prompt);
    const needsLogin = !session || tooOld || (prompts.includes('login') && !options.freshLogin);
    if (needsLogin) {
      if (prompts.includes('none')) return this.errorRedirect(request.redirectUri, 'login_required', 'the user is not signed in', request.state);
      return { kind: 'login', interaction: await this.saveInteraction(request), clientName: request.clientName, locale: request.uiLocale };
    }
    if (await this.deactivatedMember(request.clientId, session.accountId)) return this.deactivatedRedirect(request);
    const consent = await this.em().findOne(Consent, { accountId: session.accountId, clientId: request.clientId });
    const covered = consent && request.scopes.every((scope) => consent.scopes.includes(scope));
    if (!covered || prompts.includes('consent')) {
      if (prompts.includes('none')) return this.errorRedirect(request.redirectUri, 'consent_required', 'the user has not consented', request.state);
      return { kind: 'consent', interaction: await this.saveInteraction(request), clientName: request.clientName, scopes: request.scopes, locale: request.uiLocale };
    }
    return { kind: 'redirect', url: await this.issueCode(request, session) };
  }

  private async saveInteraction(request: AuthorizeRequest): Promise<string> {
    const secret = newSecret('int', 24);
    const em = this.em();
    em.create(Interaction, { digest: digestSecret(secret), request: { ...request }, expiresAt: new Date(this.now().getTime() + INTERACTION_TTL_MS) });
    await em.flush();
    return secret;
  }

  async loadInteraction(secret: string): Promise<AuthorizeRequest | null> {
    if (!secret || secret.length > 100) return null;
    const row = await this.em().findOne(Interaction, { digest: digestSecret(secret) });
    if (!row || row.expiresAt <= this.now()) return null;
    return row.request as unknown as AuthorizeRequest;
  }

  private async dropInteraction(secret: string): Promise<void> {
    await this.em().nativeDelete(Interaction, { digest: digestSecret(secret) });
  }

  /** The person allowed or denied the request on the consent page. */
  async decide(interaction: string, session: BrowserSession | null, allow: boolean): Promise<AuthorizeStep> {
    const request = await this.loadInteraction(interaction);
    if (!request) return { kind: 'error_page', message: 'This sign-in request expired. Go back to the application and start again.' };
    if (!session) return { kind: 'login', interaction, clientName: request.clientName, locale: request.uiLocale };
    await this.dropInteraction(interaction);
    if (!allow) return this.errorRedirect(request.redirectUri, 'access_denied', 'the user denied the request', request.state);
    if (await this.deactivatedMember(request.clientId, session.accountId)) return this.deactivatedRedirect(request);
    const em = this.em();
    await em.upsert(Consent, { accountId: session.accountId, clientId: request.clientId, scopes: request.scopes, createdAt: this.now() });
    return { kind: 'redirect', url: await this.issueCode(request, session) };
  }

  /**
   * A deactivated roster member of the client's organization may not sign in to its apps
   * (deactivation revokes their logins; this keeps new ones from starting).
   */
  private async deactivatedMember(clientId: string, accountId: string): Promise<boolean> {
    const client = await this.em().findOne(OidcClient, { clientId }, { fields: ['organization'] });
    if (!client?.organization) return false;
    return (await this.em().count(Member, { organization: client.organization, svcId: accountId, status: 'deactivated' })) > 0;
  }

  private deactivatedRedirect(request: AuthorizeRequest): AuthorizeStep {
    return this.errorRedirect(request.redirectUri, 'access_denied', 'your membership of this organization is deactivated', request.state);
  }

  private async issueCode(request: AuthorizeRequest, session: BrowserSession): Promise<string> {
    const code = newSecret('code');
    const em = this.em();
    const now = this.now();
    em.create(AuthorizationCode, {
      id: newId('grt'),
      codeDigest: digestSecret(code),
      clientId: request.clientId,
      accountId: session.accountId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      nonce: request.nonce ?? null,
      codeChallenge: request.codeChallenge ?? null,
      authTime: session.authTime,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
    await em.flush();
    return this.redirectWith(request.redirectUri, { code, state: request.state });
  }

  // ---- browser sessions ----

  /** Signs a person in: a session secret for the cookie, or null for a wrong email or password. */
  async signIn(email: string, password: string, address: string): Promise<{ cookie: string; session: BrowserSession } | null> {
    await this.deps.throttle.ensureOpen(email, address); // 429 rate_limited while locked, before any password check
    const account = await this.deps.accounts.checkPassword(email, password);
    if (!account) {
      await this.deps.throttle.failed(email, address);
      return null;
    }
    await this.deps.throttle.succeeded(email, address);
    return this.openSession(account.svcId);
  }

  /**
   * Creates an account and signs it in (`account_exists`, `validation_error`): the invitation
   * page's sign-up, where the invited address is known already. The login pages' sign-up is
   * AccountRecovery.signUp, which does not tell whether an address has an account.
   */
  async signUp(input: { email: string; password: string; name?: string }): Promise<{ cookie: string; session: BrowserSession }> {
    const account = await this.deps.accounts.createAccount({ email: input.email, password: input.password, displayName: input.name || undefined });
    return this.openSession(account.svcId);
  }

  async openSession(accountId: string): Promise<{ cookie: string; session: BrowserSession }> {
    const cookie = newSecret('ses');
    const authTime = new Date(Math.floor(this.now().getTime() / 1000) * 1000);
    const em = this.em();
    em.create(LoginSession, { digest: digestSecret(cookie), accountId, authTime, expiresAt: new Date(authTime.getTime() + SESSION_TTL_MS) });
    await em.flush();
    return { cookie, session: { accountId, authTime } };
  }

  async session(cookie: string | undefined): Promise<BrowserSession | null> {
    if (!cookie || cookie.length > 100) return null;
    const row = await this.em().findOne(LoginSession, { digest: digestSecret(cookie) });
    if (!row || row.expiresAt <= this.now()) return null;
    return { accountId: row.accountId, authTime: row.authTime };
  }

  async endSession(cookie: string | undefined): Promise<void> {
    if (cookie) await this.em().nativeDelete(LoginSession, { digest: digestSecret(cookie) });
  }

  // ---- token endpoint ----

  /** client_secret_basic (URL-decoded per RFC 6749 2.3.1) or client_secret_post. */
  async authenticateClient(body: Record<string, unknown>, basic: { id: string; secret: string } | undefined): Promise<OidcClient> {
    const clientId = basic?.id ?? one(body.client_id);
    const secret = basic?.secret ?? one(body.client_secret);
    if (basic && one(body.client_id) !== undefined && one(body.client_id) !== basic.id) throw new DomainError('invalid_request', 'client_id in the body differs from the Basic credentials');
    const client = clientId ? await this.em().findOne(OidcClient, { clientId }) : null;
    const presented = digestSecret(secret ?? '');
    if (!client || !secret || !safeEqual(presented, client.clientSecretDigest)) throw new DomainError('invalid_client', 'client authentication failed');
    if (!client.active) throw new DomainError('invalid_client', 'the application is not active');
    return client;
  }

  async token(body: Record<string, unknown>, basic: { id: string; secret: string } | undefined): Promise<Tokens> {
    const client = await this.authenticateClient(body, basic);
    const grantType = one(body.grant_type);
    if (grantType === 'authorization_code') return this.exchangeCode(client, body);
    if (grantType === 'refresh_token') return this.refresh(client, body);
    if (!grantType) throw new DomainError('invalid_request', 'grant_type is required');
    throw new DomainError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
  }

  private async exchangeCode(client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
    const code = one(body.code);
    const redirectUri = one(body.redirect_uri);
    if (!code || !redirectUri) throw new DomainError('invalid_request', 'code and redirect_uri are required');
    const row = await this.em().findOne(AuthorizationCode, { codeDigest: digestSecret(code) });
    if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the code is invalid or was issued to another client');
    const now = this.now();
    const verifier = one(body.code_verifier);
    // The claim and the tokens commit together: a concurrent replay's claim waits on the row lock
    // until the tokens exist, so the revocation below also revokes them (the winner's included).
    const outcome = await this.em().transactional(async (em) => {
      const claimed = await em.nativeUpdate(AuthorizationCode, { id: row.id, usedAt: null }, { usedAt: now });
      if (claimed === 0) return null;
      // A code presented wrongly is used up all the same: the claim commits, the error follows.
      const problem = codeProblem(row, redirectUri, verifier, now);
      return problem ?? this.storeTokens(em, client, { accountId: row.accountId, scopes: row.scopes, grantId: row.id, authTime: row.authTime, nonce: row.nonce ?? undefined });
    });
    if (outcome === null) {
      // A replayed code: whoever holds it may be an attacker, so everything it issued is revoked.
      await this.revokeGrant(row.id);
      throw new DomainError('invalid_grant', 'the code was already used; the tokens issued from it are revoked');
    }
    if (outcome instanceof DomainError) throw outcome;
    return this.signTokens(outcome);
  }

  private async refresh(client: OidcClient, body: Record<string, unknown>): Promise<Tokens> {
    const presented = one(body.refresh_token);
    if (!presented) throw new DomainError('invalid_request', 'refresh_token is required');
    const row = await this.em().findOne(RefreshToken, { tokenDigest: digestSecret(presented) });
    if (!row || row.clientId !== client.clientId) throw new DomainError('invalid_grant', 'the refresh token is invalid or was issued to another client');
    if (row.revokedAt) throw new DomainError('invalid_grant', 'the refresh token was revoked');
    const now = this.now();
    if (row.expiresAt <= now) throw new DomainError('invalid_grant', 'the refresh token expired');
    let scopes = row.scopes;
    const requested = one(body.scope);
    if (requested !== undefined) {
      const narrowed = requested.split(' ').filter(Boolean);
      if (narrowed.some((scope) => !row.scopes.includes(scope))) throw new DomainError('invalid_scope', 'a refresh cannot widen the granted scopes');
      scopes = narrowed;
    }
    // Rotation and the new tokens commit together, for the reason given in exchangeCode.
    const stored = await this.em().transactional(async (em) => {
      const rotated = await em.nativeUpdate(RefreshToken, { id: row.id, rotatedAt: null, revokedAt: null }, { rotatedAt: now });
      return rotated === 0 ? null : this.storeTokens(em, client, { accountId: row.accountId, scopes, grantId: row.grantId, authTime: row.authTime });
    });
    if (!stored) {
      // Replay of a rotated-away token: revoke every refresh token of this user and client.
      await this.revokeFor(row.accountId, row.clientId);
      throw new DomainError('invalid_grant', 'the refresh token was already used; every refresh token of this sign-in is revoked');
    }
    return this.signTokens(stored);
  }

  /** Stores a new access and refresh token in `em` (flushed); `signTokens` makes the answer after the commit. */
  private async storeTokens(em: EntityManager, client: OidcClient, grant: { accountId: string; scopes: string[]; grantId: string; authTime: Date; nonce?: string }): Promise<StoredTokens> {
    const now = this.now();
    const account = await em.findOneOrFail(Account, { id: grant.accountId });
    // An active roster member of the client's organization is told apart by their member id.
    const membership = client.organization ? await em.findOne(Member, { organization: client.organization, svcId: account.id, status: 'active' }, { fields: ['memberId'] }) : null;
    const { token: accessToken } = this.deps.accessTokens.add(em, { account, client, scopes: grant.scopes, grantId: grant.grantId });
    const refreshToken = newSecret('vr');
    em.create(RefreshToken, {
      id: newId('rt'),
      tokenDigest: digestSecret(refreshToken),
      clientId: client.clientId,
      accountId: account.id,
      scopes: grant.scopes,
      grantId: grant.grantId,
      authTime: grant.authTime,
      createdAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TTL_MS),
    });
    await em.flush();
    const claims = {
      iss: this.issuer,
      sub: account.id,
      aud: client.clientId,
      auth_time: Math.floor(grant.authTime.getTime() / 1000),
      at_hash: atHash(accessToken),
      ...(grant.nonce !== undefined ? { nonce: grant.nonce } : {}),
      svc_id: account.id,
      ...(membership ? { svc_org_member_id: membership.memberId } : {}),
      ...(grant.scopes.includes('profile') ? { email: account.email, email_verified: account.emailVerifiedAt != null, name: account.displayName ?? account.email } : {}),
    };
    return { accessToken, refreshToken, scopes: grant.scopes, claims };
  }

  private async signTokens(stored: StoredTokens): Promise<Tokens> {
    const idToken = await this.deps.keys.sign(stored.claims, ID_TOKEN_TTL_SECONDS);
    return { access_token: stored.accessToken, refresh_token: stored.refreshToken, id_token: idToken, token_type: 'Bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: stored.scopes.join(' ') };
  }

  private async revokeGrant(grantId: string): Promise<void> {
    const em = this.em();
    const now = this.now();
    await em.nativeUpdate(AccessToken, { grantId, revokedAt: null }, { revokedAt: now });
    await em.nativeUpdate(RefreshToken, { grantId, revokedAt: null }, { revokedAt: now });
  }

  /** Revokes every access and refresh token of a user for a client. */
  async revokeFor(accountId: string, clientId: string): Promise<void> {
    const em = this.em();
    const now = this.now();
    await em.nativeUpdate(RefreshToken, { accountId, clientId, revokedAt: null }, { revokedAt: now });
    await em.nativeUpdate(AccessToken, { account: { id: accountId }, client: { clientId }, revokedAt: null }, { revokedAt: now });
  }

  /**
   * After a password reset: every refresh and access token of the account (all clients), its
   * browser sessions, and its sign-in lock end.
   */
  async endEverySignIn(account: { svcId: string; email: string }): Promise<void> {
    const em = this.em();
    const now = this.now();
    await em.nativeUpdate(RefreshToken, { accountId: account.svcId, revokedAt: null }, { revokedAt: now });
    await em.nativeUpdate(AccessToken, { account: { id: account.svcId }, revokedAt: null }, { revokedAt: now });
    await em.nativeDelete(LoginSession, { accountId: account.svcId });
    await this.deps.throttle.succeeded(account.email, '');
  }

  /** Revokes a person's tokens for every client of an organization (a roster member was deactivated or removed). */
  async revokeForOrganization(accountId: string, organizationId: number): Promise<void> {
    const clients = await this.em().find(OidcClient, { organization: organizationId }, { fields: ['clientId'] });
    for (const client of clients) await this.revokeFor(accountId, client.clientId);
  }

  // ---- logout ----

  /**
   * RP-initiated logout: `id_token_hint` proves who (an expired one is fine, a tampered one is
   * not); `post_logout_redirect_uri` must be one of that client's registered URIs exactly.
   */
  async logout(query: Record<string, unknown>): Promise<{ kind: 'redirect'; url: string } | { kind: 'signed_out' } | { kind: 'error_page'; message: string }> {
    const hint = one(query.id_token_hint);
    const postLogout = one(query.post_logout_redirect_uri);
    const state = one(query.state);
    if (!hint) {
      if (postLogout) return { kind: 'error_page', message: 'post_logout_redirect_uri needs an id_token_hint.' };
      return { kind: 'signed_out' };
    }
    const claims = await this.deps.keys.verify(hint, this.issuer, { ignoreExpiry: true });
    const clientId = typeof claims?.aud === 'string' ? claims.aud : Array.isArray(claims?.aud) ? claims.aud[0] : undefined;
    if (!claims || typeof claims.sub !== 'string' || !clientId) return { kind: 'error_page', message: 'The id_token_hint is not valid.' };
    const client = await this.em().findOne(OidcClient, { clientId });
    if (!client) return { kind: 'error_page', message: 'The id_token_hint names an unknown application.' };
    if (postLogout && !client.redirectUris.includes(postLogout)) return { kind: 'error_page', message: 'The post_logout_redirect_uri is not registered for this application.' };
    await this.revokeFor(claims.sub, clientId);
    if (!postLogout) return { kind: 'signed_out' };
    const url = new URL(postLogout);
    if (state !== undefined) url.searchParams.set('state', state);
    return { kind: 'redirect', url: url.toString() };
  }

  // ---- account reads (no check runs here; no date of birth, document number or address) ----

  private requireScope(grant: ResourceGrant, scope: string | null): void {
    if (!grant.scopes.includes('openid')) throw new DomainError('insufficient_scope', 'the token lacks the openid scope', { data: { scope: 'openid' } });
    if (scope && !grant.scopes.includes(scope)) throw new DomainError('insufficient_scope', `the token lacks the ${scope} scope`, { data: { scope } });
  }

  async userinfo(grant: ResourceGrant) {
    this.requireScope(grant, 'profile');
    const account = await this.em().findOneOrFail(Account, { id: grant.svcId });
    const identity = await this.deps.accounts.verifiedIdentity(account.id);
    return {
      sub: account.id,
      svc_id: account.id,
      preferred_username: account.email,
      email: account.email,
      email_verified: account.emailVerifiedAt != null,
      name: identity?.fullName ?? account.displayName ?? account.email,
      id_verified: account.idVerified,
    };
  }

  private async currentLicenses(svcId: string): Promise<AccountLicense[]> {
    const now = this.now();
    const rows = await this.em().find(AccountLicense, { accountId: svcId }, { orderBy: { createdAt: 'asc' } });
    // A stored licence is never served past its expire_at.
    return rows.filter((row) => !row.expireAt || row.expireAt > now);
  }

  async licenses(grant: ResourceGrant) {
    this.requireScope(grant, null);
    const rows = await this.currentLicenses(grant.svcId);
    return { licenses: rows.map((row) => ({ type: row.type, number: row.number, status: row.status, expires_on: row.expiresOn ?? null, issuer: row.issuer })) };
  }

  async verifications(grant: ResourceGrant) {
    this.requireScope(grant, 'verifications');
    const account = await this.em().findOneOrFail(Account, { id: grant.svcId });
    const rows = await this.currentLicenses(grant.svcId);
    return {
      verifications: {
        human_verified: account.humanVerified ?? account.idVerified,
        id_verified: account.idVerified,
        licenses: rows.map((row) => ({ license_type: row.type, verified: row.verifiedFrom != null, verified_from: row.verifiedFrom ?? null, expire_at: row.expireAt?.toISOString() ?? null })),
      },
    };
  }
}
