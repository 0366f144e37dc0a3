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
  propagation(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): PropagationType | Promise<PropagationType> {
    // read with the zone list it is in
    const listed = ctx.loaders.listedZones.get(domain.id)?.propagation;
    if (listed) return listed as PropagationType;
    // or batched over the zones of the answer; the zone was visible to this request a moment ago, deleted since:
    // nothing left to propagate
    return ctx.loaders.propagationById
      .load(domain.id)
      .then((status) => (status ?? ctx.services.propagation.gone(domain.serial)) as PropagationType);
  }
}
