import { getNamedType, GraphQLFieldResolver, GraphQLSchema, isLeafType, isObjectType } from 'graphql';
import { getMetadataStorage } from 'type-graphql';

type ParamValue = (root: any, args: Record<string, unknown>, context: unknown, info: unknown) => unknown;

/**
 * Calls the field resolvers that need nothing of type-graphql's per-call machinery directly.
 *
 * type-graphql runs every field resolver through one generic wrapper. Per call it copies a parent row into a
 * new instance of the object type's class, builds the resolver's arguments into an instance of their class,
 * and checks them in an `async` function even when validation is off, so each call waits on a `Promise.all`
 * and a `then`. A nested field resolves once per parent row: `users { domains { records } }` calls
 * `Domain.records` once per zone, 1,000 times for one answer of the bench, and a client asking for
 * `records { data }` calls `Record.data` once per record. That wrapper was a third of the bytes such an answer
 * allocated, and garbage collection is what holds its latency back (docs/performance.md, «GraphQL execution»).
 *
 * A field resolver is called directly, with the same parameters in the same order, when each of them can be
 * handed over as it is:
 * - its root, when the parameter's class is plain data (no methods or accessors), so the copy would differ
 *   only in its prototype;
 * - its context and its resolve info;
 * - its arguments, when their validation is switched off on the parameter (`{ validate: false }`) and every
 *   argument is a scalar or an enum, so their class instance would hold the same values as GraphQL's object.
 * Anything else (validated or nested input arguments, custom parameter decorators, middlewares, roles) keeps
 * type-graphql's wrapper. Returns the `Type.field` names it now calls directly.
 */
export function installDirectFieldResolvers(schema: GraphQLSchema, resolverClasses: readonly Function[]): string[] {
  const storage = getMetadataStorage();
  const installed: string[] = [];
  for (const metadata of storage.fieldResolvers) {
    // 'external': declared in a resolver class (an object type's own methods run on a copy of the root)
    if (
      metadata.kind !== 'external' ||
      !resolverClasses.includes(metadata.target) ||
      metadata.middlewares?.length ||
      metadata.roles?.length
    )
      continue;
    const objectClass = metadata.getObjectType?.();
    const typeName = storage.objectTypes.find((type) => type.target === objectClass)?.name;
    const objectType = typeName ? schema.getType(typeName) : undefined;
    const field = isObjectType(objectType) ? objectType.getFields()[metadata.schemaName] : undefined;
    if (!field) continue;
    const argsAreLeaves = field.args.every((arg) => isLeafType(getNamedType(arg.type)));
    const params = [...(metadata.params ?? [])].sort((a, b) => a.index - b.index).map((param) => paramValue(param, argsAreLeaves));
    if (!params.every((value): value is ParamValue => value !== undefined)) continue;
    const instance = new (metadata.target as new () => Record<string, (...values: unknown[]) => unknown>)();
    const method = instance[metadata.methodName];
    if (typeof method !== 'function') continue;
    const resolve: GraphQLFieldResolver<unknown, unknown> = (root, args, context, info) =>
      method.apply(
        instance,
        params.map((value) => value(root, args, context, info)),
      );
    field.resolve = resolve;
    installed.push(`${typeName}.${metadata.schemaName}`);
  }
  return installed;
}

type Param = NonNullable<ReturnType<typeof getMetadataStorage>['fieldResolvers'][number]['params']>[number];

/** how to get one parameter's value without type-graphql, or undefined when only its wrapper can */
function paramValue(param: Param, argsAreLeaves: boolean): ParamValue | undefined {
  switch (param.kind) {
    case 'root': {
      const type = param.getType?.();
      if (typeof type === 'function' && !isPlainDataClass(type)) return undefined;
      const name = param.propertyName;
      return name ? (root) => root?.[name] : (root) => root;
    }
    case 'context': {
      const name = param.propertyName;
      return name ? (_root, _args, context) => (context as Record<string, unknown>)[name] : (_root, _args, context) => context;
    }
    case 'info':
      return (_root, _args, _context, info) => info;
    case 'args':
    case 'arg': {
      if (param.validateSettings !== false || param.validateFn || !argsAreLeaves) return undefined;
      const type = param.getType();
      if (param.kind === 'args' && !isPlainDataClass(type)) return undefined;
      const name = param.kind === 'arg' ? param.name : undefined;
      return name ? (_root, args) => args[name] : (_root, args) => args;
    }
    default:
      return undefined;
  }
}

/** a class whose instances are data only: no method or accessor on it or on a class it extends */
function isPlainDataClass(type: unknown): boolean {
  if (typeof type !== 'function') return false;
  for (let proto = type.prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    if (Object.getOwnPropertyNames(proto).some((name) => name !== 'constructor')) return false;
  }
  return true;
}
