import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from './context';
import {
  FragmentDefinitionNode,
  GraphQLError,
  GraphQLSchema,
  Kind,
  OperationDefinitionNode,
  SelectionSetNode,
} from 'graphql';
import { fieldExtensionsEstimator, getComplexity, simpleEstimator } from 'graphql-query-complexity';

function depthOf(selectionSet: SelectionSetNode | undefined, fragments: Map<string, FragmentDefinitionNode>, seen: Set<string>): number {
  if (!selectionSet) return 0;
  let deepest = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value.startsWith('__')) continue; // introspection is not data
      deepest = Math.max(deepest, 1 + depthOf(selection.selectionSet, fragments, seen));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, depthOf(selection.selectionSet, fragments, seen));
    } else {
      const name = selection.name.value;
      const fragment = fragments.get(name);
      if (!fragment || seen.has(name)) continue;
      deepest = Math.max(deepest, depthOf(fragment.selectionSet, fragments, new Set([...seen, name])));
    }
  }
  return deepest;
}

/**
 * One operation cannot ask for everything: a nesting ceiling and a cost ceiling (page sizes multiply what
 * each item asks for), both checked before anything runs. The REST layer's own documents are not a client's
 * and skip it (it cost about 4% of a REST write's CPU, bench/FINDINGS.md §1).
 */
export function operationLimits(schema: GraphQLSchema, maxDepth: number, maxComplexity: number): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart({ contextValue }) {
      if (contextValue.serviceOperation) return {};
      return {
        async didResolveOperation({ request, document, operation }) {
          const fragments = new Map(
            document.definitions
              .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
              .map((d) => [d.name.value, d]),
          );
          const depth = depthOf((operation as OperationDefinitionNode).selectionSet, fragments, new Set());
          if (depth > maxDepth) {
            throw new GraphQLError(`Query is nested ${depth} levels deep; the limit is ${maxDepth}`, {
              extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 }, details: [{ field: 'query', code: 'MAX_DEPTH', message: `depth ${depth} exceeds ${maxDepth}`, limit: maxDepth }] },
            });
          }
          let complexity: number;
          try {
            complexity = getComplexity({
              schema,
              operationName: request.operationName,
              query: document,
              variables: request.variables,
              estimators: [fieldExtensionsEstimator(), simpleEstimator({ defaultComplexity: 1 })],
            });
          } catch (error) {
            // the cost is computed with the variables' values: a value of the wrong type is the client's mistake
            if (error instanceof GraphQLError) {
              throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
            }
            throw error;
          }
          if (complexity > maxComplexity) {
            throw new GraphQLError(`Query costs ${complexity}; the limit is ${maxComplexity}`, {
              extensions: { code: 'QUERY_TOO_COMPLEX', http: { status: 400 }, details: [{ field: 'query', code: 'MAX_COMPLEXITY', message: `cost ${complexity} exceeds ${maxComplexity}`, limit: maxComplexity }] },
            });
          }
        },
      };
    },
  };
}
