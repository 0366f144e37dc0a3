import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved (`info`) asks for the field at `path` below it (`asksFor(info, 'totalCount')`,
 * `asksFor(info, 'nodes', 'user')`), directly or through fragments: what a resolver reads to leave out a statement
 * nobody asked for (a list's count, a zone's health findings), to run it beside another, or to read it with
 * another. A field under `@include(if: false)` counts as asked: read for nothing, never missing.
 */
export function asksFor(info: GraphQLResolveInfo, ...path: string[]): boolean {
  if (path.length === 0) return true;
  // without an array per step: a zone list's fields ask it once per zone
  for (const field of info.fieldNodes) if (selects(field.selectionSet, path, 0, info)) return true;
  return false;
}

/** whether a selection holds a field named path[depth] that holds the rest of the path, directly or through its fragments */
function selects(selectionSet: SelectionSetNode | undefined, path: readonly string[], depth: number, info: GraphQLResolveInfo): boolean {
  if (!selectionSet) return false;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      if (selection.name.value === path[depth] && (depth === path.length - 1 || selects(selection.selectionSet, path, depth + 1, info)))
        return true;
    } else {
      const fragment =
        selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : info.fragments[selection.name.value]?.selectionSet;
      if (selects(fragment, path, depth, info)) return true;
    }
  }
  return false;
}
