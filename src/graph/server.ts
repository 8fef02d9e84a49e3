import { ApolloServer } from '@apollo/server';
import { unwrapResolverError } from '@apollo/server/errors';
import { expressMiddleware } from '@as-integrations/express5';
import type { RequestHandler } from 'express';
import { GraphQLError, type GraphQLFormattedError } from 'graphql';
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
      return { message: formatted.message, locations: formatted.locations, path: formatted.path, extensions: { code: 'validation_error', graphql: code } };
    }
    logger.error({ err: original }, 'graphql error');
    return { message: 'unexpected error', path: formatted.path, extensions: { code: 'internal_error' } };
  };
}

/** Apollo Server at /graphql, admin-token protected: `Authorization: Bearer <admin token>`. */
export async function graphqlMiddleware(core: Core, logger: Logger): Promise<{ handler: RequestHandler; stop: () => Promise<void> }> {
  const server = new ApolloServer<GraphContext>({
    schema: await graphSchema(),
    formatError: formatGraphError(logger),
    includeStacktraceInErrorResponses: false,
    introspection: true,
    plugins: [queryLimitsPlugin()],
    // The service owns shutdown order (HTTP, then GraphQL, then the store).
    stopOnTerminationSignals: false,
  });
  await server.start();
  const handler = expressMiddleware(server, {
    context: async ({ req }) => {
      const token = bearer(req);
      const scope = token ? await core.tenancy.authenticateAdminToken(token) : null;
      if (!scope) {
        throw new GraphQLError(token ? 'invalid admin token' : 'missing admin token: send Authorization: Bearer <admin token>', {
          extensions: { code: 'unauthenticated', http: { status: 401 } },
        });
      }
      return { core, scope, loaders: opsLoaders(core) };
    },
  });
  return { handler, stop: () => server.stop() };
}
