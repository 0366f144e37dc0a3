import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from './context';
import type { CostContext } from './resolvers/paging';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import {
  FieldNode,
  FragmentDefinitionNode,
  getNamedType,
  GraphQLError,
  GraphQLField,
  GraphQLIncludeDirective,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLSkipDirective,
  Kind,
  SelectionNode,
  SelectionSetNode,
} from 'graphql';
import { getArgumentValues, getDirectiveValues, getVariableValues } from 'graphql/execution/values';

/**
 * The depth and cost of an operation in one walk that visits each fragment once: a fragment's figures are
 * memoised by name (they depend only on the request's variables, fixed for the walk), so a chain of
 * fragments each spreading the next twice costs linear time, not 2^n (graphql-query-complexity expands every
 * spread). Validation has already refused fragment cycles. Costs follow the schema's field `complexity`
 * extensions (type-graphql's `complexity` option: a number, or a function of the arguments, the children's
 * cost and the CostContext, which says how many items a list without `first` returns), and 1 + children's
 * cost elsewhere. Fields under @skip(if: true) / @include(if: false)
 * cost nothing.
 */
class OperationMeasure {
  private readonly fragmentFigures = new Map<string, { depth: number; cost: number }>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly variables: Record<string, unknown>,
    private readonly costContext: CostContext,
  ) {}

  measure(selectionSet: SelectionSetNode | undefined, parentType: GraphQLNamedType | undefined): { depth: number; cost: number } {
    let depth = 0;
    let cost = 0;
    if (!selectionSet) return { depth, cost };
    for (const selection of selectionSet.selections) {
      if (!this.included(selection)) continue;
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name.startsWith('__')) continue; // introspection is not data
        const field = parentType && 'getFields' in parentType ? (parentType as GraphQLObjectType).getFields()[name] : undefined;
        const child = this.measure(selection.selectionSet, field ? getNamedType(field.type) : undefined);
        depth = Math.max(depth, 1 + child.depth);
        cost += this.fieldCost(field, selection, child.cost);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? (this.schema.getType(selection.typeCondition.name.value) ?? parentType) : parentType;
        const inner = this.measure(selection.selectionSet, type);
        depth = Math.max(depth, inner.depth);
        cost += inner.cost;
      } else {
        const inner = this.fragment(selection.name.value);
        depth = Math.max(depth, inner.depth);
        cost += inner.cost;
      }
    }
    return { depth, cost };
  }

  private fragment(name: string): { depth: number; cost: number } {
    const known = this.fragmentFigures.get(name);
    if (known) return known;
    const fragment = this.fragments.get(name);
    // a placeholder first: even an (invalid) cycle ends instead of looping
    this.fragmentFigures.set(name, { depth: 0, cost: 0 });
    const figures = fragment
      ? this.measure(fragment.selectionSet, this.schema.getType(fragment.typeCondition.name.value))
      : { depth: 0, cost: 0 };
    this.fragmentFigures.set(name, figures);
    return figures;
  }

  private fieldCost(field: GraphQLField<unknown, unknown> | undefined, node: FieldNode, childComplexity: number): number {
    const complexity = field?.extensions?.complexity as unknown;
    if (typeof complexity === 'number') return complexity + childComplexity;
    if (typeof complexity === 'function') {
      const args = getArgumentValues(field!, node, this.variables);
      return Number(
        (complexity as (options: { args: unknown; childComplexity: number; context: CostContext }) => number)({
          args,
          childComplexity,
          context: this.costContext,
        }),
      );
    }
    return 1 + childComplexity;
  }

  private included(node: SelectionNode): boolean {
    if (getDirectiveValues(GraphQLSkipDirective, node, this.variables)?.if === true) return false;
    if (getDirectiveValues(GraphQLIncludeDirective, node, this.variables)?.if === false) return false;
    return true;
  }
}

/**
 * One operation cannot ask for everything: a nesting ceiling and a cost ceiling (page sizes multiply what
 * each item asks for; a nested list without `first` counts as MAX_PAGE_SIZE items, what it returns at most),
 * both checked before anything runs. The REST layer's own documents do not come this way
 * (`serviceOperations` in compiled-execution.ts): their shapes are fixed and their page sizes bounded.
 */
export function operationLimits(
  schema: GraphQLSchema,
  maxDepth: number,
  maxComplexity: number,
  maxPageSize: number,
): ApolloServerPlugin<GraphQLContext> {
  const costContext: CostContext = { maxPageSize };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation }) {
          if (!operation) {
            // an operationName that names no operation of the document: the client's mistake
            throw new GraphQLError(`No operation named ${JSON.stringify(String(request.operationName ?? ''))} in the document`, {
              extensions: {
                code: ApolloServerErrorCode.OPERATION_RESOLUTION_FAILURE,
                http: { status: 400 },
                details: [{ field: 'operationName', code: 'UNKNOWN_OPERATION', message: 'operationName names no operation of the query' }],
              },
            });
          }
          if (operation.operation === 'subscription') {
            throw new GraphQLError('Subscriptions are served over WebSocket (graphql-ws) on this path, not over HTTP', {
              extensions: {
                code: 'OPERATION_NOT_SUPPORTED',
                http: { status: 400 },
                details: [
                  {
                    field: 'query',
                    code: 'SUBSCRIPTION_OVER_HTTP',
                    message:
                      'subscription operations run over WebSocket with the graphql-ws protocol at /graphql; over HTTP use a query or a mutation',
                  },
                ],
              },
            });
          }
          const fragments = new Map(
            document.definitions
              .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
              .map((d) => [d.name.value, d]),
          );
          let measured: { depth: number; cost: number };
          try {
            const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
            // the variables as execution will see them, their defaults filled in (`$first: Int = 2` costs 2, not
            // the argument's own default); values that do not coerce are execution's to refuse
            const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
            const variables = ('coerced' in coerced && coerced.coerced) || request.variables || {};
            measured = new OperationMeasure(schema, fragments, variables, costContext).measure(operation.selectionSet, root ?? undefined);
          } catch (error) {
            // the cost is computed with the variables' values: a value of the wrong type is the client's mistake
            if (error instanceof GraphQLError) {
              throw new GraphQLError(error.message, { extensions: { code: 'BAD_USER_INPUT', http: { status: 400 } } });
            }
            throw error;
          }
          const { depth, cost: complexity } = measured;
          if (depth > maxDepth) {
            throw new GraphQLError(`Query is nested ${depth} levels deep; the limit is ${maxDepth}`, {
              extensions: {
                code: 'QUERY_TOO_COMPLEX',
                http: { status: 400 },
                details: [{ field: 'query', code: 'MAX_DEPTH', message: `depth ${depth} exceeds ${maxDepth}`, limit: maxDepth }],
              },
            });
          }
          if (complexity > maxComplexity) {
            throw new GraphQLError(`Query costs ${complexity}; the limit is ${maxComplexity}`, {
              extensions: {
                code: 'QUERY_TOO_COMPLEX',
                http: { status: 400 },
                details: [
                  { field: 'query', code: 'MAX_COMPLEXITY', message: `cost ${complexity} exceeds ${maxComplexity}`, limit: maxComplexity },
                ],
              },
            });
          }
        },
      };
    },
  };
}
