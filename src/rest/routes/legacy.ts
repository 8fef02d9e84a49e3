import { DomainError } from '../../core/errors.js';
import type { ApiDocs } from '../openapi.js';
import { caseSensitiveRouter } from '../router.js';

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
    docs.add({ method, path: `/api/auth/tpsso${path}`, summary: 'Removed: use /api/auth/oidc/*', tag: 'legacy', security: 'none', removed: true, errors: ['endpoint_removed'] });
  }
  return router;
}
