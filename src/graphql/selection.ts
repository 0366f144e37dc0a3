import { FieldNode, Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved (`info`) asks for the field at `path` below it (`asksFor(info, 'totalCount')`,
 * `asksFor(info, 'nodes', 'user')`), directly or through fragments: what a resolver reads to leave out a statement
 * nobody asked for (a list's count, a zone's health findings), to run it beside another, or to read it with
 * another. A field under `@include(if: false)` counts as asked: read for nothing, never missing.
 */
export function asksFor(info: GraphQLResolveInfo, ...path: string[]): boolean {
  let fields: readonly FieldNode[] = info.fieldNodes;
  for (const name of path) {
    fields = fields.flatMap((field) => fieldsNamed(field.selectionSet, name, info));
    if (fields.length === 0) return false;
  }
  return true;
}

/** the fields named `name` of a selection, directly or through its fragments */
function fieldsNamed(selectionSet: SelectionSetNode | undefined, name: string, info: GraphQLResolveInfo): FieldNode[] {
  return (selectionSet?.selections ?? []).flatMap((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name ? [selection] : [];
    if (selection.kind === Kind.INLINE_FRAGMENT) return fieldsNamed(selection.selectionSet, name, info);
    return fieldsNamed(info.fragments[selection.name.value]?.selectionSet, name, info);
  });
}
