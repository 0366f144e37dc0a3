import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { PropagationType } from '../types/propagation.type';

/** `Domain.propagation`: the zone's propagation to the secondaries, kept by the propagation worker, read through PropagationStatusService. */
@Resolver(() => DomainType)
export class PropagationResolver {
  @FieldResolver(() => PropagationType, {
    description: 'Propagation of the current serial to each secondary name server (SECONDARIES).',
    complexity: 5,
  })
  async propagation(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<PropagationType> {
    // batched over the zones of the answer (a zone list shows each one's state)
    const status = await ctx.loaders.propagationById.load(domain.id);
    // the zone was visible to this request a moment ago; deleted since: nothing left to propagate
    return (status ?? ctx.services.propagation.gone(domain.serial)) as PropagationType;
  }
}
