import { Arg, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { OperatorType } from '../types/people.type';

/** The operator persons (docs/people.md, «The operator»; OperatorsService): the operator's alone (FORBIDDEN). */
@Resolver()
export class OperatorResolver {
  @Query(() => [OperatorType], { description: 'The operator persons, in the order they became operators (the operator only).' })
  operators(@Ctx() ctx: GraphQLContext) {
    return ctx.services.operators.list(ctx);
  }

  @Mutation(() => OperatorType, {
    description:
      'Makes a person (by e-mail address or person id) an operator, by hand: a later sign-in does not take it back (the operator only; audited operator-granted).',
  })
  grantOperator(@Arg('person', { description: 'An e-mail address, or a person id.' }) person: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.operators.grant(ctx, person);
  }

  @Mutation(() => OperatorType, {
    description:
      'The person (by e-mail address or person id) is no operator from their next request, however they became one (the operator only; audited operator-revoked).',
  })
  revokeOperator(@Arg('person', { description: 'An e-mail address, or a person id.' }) person: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.operators.revoke(ctx, person);
  }
}
