import { Arg, Ctx, Int, Query, Resolver } from 'type-graphql';
import type { AttentionList } from '../../services/operations/attention.service';
import type { GraphQLContext } from '../context';
import { AttentionKind, AttentionListType, AttentionType } from '../types/attention.type';

/** the home screen's one query: what needs attention across the zones the caller may see (AttentionService) */
@Resolver()
export class AttentionResolver {
  @Query(() => AttentionType, {
    description:
      'What needs attention across the zones the caller may see, one list per kind, each oldest first with its total count. A key sees only the zones it may read.',
  })
  async attention(
    @Ctx() ctx: GraphQLContext,
    @Arg('first', () => Int, { defaultValue: 20, description: 'Items per list (at most 100); totalCount counts them all.' }) first: number,
  ): Promise<AttentionType> {
    const found = await ctx.services.attention.attention(ctx, first);
    const list = async (of: AttentionList, kind: AttentionKind): Promise<AttentionListType> => {
      // the zones as the list shows them, batched; a zone deleted since the list was read is left out
      const zones = await Promise.all(of.items.map((item) => ctx.loaders.domainById.load(item.zoneId)));
      return {
        totalCount: of.totalCount,
        items: of.items.flatMap((item, i) => {
          const zone = zones[i];
          return zone ? [{ zone, kind, since: item.since, detail: item.detail }] : [];
        }),
      };
    };
    return {
      secondariesBehind: await list(found.secondariesBehind, AttentionKind.SECONDARIES_BEHIND),
      failedTransfers: await list(found.failedTransfers, AttentionKind.TRANSFER_FAILED),
      dsAtParent: await list(found.dsAtParent, AttentionKind.DS_AT_PARENT),
      health: await list(found.health, AttentionKind.HEALTH),
      steering: await list(found.steering, AttentionKind.STEERING_HELD),
    };
  }
}
