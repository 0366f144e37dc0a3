import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';

/**
 * Whether the field being resolved (`info`) asks for its field `name`, directly or through its fragments: what a
 * resolver reads to leave out a statement nobody asked for (a list's count, a zone's health findings), or to run
 * it beside another. A field under `@include(if: false)` counts as asked: read for nothing, never missing.
 */
export function asksFor(info: GraphQLResolveInfo, name: string): boolean {
  return info.fieldNodes.some((node) => selects(node.selectionSet, name, info));
}

function selects(selectionSet: SelectionSetNode | undefined, name: string, info: GraphQLResolveInfo): boolean {
  return (selectionSet?.selections ?? []).some((selection) => {
    if (selection.kind === Kind.FIELD) return selection.name.value === name;
    if (selection.kind === Kind.INLINE_FRAGMENT) return selects(selection.selectionSet, name, info);
    return selects(info.fragments[selection.name.value]?.selectionSet, name, info);
  });
}
