import {
  checkClientId,
  checkCodeChallengeFormat,
  checkCodeChallengeMethod,
  checkMaxAge,
  checkPkceRequired,
  checkNonce,
  checkOpenidScope,
  checkPromptNoneAlone,
  checkPromptValues,
  checkRedirectUri,
  checkResource,
  checkResponseType,
  checkScopesEnabled,
  checkState,
  loadClient,
  pickLocale,
  rejectRequestObject,
  rejectRequestUri,
  type AuthorizeCheck,
  type AuthorizeClient,
  type AuthorizeContext,
} from './checks.js';
import { knownResources } from '../resource-indicators.js';
import { errorRedirect, type AuthorizeRequest, type AuthorizeStep } from './types.js';

/**
 * What the authorization endpoint checks, in order (node-oidc-provider's lib/actions/authorization
 * is the model). The first check that fails answers; the order matters: until `checkRedirectUri`
 * passes, failures are a page, after it they are redirects to the client.
 */
export const AUTHORIZE_CHECKS: readonly AuthorizeCheck[] = [
  checkClientId,
  loadClient,
  checkRedirectUri,
  rejectRequestObject,
  rejectRequestUri,
  checkResponseType,
  checkState,
  checkOpenidScope,
  checkScopesEnabled,
  checkCodeChallengeMethod,
  checkCodeChallengeFormat,
  checkPkceRequired,
  checkMaxAge,
  checkPromptValues,
  checkPromptNoneAlone,
  checkNonce,
  checkResource,
  pickLocale,
];

/** Runs `checks` over the query: the trusted request, or the step that answers a failed check. */
export async function checkAuthorizeRequest(
  query: Record<string, unknown>,
  findClient: (clientId: string) => Promise<AuthorizeClient | null>,
  issuer: string,
  checks: readonly AuthorizeCheck[] = AUTHORIZE_CHECKS,
): Promise<{ request: AuthorizeRequest } | { step: AuthorizeStep }> {
  const ctx: AuthorizeContext = { query, findClient, resources: knownResources(issuer), scopes: [] };
  for (const check of checks) {
    const failure = await check(ctx);
    if (!failure) continue;
    if ('page' in failure) return { step: { kind: 'error_page', message: failure.page } };
    if (!ctx.redirectUri) throw new Error(`${check.name} redirects an error before the redirect URI is checked`);
    return { step: errorRedirect(issuer, ctx.redirectUri, failure.error, failure.description, ctx.state) };
  }
  const { clientId, client, redirectUri, scopes, state, nonce, codeChallenge, prompt, maxAge, uiLocale, resource } =
    ctx;
  return {
    request: {
      clientId: clientId!,
      clientName: client!.name,
      redirectUri: redirectUri!,
      scopes,
      state: state!,
      nonce,
      codeChallenge,
      prompt,
      maxAge,
      uiLocale,
      resource,
    },
  };
}

export type { AuthorizeCheck, AuthorizeClient, AuthorizeContext, CheckFailure } from './checks.js';
export * from './types.js';
