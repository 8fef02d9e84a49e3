import type { Request } from 'express';
import { firstSupportedLocale } from '../core/oidc/ui-locales.js';
import { HOSTED_PAGE_LANGUAGES } from '../core/vocabulary.js';
import { renderPage } from './assets.js';
import { caseSensitiveRouter } from '../http/router.js';

// The hosted verification page: web/templates/hosted.html and its script web/hosted/main.ts,
// served from our origin only (no CDN, no fonts, no network beyond us).

/**
 * The page's language: the first supported one of `ui_locales` (a space-separated query parameter
 * an integrator may add to the link), else the best of Accept-Language, else English.
 */
export function pageLanguage(req: Request): (typeof HOSTED_PAGE_LANGUAGES)[number] {
  const fromLink = firstSupportedLocale(
    typeof req.query.ui_locales === 'string' ? req.query.ui_locales : undefined,
    HOSTED_PAGE_LANGUAGES,
  );
  return (
    fromLink ?? ((req.acceptsLanguages(...HOSTED_PAGE_LANGUAGES) || 'en') as (typeof HOSTED_PAGE_LANGUAGES)[number])
  );
}

/** `GET /verify/{session_id}`: the page a person completes. */
export function sessionPageRouter() {
  const router = caseSensitiveRouter();
  router.get('/verify/:sessionId', (req, res) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    res.setHeader('Permissions-Policy', 'camera=(self), geolocation=(self)');
    const lang = pageLanguage(req);
    res.setHeader('Content-Language', lang);
    res.setHeader('Vary', 'Accept-Language');
    res.type('html').send(renderPage('hosted', { title: 'Verify your identity', lang }, 'hosted/main.tsx'));
  });
  return router;
}
