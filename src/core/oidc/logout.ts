import { one, type OidcDeps } from './context.js';
import { withQueryParams } from './authorization/types.js';

export type LogoutStep = { kind: 'redirect'; url: string } | { kind: 'signed_out' } | { kind: 'error_page'; message: string };

/**
 * RP-initiated logout: `id_token_hint` proves who (an expired one is fine, a tampered one is
 * not); `post_logout_redirect_uri` must be one of that client's registered URIs exactly.
 */
export async function logout(deps: Pick<OidcDeps, 'grants' | 'clients' | 'clock' | 'keys' | 'issuer'>, query: Record<string, unknown>): Promise<LogoutStep> {
  const hint = one(query.id_token_hint);
  const postLogout = one(query.post_logout_redirect_uri);
  const state = one(query.state);
  if (!hint) {
    if (postLogout) return { kind: 'error_page', message: 'post_logout_redirect_uri needs an id_token_hint.' };
    return { kind: 'signed_out' };
  }
  const claims = await deps.keys.verify(hint, deps.issuer, { ignoreExpiry: true });
  const clientId = typeof claims?.aud === 'string' ? claims.aud : Array.isArray(claims?.aud) ? claims.aud[0] : undefined;
  if (!claims || typeof claims.sub !== 'string' || !clientId) return { kind: 'error_page', message: 'The id_token_hint is not valid.' };
  const client = await deps.clients(clientId);
  if (!client) return { kind: 'error_page', message: 'The id_token_hint names an unknown application.' };
  if (postLogout && !client.redirectUris.includes(postLogout)) return { kind: 'error_page', message: 'The post_logout_redirect_uri is not registered for this application.' };
  await deps.grants.revokeForClients(claims.sub, [clientId], deps.clock.now());
  if (!postLogout) return { kind: 'signed_out' };
  return { kind: 'redirect', url: withQueryParams(postLogout, { state }) };
}
