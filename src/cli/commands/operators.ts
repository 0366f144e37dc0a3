import { Command } from 'commander';
import { GrantOperatorDocument, OperatorsDocument, RevokeOperatorDocument } from '../generated/operators';
import { ApiError, gql, print } from '../shared';

/** a row of the API as people read it: the grant lower case, as the docs name it (`hand`, `oidc`) */
const readable = <T extends { grant: string | null }>(row: T): T => ({ ...row, grant: row.grant?.toLowerCase() ?? null });

/**
 * PERSON_NOT_FOUND in words: who, and what makes a person known to the service (a first sign-in, or an invitation
 * taken: docs/people.md), with the command that invites them
 */
const unknownPerson =
  (person: string) =>
  (error: unknown): never => {
    if (!(error instanceof ApiError) || error.code !== 'PERSON_NOT_FOUND') throw error;
    const address = person.includes('@') ? person : 'THEIR_EMAIL';
    throw new ApiError(
      'PERSON_NOT_FOUND',
      `no person ${person} is known to the service: a person is known once they have signed in (OpenID Connect) or joined an account ` +
        `by an invitation. Invite them first (zonekeeper invitation add ACCOUNT ${address} --role viewer prints the link to pass on), ` +
        `then run this again once they have joined.`,
    );
  };

/**
 * `zonekeeper operator` (also `operators`): the operator persons (docs/people.md, «The operator»), who act in the
 * console with the admin key's rights in every account. With the admin key, or the key of no one else: the API
 * answers the operator alone (FORBIDDEN). A person by e-mail address or person id.
 */
export function registerOperatorCommands(program: Command): void {
  const operator = program
    .command('operator')
    .alias('operators')
    .description('the operator persons: who administers every account besides the admin key');
  operator
    .command('list')
    .description('list the operator persons (grant: hand, or oidc from a sign-in claim)')
    .action(async () => {
      const { operators } = await gql(OperatorsDocument, {});
      print(program, operators.map(readable), ['personId', 'email', 'grant', 'since']);
    });
  operator
    .command('grant <person>')
    .description('make a person (e-mail address or person id) an operator, by hand (a sign-in does not take it back)')
    .action(async (person: string) => {
      const { grantOperator } = await gql(GrantOperatorDocument, { person }).catch(unknownPerson(person));
      print(program, readable(grantOperator));
    });
  operator
    .command('revoke <person>')
    .description('the person (e-mail address or person id) is no operator from their next request')
    .action(async (person: string) => {
      const { revokeOperator } = await gql(RevokeOperatorDocument, { person }).catch(unknownPerson(person));
      print(program, { ...readable(revokeOperator), revoked: true });
    });
}
