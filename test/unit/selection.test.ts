import { FieldNode, FragmentDefinitionNode, GraphQLResolveInfo, Kind, OperationDefinitionNode, parse } from 'graphql';
import { asksFor } from '../../src/graphql/selection';

/** the resolve info of the operation's first root field, as graphql-js hands it to its resolver (the parts asksFor reads) */
function infoOf(document: string): GraphQLResolveInfo {
  const parsed = parse(document);
  const operation = parsed.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const fragments = Object.fromEntries(
    parsed.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
  );
  // every root node of the first root field's response key (GraphQL merges them: `a { x } a { y }`)
  const first = operation.selectionSet.selections[0] as FieldNode;
  const key = (first.alias ?? first.name).value;
  const fieldNodes = operation.selectionSet.selections.filter(
    (s): s is FieldNode => s.kind === Kind.FIELD && (s.alias ?? s.name).value === key,
  );
  return { fieldNodes, fragments } as unknown as GraphQLResolveInfo;
}

test.each([
  ['a field right below', '{ domains { totalCount } }', ['totalCount'], true],
  ['a field not asked', '{ domains { nodes { name } } }', ['totalCount'], false],
  ['a path two deep', '{ domains { nodes { name health { state } } } }', ['nodes', 'health'], true],
  [
    'a path three deep, through an inline fragment',
    '{ domains { nodes { health { ... on ZoneHealth { findings { code } } } } } }',
    ['nodes', 'health', 'findings'],
    true,
  ],
  [
    'a path through a fragment spread',
    '{ domains { ...page } } fragment page on DomainConnection { nodes { user { email } } }',
    ['nodes', 'user'],
    true,
  ],
  [
    'a spread within a spread',
    '{ domains { ...a } } fragment a on DomainConnection { ...b } fragment b on DomainConnection { totalCount }',
    ['totalCount'],
    true,
  ],
  ['the path broken in the middle', '{ domains { nodes { name } pageInfo { health } } }', ['nodes', 'health'], false],
  ['the last step missing', '{ domains { nodes { health { state } } } }', ['nodes', 'health', 'findings'], false],
  ['aliases do not hide a field', '{ domains { n: nodes { h: health { findings { code } } } } }', ['nodes', 'health', 'findings'], true],
  ['an alias is not a name', '{ domains { nodes: totalCount } }', ['nodes'], false],
  [
    'the same key twice: either node counts',
    '{ domains { nodes { name } } domains { nodes { health { state } } } }',
    ['nodes', 'health'],
    true,
  ],
  ['one of two same-named fields holds the rest', '{ domains { nodes { name } nodes { user { email } } } }', ['nodes', 'user'], true],
  ['under @include(if: false): asked', '{ domains { totalCount @include(if: false) } }', ['totalCount'], true],
  ['an unknown fragment: nothing', '{ domains { ...missing } }', ['totalCount'], false],
  ['no path: the field itself', '{ domains { totalCount } }', [], true],
])('%s', (_name, document, path, expected) => {
  expect(asksFor(infoOf(document), ...path)).toBe(expected);
});
