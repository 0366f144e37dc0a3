import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLContext } from './context';
import type { ComplexityEstimator } from 'graphql-query-complexity';
import { CostContext, DEFAULT_PAGE_SIZE, listComplexity, nestedItems, nestedListComplexity, pageItems } from './resolvers/paging';
import type { Settings } from '../config/settings';
import { ERROR_CATALOGUE } from '../errors/catalogue';
import { ApolloServerErrorCode } from '@apollo/server/errors';
import {
  FieldNode,
  FragmentDefinitionNode,
  getNamedType,
  GraphQLError,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLIncludeDirective,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLSkipDirective,
  isInputObjectType,
  Kind,
  OperationDefinitionNode,
  SelectionNode,
  SelectionSetNode,
  typeFromAST,
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
/** the fields that parse, print or sign a whole zone: a heavy turn each, whatever their cost */
const ZONE_FILE_FIELDS = new Set(['importZone', 'exportZone', 'zoneFile', 'checkZone', 'enableDnssec']);
/**
 * An operation costing more than this takes a heavy turn (src/http/heavy-requests.ts): its answer holds some
 * 3,000 records or more, a few MB as objects and then as JSON
 */
const HEAVY_COST = 20_000;
/** the setting that raises the cost ceiling, named where an operation is refused for its cost */
const COST_SETTING = 'GRAPHQL_MAX_COMPLEXITY';
/** the most lists the refusal's message names (its extensions name them all) */
const LISTS_NAMED = 8;

/**
 * A list the operation asks for, as it was costed: `list` is the field (`domains` at the root, `Type.field`
 * below: `Domain.records`), `items` what it was counted as per parent, `first` whether the operation gave it
 * one (without, a page counts as its default of 100 and a nested list as all a parent holds).
 */
interface CostedList {
  list: string;
  items: number;
  first: boolean;
  /** a nested list (User.domains, Domain.records): without `first`, all a parent holds */
  nested: boolean;
}

/** What one operation may ask for: Query.operationLimits answers it, and a refusal for depth or cost carries it. */
export interface OperationLimitFigures {
  maxCost: number;
  maxDepth: number;
  maxPageSize: number;
  defaultPageSize: number;
}

/** the figures of the settings the service runs with (app.ts hands the same settings to `operationLimits`) */
export function operationLimitFigures(
  settings: Pick<Settings, 'graphqlMaxComplexity' | 'graphqlMaxDepth' | 'maxPageSize'>,
): OperationLimitFigures {
  return {
    maxCost: settings.graphqlMaxComplexity,
    maxDepth: settings.graphqlMaxDepth,
    maxPageSize: settings.maxPageSize,
    defaultPageSize: DEFAULT_PAGE_SIZE,
  };
}

class OperationMeasure {
  private readonly fragmentFigures = new Map<string, { depth: number; cost: number }>();
  private readonly seen = new Set<string>();
  /** the lists the operation asks for, outer lists first, each once per way it was costed */
  readonly lists: CostedList[] = [];
  /** whether the operation parses, prints or signs a whole zone (ZONE_FILE_FIELDS) */
  zoneFile = false;

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
        if (ZONE_FILE_FIELDS.has(name)) this.zoneFile = true;
        const field = parentType && 'getFields' in parentType ? (parentType as GraphQLObjectType).getFields()[name] : undefined;
        // each list multiplies what its items ask for: named, outer lists first, if the operation is refused
        if (field) this.noteList(parentType!, field, selection);
        const child = this.measure(selection.selectionSet, field ? getNamedType(field.type) : undefined);
        depth = Math.max(depth, 1 + child.depth);
        cost += this.fieldCost(parentType, field, selection, child.cost);
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

  private noteList(parentType: GraphQLNamedType, field: GraphQLField<unknown, unknown>, node: FieldNode): void {
    const complexity = field.extensions?.complexity;
    if (complexity !== listComplexity && complexity !== nestedListComplexity) return;
    const args = getArgumentValues(field, node, this.variables);
    const typed = `${parentType.name}.${field.name}`;
    const atRoot = parentType === this.schema.getQueryType() || parentType === this.schema.getMutationType();
    // a page from the end is sized by `last` as one from the start is by `first` (pageItems)
    const size = args.first == null && args.last != null ? 'last' : 'first';
    const asked = node.arguments?.find((argument) => argument.name.value === size)?.value;
    const nested = complexity === nestedListComplexity;
    const costed: CostedList = {
      list: atRoot ? field.name : typed,
      items: nested ? nestedItems(args, this.costContext, typed) : pageItems(args),
      nested,
      // `first: null`, or a variable left out without a default, is no `first`: the list counts as without one
      first:
        asked !== undefined &&
        asked.kind !== Kind.NULL &&
        (asked.kind !== Kind.VARIABLE || this.variables[asked.name.value] !== undefined) &&
        args[size] != null,
    };
    const key = `${costed.list}\u0000${costed.items}\u0000${costed.first}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.lists.push(costed);
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

  private fieldCost(
    parentType: GraphQLNamedType | undefined,
    field: GraphQLField<unknown, unknown> | undefined,
    node: FieldNode,
    childComplexity: number,
  ): number {
    const complexity = field?.extensions?.complexity as unknown;
    if (typeof complexity === 'number') return complexity + childComplexity;
    if (typeof complexity === 'function') {
      const args = getArgumentValues(field!, node, this.variables);
      return Number(
        (complexity as ComplexityEstimator)({
          type: parentType as GraphQLCompositeType,
          field: field!,
          node,
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
 * The refusal of an operation over the cost ceiling, saying what drives its cost: each list it asks for, with
 * what it was counted as per parent (its `first`, or without one its default or all a parent holds), outer
 * lists first; how to bring the cost down (`first` on the lists without one, a smaller `first` on the others);
 * and the setting that raises the ceiling.
 */
function costRefusal(cost: number, limits: OperationLimitFigures, lists: readonly CostedList[]): GraphQLError {
  const limit = limits.maxCost;
  const counted = ({ list, items, first }: CostedList) => (first ? `${list} (first: ${items})` : `${list} (no first: counted as ${items})`);
  const named = lists.slice(0, LISTS_NAMED).map(counted);
  if (lists.length > LISTS_NAMED) named.push(`and ${lists.length - LISTS_NAMED} more`);
  const unpaged = [...new Set(lists.filter((list) => !list.first).map((list) => list.list))];
  const remedy = unpaged.length
    ? `give ${unpaged.join(', ')} \`first\`${unpaged.length < lists.length ? ', or the others a smaller one' : ''}`
    : 'give them a smaller `first`';
  const drivers = lists.length ? `. Its lists, counted per parent: ${named.join(', ')}; ${remedy} (and page with their connections)` : '';
  return new GraphQLError(`Query costs ${cost}; the limit is ${limit} (${COST_SETTING}, which the operator raises)${drivers}`, {
    extensions: {
      code: 'QUERY_TOO_COMPLEX',
      http: { status: 400 },
      limits,
      // every list in `details` too, as the message names them (format-error.ts lets code and details leave)
      details: [
        {
          field: 'query',
          code: 'MAX_COMPLEXITY',
          message: `cost ${cost} exceeds ${limit} (${COST_SETTING})`,
          limit,
        },
        ...lists.map(({ list, items, first }) =>
          first
            ? {
                field: 'query',
                code: 'LIST_PAGE',
                message: `${list} has \`first: ${items}\`: costed as ${items} items a parent; a smaller \`first\` costs less (page with its connection)`,
                list,
                items,
              }
            : {
                field: 'query',
                code: 'LIST_WITHOUT_FIRST',
                message: `${list} has no \`first\`: costed as ${items} items a parent; give it \`first\` (and page with its connection)`,
                list,
                items,
              },
        ),
      ],
    },
  });
}

/**
 * The variables an operation's cost is measured with, as execution will see the ones it depends on: `first`
 * and the `@skip`/`@include` conditions are leaves (scalars, enums and lists of them), coerced with their
 * defaults filled in (`$first: Int = 2` costs 2, not the argument's own default), and so is a variable left
 * out, whose default the argument takes; an input object sent is taken as sent, as no cost reads inside one.
 * Coercing those too coerced a change set's thousand changes here once more than execution does. Values that
 * do not coerce are execution's to refuse.
 */
function costVariables(schema: GraphQLSchema, operation: OperationDefinitionNode, sent: Record<string, unknown>): Record<string, unknown> {
  const measured = (operation.variableDefinitions ?? []).filter(
    (definition) =>
      !Object.hasOwn(sent, definition.variable.name.value) || !isInputObjectType(getNamedType(typeFromAST(schema, definition.type))),
  );
  const coerced = getVariableValues(schema, measured, sent);
  return 'coerced' in coerced && coerced.coerced ? { ...sent, ...coerced.coerced } : sent;
}

/**
 * One operation cannot ask for everything: a nesting ceiling and a cost ceiling (page sizes multiply what
 * each item asks for; a nested list without `first` counts as MAX_PAGE_SIZE items, what it returns at most),
 * both checked before anything runs. The REST layer's own documents do not come this way
 * (`serviceOperations`, fast-path/service-operations.ts): their shapes are fixed and their page sizes bounded.
 */
export function operationLimits(schema: GraphQLSchema, limits: OperationLimitFigures): ApolloServerPlugin<GraphQLContext> {
  const { maxDepth, maxCost: maxComplexity, maxPageSize } = limits;
  const costContext: CostContext = { maxPageSize };
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ request, document, operation, contextValue }) {
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
          let lists: CostedList[] = [];
          let zoneFile = false;
          try {
            const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
            const variables = costVariables(schema, operation, request.variables ?? {});
            const measure = (context: CostContext) => {
              const measuring = new OperationMeasure(schema, fragments, variables, context);
              const figures = measuring.measure(operation.selectionSet, root ?? undefined);
              lists = measuring.lists;
              zoneFile = measuring.zoneFile;
              return figures;
            };
            measured = measure(costContext);
            if (measured.cost > maxComplexity && lists.some((list) => list.nested && !list.first) && contextValue?.services) {
              // refused at MAX_PAGE_SIZE a parent: costed again at what the key's parents hold today, at most
              // (one read, only for such operations); `users(first: 10) { nodes { domains { records { … } } } }`
              // of a tenant with ordinary zones then runs
              const held = await contextValue.services.domains.nestedListBounds(contextValue);
              measured = measure({
                ...costContext,
                nestedBounds: { 'User.domains': held.zonesPerUser, 'Domain.records': held.recordsPerZone },
              });
            }
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
                limits,
                details: [{ field: 'query', code: 'MAX_DEPTH', message: `depth ${depth} exceeds ${maxDepth}`, limit: maxDepth }],
              },
            });
          }
          if (complexity > maxComplexity) throw costRefusal(complexity, limits, lists);
          // what the answer or the zone file will hold: one of the process's heavy turns, waited for here (the
          // document is parsed, nothing has run); a turn free now is not awaited (HeavyRequests.take says why)
          const turn = (complexity > HEAVY_COST || zoneFile) && contextValue?.heavyTurn ? contextValue.heavyTurn() : true;
          if (!(typeof turn === 'boolean' ? turn : await turn)) {
            throw new GraphQLError(ERROR_CATALOGUE.SERVER_BUSY.message, {
              extensions: { code: 'SERVER_BUSY', http: { status: 503, headers: new Map([['retry-after', '1']]) } },
            });
          }
        },
      };
    },
  };
}
