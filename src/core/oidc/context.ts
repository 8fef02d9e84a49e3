import type { AccountService } from '../accounts/service.js';
import type { LoginThrottle } from '../accounts/login-throttle.js';
import type { Clock } from '../clock.js';
import type { Orm } from '../db/orm.js';
import type { GrantStore } from './grant-store.js';
import type { SigningKeys } from './keys.js';
import type { AccessTokenService } from './tokens.js';
import type { RegisteredClient } from '../tenancy/views.js';

/** What every part of the provider (authorize, grants, sessions, logout, resources) works with. */
export interface OidcDeps {
  orm: Orm;
  /** Tokens, codes and consents: the provider's tables outside the token endpoint's issuing statements. */
  grants: GrantStore;
  /** An OIDC client by id, or null (cached; the token endpoint authenticates one on every call). */
  clients: (clientId: string) => Promise<RegisteredClient | null>;
  /** Whether the person is a deactivated member of the organization's roster (they may not sign in to its apps). */
  memberDeactivated: (organizationId: number, svcId: string) => Promise<boolean>;
  clock: Clock;
  keys: SigningKeys;
  accounts: AccountService;
  accessTokens: AccessTokenService;
  throttle: LoginThrottle;
  issuer: string;
}

/** A request parameter as one string: the first of a repeated one, undefined for anything else. */
export const one = (value: unknown): string | undefined =>
  typeof value === 'string' ? value : Array.isArray(value) && typeof value[0] === 'string' ? value[0] : undefined;
