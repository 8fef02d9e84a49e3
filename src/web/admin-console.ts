import { renderPage } from './assets.js';
import { caseSensitiveRouter } from '../http/router.js';

// The admin console at /admin: web/templates/console.html and its script web/console/main.ts. It
// speaks only the GraphQL admin API, with the admin token kept in sessionStorage (gone when the
// tab closes). Every list is a server-side page, so it stays fast on large projects.

/** `/admin`: the console page. */
export function adminConsoleRouter() {
  const router = caseSensitiveRouter();
  router.get(['/admin', '/admin/'], (_req, res) => {
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    );
    res.type('html').send(renderPage('console', { title: 'Verity admin' }, 'console/main.tsx'));
  });
  return router;
}
