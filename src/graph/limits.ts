import type { ApolloServerPlugin } from '@apollo/server';
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

// Query depth and cost limits, checked before anything runs. Cost: every field costs 1, and what
// is under a list is multiplied by the list's size: its `first` argument for connections (default
// 20), an assumed 10 for plain lists (a session's checks, an event's attempts).

export const QUERY_LIMITS = { maxDepth: 8, maxCost: 5000 } as const;
const DEFAULT_PAGE = 20;
const ASSUMED_LIST = 10;

interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

/** Largest page a list may ask for (`first`). */
export const MAX_PAGE = 100;

/**
 * A page size as the cost counts it. Anything but a whole number from 1 to MAX_PAGE is refused
 * before the query runs: a negative `first` would otherwise subtract from the cost of the rest.
 */
function pageSize(value: unknown): number {
  if (value === null || value === undefined) return DEFAULT_PAGE;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_PAGE) {
    throw new GraphQLError(`first must be a whole number from 1 to ${MAX_PAGE}`, {
      extensions: { code: 'validation_error', http: { status: 400 } },
    });
  }
  return value;
}

/** Depth (nested field levels, introspection excluded) and cost of a selection. */
export function measure(
  walk: Walk,
  selection: SelectionSetNode,
  parent: GraphQLNamedType | undefined,
  seen = new Set<string>(),
): { depth: number; cost: number } {
  let depth = 0;
  let cost = 0;
  for (const node of selection.selections) {
    if (node.kind === Kind.FIELD) {
      if (node.name.value.startsWith('__')) continue;
      const field = parent && isObjectType(parent) ? parent.getFields()[node.name.value] : undefined;
      let multiplier = 1;
      // A connection's `edges` are as many as its `first`, already counted on the connection field.
      if (field && isListType(getNullableType(field.type)) && node.name.value !== 'edges') multiplier = ASSUMED_LIST;
      const first = node.arguments?.find((argument) => argument.name.value === 'first');
      if (first) multiplier = pageSize(valueFromASTUntyped(first.value, walk.variables));
      else if (field?.args.some((argument) => argument.name === 'first')) multiplier = DEFAULT_PAGE;
      const inner = node.selectionSet
        ? measure(walk, node.selectionSet, field ? getNamedType(field.type) : undefined, seen)
        : { depth: 0, cost: 0 };
      depth = Math.max(depth, 1 + inner.depth);
      cost += 1 + multiplier * inner.cost;
    } else {
      const fragment = node.kind === Kind.INLINE_FRAGMENT ? node : walk.fragments.get(node.name.value);
      if (!fragment || (node.kind === Kind.FRAGMENT_SPREAD && seen.has(node.name.value))) continue;
      const typeName = fragment.typeCondition?.name.value;
      const inner = measure(
        walk,
        fragment.selectionSet,
        typeName ? (walk.schema.getType(typeName) ?? parent) : parent,
        node.kind === Kind.FRAGMENT_SPREAD ? new Set([...seen, node.name.value]) : seen,
      );
      depth = Math.max(depth, inner.depth);
      cost += inner.cost;
    }
  }
  return { depth, cost };
}

/** Rejects over-deep or over-costly operations with 400 and `query_too_deep` / `query_too_costly`. */
export function queryLimitsPlugin(limits: { maxDepth: number; maxCost: number } = QUERY_LIMITS): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ document, operation, schema, request }) {
          if (!operation) return;
          const fragments = new Map(
            document.definitions
              .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
              .map((d) => [d.name.value, d]),
          );
          const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
          const { depth, cost } = measure(
            { schema, fragments, variables: request.variables ?? {} },
            operation.selectionSet,
            root ?? undefined,
          );
          if (depth > limits.maxDepth) {
            throw new GraphQLError(`query depth ${depth} is over the limit of ${limits.maxDepth}`, {
              extensions: { code: 'query_too_deep', http: { status: 400 }, depth, maxDepth: limits.maxDepth },
            });
          }
          if (cost > limits.maxCost) {
            throw new GraphQLError(
              `query cost ${cost} is over the limit of ${limits.maxCost}: ask for smaller pages or fewer nested lists`,
              {
                extensions: { code: 'query_too_costly', http: { status: 400 }, cost, maxCost: limits.maxCost },
              },
            );
          }
        },
      };
    },
  };
}
