import type { FeedChange } from '../repositories/change-feed';
import type { FeedKeyEvent } from '../repositories/dnssec-key-events';
import { isRestricted, readsRecord } from '../auth/policy';
import type { RequestContext } from './context';
import type { DomainsService } from './domains.service';
import { requireDnssecRead } from './dnssec/dnssec.service';

/**
 * What a subscriber is sent: a committed change of its zone, a secondary's state of it changing, or a step of
 * one of its DNSSEC keys (docs/dnssec.md, «Key events»).
 */
export type LiveEvent =
  | { kind: 'change'; zone: string; change: FeedChange }
  | { kind: 'propagation'; zone: string; domainId: number }
  | { kind: 'dnssec-key'; zone: string; event: FeedKeyEvent };

/** where the change feed is now: a subscription gets what comes after */
export interface FeedPosition {
  latestJournalId(): Promise<number>;
  latestKeyEventId(): Promise<number>;
}

/** a change as a restricted key may see it: only the records its rules let it read (docs/least-privilege.md) */
function visibleTo(ctx: RequestContext, event: LiveEvent): LiveEvent {
  const policy = ctx.principal.policy;
  if (event.kind !== 'change' || !isRestricted(policy)) return event;
  const readable = (records: FeedChange['added']) => records.filter((r) => readsRecord(policy, event.zone, r.owner, r.type));
  return { ...event, change: { ...event.change, added: readable(event.change.added), removed: readable(event.change.removed) } };
}

/** events a subscriber may have waiting; past that it is too slow, and is dropped rather than buffered */
export const MAX_QUEUED_EVENTS = 1000;

/** The error that ends a subscription whose subscriber does not keep up. */
export class SlowSubscriberError extends Error {
  constructor() {
    super(`the subscriber fell more than ${MAX_QUEUED_EVENTS} events behind`);
  }
}

interface Subscriber {
  domainId: number;
  kinds: LiveEvent['kind'];
  sinceId: number;
  push(event: LiveEvent): void;
}

/**
 * Live updates (GraphQL subscriptions): the change feed of this process (repositories/change-feed.ts: the
 * journal, woken by PostgreSQL's LISTEN/NOTIFY, so changes committed by any process arrive) fanned out to the
 * subscribers of each zone. A subscription is checked like a query: the key must see the zone.
 */
export class LiveUpdates {
  private readonly subscribers = new Map<number, Set<Subscriber>>();
  /** the newest journal id and key event id now (the change feed's): a subscription gets what comes after */
  private feed: FeedPosition = { latestJournalId: () => Promise.resolve(0), latestKeyEventId: () => Promise.resolve(0) };

  constructor(private readonly domains: DomainsService) {}

  /** the change feed that publishes here tells where the journal and the key events are */
  attachFeed(feed: FeedPosition): void {
    this.feed = feed;
  }

  /** called by the change feed */
  publishChange(change: FeedChange): void {
    for (const subscriber of this.subscribers.get(change.domainId) ?? []) {
      if (subscriber.kinds === 'change' && change.id > subscriber.sinceId) subscriber.push({ kind: 'change', zone: change.zone, change });
    }
  }

  /** called by the change feed, in the order of the events' ids (a key's steps in the order they committed) */
  publishKeyEvent(event: FeedKeyEvent): void {
    for (const subscriber of this.subscribers.get(event.domainId) ?? []) {
      if (subscriber.kinds === 'dnssec-key' && event.id > subscriber.sinceId)
        subscriber.push({ kind: 'dnssec-key', zone: event.zone, event });
    }
  }

  /**
   * The zones with key-event subscribers, and the lowest key event id one of them waits after: the change feed
   * reads only those zones' events, and none older (undefined: no such subscriber).
   */
  keyEventSubscriptions(): { zones: number[]; sinceId: number } | undefined {
    const zones: number[] = [];
    let sinceId = Infinity;
    for (const [domainId, set] of this.subscribers) {
      let wanted = false;
      for (const subscriber of set) {
        if (subscriber.kinds !== 'dnssec-key') continue;
        wanted = true;
        sinceId = Math.min(sinceId, subscriber.sinceId);
      }
      if (wanted) zones.push(domainId);
    }
    return zones.length ? { zones, sinceId } : undefined;
  }

  publishPropagation(domainId: number): void {
    for (const subscriber of this.subscribers.get(domainId) ?? []) {
      if (subscriber.kinds === 'propagation') subscriber.push({ kind: 'propagation', zone: '', domainId });
    }
  }

  /** the zones (domain ids) someone subscribes to */
  subscribedZones(): number[] {
    return [...this.subscribers.keys()];
  }

  subscriberCount(): number {
    let count = 0;
    for (const set of this.subscribers.values()) count += set.size;
    return count;
  }

  /**
   * The events of one zone the caller may see (ZONE_NOT_FOUND otherwise), until the subscription ends. Key
   * events need the right to read the zone's DNSKEY (FORBIDDEN_BY_POLICY otherwise), as their history does.
   */
  async subscribe(ctx: RequestContext, zone: string, kinds: LiveEvent['kind']): Promise<AsyncIterableIterator<LiveEvent>> {
    const domain = await this.domains.get(ctx, { name: zone });
    if (kinds === 'dnssec-key') requireDnssecRead(ctx, domain.name);
    const sinceId = await (kinds === 'dnssec-key' ? this.feed.latestKeyEventId() : this.feed.latestJournalId());
    const queue: LiveEvent[] = [];
    let wake: (() => void) | undefined;
    let failure: Error | undefined;
    let done = false;
    const subscriber: Subscriber = {
      domainId: domain.id,
      kinds,
      sinceId,
      push: (event) => {
        if (done) return;
        if (queue.length >= MAX_QUEUED_EVENTS) failure = new SlowSubscriberError();
        else queue.push(visibleTo(ctx, { ...event, zone: domain.name }));
        wake?.();
      },
    };
    const set = this.subscribers.get(domain.id) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.subscribers.set(domain.id, set);
    const end = () => {
      done = true;
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(domain.id);
      wake?.();
    };
    const iterator: AsyncIterableIterator<LiveEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      async next() {
        while (!done && !failure && queue.length === 0)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        wake = undefined;
        if (failure) {
          end();
          throw failure;
        }
        if (queue.length) return { value: queue.shift()!, done: false };
        return { value: undefined, done: true };
      },
      async return() {
        end();
        return { value: undefined, done: true };
      },
      async throw(error?: unknown) {
        end();
        throw error;
      },
    };
    return iterator;
  }
}
