import type { RequestHandler } from 'express';
import { renderPage } from './assets.js';

/**
 * `GET /graphql` from a browser: the GraphQL IDE (web/graphiql, bundled GraphiQL). Queries sent as
 * GET with a `query` parameter, and every non-browser request, go on to the GraphQL server.
 */
export const graphiqlPage: RequestHandler = (req, res, next) => {
  if (
    req.method !== 'GET' ||
    req.path !== '/' ||
    req.query.query !== undefined ||
    req.accepts(['application/json', 'text/html']) !== 'text/html'
  )
    return next();
  res.setHeader(
    'Content-Security-Policy',
    "default-src 'self'; img-src 'self' data:; font-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  );
  res.type('html').send(renderPage('graphiql', { title: 'Verity GraphQL' }, 'graphiql/main.ts'));
};
