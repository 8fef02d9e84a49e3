import type { NextFunction, Request, Response } from 'express';
import type { Core } from '../core/index.js';
import { DomainError } from '../core/errors.js';

// Authentication of the four surfaces. Each middleware puts who is calling into res.locals and
// answers the catalog's 401 code when the credential is missing or wrong.

export type { ApiKeyCaller } from '../core/tenancy/service.js';
import type { ApiKeyCaller } from '../core/tenancy/service.js';
export interface OrgCaller {
  organizationId: number;
  clientId: string;
}
export interface TokenCaller {
  svcId: string;
  clientId: string;
  scopes: string[];
}

/** `Authorization: Bearer <value>`, or undefined. */
export function bearer(req: Request): string | undefined {
  const header = req.get('authorization');
  if (!header) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

/** Verification endpoints: `X-API-Key`, or `Authorization: Bearer` with the same key. */
export function requireApiKey(core: Core) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const key = req.get('x-api-key') ?? bearer(req);
    const caller = key ? await core.tenancy.authenticateApiKey(key) : null;
    if (!caller) throw new DomainError('invalid_api_key', key ? 'invalid API key' : 'missing API key: send X-API-Key');
    res.locals.apiKey = caller satisfies ApiKeyCaller;
    next();
  };
}

/** Organization roster API: `X-Client-Id` and `X-Client-Secret`. */
export function requireOrgClient(core: Core) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const caller = await core.tenancy.authenticateOrgApp(
      req.get('x-client-id') ?? '',
      req.get('x-client-secret') ?? '',
    );
    if (!caller) throw new DomainError('invalid_client', 'wrong client_id/client_secret or app inactive');
    res.locals.org = caller satisfies OrgCaller;
    next();
  };
}

/**
 * Account resource endpoints: a bearer access token from the token endpoint. `ownResource` names
 * the RFC 8707 resource of the routes it guards, whose bound tokens are accepted there too.
 */
export function requireAccessToken(core: Core, ownResource?: (issuer: string) => string) {
  const accepted = ownResource?.(core.oidc.issuer) ?? null;
  return async (req: Request, res: Response, next: NextFunction) => {
    const token = bearer(req);
    const grant = token ? await core.accessTokens.verify(token) : null;
    if (!grant)
      throw new DomainError(
        'invalid_token',
        token ? 'access token is invalid or expired' : 'missing bearer access token',
      );
    // A token bound to a resource (RFC 8707) is good there only; one bound to none, at the account
    // endpoints and at a route that names its own resource.
    if (grant.resource !== null && grant.resource !== accepted)
      throw new DomainError('invalid_token', 'this access token is for another resource');
    res.locals.token = { svcId: grant.svcId, clientId: grant.clientId, scopes: grant.scopes } satisfies TokenCaller;
    next();
  };
}

/** Per-API-key rate limit (after `requireApiKey`): 429 `rate_limited` with `Retry-After`. */
export function rateLimited(core: Core) {
  return async (_req: Request, res: Response, next: NextFunction) => {
    await core.rateLimits.consume((res.locals.apiKey as ApiKeyCaller).apiKeyId);
    next();
  };
}
