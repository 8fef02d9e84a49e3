import { renderPage } from './assets.js';
import { caseSensitiveRouter } from '../http/router.js';

/** `/`: what this server is and where to go next, for a person who opens it in a browser. */
export function homeRouter() {
  const router = caseSensitiveRouter();
  router.get('/', (_req, res) => {
    res.type('html').send(renderPage('home', { title: 'Verity' }));
  });
  return router;
}
