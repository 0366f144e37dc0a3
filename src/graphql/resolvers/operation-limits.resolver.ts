import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { operationLimitFigures } from '../limits';
import { OperationLimitsType } from '../types/limits.type';

/** The limits one operation is held to (limits.ts), readable before a client meets them. */
@Resolver()
export class OperationLimitsResolver {
  @Query(() => OperationLimitsType, {
    description:
      'The cost ceiling, the nesting depth and the page sizes every operation is held to: the figures a refusal for depth or cost carries in `extensions.limits`.',
  })
  operationLimits(@Ctx() ctx: GraphQLContext): OperationLimitsType {
    return operationLimitFigures(ctx.services.settings);
  }
}
