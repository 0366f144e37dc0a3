// Domain.records's filter is made by its resolver's module, whose types are type-graphql's decorated classes
import 'reflect-metadata';
import {
  astFromValue,
  DocumentNode,
  extendSchema,
  FieldNode,
  FragmentDefinitionNode,
  GraphQLField,
  GraphQLFieldResolver,
  GraphQLResolveInfo,
  getArgumentValues,
  getNamedType,
  GraphQLNamedType,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationDefinitionNode,
  OperationTypeNode,
  parse,
  print,
  SelectionSetNode,
  visit,
} from 'graphql';
import { PackedRecords, RecordRow } from '../../repositories/read-model';
import { unpackedCounts } from '../../repositories/read-model/packed-records';
import { countsWindow } from '../../services/zones/counts-window';
import { nestedRecordsFilter } from '../resolvers/domain.resolver';
import type { PlainRecordListBelow } from '../resolvers/user.resolver';
import type { GraphQLContext } from '../context';
import { PlainRecordList } from './answer-body';
import { GivenValues, JsonRecordShape, PackedField, plainRecordObjects } from './packed-json';

/** the field that answers a plain `Domain.records` list in the executed document (never in the public schema) */
const PLAIN_RECORDS = '_plainRecords';
/** its argument naming the objects' members and fields (JSON: [[member, field], …]) */
const SHAPE = '_shape';

/** the most selections walked in one operation (fragments expanded): a larger one runs as written */
const WALK_BUDGET = 20_000;

/** the Record fields a plain list is made of, by name; `__typename` is a constant */
const RECORD_FIELDS: Readonly<Record<string, PackedField>> = {
  id: 'id',
  zone: 'zone',
  owner: 'owner',
  type: 'type',
  rdata: 'rdata',
  ttl: 'ttl',
  __typename: { value: 'Record' },
};

/**
 * The Record fields of its RRset's counts (query-analytics.resolver.ts): given per record beside the packed text,
 * read for all the records of a level by the same loader (`rrsetQueries`, one statement) as their own resolvers
 * read them; `queryCount` with its window's arguments as written (literals or variables)
 */
const COUNT_FIELDS = new Set(['lastQueried', 'queryCount']);
const COUNT_ARGUMENTS = new Set(['since', 'until']);

/**
 * A `Domain.records` list that asks only for plain fields of its records (`records(first: 10) { owner type
 * rdata ttl }`) is answered as one value: the plain objects of those members, made from the zone's packed text
 * (packed-json.ts, plainRecordObjects), which JSON.stringify writes as they are. Before, each record was a record object,
 * then a result object that graphql-jit filled field by field (a call, a serializer with its path and
 * locations per field). In the nested answer of the bench (100 users × 10 zones × 10 records) those were the
 * largest part of the 14 MB an answer allocated (9 MB now), and its tail is the garbage collections they bring
 * (bench/FINDINGS.md, «The nested answer's record lists as plain values»).
 *
 * Over HTTP the list is not even made of objects: the resolver hands over the zone's packed records, which
 * the answer's body writes as those objects' JSON bytes (answer-body.ts, packed-json.ts).
 *
 * The operation is rewritten for graphql-jit: each such list becomes `_plainRecords` under the same response
 * key, with the same arguments and location, and its selection as `_shape`. `_plainRecords` exists only in an
 * extension of the schema used to run these documents (`plainRecordsSchema`); it calls Domain.records's own
 * resolver (the same loader, read rules, page and errors) and hands its records over as a scalar's value, so
 * graphql-jit does not walk them. Everything else of the operation (users, zones, aliases, fragments,
 * directives, errors, null propagation) is graphql-jit's as before, and the cost and depth checks ran on the
 * document as sent. The values are those the fields' scalars give: `id` a string (ID), `ttl` a number (Int),
 * the others strings.
 *
 * Each record's RRset counts (`lastQueried`, `queryCount(since, until)`) are read for the whole level by the
 * loader their own resolvers use (`rrsetQueries`: one statement, the same windows and marks) and written beside
 * the packed text, as their scalars serialize them (DateTimeISO, Float). Should that read fail (a window whose
 * `since` is not before its `until`, the database), the operation is answered as written by graphql-js
 * (`AnswerAsWritten`), whose errors name each record's field as before.
 *
 * A list is left as it is when its selection has anything else: a field with arguments (but `queryCount`'s
 * window) or its own selection (`data`, `domain`, `recordType`), a directive, a fragment on another type. So is a list that shares its
 * place in the answer with another node of its response key (GraphQL merges them in one object; the rewrite
 * would not), and an operation that introspects (it would see the extension) or is not a query. Returns
 * undefined when nothing is rewritten.
 */
export function plainRecordLists(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): { schema: GraphQLSchema; document: DocumentNode } | undefined {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  if (operation?.operation !== OperationTypeNode.QUERY) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);

  // each Domain.records node of the operation, with the paths of response keys it answers at (a fragment spread
  // in several places puts its nodes at several)
  const paths = new Map<FieldNode, Set<string>>();
  const atPath = new Map<string, Set<FieldNode>>();
  let budget = WALK_BUDGET;
  let refused = false;
  const walk = (selectionSet: SelectionSetNode, parent: GraphQLNamedType | undefined, path: string, spreads: string[]): void => {
    for (const selection of selectionSet.selections) {
      if (refused || --budget < 0) return void (refused = true);
      if (selection.kind === Kind.FIELD) {
        const name = selection.name.value;
        if (name === '__schema' || name === '__type') return void (refused = true);
        const here = `${path}.${(selection.alias ?? selection.name).value}`;
        if (parent?.name === 'Domain' && name === 'records') {
          if (!paths.has(selection)) paths.set(selection, new Set());
          paths.get(selection)!.add(here);
          if (!atPath.has(here)) atPath.set(here, new Set());
          atPath.get(here)!.add(selection);
        } else if (selection.selectionSet && (isObjectType(parent) || isInterfaceType(parent))) {
          const field = parent.getFields()[name];
          if (field) walk(selection.selectionSet, getNamedType(field.type), here, spreads);
        }
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent, path, spreads);
      } else {
        const fragment = fragments.get(selection.name.value);
        if (!fragment || spreads.includes(fragment.name.value)) continue;
        walk(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value), path, [...spreads, fragment.name.value]);
      }
    }
  };
  walk(operation.selectionSet, schema.getQueryType() ?? undefined, '', []);
  if (refused) return undefined;

  const rewritten = new Map<FieldNode, FieldNode>();
  for (const [list, at] of paths) {
    // GraphQL merges the fields of one response key in one object: a list that shares its place with another
    // node stays as it is
    if (![...at].every((here) => atPath.get(here)!.size === 1)) continue;
    const key = (list.alias ?? list.name).value;
    const shape = list.selectionSet ? shapeOf(list.selectionSet, fragments) : undefined;
    if (!shape) continue;
    rewritten.set(list, {
      ...list,
      name: { kind: Kind.NAME, value: PLAIN_RECORDS },
      alias: { kind: Kind.NAME, value: key },
      arguments: [
        ...(list.arguments ?? []),
        {
          kind: Kind.ARGUMENT,
          name: { kind: Kind.NAME, value: SHAPE },
          value: { kind: Kind.STRING, value: JSON.stringify(shape) },
        },
      ],
      selectionSet: undefined,
    });
  }
  if (rewritten.size === 0) return undefined;
  return { schema: plainRecordsSchema(schema), document: visit(document, { Field: (node) => rewritten.get(node) }) };
}

/**
 * The members of each record of a list and their fields, in GraphQL's order (a response key where it first
 * appears, fragments expanded in place), or undefined if the selection asks for anything else than plain fields
 * and counts. A member is `[key, field]`, or `[key, 'queryCount', its arguments as written]` (`(since: $s)`): a
 * valid document asks one response key with one set of arguments.
 */
function shapeOf(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  shape = new Map<string, string[]>(),
  spread = new Set<string>(),
): string[][] | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) return undefined;
    if (selection.kind === Kind.FIELD) {
      const name = selection.name.value;
      const args = selection.arguments ?? [];
      if (selection.selectionSet) return undefined;
      const key = (selection.alias ?? selection.name).value;
      if (name === 'queryCount' && args.every((arg) => COUNT_ARGUMENTS.has(arg.name.value))) {
        if (!shape.has(key)) shape.set(key, [key, name, args.length ? `(${args.map((arg) => print(arg)).join(', ')})` : '']);
      } else if ((Object.hasOwn(RECORD_FIELDS, name) || COUNT_FIELDS.has(name)) && args.length === 0) {
        if (!shape.has(key)) shape.set(key, [key, name]);
      } else return undefined;
    } else {
      const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
      if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== 'Record') || fragment.directives?.length)
        return undefined;
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        if (spread.has(selection.name.value)) continue;
        spread.add(selection.name.value);
      }
      if (!shapeOf(fragment.selectionSet, fragments, shape, spread)) return undefined;
    }
  }
  return [...shape.values()];
}

const extended = new WeakMap<GraphQLSchema, GraphQLSchema>();

/**
 * The schema with `Domain._plainRecords` (Domain.records's arguments, and `_shape`) and its scalar, for running
 * rewritten documents only: the public schema, its introspection and schema.graphql do not have them.
 */
function plainRecordsSchema(schema: GraphQLSchema): GraphQLSchema {
  const existing = extended.get(schema);
  if (existing) return existing;
  const records = (schema.getType('Domain') as GraphQLObjectType).getFields().records;
  const args = records.args.map((arg) => {
    const defaultValue = arg.defaultValue === undefined ? undefined : astFromValue(arg.defaultValue, arg.type);
    return `${arg.name}: ${String(arg.type)}${defaultValue ? ` = ${print(defaultValue)}` : ''}`;
  });
  const sdl = `scalar PlainRecordList
    extend type Domain { ${PLAIN_RECORDS}(${[...args, `${SHAPE}: String!`].join(', ')}): PlainRecordList! }`;
  const withPlain = extendSchema(schema, parse(sdl), { assumeValidSDL: true });
  const domain = withPlain.getType('Domain') as GraphQLObjectType;
  const listOf = domain.getFields().records.resolve!;
  const record = (withPlain.getType('Record') as GraphQLObjectType).getFields();
  const counts: CountFields = {
    queryCount: record.queryCount,
    date: getNamedType(record.lastQueried.type) as GraphQLScalarType,
    count: getNamedType(record.queryCount.type) as GraphQLScalarType,
  };
  domain.getFields()[PLAIN_RECORDS].resolve = plainRecordsResolver(listOf, counts);
  extended.set(schema, withPlain);
  return withPlain;
}

/** a member of a list given per record: `lastQueried`, or `queryCount` as written (its arguments in `node`) */
type CountMember = { field: 'lastQueried' } | { field: 'queryCount'; node: FieldNode };

/** what the counts' members are read and serialized with: Record.queryCount (its arguments), their scalars */
interface CountFields {
  queryCount: GraphQLField<unknown, unknown>;
  date: GraphQLScalarType;
  count: GraphQLScalarType;
}

interface Shape {
  keys: string[];
  fields: PackedField[];
  json: JsonRecordShape;
  /** the members given per record, `{ given: g }` in `fields` being counts[g] */
  counts: CountMember[];
}

/** the shapes of the documents run, parsed once each (a bounded map: documents come and go with their cache) */
const shapes = new Map<string, Shape>();
const SHAPES_KEPT = 1000;

function parsedShape(text: string): Shape {
  let shape = shapes.get(text);
  if (!shape) {
    const members = JSON.parse(text) as string[][];
    const keys = members.map(([key]) => key);
    const counts: CountMember[] = [];
    const fields = members.map(([, field, args]): PackedField => {
      if (!COUNT_FIELDS.has(field)) return RECORD_FIELDS[field];
      // the field as written, for graphql-js's own reading of its arguments against each run's variables
      const node = parse(`{ ${field}${args ?? ''} }`).definitions[0] as OperationDefinitionNode;
      counts.push(field === 'queryCount' ? { field, node: node.selectionSet.selections[0] as FieldNode } : { field: 'lastQueried' });
      return { given: counts.length - 1 };
    });
    shape = { keys, fields, json: new JsonRecordShape(keys, fields), counts };
    if (shapes.size >= SHAPES_KEPT) shapes.clear();
    shapes.set(text, shape);
  }
  return shape;
}

/**
 * Thrown by `_plainRecords` when its records' counts could not be read: the operation is then answered as
 * written, by graphql-js (compiled-execution.ts), whose answer has each record's own error, path and nulls.
 */
export class AnswerAsWritten extends Error {
  constructor(readonly reason: unknown) {
    super(`a plain record list's counts were not read: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}

/**
 * Each count member's values for the records, as their scalars serialize them: the loader and arguments
 * query-analytics.resolver.ts's Record.lastQueried and Record.queryCount use, each record's RRset loaded (one
 * statement for the level and window, as each record's own load was batched)
 */
async function countsOf(
  records: readonly RecordRow[],
  members: readonly CountMember[],
  fields: CountFields,
  ctx: GraphQLContext,
  info: GraphQLResolveInfo,
): Promise<GivenValues> {
  const rrsets = records.map((record) => ({ zoneId: record.domainId, owner: record.owner, type: record.type }));
  const windowOf = (node: FieldNode) => {
    const args = getArgumentValues(fields.queryCount, node, info.variableValues) as { since?: Date; until?: Date };
    return { since: args.since, until: args.until };
  };
  // an RRset's last query is the same whatever the window (query_last_seen): beside a count, it is read with the
  // first count's window, without a statement of its own (the default window's, when no count is asked)
  const firstCount = members.find((member) => member.field === 'queryCount');
  const lastQueriedWindow = firstCount ? windowOf(firstCount.node) : {};
  return Promise.all(
    members.map(async (member) => {
      const loader = ctx.loaders.rrsetQueries(member.field === 'queryCount' ? windowOf(member.node) : lastQueriedWindow);
      const values = await Promise.all(rrsets.map((rrset) => loader.load(rrset)));
      return member.field === 'queryCount'
        ? values.map((value) => fields.count.serialize(value.count))
        : values.map((value) => (value.lastQueried === null ? null : fields.date.serialize(value.lastQueried)));
    }),
  );
}

/** the windows a list's counts are read over, distinct, and each count member's window (-1: `lastQueried`) */
interface CountsAsked {
  windows: { since: Date; until?: Date }[];
  windowOf: number[];
}

/**
 * The windows of a list's count members as this run's variables give them (graphql-js's own reading of
 * Record.queryCount's arguments), `since` defaulting to the operation's (loaders.ts, countsSince): the same
 * values, and so the same filter, wherever the list's records are read (its resolver, or its zones' list ahead)
 */
function countsAsked(
  members: readonly CountMember[],
  queryCount: CountFields['queryCount'],
  variables: GraphQLResolveInfo['variableValues'],
  ctx: GraphQLContext,
): CountsAsked {
  const windows: CountsAsked['windows'] = [];
  const keys: string[] = [];
  const windowOf = members.map((member) => {
    if (member.field === 'lastQueried') return -1;
    const args = getArgumentValues(queryCount, member.node, variables) as { since?: Date; until?: Date };
    const window = { since: args.since ?? ctx.loaders.countsSince(), until: args.until };
    const key = `${window.since.getTime()}/${window.until?.getTime()}`;
    const at = keys.indexOf(key);
    if (at !== -1) return at;
    keys.push(key);
    return windows.push(window) - 1;
  });
  return { windows, windowOf };
}

/** a list level's counts as asked, and the filter its records are read with (or why they cannot be read) */
type CountsLevel = { asked: CountsAsked; filter: ReturnType<typeof nestedRecordsFilter> } | AnswerAsWritten;

/** each operation's list levels with counts, by the level's field: its zones share the field's arguments */
const countsLevels = new WeakMap<GraphQLContext['loaders'], Map<FieldNode, CountsLevel>>();

/**
 * A list level's counts and filter, made for its first zone and the same for the others (the same field and
 * variables, and the operation's default window): the same filter object, which the records read ahead with the
 * zones are found by without writing it out again (loaders.ts, perArguments)
 */
function countsLevel(ctx: GraphQLContext, field: FieldNode, make: () => CountsLevel): CountsLevel {
  let levels = countsLevels.get(ctx.loaders);
  if (!levels) countsLevels.set(ctx.loaders, (levels = new Map()));
  let level = levels.get(field);
  if (!level) levels.set(field, (level = make()));
  return level;
}

/**
 * Each count member's values for the records as the records' own statement read them (PackedRecords.counts), as
 * their scalars serialize them; undefined when they were not read so (a zone read row by row)
 */
function givenFromPacked(records: unknown, asked: CountsAsked, fields: CountFields): GivenValues | undefined {
  if (!(records instanceof PackedRecords)) return Array.isArray(records) && records.length === 0 ? asked.windowOf.map(() => []) : undefined;
  if (records.length === 0) return asked.windowOf.map(() => []);
  const counts = unpackedCounts(records, asked.windows.length);
  if (!counts) return undefined;
  return asked.windowOf.map((w) =>
    w === -1
      ? counts.lastQueried.map((ms) => (ms === null ? null : fields.date.serialize(new Date(ms))))
      : counts.sums[w].map((sum) => fields.count.serialize(sum)),
  );
}

/**
 * `_plainRecords`: Domain.records's resolver, its records as the plain objects the operation asks for; in an
 * answer written by answerBody (/graphql over HTTP), the packed records themselves, written as those objects'
 * JSON when the answer is (answer-body.ts)
 */
function plainRecordsResolver(
  listOf: GraphQLFieldResolver<unknown, GraphQLContext>,
  countFields: CountFields,
): GraphQLFieldResolver<unknown, GraphQLContext> {
  return (domain, args, ctx, info) => {
    const { keys, fields, json, counts } = parsedShape((args as Record<string, unknown>)[SHAPE] as string);
    // Domain.records reads its own arguments by name: `_shape` beside them is not copied away (a copy of the
    // arguments per zone was 0.3 MB of the nested answer's garbage)
    const plain = (records: unknown, given: GivenValues = []): unknown => {
      if (records instanceof PackedRecords)
        return ctx.answerBodyWritten
          ? new PlainRecordList(records, keys, fields, json, given)
          : plainRecordObjects(records, keys, fields, given);
      // a zone read row by row (recordsGroupedByDomain), or without records
      return [...(records as Iterable<RecordRow>)].map((record, i) => {
        const plain: Record<string, unknown> = {};
        for (let k = 0; k < fields.length; k++) {
          const field = fields[k];
          plain[keys[k]] =
            typeof field !== 'string'
              ? 'given' in field
                ? given[field.given][i]
                : field.value
              : field === 'id'
                ? String(record.id)
                : record[field];
        }
        return plain;
      });
    };
    const withCounts = async (records: unknown, asked: CountsAsked): Promise<unknown> => {
      const packed = givenFromPacked(records, asked, countFields);
      if (packed) return plain(records, packed);
      // not read with the records (a zone read row by row): read as the records' own resolvers read them
      const rows = [...(records as Iterable<RecordRow>)];
      let given: GivenValues;
      try {
        given = await countsOf(rows, counts, countFields, ctx, info);
      } catch (error) {
        throw new AnswerAsWritten(error);
      }
      return plain(records instanceof PackedRecords ? records : rows, given);
    };
    if (counts.length) {
      // the counts are read in the records' own statement (one round trip): the list's filter with their windows,
      // as Domain.records makes it; a window it cannot read is answered as written
      const level = countsLevel(ctx, info.fieldNodes[0], () => {
        try {
          const asked = countsAsked(counts, countFields.queryCount, info.variableValues, ctx);
          for (const window of asked.windows) countsWindow(window);
          return { asked, filter: nestedRecordsFilter(args, ctx, asked.windows) };
        } catch (error) {
          return new AnswerAsWritten(error);
        }
      });
      if (level instanceof AnswerAsWritten) throw level;
      const zone = domain as { id: number; name: string };
      const records = ctx.loaders.zoneRecords(level.filter, { id: zone.id, name: zone.name });
      return Promise.resolve(records).then((read) => withCounts(read, level.asked));
    }
    // records read with the zones come as they are (loaders.ts, recordsReadWithZones): answered without a promise
    const records = listOf(domain, args, ctx, info);
    return typeof (records as PromiseLike<unknown> | undefined)?.then === 'function'
      ? Promise.resolve(records).then(plain)
      : plain(records);
  };
}

/**
 * The arguments of each plain `Domain.records` list (`_plainRecords`) asked for right below a list of zones (the
 * field `info` resolves: `User.domains { … records(first: 10) { owner type rdata ttl } }`), as its resolver will
 * get them, and the windows of its counts as its resolver will read them, so that the zones' loader can read
 * those records (and counts) with the zones (loaders.ts, recordsReadWithZones). A list under a directive, or
 * inside a fragment, is left to its own resolver.
 */
export function plainRecordListsBelow(info: GraphQLResolveInfo, ctx: GraphQLContext): PlainRecordListBelow[] {
  const domain = getNamedType(info.returnType);
  const field = isObjectType(domain) ? domain.getFields()[PLAIN_RECORDS] : undefined;
  if (!field) return [];
  const queryCount = (info.schema.getType('Record') as GraphQLObjectType).getFields().queryCount;
  const lists: PlainRecordListBelow[] = [];
  for (const node of info.fieldNodes) {
    for (const selection of node.selectionSet?.selections ?? []) {
      if (selection.kind !== Kind.FIELD || selection.name.value !== PLAIN_RECORDS || selection.directives?.length) continue;
      const args = getArgumentValues(field, selection, info.variableValues);
      const { counts } = parsedShape(args[SHAPE] as string);
      lists.push(counts.length ? { args, counts: countsAsked(counts, queryCount, info.variableValues, ctx).windows } : { args });
    }
  }
  return lists;
}
