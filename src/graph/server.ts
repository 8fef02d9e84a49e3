import { ApolloServer } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { outageError, outageReason } from '../core/db/unavailable.js';
import { DomainError, isErrorCode } from '../core/errors.js';
import type { Core } from '../core/index.js';
import type { Logger } from '../logger.js';
import { bearer } from '../rest/auth.js';
import { queryLimitsPlugin } from './limits.js';
import { opsLoaders } from './ops-resolvers.js';
import type { GraphContext } from './resolvers.js';
import { graphSchema } from './schema.js';

/** Domain errors carry their catalog code in `extensions.code`; anything else is internal_error. */
export function formatGraphError(logger: Logger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    if (original instanceof DomainError) {
      return {
        message: original.message,
        path: formatted.path,
        extensions: { code: original.code, status: original.status, ...(original.data ? { data: original.data } : {}) },
      };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && isErrorCode(code)) return formatted;
    if (typeof code === 'string' && code !== 'INTERNAL_SERVER_ERROR') {
      // GraphQL's own errors (parse, validation, bad input): the client can fix them.
      return {
        message: formatted.message,
        locations: formatted.locations,
        path: formatted.path,
        extensions: { code: 'validation_error', graphql: code },
      };
    }
    const outage = outageError(original);
    if (outage) {
      // PostgreSQL restarting or failing over: the same retryable answer as REST's 503.
      logger.warn({ database: outageReason(original) }, 'database unavailable');
      return {
        message: outage.message,
        path: formatted.path,
        extensions: { code: outage.code, status: outage.status },
      };
    }
    logger.error({ err: original }, 'graphql error');
    return { message: 'unexpected error', path: formatted.path, extensions: { code: 'internal_error' } };
  };
}

/** The admin token's caller; an outage while looking it up is a 503 (Apollo makes a context error a 500). */
async function authenticateOrOutage(core: Core, token: string) {
  try {
    return await core.tenancy.authenticateAdminToken(token);
  } catch (error) {
    const outage = outageError(error);
    if (!outage) throw error;
    throw new GraphQLError(outage.message, {
      extensions: { code: outage.code, status: outage.status, http: { status: outage.status } },
    });
  }
}

/** Apollo Server at /graphql, admin-token protected: `Authorization: Bearer <admin token>`. */
export async function graphqlMiddleware(
  core: Core,
  logger: Logger,
): Promise<{ handler: RequestHandler; stop: () => Promise<void> }> {
  const server = new ApolloServer<GraphContext>({
    schema: await graphSchema(),
    formatError: formatGraphError(logger),
    includeStacktraceInErrorResponses: false,
    introspection: true,
    // No Apollo landing page (it loads its sandbox from a CDN): browsers get our bundled GraphiQL
    // (src/web/graphiql-page.ts).
    plugins: [queryLimitsPlugin(), ApolloServerPluginLandingPageDisabled()],
    // The service owns shutdown order (HTTP, then GraphQL, then the store).
    stopOnTerminationSignals: false,
  });
  await server.start();
  const handler = expressMiddleware(server, {
    context: async ({ req }) => {
      const token = bearer(req);
      const scope = token ? await authenticateOrOutage(core, token) : null;
      if (!scope) {
        throw new GraphQLError(
          token ? 'invalid admin token' : 'missing admin token: send Authorization: Bearer <admin token>',
          {
            extensions: { code: 'unauthenticated', http: { status: 401 } },
          },
        );
      }
      return { core, scope, loaders: opsLoaders(core) };
    },
  });
  return { handler, stop: () => server.stop() };
}
