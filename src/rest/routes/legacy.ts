import { DomainError } from '../../core/errors.js';
import type { ApiDocs } from '../../http/openapi.js';
import { caseSensitiveRouter } from '../../http/router.js';

/** Each removed route: what it did, and where that is done now. */
const REMOVED = [
  {
    method: 'post',
    path: '/token',
    what: 'legacy token exchange',
    now: '`POST /api/auth/oidc/token` with `grant_type=authorization_code` and PKCE',
  },
  { method: 'get', path: '/userinfo', what: 'legacy user info', now: '`GET /api/auth/oidc/userinfo`' },
  { method: 'get', path: '/licenses', what: 'legacy licences', now: '`GET /api/auth/oidc/licenses`' },
  { method: 'get', path: '/verifications', what: 'legacy verifications', now: '`GET /api/auth/oidc/verifications`' },
  {
    method: 'post',
    path: '/refresh',
    what: 'legacy token refresh',
    now: '`POST /api/auth/oidc/token` with `grant_type=refresh_token`; refresh tokens always rotate',
  },
] as const;

/** `/api/auth/tpsso/*`: removed. Every method and sub-path answers 410 `endpoint_removed`. */
export function legacySsoRouter(docs: ApiDocs) {
  const router = caseSensitiveRouter();
  router.use(() => {
    throw new DomainError(
      'endpoint_removed',
      'the /api/auth/tpsso endpoints were removed; use the OpenID Connect endpoints at /api/auth/oidc/*',
    );
  });
  for (const { method, path, what, now } of REMOVED) {
    docs.add({
      method,
      path: `/api/auth/tpsso${path}`,
      summary: `Removed: ${what}`,
      description: `The legacy single sign-on namespace is removed: every call answers 410 \`endpoint_removed\`. Use the OpenID Connect endpoints instead: ${now}.`,
      tag: 'legacy',
      security: 'none',
      removed: true,
      errors: ['endpoint_removed'],
    });
  }
  return router;
}
