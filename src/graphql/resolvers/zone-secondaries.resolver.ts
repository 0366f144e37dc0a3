import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { SecondaryZoneStatusType, ServerInput, ZoneSecondaryInput, ZoneSecondaryType } from '../types/zone-secondary.type';
import { ObjectType, Field, Int } from 'type-graphql';

@ObjectType('ZoneImport', { simpleResolvers: true, description: 'What a one-shot import by AXFR took.' })
class ZoneImportType {
  @Field(() => DomainType)
  zone!: DomainType;

  @Field(() => Int, { description: 'Records transferred (the SOA aside); the zone’s records are now these.' })
  records!: number;
}

/**
 * Zones from and to others (docs/transfers.md): a zone's extra secondaries (ZoneSecondariesService), a secondary
 * zone's status and promotion, and the one-shot import by AXFR (SecondaryZonesService)
 */
@Resolver(() => DomainType)
export class ZoneSecondariesResolver {
  @FieldResolver(() => [ZoneSecondaryType], {
    description: 'The zone’s extra secondaries (a customer’s own servers, besides the fleet’s): NOTIFYed and allowed to transfer.',
  })
  extraSecondaries(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneSecondaries.list(ctx, domain);
  }

  @Mutation(() => [ZoneSecondaryType], {
    description:
      'Replaces a zone’s extra secondaries (an empty list removes them): each gets the zone’s NOTIFYs, signed with its TSIG key, and may transfer the zone from its address with that key.',
  })
  setZoneSecondaries(
    @Arg('zone') zone: string,
    @Arg('secondaries', () => [ZoneSecondaryInput]) secondaries: ZoneSecondaryInput[],
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.zoneSecondaries.set(ctx, zone, secondaries);
  }

  @FieldResolver(() => SecondaryZoneStatusType, {
    nullable: true,
    description: 'A SECONDARY zone’s transfers from its primaries (state, timers, last error); null for a PRIMARY zone.',
  })
  secondary(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.secondaryZones.status(ctx, domain);
  }

  @Mutation(() => DomainType, {
    description:
      'Turns a SECONDARY zone into a PRIMARY zone of ours (the way off another provider): its records stay, its primaries go, and it is written here from now on.',
  })
  promoteZone(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.secondaryZones.promote(ctx, zone);
  }

  @Mutation(() => ZoneImportType, {
    description:
      'Replaces a PRIMARY zone’s records (the SOA aside) with what one AXFR from `from` gives, as one change; a failed transfer writes nothing.',
  })
  importZoneByTransfer(@Arg('zone') zone: string, @Arg('from', () => ServerInput) from: ServerInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.secondaryZones.importByTransfer(ctx, zone, from);
  }
}
