import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';
import { NameserverSetInput, NameserverSetType, NameserverSetUpdateInput, NsFollowType } from '../types/nameserver-set.type';
import { SecondarySoftwareEnum } from '../types/view.type';

/**
 * Nameserver sets (docs/transfers.md, «Nameserver sets»): the admin manages them and moves zones between
 * them; whoever reads a zone sees its set.
 */
@Resolver(() => DomainType)
export class NameserverSetResolver {
  @Query(() => [NameserverSetType], { description: 'Every nameserver set, `default` first (the admin).' })
  nameserverSets(@Ctx() ctx: GraphQLContext) {
    return ctx.services.nameserverSets.list(ctx);
  }

  @Query(() => NameserverSetType, { description: 'One nameserver set by name (the admin).' })
  nameserverSet(@Arg('name') name: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.nameserverSets.get(ctx, name);
  }

  @Query(() => String, {
    description:
      'The configuration of a secondary of a nameserver set (the admin), for BIND, Knot DNS, NSD or PowerDNS: the set’s catalog zone from this primary, TSIG_KEY’s name (its secret a placeholder), and the limits sized for the set’s zones, each with its reason (docs/scale.md).',
  })
  nameserverSetSecondaryConfig(
    @Arg('primary', { description: 'The primary as the secondary reaches it: address, or address:port.' }) primary: string,
    @Arg('name', { defaultValue: 'default', description: 'The nameserver set (default: `default`).' }) name: string,
    @Arg('software', () => SecondarySoftwareEnum, { defaultValue: SecondarySoftwareEnum.BIND }) software: SecondarySoftwareEnum,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.nameserverSets.secondaryConfig(ctx, name, primary, software);
  }

  @Mutation(() => NameserverSetType, { description: 'Creates a nameserver set (the admin): its secondaries, NS names and catalog zone.' })
  createNameserverSet(@Arg('input') input: NameserverSetInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.nameserverSets.create(ctx, input);
  }

  @Mutation(() => NameserverSetType, {
    description: 'Replaces a nameserver set’s secondaries and NS names (the admin); `default` is changed in the settings.',
  })
  updateNameserverSet(@Arg('name') name: string, @Arg('input') input: NameserverSetUpdateInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.nameserverSets.update(ctx, name, input);
  }

  @Mutation(() => Boolean, { description: 'Deletes a nameserver set no zone is in (the admin): NAMESERVER_SET_IN_USE otherwise.' })
  deleteNameserverSet(@Arg('name') name: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.nameserverSets.delete(ctx, name);
  }

  @Mutation(() => DomainType, {
    description:
      'Moves a zone to another nameserver set (the admin): it joins the new set’s catalog now and leaves the old one’s once the new set’s secondaries serve it. Its apex NS follow when they were the old set’s NS names (else a NS_KEPT_ON_MOVE warning).',
  })
  async moveZoneToNameserverSet(@Arg('zone') zone: string, @Arg('nameserverSet') nameserverSet: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.nameserverSets.moveZone(ctx, zone, nameserverSet);
    return ctx.services.domains.get(ctx, { name: zone });
  }

  @FieldResolver(() => NameserverSetType, { name: 'nameserverSet', description: 'The nameserver set that serves the zone.' })
  async zoneNameserverSet(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    const set = await ctx.services.nameserverSets.ofZone(ctx, domain);
    return { ...set, zoneCount: 0 };
  }
}

/** a set's own fields that take a read of their own */
@Resolver(() => NameserverSetType)
export class NameserverSetFieldsResolver {
  @FieldResolver(() => NsFollowType, {
    nullable: true,
    description: 'Its zones taking its last new NS names, as far as they have come (`zonesFollow`); null when none do (the admin).',
  })
  async nsFollow(@Root() set: NameserverSetType, @Ctx() ctx: GraphQLContext) {
    return (await ctx.services.nameserverSets.nsFollow(ctx, set)) ?? null;
  }
}
