import { DomainError } from '../../core/errors.js';
import type { ApiDocs } from '../openapi.js';
import { caseSensitiveRouter } from '../router.js';

/** Where each removed route's work is done now. */
const MIGRATION: Record<string, string> = {
  '/token': '`POST /api/auth/oidc/token` with `grant_type=authorization_code` and PKCE',
  '/userinfo': '`GET /api/auth/oidc/userinfo`',
  '/licenses': '`GET /api/auth/oidc/licenses`',
  '/verifications': '`GET /api/auth/oidc/verifications`',
  '/refresh': '`POST /api/auth/oidc/token` with `grant_type=refresh_token`; refresh tokens always rotate',
};

/** `/api/auth/tpsso/*`: removed. Every method and sub-path answers 410 `endpoint_removed`. */
export function legacySsoRouter(docs: ApiDocs) {
  const router = caseSensitiveRouter();
  router.use(() => {
    throw new DomainError('endpoint_removed', 'the /api/auth/tpsso endpoints were removed; use the OpenID Connect endpoints at /api/auth/oidc/*');
  });
  for (const [method, path] of [
    ['post', '/token'],
    ['get', '/userinfo'],
    ['get', '/licenses'],
    ['get', '/verifications'],
    ['post', '/refresh'],
  ] as const) {
    docs.add({
      method,
      path: `/api/auth/tpsso${path}`,
      summary: `Removed: ${method.toUpperCase()} /api/auth/tpsso${path}`,
      description: `The legacy single sign-on namespace is removed: every call answers 410 \`endpoint_removed\`. Use the OpenID Connect endpoints instead (${MIGRATION[path]}).`,
      tag: 'legacy',
      security: 'none',
      removed: true,
      errors: ['endpoint_removed'],
    });
  }
  return router;
}
