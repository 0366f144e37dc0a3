import { Arg, Ctx, FieldResolver, Mutation, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { DnssecRollRoleEnum, DnssecType, EnableDnssecInput } from '../types/dnssec.type';

/** DNSSEC per zone: `Domain.dnssec`, `enableDnssec`, `disableDnssec` (services/dnssec/dnssec.service.ts). */
@Resolver(() => DomainType)
export class DnssecResolver {
  @FieldResolver(() => DnssecType, { description: 'Whether the zone is signed, its keys and the DS to give the parent.', complexity: 5 })
  dnssec(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.status(ctx, { id: domain.id });
  }

  @Mutation(() => DnssecType, {
    description:
      'Signs the zone (one serial step): makes its keys and signs every RRset, with an NSEC or NSEC3 chain. Give the parent one of the answered DS records.',
  })
  enableDnssec(@Arg('input') input: EnableDnssecInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.enable(ctx, {
      zone: input.zone,
      algorithm: input.algorithm ?? undefined,
      denial: input.denial ?? undefined,
      nsec3OptOut: input.nsec3OptOut ?? undefined,
      keyLayout: input.keyLayout ?? undefined,
    });
  }

  @Mutation(() => DnssecType, {
    description:
      'Starts a roll of the zone’s ZSK (pre-publication) or KSK/CSK (double-DS) now (RFC 7583); the worker runs its steps with the TTLs and DNSSEC_PROPAGATION_DELAY honoured.',
  })
  rollDnssecKey(@Arg('zone') zone: string, @Arg('role', () => DnssecRollRoleEnum) role: DnssecRollRoleEnum, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.roll(ctx, zone, role);
  }

  @Mutation(() => DnssecType, {
    description:
      'Confirms that the parent (outside Zonekeeper) serves the new DS of a KSK roll: the roll swaps the keys once the DS TTL has passed.',
  })
  confirmDnssecDsPublished(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.confirmDsPublished(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      "Stops signing the zone (one serial step) and destroys its keys. Remove the zone's DS at the parent first, or validating resolvers will see the zone as bogus.",
  })
  disableDnssec(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.disable(ctx, zone);
  }
}
