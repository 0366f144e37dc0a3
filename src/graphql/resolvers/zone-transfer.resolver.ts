import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { parseId, parseOptionalId } from '../inputs/ids';
import { ZoneTransferType } from '../types/people.type';

/** Zones moved between accounts (docs/people.md; ZoneTransfersService). */
@Resolver()
export class ZoneTransferResolver {
  @Query(() => [ZoneTransferType], {
    description: 'The pending zone transfers from or to the account acted in (for its owners; the admin key: every one).',
  })
  zoneTransfers(@Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneTransfers.list(ctx);
  }

  @Mutation(() => ZoneTransferType, {
    description: 'The owner of the zone’s account offers it to another account (toUserId or toEmail); that account’s owner accepts.',
  })
  offerZoneTransfer(
    @Arg('zone') zone: string,
    @Arg('toUserId', () => ID, { nullable: true }) toUserId: string | undefined,
    @Arg('toEmail', () => String, { nullable: true }) toEmail: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.zoneTransfers.offer(ctx, { zone, toUserId: parseOptionalId(toUserId, 'toUserId'), toEmail: toEmail ?? undefined });
  }

  @Mutation(() => ZoneTransferType, { description: 'The receiving account’s owner takes the zone offered, before the offer expires.' })
  acceptZoneTransfer(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneTransfers.accept(ctx, parseId(id, 'id'));
  }

  @Mutation(() => ZoneTransferType, { description: 'Either account’s owner withdraws a zone transfer offer.' })
  cancelZoneTransfer(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.zoneTransfers.cancel(ctx, parseId(id, 'id'));
  }

  @Mutation(() => Boolean, { description: 'Moves a zone to another account at once (admin key only).' })
  async moveZone(@Arg('zone') zone: string, @Arg('toUserId', () => ID) toUserId: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.zoneTransfers.moveByAdmin(ctx, { zone, toUserId: parseId(toUserId, 'toUserId') });
    return true;
  }
}
