import { CriticalityLevel, diff } from '@graphql-inspector/core';
import {
  buildSchema,
  GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isObjectType,
  type GraphQLArgument,
  type GraphQLEnumValue,
  type GraphQLField,
  type GraphQLInputField,
} from 'graphql';

/**
 * `schema.graphql` is what frontends generate code from: a change that breaks a query written against the old
 * schema (a field, argument or enum value removed, a type changed, an argument made required) breaks every
 * client generated from it. Such a change is allowed only the way GraphQL's own spec intends (§3.13,
 * @deprecated): the old field, argument or enum value was deprecated in the schema before, and the change is
 * named in the schema changelog, so a client had a release to move and a reader finds why.
 */
export interface RefusedChange {
  /** the schema coordinate, as graphql-inspector names it: `Type.field`, `Type.field.argument`, `Enum.VALUE` */
  path: string;
  message: string;
  /** what is missing for the change to be allowed */
  missing: Array<'deprecated first' | 'listed in the changelog'>;
}

type Deprecatable = GraphQLField<unknown, unknown> | GraphQLInputField | GraphQLArgument | GraphQLEnumValue;

/** the element at a schema coordinate (`Type`, `Type.field`, `Type.field.argument`, `Enum.VALUE`), if any */
function elementAt(schema: GraphQLSchema, path: string): Deprecatable | undefined {
  const [typeName, member, argument] = path.split('.');
  const type = schema.getType(typeName);
  if (!type || member === undefined) return undefined;
  if (isEnumType(type)) return type.getValue(member) ?? undefined;
  if (isInputObjectType(type)) return type.getFields()[member];
  if (isObjectType(type) || isInterfaceType(type)) {
    const field = type.getFields()[member];
    if (!field || argument === undefined) return field;
    return field.args.find((arg) => arg.name === argument);
  }
  return undefined;
}

/**
 * Whether the thing a breaking change touches was deprecated in the old schema: the element itself, or the
 * field an argument belongs to (a field deprecated whole may lose its arguments), or every field of a removed
 * type (a type cannot carry @deprecated; it goes once nothing reaches it).
 */
function deprecatedBefore(schema: GraphQLSchema, path: string): boolean {
  const element = elementAt(schema, path);
  if (element?.deprecationReason) return true;
  const parts = path.split('.');
  if (parts.length === 3) return Boolean(elementAt(schema, parts.slice(0, 2).join('.'))?.deprecationReason);
  if (parts.length === 1) {
    const type = schema.getType(path);
    if (type && (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)))
      return Object.values<{ deprecationReason?: string | null }>(type.getFields()).every((field) => Boolean(field.deprecationReason));
    if (type && isEnumType(type)) return type.getValues().every((value) => Boolean(value.deprecationReason));
  }
  return false;
}

/** the changelog names a coordinate as code: `Type.field` */
const listed = (changelog: string, path: string) => changelog.includes(`\`${path}\``);

/**
 * The breaking changes from `oldSdl` to `newSdl` that are not allowed: each one's coordinate, graphql-inspector's
 * message and what it lacks. Non-breaking and dangerous changes (a field or enum value added) are allowed.
 */
export async function refusedSchemaChanges(oldSdl: string, newSdl: string, changelog: string): Promise<RefusedChange[]> {
  const before = buildSchema(oldSdl);
  const after = buildSchema(newSdl);
  const refused: RefusedChange[] = [];
  for (const change of await diff(before, after)) {
    if (change.criticality.level !== CriticalityLevel.Breaking) continue;
    const path = change.path ?? '';
    const missing: RefusedChange['missing'] = [];
    if (!deprecatedBefore(before, path)) missing.push('deprecated first');
    if (!listed(changelog, path)) missing.push('listed in the changelog');
    if (missing.length > 0) refused.push({ path, message: change.message, missing });
  }
  return refused;
}
