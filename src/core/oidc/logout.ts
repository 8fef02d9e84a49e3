import { one, type OidcDeps } from './context.js';
import { withQueryParams, type BrowserSession } from './authorization/types.js';

export type LogoutStep =
  | { kind: 'redirect'; url: string }
  | { kind: 'signed_out' }
  /**
   * Ask the person first: `clientName` is the application named by the hint (null without one), `postLogoutRedirectUri`
   * registered for it.
   */
  | { kind: 'confirm'; clientName: string | null; postLogoutRedirectUri: string | null }
  | { kind: 'error_page'; message: string };

/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): `id_token_hint` proves who (an
 * expired one is fine, a tampered one is not); `post_logout_redirect_uri` must be one of that
 * client's registered URIs exactly. The tokens of the hint's person for its client are revoked
 * and the browser's sign-in ends at once only when that sign-in is the hint's person: any page
 * can send a browser here, and an id_token is no secret from its relying party's logs and pages,
 * so a request the browser's own sign-in does not vouch for (no hint, or a hint of someone not
 * signed in to this browser) is first put to the person (section 2: the OP MUST ask then), and
 * only their `confirmed` answer, a form post with its CSRF token, signs out.
 */
export async function logout(
  deps: Pick<OidcDeps, 'grants' | 'clients' | 'clock' | 'keys' | 'issuer'>,
  query: Record<string, unknown>,
  session: BrowserSession | null,
  confirmed: boolean,
): Promise<LogoutStep> {
  const hint = one(query.id_token_hint);
  const postLogout = one(query.post_logout_redirect_uri);
  const state = one(query.state);
  if (!hint) {
    if (postLogout) return { kind: 'error_page', message: 'post_logout_redirect_uri needs an id_token_hint.' };
    return session && !confirmed
      ? { kind: 'confirm', clientName: null, postLogoutRedirectUri: null }
      : { kind: 'signed_out' };
  }
  const claims = await deps.keys.verify(hint, deps.issuer, { ignoreExpiry: true });
  const clientId =
    typeof claims?.aud === 'string' ? claims.aud : Array.isArray(claims?.aud) ? claims.aud[0] : undefined;
  if (!claims || typeof claims.sub !== 'string' || !clientId)
    return { kind: 'error_page', message: 'The id_token_hint is not valid.' };
  const client = await deps.clients(clientId);
  if (!client) return { kind: 'error_page', message: 'The id_token_hint names an unknown application.' };
  if (postLogout && !client.redirectUris.includes(postLogout))
    return { kind: 'error_page', message: 'The post_logout_redirect_uri is not registered for this application.' };
  if (!confirmed && !signedInAs(session, claims.sub))
    return { kind: 'confirm', clientName: client.name, postLogoutRedirectUri: postLogout ?? null };
  await deps.grants.revokeForClients(claims.sub, [clientId], deps.clock.now());
  if (!postLogout) return { kind: 'signed_out' };
  return { kind: 'redirect', url: withQueryParams(postLogout, { state }) };
}

/** Whether the browser's sign-in is the person an id_token_hint names: then the logout needs no confirmation. */
export function signedInAs(session: BrowserSession | null, sub: string): boolean {
  return session !== null && session.accountId === sub;
}
