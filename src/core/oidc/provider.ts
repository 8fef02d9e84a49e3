import type { RegisteredClient } from '../tenancy/views.js';
import {
  checkAuthorizeRequest,
  type AuthorizeRequest,
  type AuthorizeStep,
  type BrowserSession,
} from './authorization/index.js';
import { AuthorizationInteraction } from './authorization/interaction.js';
import { authenticateClient } from './client-auth.js';
import type { OidcDeps } from './context.js';
import { discoveryDocument } from './discovery.js';
import { runGrant, type Tokens } from './grants/index.js';
import { logout, type LogoutStep } from './logout.js';
import { AccountResources, type ResourceGrant } from './resources.js';
import { BrowserSessions } from './sessions.js';

export type { AuthorizeRequest, AuthorizeStep, BrowserSession } from './authorization/index.js';
export { atHash, type Tokens } from './grants/index.js';
export type { ResourceGrant } from './resources.js';

/**
 * The OpenID Connect provider: one entry point over its parts. Authorize is an ordered list of
 * checks (authorization/), then sign-in and consent (authorization/interaction.ts); the token
 * endpoint runs one grant per file (grants/); browser sessions, logout, revocation and the
 * account reads have a file each.
 */
export class OidcProvider {
  private readonly interaction: AuthorizationInteraction;
  private readonly sessions: BrowserSessions;
  private readonly resources: AccountResources;

  constructor(private readonly deps: OidcDeps) {
    this.interaction = new AuthorizationInteraction(deps);
    this.sessions = new BrowserSessions(deps);
    this.resources = new AccountResources(deps);
  }

  get issuer(): string {
    return this.deps.issuer;
  }

  discovery() {
    return discoveryDocument(this.issuer);
  }

  // ---- authorize ----

  /**
   * Checks an authorization request (AUTHORIZE_CHECKS, in order). Until the client and its exact
   * redirect URI are known, errors are shown on a page (never redirected: that would be an open
   * redirect); after, they go back to the client with `error`, `state` and `iss`.
   */
  checkAuthorize(query: Record<string, unknown>): Promise<{ request: AuthorizeRequest } | { step: AuthorizeStep }> {
    return checkAuthorizeRequest(query, this.deps.clients, this.issuer);
  }

  /** What happens next for a checked request, given who is signed in to this browser. */
  nextStep(
    request: AuthorizeRequest,
    session: BrowserSession | null,
    options: { freshLogin?: boolean } = {},
  ): Promise<AuthorizeStep> {
    return this.interaction.nextStep(request, session, options);
  }

  loadInteraction(secret: string): Promise<AuthorizeRequest | null> {
    return this.interaction.load(secret);
  }

  /** The person allowed or denied the request on the consent page. */
  decide(interaction: string, session: BrowserSession | null, allow: boolean): Promise<AuthorizeStep> {
    return this.interaction.decide(interaction, session, allow);
  }

  // ---- browser sessions ----

  signIn(
    email: string,
    password: string,
    address: string,
  ): Promise<{ cookie: string; session: BrowserSession } | null> {
    return this.sessions.signIn(email, password, address);
  }

  signUp(input: {
    email: string;
    password: string;
    name?: string;
  }): Promise<{ cookie: string; session: BrowserSession }> {
    return this.sessions.signUp(input);
  }

  openSession(accountId: string): Promise<{ cookie: string; session: BrowserSession }> {
    return this.sessions.open(accountId);
  }

  session(cookie: string | undefined): Promise<BrowserSession | null> {
    return this.sessions.find(cookie);
  }

  endSession(cookie: string | undefined): Promise<void> {
    return this.sessions.end(cookie);
  }

  // ---- token endpoint ----

  authenticateClient(
    body: Record<string, unknown>,
    basic: { id: string; secret: string } | undefined,
  ): Promise<RegisteredClient> {
    return authenticateClient(this.deps, body, basic);
  }

  async token(body: Record<string, unknown>, basic: { id: string; secret: string } | undefined): Promise<Tokens> {
    const client = await this.authenticateClient(body, basic);
    return runGrant(this.deps, client, body);
  }

  // ---- revocation and logout ----

  /**
   * Revokes every access and refresh token of a person for these clients (a roster member deactivated or removed: the
   * organization's clients).
   */
  revokeForClients(accountId: string, clientIds: readonly string[]): Promise<void> {
    return this.deps.grants.revokeForClients(accountId, clientIds, this.deps.clock.now());
  }

  /**
   * After a password reset: every refresh and access token of the account (all clients), its
   * browser sessions, and its sign-in lock end.
   */
  async endEverySignIn(account: { svcId: string; email: string }): Promise<void> {
    await this.deps.grants.endEverySignIn(account.svcId, this.deps.clock.now());
    await this.deps.throttle.forgetAccount(account.email);
  }

  /**
   * RP-initiated logout for the browser's sign-in (`session`); `confirmed` when the person said yes on the confirmation
   * page.
   */
  logout(query: Record<string, unknown>, session: BrowserSession | null, confirmed: boolean): Promise<LogoutStep> {
    return logout(this.deps, query, session, confirmed);
  }

  // ---- account reads ----

  userinfo(grant: ResourceGrant) {
    return this.resources.userinfo(grant);
  }

  licenses(grant: ResourceGrant) {
    return this.resources.licenses(grant);
  }

  verifications(grant: ResourceGrant) {
    return this.resources.verifications(grant);
  }
}
