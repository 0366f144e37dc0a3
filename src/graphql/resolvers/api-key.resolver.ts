import { Arg, Ctx, FieldResolver, ID, Mutation, Query, Resolver, Root } from 'type-graphql';
import { KeyPolicyType, policyRequest, policyView } from '../types/key-policy.type';
import { apiKeyOrigin, type ApiKeyRow } from '../../services/people/api-keys.service';
import { ApiKeyRateInput } from '../inputs/limits.input';
import { ApiKeyRateType } from '../types/limits.type';
import type { GraphQLContext } from '../context';
import { ApiKeyOriginEnum, ApiKeyType, CreatedApiKeyType } from '../types/api-key.type';
import { CreateApiKeyInput, UpdateApiKeyInput } from '../inputs/api-key.input';
import { parseId, parseOptionalId } from '../inputs/ids';

@Resolver(() => ApiKeyType)
export class ApiKeyResolver {
  @Query(() => [ApiKeyType], { description: 'Keys the caller may manage (a user key: its own user’s).' })
  apiKeys(@Arg('userId', () => ID, { nullable: true }) userId: string | undefined, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.list(ctx, parseOptionalId(userId, 'userId'));
  }

  @Mutation(() => CreatedApiKeyType, {
    description:
      'Creates a key that sees and changes only this user’s zones; with `policy` or `preset` only what its rules allow (docs/least-privilege.md).',
  })
  createApiKey(@Arg('input') input: CreateApiKeyInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.create(ctx, {
      userId: parseId(input.userId, 'userId'),
      name: input.name,
      scopes: input.scopes,
      ...policyRequest(input),
    });
  }

  @FieldResolver(() => ApiKeyOriginEnum, {
    description: 'Where the key came from: created for a user, or an admin key set by API_KEY or generated at the first start.',
  })
  origin(@Root() key: ApiKeyRow): ApiKeyOriginEnum {
    return apiKeyOrigin(key) as ApiKeyOriginEnum;
  }

  @FieldResolver(() => KeyPolicyType, { description: 'What the key may do (docs/least-privilege.md).' })
  policy(@Root() key: ApiKeyRow): KeyPolicyType {
    return policyView(key.policy);
  }

  @Mutation(() => ApiKeyType, {
    description:
      'Changes a key’s name and/or policy (a policy given replaces the whole one); recorded in the audit log (api-key-changed). A revoked key is not found.',
  })
  updateApiKey(@Arg('id', () => ID) id: string, @Arg('input') input: UpdateApiKeyInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.update(ctx, parseId(id, 'id'), { name: input.name, ...policyRequest(input) });
  }

  @Mutation(() => ApiKeyType)
  revokeApiKey(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.revoke(ctx, parseId(id, 'id'));
  }

  @Mutation(() => ApiKeyRateType, { description: 'Sets an API key’s own rate limit (besides its user’s). Admin key only.' })
  setApiKeyRate(@Arg('id', () => ID) id: string, @Arg('input') input: ApiKeyRateInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.setRate(ctx, parseId(id, 'id'), { ...input });
  }

  @FieldResolver(() => ApiKeyRateType, { description: 'The key’s own rate limit (null values: the default).' })
  rate(@Root() key: ApiKeyType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.apiKeys.rate(ctx, key);
  }
}
