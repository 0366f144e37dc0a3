import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { PropagationType } from '../types/propagation.type';
import type { PropagationStatus } from '../../services/transfers/propagation-status.service';

/** `Domain.propagation`: the zone's propagation to the secondaries, kept by the propagation worker, read through PropagationStatusService. */
@Resolver(() => DomainType)
export class PropagationResolver {
  @FieldResolver(() => PropagationType, {
    description: 'Propagation of the current serial to each secondary name server (SECONDARIES).',
    complexity: 5,
  })
  propagation(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): PropagationType | Promise<PropagationType> {
    // the zone was visible to this request a moment ago; deleted since: nothing left to propagate
    const answer = (status: PropagationStatus | null | undefined) =>
      (status ?? ctx.services.propagation.gone(domain.serial)) as PropagationType;
    // read with the zone list it is in, or batched over the zones of the answer
    const listed = ctx.loaders.listedZones.get(domain.id)?.propagation;
    if (listed !== undefined) return answer(listed);
    return ctx.loaders.propagationById.load(domain.id).then(answer);
  }
}
