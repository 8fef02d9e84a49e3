import { OidcClient } from '../tenancy/entities.js';
import { forkEm, type OidcDeps } from './context.js';
import { AccessToken, LoginSession, RefreshToken } from './entities.js';

type Deps = Pick<OidcDeps, 'orm' | 'clock' | 'throttle'>;

/** Every access and refresh token issued from one code (a replayed code revokes them). */
export async function revokeGrant(deps: Deps, grantId: string): Promise<void> {
  const em = forkEm(deps);
  const now = deps.clock.now();
  await em.nativeUpdate(AccessToken, { grantId, revokedAt: null }, { revokedAt: now });
  await em.nativeUpdate(RefreshToken, { grantId, revokedAt: null }, { revokedAt: now });
}

/** Revokes every access and refresh token of a user for a client. */
export async function revokeFor(deps: Deps, accountId: string, clientId: string): Promise<void> {
  const em = forkEm(deps);
  const now = deps.clock.now();
  await em.nativeUpdate(RefreshToken, { accountId, clientId, revokedAt: null }, { revokedAt: now });
  await em.nativeUpdate(AccessToken, { account: { id: accountId }, client: { clientId }, revokedAt: null }, { revokedAt: now });
}

/**
 * After a password reset: every refresh and access token of the account (all clients), its
 * browser sessions, and its sign-in lock end.
 */
export async function endEverySignIn(deps: Deps, account: { svcId: string; email: string }): Promise<void> {
  const em = forkEm(deps);
  const now = deps.clock.now();
  await em.nativeUpdate(RefreshToken, { accountId: account.svcId, revokedAt: null }, { revokedAt: now });
  await em.nativeUpdate(AccessToken, { account: { id: account.svcId }, revokedAt: null }, { revokedAt: now });
  await em.nativeDelete(LoginSession, { accountId: account.svcId });
  await deps.throttle.succeeded(account.email, '');
}

/** Revokes a person's tokens for every client of an organization (a roster member was deactivated or removed). */
export async function revokeForOrganization(deps: Deps, accountId: string, organizationId: number): Promise<void> {
  const clients = await forkEm(deps).find(OidcClient, { organization: organizationId }, { fields: ['clientId'] });
  for (const client of clients) await revokeFor(deps, accountId, client.clientId);
}
