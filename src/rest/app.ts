import express, { type Express, type RequestHandler } from 'express';
import type { Core } from '../core/index.js';
import { DomainError } from '../core/errors.js';
import type { Logger } from '../logger.js';
import { rateLimited, requireApiKey, requireOrgClient } from './auth.js';
import { checksRouter } from './routes/checks.js';
import { hostedSessionRouter, sessionsRouter } from './routes/sessions.js';
import { sessionPageRouter } from '../web/session-page.js';
import { rosterBodyErrors, rosterRouter } from './routes/roster.js';
import { oidcRouter } from './routes/oidc.js';
import { signInPagesRouter } from '../web/sign-in-pages.js';
import { credentialIssuerRouter, presentationRouter } from './routes/vc.js';
import { mcpRouter } from './routes/mcp.js';
import { accountPagesRouter } from '../web/account-pages.js';
import { errorHandler } from './errors.js';
import { jsonBody } from '../http/input.js';
import {
  accessLog,
  createMetrics,
  labelRoute,
  recordMatchedRoutes,
  requestId,
  traceRequests,
  type HttpMetrics,
} from '../http/observability.js';
import { ignoreWildcardIfNoneMatch, pagePolicyAsHeadIsWritten, securityHeaders } from '../http/security-headers.js';
import { ApiDocs } from '../http/openapi.js';
import { readGuides } from './reference-guides.js';
import { legacySsoRouter } from './routes/legacy.js';
import { caseSensitiveRouter } from '../http/router.js';
import { systemRouter, type MetricsAccess, type ReadinessProbe } from './routes/system.js';
import { homeRouter } from '../web/home.js';
import { assetsRouter } from '../web/assets.js';
import { activationRouter } from '../web/activation-pages.js';
import { apiReferenceRouter } from './api-reference.js';
import { adminConsoleRouter } from '../web/admin-console.js';

export interface HttpAppOptions {
  core: Core;
  logger: Logger;
  baseUrl: string;
  jsonBodyLimit?: string;
  probe?: ReadinessProbe;
  /** Mounted after the REST routes and before the 404: GraphQL, tRPC, pages. */
  mounts?: { path: string; handlers: RequestHandler[] }[];
  /** Who may read `/metrics` (default: nobody). */
  metricsAccess?: MetricsAccess;
}

export interface HttpApp {
  app: Express;
  metrics: HttpMetrics;
  docs: ApiDocs;
}

/** What Express keeps of a mounted router or route (router 2.x), as far as `methodsAt` reads it. */
interface RouterLayer {
  match(path: string): { path: string } | false;
  route?: { _methods(): string[] };
  handle: { stack?: RouterLayer[] };
}

/**
 * The methods some route answers at `path`, found in the routers themselves: a known path asked
 * with another method is 405 with `Allow` (RFC 9110 15.5.6), an unknown path stays 404.
 */
function methodsAt(stack: RouterLayer[], path: string, found = new Set<string>()): Set<string> {
  for (const layer of stack) {
    const match = layer.match(path);
    if (!match) continue;
    if (layer.route)
      for (const method of layer.route._methods()) {
        if (method !== '*') found.add(method);
      }
    else if (layer.handle.stack) methodsAt(layer.handle.stack, path.slice(match.path.length) || '/', found);
  }
  return found;
}

export function createHttpApp(options: HttpAppOptions): HttpApp {
  const { core, logger } = options;
  const metrics = createMetrics(core.metrics.registry);
  const docs = new ApiDocs(readGuides);
  const app = express();
  app.disable('x-powered-by');
  // One spelling per path: `/API/v2/...` is a 404, not the route without the middlewares that
  // compare paths (no-store) and with a metrics series of its own. Every router is made so too.
  app.set('case sensitive routing', true);
  app.set('trust proxy', false);
  app.set('query parser', 'simple');
  // No ETag on answers made by res.send: API answers are no-store and pages carry a fresh CSP nonce,
  // so none could match; hashing each body cost every call. Static assets keep their own.
  app.set('etag', false);

  recordMatchedRoutes(app);
  app.use(traceRequests);
  app.use(requestId);
  app.use(accessLog(logger, metrics));
  app.use(securityHeaders(options.baseUrl.startsWith('https:')));
  pagePolicyAsHeadIsWritten(app);
  app.use(ignoreWildcardIfNoneMatch);

  // Built in this order (the OpenAPI document lists their routes so), mounted in the order below.
  const system = systemRouter(core, metrics, docs, options.baseUrl, options.probe, options.metricsAccess);
  const legacySso = legacySsoRouter(docs);
  const oidc = oidcRouter(core, docs);
  const credentialIssuer = credentialIssuerRouter(core, docs);
  const mcp = mcpRouter(core, docs, logger);
  const activation = activationRouter(core, docs);
  const checks = checksRouter(core, docs);
  const hosted = hostedSessionRouter(core, docs);
  const sessions = sessionsRouter(core, docs);

  // The pages' scripts and stylesheets (web/, built into dist/web with hashed names).
  app.use(assetsRouter());
  app.use(homeRouter());
  // Health, metrics and the OpenAPI document (/api/v2/openapi.json needs no API key).
  app.use(system);

  // The verification API, right after: integrators call it most, and a request walks every route
  // mounted before the one it matches (the pages' and OIDC's were a fifth of a poll's routing).
  // Every route needs an API key (which decides which project's objects exist) and counts against
  // that key's rate limit. Check routes read their own bodies (large JSON with base64 images, or
  // multipart files); the session routes take JSON of at most jsonBodyLimit.
  const api = caseSensitiveRouter();
  api.use(requireApiKey(core), rateLimited(core));
  api.use(checks);
  api.use(jsonBody(options.jsonBodyLimit ?? '1mb'));
  api.use(sessions);
  api.use(presentationRouter(core, docs));
  app.use('/api/v2', api);

  // The rendered reference of the OpenAPI document (Redoc, bundled).
  app.use(apiReferenceRouter());
  app.use('/api/auth/tpsso', labelRoute('/api/auth/tpsso'), legacySso);
  app.use(oidc);
  app.use(signInPagesRouter(core));
  // Verifiable credentials (scope zkp): OpenID4VCI issuance, metadata and status lists.
  app.use(credentialIssuer);
  // The MCP endpoint for agents (an OAuth protected resource of the provider above) and the page where a person revokes
  // them.
  app.use(mcp);
  app.use(accountPagesRouter(core));
  // Roster invitations: sign in, take a selfie, become an active member.
  app.use(activation);
  // The admin console (it calls /graphql with an admin token).
  app.use(adminConsoleRouter());
  // The hosted page's own API (session token, never the API key); it reads image bodies too.
  app.use('/api/hosted', labelRoute('/api/hosted'), hosted);
  app.use(sessionPageRouter());

  app.use(jsonBody(options.jsonBodyLimit ?? '1mb'));

  const roster = caseSensitiveRouter();
  roster.use(requireOrgClient(core));
  roster.use(rosterRouter(core, docs));
  app.use('/api/sdk', roster, rosterBodyErrors);

  for (const mount of options.mounts ?? []) app.use(mount.path, labelRoute(mount.path), ...mount.handlers);

  app.use((req, res) => {
    const allow = [...methodsAt(app.router.stack as unknown as RouterLayer[], req.path)].sort().join(', ');
    if (allow) {
      res.setHeader('Allow', allow);
      throw new DomainError('method_not_allowed', `${req.method} is not allowed on this path; it takes ${allow}`);
    }
    throw new DomainError('not_found', 'no such endpoint');
  });
  app.use(errorHandler(logger));
  return { app, metrics, docs };
}
