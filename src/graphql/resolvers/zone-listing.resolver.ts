import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { DnssecStateEnum } from '../types/dnssec.type';

/**
 * What a list of zones shows of each (docs/console.md, «Zones»): batched over the zones of one answer (one
 * statement for a page of 50, or of 10,000), where `dnssec` and `recordsConnection` are a zone's whole story
 */
@Resolver(() => DomainType)
export class ZoneListingResolver {
  @FieldResolver(() => Int, {
    description: 'How many records the zone holds (its SOA and disabled records included), as its quota counts them.',
  })
  recordCount(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): number | Promise<number> {
    const listed = ctx.loaders.listedZones.get(domain.id);
    if (listed) return listed.facts.recordCount;
    return ctx.loaders.zoneFactsById.load(domain.id).then((facts) => facts?.recordCount ?? 0);
  }

  @FieldResolver(() => String, {
    description: 'unsigned, signed or disabling: Domain.dnssec.state, without its keys (cheap in a list of zones).',
    deprecationReason: 'Use `dnssecStatus`, the same as the DnssecState enum (since 2026-11-29).',
  })
  dnssecState(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): string | Promise<string> {
    const listed = ctx.loaders.listedZones.get(domain.id);
    if (listed) return listed.facts.dnssecState;
    return ctx.loaders.zoneFactsById.load(domain.id).then((facts) => facts?.dnssecState ?? 'unsigned');
  }

  @FieldResolver(() => DnssecStateEnum, {
    description: 'Whether the zone is signed (Domain.dnssec.status, without its keys: cheap in a list of zones).',
  })
  dnssecStatus(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): string | Promise<string> {
    return this.dnssecState(domain, ctx);
  }
}
