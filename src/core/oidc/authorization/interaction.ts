import { digestSecret, newId, newSecret } from '../../secrets.js';
import type { OidcDeps } from '../context.js';
import {
  errorRedirect,
  promptsOf,
  redirectWith,
  type AuthorizeRequest,
  type AuthorizeStep,
  type BrowserSession,
} from './types.js';

const CODE_TTL_MS = 120_000;
const INTERACTION_TTL_MS = 10 * 60_000;

/**
 * After the checks: who must sign in or consent (the sign-in and consent pages carry an
 * interaction secret between steps), and the code once both are settled. Every authorize request
 * of a signed-in person comes here; what it keeps goes through the grant store.
 */
export class AuthorizationInteraction {
  constructor(private readonly deps: Pick<OidcDeps, 'grants' | 'clock' | 'issuer' | 'clients' | 'memberDeactivated'>) {}

  private now(): Date {
    return this.deps.clock.now();
  }

  private fail(request: AuthorizeRequest, error: string, description: string): AuthorizeStep {
    return errorRedirect(this.deps.issuer, request.redirectUri, error, description, request.state);
  }

  /** What happens next for a checked request, given who is signed in to this browser. */
  async nextStep(
    request: AuthorizeRequest,
    session: BrowserSession | null,
    options: { freshLogin?: boolean } = {},
  ): Promise<AuthorizeStep> {
    const tooOld =
      session &&
      request.maxAge !== undefined &&
      this.now().getTime() - session.authTime.getTime() > request.maxAge * 1000;
    const prompts = promptsOf(request.prompt);
    const needsLogin = !session || tooOld || (prompts.includes('login') && !options.freshLogin);
    if (needsLogin) {
      if (prompts.includes('none')) return this.fail(request, 'login_required', 'the user is not signed in');
      return {
        kind: 'login',
        interaction: await this.save(request),
        clientName: request.clientName,
        locale: request.uiLocale,
      };
    }
    if (await this.deactivatedMember(request.clientId, session.accountId)) return this.deactivated(request);
    const consented = await this.deps.grants.consent(session.accountId, request.clientId);
    const covered = consented && request.scopes.every((scope) => consented.includes(scope));
    if (!covered || prompts.includes('consent')) {
      if (prompts.includes('none')) return this.fail(request, 'consent_required', 'the user has not consented');
      return {
        kind: 'consent',
        interaction: await this.save(request),
        clientName: request.clientName,
        scopes: request.scopes,
        locale: request.uiLocale,
      };
    }
    return { kind: 'redirect', url: await this.issueCode(request, session) };
  }

  /** The person allowed or denied the request on the consent page. */
  async decide(interaction: string, session: BrowserSession | null, allow: boolean): Promise<AuthorizeStep> {
    const request = await this.load(interaction);
    if (!request)
      return {
        kind: 'error_page',
        message: 'This sign-in request expired. Go back to the application and start again.',
      };
    if (!session) return { kind: 'login', interaction, clientName: request.clientName, locale: request.uiLocale };
    await this.drop(interaction);
    if (!allow) return this.fail(request, 'access_denied', 'the user denied the request');
    if (await this.deactivatedMember(request.clientId, session.accountId)) return this.deactivated(request);
    await this.deps.grants.rememberConsent(session.accountId, request.clientId, request.scopes, this.now());
    return { kind: 'redirect', url: await this.issueCode(request, session) };
  }

  private async save(request: AuthorizeRequest): Promise<string> {
    const secret = newSecret('int', 24);
    await this.deps.grants.saveInteraction(
      digestSecret(secret),
      request,
      new Date(this.now().getTime() + INTERACTION_TTL_MS),
    );
    return secret;
  }

  async load(secret: string): Promise<AuthorizeRequest | null> {
    if (!secret || secret.length > 100) return null;
    const waiting = await this.deps.grants.interaction(digestSecret(secret));
    if (!waiting || waiting.expiresAt <= this.now()) return null;
    return waiting.request;
  }

  private async drop(secret: string): Promise<void> {
    await this.deps.grants.dropInteraction(digestSecret(secret));
  }

  /**
   * A deactivated roster member of the client's organization may not sign in to its apps
   * (deactivation revokes their logins; this keeps new ones from starting).
   */
  private async deactivatedMember(clientId: string, accountId: string): Promise<boolean> {
    const organizationId = (await this.deps.clients(clientId))?.organizationId;
    return organizationId == null ? false : this.deps.memberDeactivated(organizationId, accountId);
  }

  private deactivated(request: AuthorizeRequest): AuthorizeStep {
    return this.fail(request, 'access_denied', 'your membership of this organization is deactivated');
  }

  private async issueCode(request: AuthorizeRequest, session: BrowserSession): Promise<string> {
    const code = newSecret('code');
    const now = this.now();
    await this.deps.grants.addCode({
      grantId: newId('grt'),
      digest: digestSecret(code),
      clientId: request.clientId,
      accountId: session.accountId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      nonce: request.nonce ?? null,
      codeChallenge: request.codeChallenge ?? null,
      resource: request.resource ?? null,
      authTime: session.authTime,
      createdAt: now,
      expiresAt: new Date(now.getTime() + CODE_TTL_MS),
    });
    return redirectWith(this.deps.issuer, request.redirectUri, { code, state: request.state });
  }
}
