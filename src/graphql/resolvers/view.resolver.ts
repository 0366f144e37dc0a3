import { Arg, Ctx, FieldResolver, ID, Int, Mutation, Query, Resolver, Root } from 'type-graphql';
import { SerialScalar } from '../scalars/serial';
import type { GraphQLContext } from '../context';
import {
  OverlayActionEnum,
  OverlayRecordInput,
  SecondarySoftwareEnum,
  ViewInput,
  ViewOverlayType,
  ViewType,
  ViewChangeType,
  ViewUpdateInput,
  ViewZoneType,
} from '../types/view.type';
import { parseOptionalId } from '../inputs/ids';

/**
 * Views (docs/views.md): the operator's split horizon, as overlays on the zones, each view served to the
 * secondaries that sign with its TSIG key.
 */
@Resolver(() => ViewType)
export class ViewResolver {
  @FieldResolver(() => SerialScalar, {
    description: "The view's serial of a zone (the base's while the view has no overlay in it), as viewZone answers it.",
  })
  serial(@Root() view: ViewType, @Arg('zone') zone: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.views.serialOf(ctx, zone, Number(view.id));
  }

  @Query(() => [ViewType], { description: 'Every view, lower precedence first (the operator).' })
  views(@Ctx() ctx: GraphQLContext) {
    return ctx.services.views.list(ctx);
  }

  @Mutation(() => ViewType, { description: 'Creates a view (the operator): its networks, precedence, TSIG key and secondaries to NOTIFY.' })
  createView(@Arg('input') input: ViewInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.views.create(ctx, { ...input, tsigKeyId: Number(input.tsigKeyId) });
  }

  @Mutation(() => ViewType, { description: 'Changes a view (the operator); fields not given stay.' })
  updateView(@Arg('id', () => ID) id: string, @Arg('input') input: ViewUpdateInput, @Ctx() ctx: GraphQLContext) {
    return ctx.services.views.update(ctx, Number(id), {
      ...input,
      tsigKeyId: input.tsigKeyId === undefined || input.tsigKeyId === null ? undefined : Number(input.tsigKeyId),
    });
  }

  @Mutation(() => Boolean, { description: 'Deletes a view and its overlays (the operator).' })
  deleteView(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    return ctx.services.views.delete(ctx, Number(id));
  }

  @Query(() => [ViewOverlayType], { description: "A zone's overlays: the RRsets each view (or one) replaces or hides (the operator)." })
  viewOverlays(
    @Arg('zone') zone: string,
    @Arg('view', () => String, { nullable: true }) view: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.views.overlays(ctx, zone, view ?? undefined);
  }

  @Query(() => ViewZoneType, {
    description:
      "A zone's records as a view serves them, each marked BASE, REPLACE (the view's own) or HIDE (the base's, hidden in the view).",
  })
  async viewZone(@Arg('zone') zone: string, @Arg('view') view: string, @Ctx() ctx: GraphQLContext) {
    const read = await ctx.services.views.recordsInView(ctx, zone, view);
    return { zone, view, ...read };
  }

  @Query(() => [ViewChangeType], {
    description:
      "A view's history of a zone, newest first (the operator): each overlay set or cleared, with who, when, the RRset, the action, a replace's records and the view's serial, from its view.changed event (kept as long as the events are).",
  })
  async viewHistory(
    @Arg('zone') zone: string,
    @Arg('view') view: string,
    @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' }) first: number,
    @Arg('before', () => ID, { nullable: true, description: 'The id of the oldest change of the previous page.' })
    before: string | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    const rows = await ctx.services.views.history(ctx, zone, view, { first, beforeId: parseOptionalId(before, 'before') });
    return rows.map((row) => ({
      ...row,
      author: row.author
        ? {
            keyId: row.author.keyId ?? null,
            tsigKeyId: row.author.tsigKeyId ?? null,
            keyName: row.author.keyName ?? null,
            userId: row.author.userId ?? null,
            admin: row.author.userId === undefined,
            email: row.author.email ?? null,
          }
        : null,
    }));
  }

  @Mutation(() => Int, {
    description:
      "Sets a view's overlay of one RRset in a zone (the operator): REPLACE with `records`, or HIDE. Checked by the zone's rules in the view's zone; answers the view's new serial of the zone.",
  })
  async setViewOverlay(
    @Arg('zone') zone: string,
    @Arg('view') view: string,
    @Arg('owner') owner: string,
    @Arg('type') type: string,
    @Arg('action', () => OverlayActionEnum) action: OverlayActionEnum,
    @Arg('records', () => [OverlayRecordInput], { nullable: true }) records: OverlayRecordInput[] | undefined,
    @Ctx() ctx: GraphQLContext,
  ) {
    return (await ctx.services.views.setOverlay(ctx, { zone, view, owner, type, action, records: records ?? undefined })).serial;
  }

  @Mutation(() => Int, { description: "Clears a view's overlay of one RRset (the operator): the view serves the base's again." })
  async clearViewOverlay(
    @Arg('zone') zone: string,
    @Arg('view') view: string,
    @Arg('owner') owner: string,
    @Arg('type') type: string,
    @Ctx() ctx: GraphQLContext,
  ) {
    return (await ctx.services.views.setOverlay(ctx, { zone, view, owner, type })).serial;
  }

  @Query(() => String, {
    description:
      "A BIND `view` block for a secondary of this view (the operator): match-clients on the view's key and networks, the view's catalog zone from this primary with the view's key.",
  })
  viewBindConfig(
    @Arg('view') view: string,
    @Arg('primary', { description: 'The primary as the secondary reaches it: address, or address:port.' }) primary: string,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.views.bindConfig(ctx, view, primary);
  }

  @Query(() => String, {
    description:
      "The configuration of a secondary of this view (the operator), for BIND (a `view` block), Knot DNS, NSD or PowerDNS (one instance per view): the view's key, this primary reached with it, the view's catalog zone. The key's secret is a placeholder.",
  })
  viewSecondaryConfig(
    @Arg('view') view: string,
    @Arg('primary', { description: 'The primary as the secondary reaches it: address, or address:port.' }) primary: string,
    @Arg('software', () => SecondarySoftwareEnum, { defaultValue: SecondarySoftwareEnum.BIND }) software: SecondarySoftwareEnum,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.views.secondaryConfig(ctx, view, primary, software);
  }
}
