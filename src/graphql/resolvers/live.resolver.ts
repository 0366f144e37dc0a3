import { Arg, Ctx, Field, FieldResolver, ID, ObjectType, Resolver, Root, Subscription } from 'type-graphql';
import { DomainType } from '../types/domain.type';
import { zoneNow } from '../loaders';
import { SlowSubscriberError } from '../../services/operations/live-updates';
import type { LiveEvent } from '../../services/operations/live-updates';
import type { GraphQLContext } from '../context';
import { PropagationType } from '../types/propagation.type';
import { DnssecKeyEventType } from '../types/dnssec.type';
import { keyEventInfo } from '../../services/dnssec/dnssec.service';
import { toEntry, ZoneChangeEntry } from './history.resolver';
import { parseOptionalId } from '../inputs/ids';

/** the WebSocket close code for a subscriber that does not keep up (4000–4999: the application's own) */
export const CLOSE_SLOW_SUBSCRIBER = 4008;

@ObjectType('ZoneChangedEvent', {
  simpleResolvers: true,
  description: 'A committed change of the zone (one serial step), as its history shows it.',
})
class ZoneChangedEvent {
  @Field()
  zone!: string;

  @Field(() => ZoneChangeEntry, {
    description: 'The change: its records with their ids (`records`) and the ids of those it deleted (`removedRecordIds`).',
  })
  change!: ZoneChangeEntry;

  /** not exposed; the `domain` field resolves it */
  domainId!: number;
}

/** The zone of a change event, as a client's cache merges it (docs/graphql.md, «Writes and events»). */
@Resolver(() => ZoneChangedEvent)
export class ZoneChangedEventResolver {
  @FieldResolver(() => DomainType, {
    nullable: true,
    description:
      'The zone as it is when the event is sent (its serial, its recordCount): after this change, or a later one; null once the zone is deleted.',
  })
  domain(@Root() event: ZoneChangedEvent, @Ctx() ctx: GraphQLContext) {
    return zoneNow(ctx.loaders, event.domainId);
  }
}

@ObjectType('PropagationChangedEvent', { simpleResolvers: true, description: 'A secondary’s state or served serial of the zone changed.' })
class PropagationChangedEvent {
  @Field()
  zone!: string;

  @Field(() => PropagationType)
  propagation!: PropagationType;
}

@ObjectType('DnssecKeyChangedEvent', {
  simpleResolvers: true,
  description: 'A step of one of the zone’s DNSSEC keys, as `Domain.dnssecEvents` shows it.',
})
class DnssecKeyChangedEvent {
  @Field()
  zone!: string;

  @Field(() => DnssecKeyEventType)
  event!: DnssecKeyEventType;
}

/**
 * The events of a subscription. The zone is looked up before the first event (an unknown zone, or another
 * user's, is the subscription's error at once, with its code); a subscriber too slow is dropped with
 * CLOSE_SLOW_SUBSCRIBER.
 */
async function events(ctx: GraphQLContext, args: SubscriptionArgs, kind: LiveEvent['kind']): Promise<AsyncIterableIterator<LiveEvent>> {
  return relay(ctx, await ctx.services.liveUpdates.subscribe(ctx, args.zone, kind, parseOptionalId(args.after, 'after')));
}

/** a subscription's arguments (type-graphql hands `subscribe` them untyped) */
interface SubscriptionArgs {
  zone: string;
  after?: string | null;
}

/**
 * The subscription's events, with return() passed straight to LiveUpdates: when the client completes the
 * subscription (or its connection closes) the subscriber is forgotten at once. An async generator relaying
 * them (as before) queues a return() that comes while it awaits the next event, so a subscriber of a zone
 * that did not change again was never forgotten (found by test/e2e/subscriptions.test.ts, which waits for the
 * server's subscriber count).
 */
function relay(ctx: GraphQLContext, iterator: AsyncIterableIterator<LiveEvent>): AsyncIterableIterator<LiveEvent> {
  const relayed: AsyncIterableIterator<LiveEvent> = {
    [Symbol.asyncIterator]: () => relayed,
    async next() {
      try {
        return await iterator.next();
      } catch (error) {
        if (error instanceof SlowSubscriberError) ctx.dropConnection?.(CLOSE_SLOW_SUBSCRIBER, 'subscriber too slow');
        throw error;
      }
    },
    return: async () => (await iterator.return?.()) ?? { value: undefined, done: true },
    throw: async (error?: unknown) => {
      await iterator.return?.();
      throw error;
    },
  };
  return relayed;
}

/** Live updates over WebSocket (graphql-ws, on /graphql): a zone's committed changes and its propagation. */
@Resolver()
export class LiveResolver {
  @Subscription(() => ZoneChangedEvent, {
    description:
      'Each committed change of the zone, with the records it added and removed (from any API process). With `after` (a change’s `id`, as `Domain.changes` shows it), the changes since that one come first, then the live ones: none missed, none twice.',
    subscribe: ({ args, context }) => events(context as GraphQLContext, args as SubscriptionArgs, 'change'),
  })
  zoneChanged(
    @Root() event: LiveEvent,
    @Arg('zone') _zone: string,
    @Arg('after', () => ID, { nullable: true, description: 'Resume after this change (its `id`); at most 1000 changes back.' })
    _after?: string,
  ): ZoneChangedEvent {
    if (event.kind !== 'change') throw new Error('unexpected event');
    return {
      zone: event.zone,
      change: toEntry(event.change, { id: event.change.domainId, name: event.zone }),
      domainId: event.change.domainId,
    };
  }

  @Subscription(() => DnssecKeyChangedEvent, {
    description:
      'Each step of the zone’s DNSSEC keys (enabled, rolls, disabled), in the order they committed (from any process, the worker’s included). Needs read access to the zone’s DNSKEY. With `after` (an event’s `id`, as `Domain.dnssecEvents` shows it), the steps since that one come first.',
    subscribe: ({ args, context }) => events(context as GraphQLContext, args as SubscriptionArgs, 'dnssec-key'),
  })
  dnssecKeyChanged(
    @Root() event: LiveEvent,
    @Arg('zone') _zone: string,
    @Arg('after', () => ID, { nullable: true, description: 'Resume after this event (its `id`); at most 1000 events back.' })
    _after?: string,
  ): DnssecKeyChangedEvent {
    if (event.kind !== 'dnssec-key') throw new Error('unexpected event');
    return { zone: event.zone, event: keyEventInfo(event.event) };
  }

  @Subscription(() => PropagationChangedEvent, {
    description: 'The zone’s propagation each time a secondary’s state or served serial changes.',
    subscribe: ({ args, context }) => events(context as GraphQLContext, args as SubscriptionArgs, 'propagation'),
  })
  async propagationChanged(
    @Root() event: LiveEvent,
    @Arg('zone') _zone: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<PropagationChangedEvent> {
    if (event.kind !== 'propagation') throw new Error('unexpected event');
    const status = await ctx.services.propagation.ofZone(ctx.db, event.domainId);
    return { zone: event.zone, propagation: (status ?? ctx.services.propagation.gone(0)) as PropagationType };
  }
}
