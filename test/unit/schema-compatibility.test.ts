/**
 * The schema rule CI holds (`npm run schema:compat`): a change that breaks a client generated from
 * schema.graphql passes only when what it breaks was deprecated before and the changelog names it.
 */
import { refusedSchemaChanges } from '../../src/scripts/schema-compatibility';

const BEFORE = `
type Query { member(id: ID!): Member }
type Member { id: ID! role: String email: String }
enum MemberRole { OWNER ADMIN VIEWER }
`;

describe('refusedSchemaChanges', () => {
  test('adding a field, an enum value or an optional argument is allowed', async () => {
    const after = `
      type Query { member(id: ID!, teamId: ID): Member }
      type Member { id: ID! role: String email: String roleName: MemberRole }
      enum MemberRole { OWNER ADMIN VIEWER BILLING }`;
    expect(await refusedSchemaChanges(BEFORE, after, '')).toEqual([]);
  });

  test("a field's type changed at once (a role from a string to an enum) is refused, naming what it lacks", async () => {
    const after = BEFORE.replace('role: String', 'role: MemberRole');
    expect(await refusedSchemaChanges(BEFORE, after, '')).toEqual([
      {
        path: 'Member.role',
        message: "Field 'Member.role' changed type from 'String' to 'MemberRole'",
        missing: ['deprecated first', 'listed in the changelog'],
      },
    ]);
  });

  test('an enum value or a field removed without a deprecation is refused even when the changelog names it', async () => {
    const after = BEFORE.replace(' VIEWER', '').replace(' email: String', '');
    const refused = await refusedSchemaChanges(BEFORE, after, 'Removed `MemberRole.VIEWER` and `Member.email`.');
    expect(refused.map((change) => [change.path, change.missing])).toEqual(
      expect.arrayContaining([
        ['MemberRole.VIEWER', ['deprecated first']],
        ['Member.email', ['deprecated first']],
      ]),
    );
    expect(refused).toHaveLength(2);
  });

  test('deprecated first but not in the changelog is refused; both together pass', async () => {
    const deprecated = BEFORE.replace('email: String', 'email: String @deprecated(reason: "use emails")').replace(
      'VIEWER',
      'VIEWER @deprecated(reason: "use ADMIN")',
    );
    const after = BEFORE.replace(' VIEWER', '').replace(' email: String', '');
    expect((await refusedSchemaChanges(deprecated, after, '')).map((change) => change.missing)).toEqual([
      ['listed in the changelog'],
      ['listed in the changelog'],
    ]);
    expect(await refusedSchemaChanges(deprecated, after, '- `Member.email` and `MemberRole.VIEWER` removed')).toEqual([]);
  });

  test('an argument made required is refused; on a deprecated field, with the changelog, it passes', async () => {
    const before = 'type Query { zones(first: Int): [String] }';
    const after = 'type Query { zones(first: Int!): [String] }';
    expect((await refusedSchemaChanges(before, after, '')).map((change) => change.path)).toEqual(['Query.zones.first']);
    const deprecated = 'type Query { zones(first: Int): [String] @deprecated(reason: "use domains") }';
    expect(await refusedSchemaChanges(deprecated, after, '`Query.zones.first`')).toEqual([]);
  });
});
