import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { CreatedWebhookType, EventPageType, WebhookDeliveryType, WebhookType } from '../types/event.type';
import { parseId, parseOptionalId } from '../inputs/ids';

/** Events out (docs/events.md): the feed and webhook subscriptions; each field a call of the events service. */
@Resolver()
export class EventsResolver {
  @Query(() => EventPageType, {
    description:
      'The event feed after the cursor `after` (none: from the oldest kept), in order, up to `limit` (1–1000, default 100) events the caller may read.',
  })
  events(
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('limit', () => Int, { nullable: true }) limit: number | null,
    @Arg('types', () => [String], { nullable: true, description: 'Only these event types.' }) types: string[] | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.events.feed(ctx, { after, limit, types });
  }

  @Query(() => [WebhookType], { description: "The caller's webhook subscriptions (the admin key: every one)." })
  webhooks(@Ctx() ctx: GraphQLContext) {
    return ctx.services.events.list(ctx);
  }

  @Query(() => [WebhookDeliveryType], { description: "A subscription's deliveries, newest first." })
  webhookDeliveries(
    @Arg('id', () => ID) id: string,
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('before', () => ID, { nullable: true, description: 'Deliveries older than this delivery id.' }) before: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.events.deliveries(ctx, parseId(id, 'id'), {
      first: Math.min(Math.max(first ?? 100, 1), 1000),
      beforeId: parseOptionalId(before, 'before'),
    });
  }

  @Mutation(() => CreatedWebhookType, {
    description:
      'Subscribes `url` to events: `events` (types, or ["*"]: every type) of `zones` (none: every zone the caller may read). Answers the signing secret once.',
  })
  async createWebhook(
    @Arg('url') url: string,
    @Arg('events', () => [String], { nullable: true }) events: string[] | null,
    @Arg('zones', () => [String], { nullable: true }) zones: string[] | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    const created = await ctx.services.events.add(ctx, { url, events: events ?? '*', zones: zones ?? undefined });
    return { webhook: created.subscription, secret: created.secret };
  }

  @Mutation(() => Boolean, { description: 'Deletes a subscription and its deliveries.' })
  async deleteWebhook(@Arg('id', () => ID) id: string, @Ctx() ctx: GraphQLContext) {
    await ctx.services.events.remove(ctx, parseId(id, 'id'));
    return true;
  }

  @Mutation(() => CreatedWebhookType, {
    description:
      'A new signing secret, answered once (`secret`, or a random one). The current secret signs too for WEBHOOK_SECRET_OVERLAP_HOURS from now, and each previous one until its own overlap ends; at most WEBHOOK_MAX_SECRETS sign at once.',
  })
  async rotateWebhookSecret(
    @Arg('id', () => ID) id: string,
    @Arg('secret', () => String, {
      nullable: true,
      description: 'The new secret, when the receiver has one already: whsec_ and the base64 of 24 to 64 random bytes.',
    })
    secret: string | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    const rotated = await ctx.services.events.rotate(ctx, parseId(id, 'id'), { secret });
    return { webhook: rotated.subscription, secret: rotated.secret };
  }

  @Mutation(() => Int, { description: 'Delivers again the events given, or every failed delivery; answers how many.' })
  redeliverWebhook(
    @Arg('id', () => ID) id: string,
    @Arg('events', () => [ID], { nullable: true }) events: string[] | null,
    @Ctx() ctx: GraphQLContext,
  ) {
    return ctx.services.events.redeliver(
      ctx,
      parseId(id, 'id'),
      events?.map((e, i) => parseId(e, `events[${i}]`)),
    );
  }
}
