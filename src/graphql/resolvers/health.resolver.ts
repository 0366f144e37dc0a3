import type { GraphQLResolveInfo } from 'graphql';
import { Arg, Ctx, FieldResolver, Info, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { asksFor } from '../selection';
import { DomainType } from '../types/domain.type';
import { HealthCheckerType, ZoneHealthType } from '../types/health.type';

/** `Domain.health` and `checkHealth`: zone health, read and checked through HealthService (docs/health.md). */
@Resolver(() => DomainType)
export class HealthResolver {
  @FieldResolver(() => ZoneHealthType, {
    description: 'The zone as resolvers meet it: the last health check’s state and findings (HEALTH_CHECK_INTERVAL).',
    complexity: 5,
  })
  health(
    @Root() domain: DomainType,
    @Ctx() ctx: GraphQLContext,
    @Info() info: GraphQLResolveInfo,
  ): ZoneHealthType | Promise<ZoneHealthType> {
    // read with the zone list it is in (with the findings if the list asked them), or batched
    const findings = asksFor(info, 'findings');
    const listed = ctx.loaders.listedZones.get(domain.id)?.health;
    if (listed && (listed.withFindings || !findings)) return listed.value as ZoneHealthType;
    return ctx.loaders.healthOfZones(findings).load(domain) as Promise<ZoneHealthType>;
  }

  @Mutation(() => ZoneHealthType, {
    description:
      'Checks a zone now (a check round of its own: its parent and nameservers asked from the root down) and answers its health. Needs read access to the zone.',
  })
  checkHealth(@Arg('zone', () => String) zone: string, @Ctx() ctx: GraphQLContext): Promise<ZoneHealthType> {
    return ctx.services.health.checkNow(ctx, zone) as Promise<ZoneHealthType>;
  }

  @Query(() => HealthCheckerType, {
    description:
      'The health checker’s own state (docs/health.md): whether it reaches the root servers, whether zones are checked on a schedule. Any key; it names no zone.',
  })
  healthChecker(@Ctx() ctx: GraphQLContext): Promise<HealthCheckerType> {
    return ctx.services.health.checker(ctx.db);
  }
}
