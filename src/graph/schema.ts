import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { OpsResolver, SessionCheckResolver, SessionResolver, WebhookEventResolver } from './ops-resolvers.js';
import { TenancyResolver } from './resolvers.js';

let built: Promise<GraphQLSchema> | undefined;

/** The GraphQL schema from the resolvers; `schema.graphql` is this, printed. */
export function graphSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [TenancyResolver, SessionResolver, SessionCheckResolver, WebhookEventResolver, OpsResolver],
    validate: false,
    emitSchemaFile: false,
  });
  return built;
}
