import { Ctx, FieldResolver, Resolver, Root } from 'type-graphql';
import { serverName } from '../../worker/dns-client';
import { getPropagationStatus } from '../../worker/propagation-status';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { PropagationType } from '../types/propagation.type';

/** `Domain.propagation`: the zone's propagation to the secondaries, kept by the propagation worker (src/worker). */
@Resolver(() => DomainType)
export class PropagationResolver {
  @FieldResolver(() => PropagationType, { description: 'Propagation of the current serial to each secondary name server (SECONDARIES).', complexity: 5 })
  async propagation(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<PropagationType> {
    const secondaries = ctx.services.settings.secondaries.map(serverName);
    const status = await getPropagationStatus(ctx.em, domain.id, secondaries);
    // the zone was visible to this request a moment ago; deleted since: nothing left to propagate
    return (status ?? { serial: domain.serial, state: 'in_sync', servers: [] }) as PropagationType;
  }
}
