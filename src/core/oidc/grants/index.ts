import { DomainError } from '../../errors.js';
import type { RegisteredClient } from '../../tenancy/views.js';
import { one, type OidcDeps } from '../context.js';
import { authorizationCodeGrant } from './authorization-code.js';
import type { Tokens } from './issue.js';
import { refreshTokenGrant } from './refresh-token.js';

export type GrantHandler = (deps: OidcDeps, client: RegisteredClient, body: Record<string, unknown>) => Promise<Tokens>;

/** The token endpoint's grants, one file each (node-oidc-provider's lib/actions/grants is the model). */
export const GRANTS: Readonly<Record<string, GrantHandler>> = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
};

/** Runs the grant the body names, for an authenticated client. */
export function runGrant(deps: OidcDeps, client: RegisteredClient, body: Record<string, unknown>): Promise<Tokens> {
  const grantType = one(body.grant_type);
  const handler = grantType !== undefined && Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType] : undefined;
  if (handler) return handler(deps, client, body);
  if (!grantType) throw new DomainError('invalid_request', 'grant_type is required');
  throw new DomainError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
}

export { atHash, type Tokens } from './issue.js';
