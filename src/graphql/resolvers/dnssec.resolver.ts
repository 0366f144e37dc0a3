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
      'Confirms that the parent (outside Zonekeeper) serves the zone’s DS: after enableDnssec, or the new DS of a KSK roll (which swaps the keys once the DS TTL has passed). With DNSSEC_PARENT_DS_SERVERS set, the worker sees it by itself.',
  })
  confirmDnssecDsPublished(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.confirmDsPublished(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'Confirms that the parent (outside Zonekeeper) no longer serves the DS of a zone being unsigned (state disabling): the zone goes unsigned once the DS TTL and DNSSEC_PROPAGATION_DELAY have passed. With DNSSEC_PARENT_DS_SERVERS set, the worker sees it by itself.',
  })
  confirmDnssecDsRemoved(@Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.dnssec.confirmDsRemoved(ctx, zone);
  }

  @Mutation(() => DnssecType, {
    description:
      'Stops signing the zone (RFC 8078): it publishes the DS-delete CDS/CDNSKEY and stays signed (state disabling) until the parent’s DS is gone (removed here when the parent is a Zonekeeper zone; otherwise seen gone at DNSSEC_PARENT_DS_SERVERS, or confirmDnssecDsRemoved), then every signer record leaves in one serial step and the keys are destroyed. force: that last step now; a parent that still holds the DS then makes the zone bogus.',
  })
  disableDnssec(
    @Arg('zone') zone: string,
    @Arg('force', () => Boolean, { defaultValue: false, description: 'Unsign now, without waiting for the parent.' }) force: boolean,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.dnssec.disable(ctx, zone, { force });
  }
}
