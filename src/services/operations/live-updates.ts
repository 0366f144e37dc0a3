import type { FeedChange } from '../../repositories/change-feed';
import type { FeedKeyEvent } from '../../repositories/dnssec-key-events';
import type { FeedCursor, FeedSnapshot, LiveSource } from '../../repositories/events';
import { isRestricted, readsRecord } from '../../auth/policy';
import type { RequestContext } from '../context';
import type { DomainsService } from '../zones/domains.service';
import { requireDnssecRead } from '../dnssec/dnssec.service';
import { DomainError } from '../../errors/catalogue';

/**
 * What a subscriber is sent: a committed change of its zone, a secondary's state of it changing, or a step of
 * one of its DNSSEC keys (docs/dnssec.md, «Key events»).
 */
export type LiveEvent =
  | { kind: 'change'; zone: string; change: FeedChange }
  | { kind: 'propagation'; zone: string; domainId: number }
  | { kind: 'dnssec-key'; zone: string; event: FeedKeyEvent };

/** where the change feed is now (a subscription gets what comes after), and one zone's events after a point */
export interface FeedReader {
  /** what has committed now (a subscription is sent what this did not see), and the feed's settled end under it */
  startNow(): Promise<{ snapshot: FeedSnapshot; head: FeedCursor }>;
  /** called right after a subscription registered: the cursor past which every read of the feed includes its zone */
  join(source: LiveSource, head: FeedCursor): Promise<FeedCursor>;
  /** one zone's changes the feed passed, up to `upTo`, that `snapshot` did not see */
  changesPassed(domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<FeedChange[]>;
  /** one zone's key steps the feed passed, up to `upTo`, that `snapshot` did not see */
  keyEventsPassed(domainId: number, upTo: FeedCursor, snapshot: FeedSnapshot): Promise<FeedKeyEvent[]>;
  changesOfZoneAfter(zone: { id: number; name: string }, afterId: number, limit: number): Promise<FeedChange[]>;
  keyEventsOfZoneAfter(domainId: number, afterId: number, limit: number): Promise<FeedKeyEvent[]>;
}

/** a change as a restricted key may see it: only the records (and RRsets' comments) its rules let it read (docs/least-privilege.md) */
function visibleTo(ctx: RequestContext, event: LiveEvent): LiveEvent {
  const policy = ctx.principal.policy;
  if (event.kind !== 'change' || !isRestricted(policy)) return event;
  const readable = <T extends { owner: string; type: string }>(records: T[]) =>
    records.filter((r) => readsRecord(policy, event.zone, r.owner, r.type));
  const { added, removed, findings, comments } = event.change;
  return {
    ...event,
    change: {
      ...event.change,
      added: readable(added),
      removed: readable(removed),
      findings: readable(findings),
      comments: readable(comments),
    },
  };
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
  /**
   * whether an event (a change, a key step: its id and transaction) is this subscriber's: one its snapshot did
   * not see, or one after the event it named
   */
  wants: (event: { id: number; xid?: string }) => boolean;
  push(event: LiveEvent): void;
}

/** the journal id or key event id of an event (propagation events have none) */
const idOf = (event: LiveEvent): number | undefined =>
  event.kind === 'change' ? event.change.id : event.kind === 'dnssec-key' ? event.event.id : undefined;

/**
 * Live updates (GraphQL subscriptions): the change feed of this process (repositories/change-feed.ts: the
 * journal, woken by PostgreSQL's LISTEN/NOTIFY, so changes committed by any process arrive) fanned out to the
 * subscribers of each zone. A subscription is checked like a query: the key must see the zone.
 */
export class LiveUpdates {
  private readonly subscribers = new Map<number, Set<Subscriber>>();
  /** the newest journal id and key event id now (the change feed's): a subscription gets what comes after */
  private feed: FeedReader = {
    startNow: () => Promise.reject(new Error('live updates: no change feed attached')),
    join: (_source, head) => Promise.resolve(head),
    changesPassed: () => Promise.resolve([]),
    keyEventsPassed: () => Promise.resolve([]),
    changesOfZoneAfter: () => Promise.resolve([]),
    keyEventsOfZoneAfter: () => Promise.resolve([]),
  };

  constructor(private readonly domains: DomainsService) {}

  /** the change feed that publishes here tells where the journal and the key events are */
  attachFeed(feed: FeedReader): void {
    this.feed = feed;
  }

  /** called by the change feed */
  publishChange(change: FeedChange): void {
    for (const subscriber of this.subscribers.get(change.domainId) ?? []) {
      if (subscriber.kinds === 'change' && subscriber.wants(change)) subscriber.push({ kind: 'change', zone: change.zone, change });
    }
  }

  /** called by the change feed, in the order of the events' ids (a key's steps in the order they committed) */
  publishKeyEvent(event: FeedKeyEvent): void {
    for (const subscriber of this.subscribers.get(event.domainId) ?? []) {
      if (subscriber.kinds === 'dnssec-key' && subscriber.wants(event)) subscriber.push({ kind: 'dnssec-key', zone: event.zone, event });
    }
  }

  /** the zones with key-event subscribers: the change feed reads only those zones' key steps */
  keyEventZones(): number[] {
    const zones: number[] = [];
    for (const [domainId, set] of this.subscribers)
      if ([...set].some((subscriber) => subscriber.kinds === 'dnssec-key')) zones.push(domainId);
    return zones;
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
   *
   * A change or key-step subscription is sent every such event of the zone whose transaction had not committed
   * when it began (a snapshot it takes: repositories/events.ts, FeedSnapshot), however late that transaction
   * commits and whatever its id, in the feed's order. `afterId` (a change's or key event's id, as the history
   * shows it) resumes after that event: the ones since are sent first, then the live ones, none twice and none
   * missed (a client reads the zone, then subscribes after the newest change it read; or reconnects after the
   * last event it got). Either way the zone's events from that point are read once the subscriber is
   * registered: the change feed may be reading while the subscription is being set up, and what it read before
   * the zone had this subscriber would otherwise never reach it. At most MAX_QUEUED_EVENTS are sent from the
   * past (INVALID_INPUT on `after` beyond that: read the history).
   */
  async subscribe(
    ctx: RequestContext,
    zone: string,
    kinds: LiveEvent['kind'],
    afterId?: number,
  ): Promise<AsyncIterableIterator<LiveEvent>> {
    const domain = await this.domains.get(ctx, { name: zone });
    if (kinds === 'dnssec-key') requireDnssecRead(ctx, domain.name);
    // where the event feed stands for this subscription (a change's or a key step's): what its snapshot did not see
    const source = kinds === 'change' ? 'journal' : kinds === 'dnssec-key' ? 'keySteps' : undefined;
    const start = source ? await this.feed.startNow() : undefined;
    const queue: LiveEvent[] = [];
    let wake: (() => void) | undefined;
    let failure: Error | undefined;
    let done = false;
    /** live events that came while the past was being read: sent after it, in the feed's order */
    let arriving: LiveEvent[] | undefined = kinds === 'propagation' ? undefined : [];
    /** the ids the catch-up sent: the change feed may deliver them again */
    const caughtUp = new Set<number>();
    const enqueue = (event: LiveEvent) => {
      if (done) return;
      const id = idOf(event);
      if (id !== undefined && caughtUp.has(id)) return;
      if (queue.length >= MAX_QUEUED_EVENTS) failure = new SlowSubscriberError();
      else queue.push(visibleTo(ctx, { ...event, zone: domain.name }));
      wake?.();
    };
    const subscriber: Subscriber = {
      domainId: domain.id,
      kinds,
      wants: (event) =>
        (start !== undefined && event.xid !== undefined && !start.snapshot.sees(event.xid)) ||
        (afterId !== undefined && event.id > afterId),
      push: (event) => (arriving ? arriving.push(event) : enqueue(event)),
    };
    const set = this.subscribers.get(domain.id) ?? new Set<Subscriber>();
    set.add(subscriber);
    this.subscribers.set(domain.id, set);
    const joined = source && start ? this.feed.join(source, start.head) : undefined;
    const end = () => {
      done = true;
      set.delete(subscriber);
      if (set.size === 0) this.subscribers.delete(domain.id);
      wake?.();
    };
    if (arriving && kinds !== 'propagation') {
      try {
        const past = afterId === undefined ? [] : await this.pastEvents(domain, kinds, afterId);
        if (start && joined) {
          // what the feed read for others between this subscription's snapshot and its joining: its own
          const upTo = await joined;
          const sent = new Set(past.map(idOf));
          const passed: LiveEvent[] =
            kinds === 'change'
              ? (await this.feed.changesPassed(domain.id, upTo, start.snapshot)).map((change) => ({
                  kind: 'change',
                  zone: domain.name,
                  change,
                }))
              : (await this.feed.keyEventsPassed(domain.id, upTo, start.snapshot)).map((event) => ({
                  kind: 'dnssec-key',
                  zone: domain.name,
                  event,
                }));
          for (const event of passed) if (!sent.has(idOf(event))) past.push(event);
        }
        if (past.length > MAX_QUEUED_EVENTS)
          throw DomainError.invalid(
            'after',
            `more than ${MAX_QUEUED_EVENTS} events since that one: read the zone's changes (Domain.changes), then subscribe after the newest`,
            'TOO_OLD',
          );
        for (const event of past) {
          enqueue(event);
          caughtUp.add(idOf(event)!);
        }
      } catch (error) {
        end();
        throw error;
      }
      // as the feed delivered them, in its order
      const live = arriving;
      arriving = undefined;
      for (const event of live) enqueue(event);
    }
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

  /** the zone's events after `afterId` (a change's or a key step's id), oldest first, one more than MAX_QUEUED_EVENTS at most */
  private async pastEvents(domain: { id: number; name: string }, kinds: 'change' | 'dnssec-key', afterId: number): Promise<LiveEvent[]> {
    if (kinds === 'change')
      return (await this.feed.changesOfZoneAfter(domain, afterId, MAX_QUEUED_EVENTS + 1)).map((change) => ({
        kind: 'change',
        zone: domain.name,
        change,
      }));
    return (await this.feed.keyEventsOfZoneAfter(domain.id, afterId, MAX_QUEUED_EVENTS + 1)).map((event) => ({
      kind: 'dnssec-key',
      zone: domain.name,
      event,
    }));
  }
}
