import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { caseSensitiveRouter } from '../http/router.js';
import { standalonePage } from '../web/assets.js';

// The rendered API reference at /docs: Redoc's standalone bundle, served from node_modules (no
// CDN, nothing fetched at run time), reading the document this service serves.

const REDOC_BUNDLE = createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');

/** The one URL the bundle would fetch from outside: the sidebar's "API docs by Redocly" logo. */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/**
 * The bundle with its credit logo pointed at nothing (an empty data: URL fails to decode, and the
 * sidebar hides the image on error), so the page fetches nothing from outside the service. Read once.
 */
function offlineBundle(): string {
  const bundle = readFileSync(REDOC_BUNDLE, 'utf8');
  return bundle.replaceAll(CDN_LOGO, 'data:,');
}

/**
 * The page's own policy: Redoc (styled-components) writes its styles into <style> elements at run
 * time and runs its search index in a blob: worker, so those two are allowed here and nowhere else.
 */
const REFERENCE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

export function apiReferenceRouter() {
  const router = caseSensitiveRouter();
  let bundle: string | undefined;
  router.get('/docs', (_req, res) => {
    res.setHeader('Content-Security-Policy', REFERENCE_POLICY);
    res.type('html').send(standalonePage('api-reference'));
  });
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    bundle ??= offlineBundle();
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('text/javascript').send(bundle);
  });
  return router;
}
