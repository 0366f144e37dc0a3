import { Arg, Ctx, Field, FieldResolver, Int, Mutation, ObjectType, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { DomainType } from '../types/domain.type';

@ObjectType('ProtectedRrset', {
  simpleResolvers: true,
  description:
    'An RRset of a zone locked by its owners: no write of any edge changes it until it is unlocked (RRSET_PROTECTED; a steered RRset is held the same way by steering, RRSET_STEERED).',
})
export class ProtectedRrsetType {
  @Field({ description: "Owner, relative to the zone ('@' = apex)." })
  owner!: string;

  @Field()
  type!: string;

  @Field(() => String, { nullable: true, description: 'Who locked it: the e-mail of the person, or the name of the key.' })
  lockedBy!: string | null;

  @Field(() => Date)
  lockedAt!: Date;
}

/**
 * Protected RRsets and strictChecks (docs/changes.md): read on the zone, locked and unlocked by its owners and
 * admins; and the approvals each change of the zone needs, read beside strictChecks.
 */
@Resolver(() => DomainType)
export class ProtectedRrsetsResolver {
  @FieldResolver(() => Boolean, {
    description:
      'Whether the zone’s change sets refuse the checks’ warnings as they refuse their errors (setZoneStrictChecks; docs/changes.md).',
  })
  async strictChecks(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<boolean> {
    return (await ctx.loaders.changePolicyOfZones.load(domain)).strictChecks;
  }

  @FieldResolver(() => Int, {
    description:
      'The approvals each change of the zone needs (0: none; setZoneRequiredApprovals). Above 0, a write becomes a change request (docs/changes.md, «Review»).',
  })
  async requiredApprovals(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext): Promise<number> {
    return (await ctx.loaders.changePolicyOfZones.load(domain)).requiredApprovals;
  }

  @FieldResolver(() => [ProtectedRrsetType], { description: 'The zone’s locked RRsets.', complexity: 5 })
  protectedRrsets(@Root() domain: DomainType, @Ctx() ctx: GraphQLContext) {
    return ctx.services.protectedRrsets.ofZone(ctx, domain);
  }

  @Mutation(() => ProtectedRrsetType, {
    description:
      'Locks an RRset (owner and type) of a zone: every write that touches it is refused with RRSET_PROTECTED until it is unlocked. An owner or admin of the account, or a key that may write the RRset; in the audit log (rrset-locked).',
  })
  lockRrset(@Arg('zone') zone: string, @Arg('owner') owner: string, @Arg('type') type: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.protectedRrsets.lock(ctx, { zone, owner, type });
  }

  @Mutation(() => Boolean, {
    description: 'Unlocks an RRset of a zone; true when it was locked. Who may lock it may unlock it; in the audit log (rrset-unlocked).',
  })
  unlockRrset(@Arg('zone') zone: string, @Arg('owner') owner: string, @Arg('type') type: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.protectedRrsets.unlock(ctx, { zone, owner, type });
  }

  @Mutation(() => Boolean, {
    description:
      'Sets whether the zone’s change sets refuse the checks’ warnings as they refuse their errors (ZONE_RULE_VIOLATION); answers the setting. An owner or admin, or a key that may write the apex SOA.',
  })
  setZoneStrictChecks(@Arg('zone') zone: string, @Arg('strict', () => Boolean) strict: boolean, @Ctx() ctx: GraphQLContext) {
    return ctx.services.protectedRrsets.setStrictChecks(ctx, zone, strict);
  }
}
