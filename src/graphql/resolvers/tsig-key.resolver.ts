import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { KeyPolicyType, policyRequest, policyView } from '../types/key-policy.type';
import type { TsigKeyRow } from '../../services/people/tsig-keys.service';
import type { GraphQLContext } from '../context';
import { CreatedTsigKeyType, TsigKeyType } from '../types/tsig-key.type';
import { CreateTsigKeyInput, UpdateTsigKeyInput } from '../inputs/tsig-key.input';
import { parseId, parseOptionalId } from '../inputs/ids';

@Resolver(() => TsigKeyType)
export class TsigKeyResolver {
  @Query(() => [TsigKeyType], { description: 'TSIG keys for DNS UPDATE the caller may manage (a user key: its own user’s).' })
  tsigKeys(@Arg('userId', () => ID, { nullable: true }) userId: string | undefined, @Ctx() ctx: GraphQLContext) {
    return ctx.services.tsigKeys.list(ctx, parseOptionalId(userId, 'userId'));
  }

  @Mutation(() => CreatedTsigKeyType, {
    description:
      'Creates a TSIG key that updates this user’s zones by DNS UPDATE (RFC 2136), or with `policy`/`preset` only what its rules allow; the secret is returned once.',
  })
  createTsigKey(@Arg('input') input: CreateTsigKeyInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.tsigKeys.create(ctx, {
      userId: parseOptionalId(input.userId ?? undefined, 'userId') ?? null,
      name: input.name,
      algorithm: input.algorithm,
      ...policyRequest(input),
    });
  }

  @FieldResolver(() => KeyPolicyType, { description: 'What the key may do over DNS UPDATE and transfers (docs/least-privilege.md).' })
  policy(@Root() key: TsigKeyRow): KeyPolicyType {
    return policyView(key.policy);
  }

  @Mutation(() => TsigKeyType, {
    description:
      'Changes a TSIG key’s policy (the one given replaces the whole one); recorded in the audit log (tsig-key-changed). A revoked key is not found.',
  })
  updateTsigKey(@Arg('id', () => ID) id: string, @Arg('input') input: UpdateTsigKeyInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.tsigKeys.update(ctx, parseId(id, 'id'), policyRequest(input));
  }

  @Mutation(() => TsigKeyType, { description: 'Revokes a TSIG key: the next UPDATE signed with it is refused (NOTAUTH, BADKEY).' })
  revokeTsigKey(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.tsigKeys.revoke(ctx, parseId(id, 'id'));
  }
}
