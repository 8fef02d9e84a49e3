import { Router } from 'express';
import { renderPage } from './assets.js';

// The hosted verification page: web/templates/hosted.html and its script web/hosted/main.ts,
// served from our origin only (no CDN, no fonts, no network beyond us).

/** `GET /verify/{session_id}`: the page a person completes. */
export function sessionPageRouter() {
  const router = Router();
  router.get('/verify/:sessionId', (_req, res) => {
    res.setHeader('Content-Security-Policy', "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'");
    res.setHeader('Permissions-Policy', 'camera=(self), geolocation=(self)');
    res.type('html').send(renderPage('hosted', { title: 'Verify your identity' }, 'hosted/main.tsx'));
  });
  return router;
}
