import { TokenBucket } from 'limiter';
import { LRUCache } from 'lru-cache';
import type { Principal } from '../auth/principal';
import type { RateLimit, Settings } from '../config/settings';
import type { Database } from '../db/pool';
import { DomainError } from '../errors/catalogue';
import { rateLimited } from '../metrics';
import { keyRateLimits, KeyRateLimits } from '../repositories/accounts';

/**
 * Rate limits (README "Rate limits and quotas", docs/least-privilege.md): token buckets (the `limiter` package) per
 * user and per key, a key's bucket having its user's as parent, so a request takes a token from both and a
 * user's keys share the user's rate besides each key's own; and a bucket per zone for the changes it takes.
 *
 * Each API process counts on its own, in memory: a limit is kept within (limit × API processes) when a load
 * balancer spreads one client over every process, and exactly with one process. Counting in PostgreSQL would
 * add a write (a row update, its WAL, a hot row per busy user) to every request whose hot path is two round
 * trips; the buckets' purpose, keeping one tenant from slowing the others, holds per process as well
 * (docs/decisions.md §"Rate limits").
 *
 * The admin key (the operator's) is limited by none of these.
 */

/** one policy's state for the RateLimit and RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers) */
export interface PolicyState {
  /** the policy's name in the fields: `user` or `key` */
  name: 'user' | 'key';
  /** the bucket's size: the requests that may come at once (the field's `q`) */
  quota: number;
  /** the seconds an empty bucket takes to fill (the field's `w`): quota per window is the sustained rate */
  window: number;
  /** whole tokens left (`r`) */
  remaining: number;
  /** seconds until the bucket is full again (`t`) */
  reset: number;
}

export interface RateDecision {
  allowed: boolean;
  /** when refused: seconds until a request would be taken (Retry-After: whole seconds, at least 1) */
  retryAfter: number;
  /** the same in milliseconds */
  retryAfterMs?: number;
  /** which bucket was empty, when refused */
  limitedBy?: 'user' | 'key';
  policies: PolicyState[];
}

/** the most buckets kept; an idle bucket is dropped once it would be full again (a new one starts full) */
const MAX_BUCKETS = 200_000;
/** how long the admin's values of a key and its user are used before they are read again (in the background) */
const LIMITS_CACHE_MS = 5_000;

/** Token buckets by name, each dropped when idle long enough to be full again. */
export class Buckets {
  private readonly buckets = new LRUCache<string, TokenBucket>({ max: MAX_BUCKETS, ttlAutopurge: false });

  /** the bucket of this name with these limits (a changed limit applies to the bucket as it is) */
  bucket(name: string, limit: RateLimit, parent?: TokenBucket): TokenBucket {
    // the bucket lives while it is not full: at most `burst / perSecond` seconds after its last use
    const ttl = Math.ceil((limit.burst / limit.perSecond) * 1000) + 1000;
    let bucket = this.buckets.get(name);
    if (!bucket) {
      bucket = new TokenBucket({ bucketSize: limit.burst, tokensPerInterval: limit.perSecond, interval: 1000, parentBucket: parent });
      // a new bucket starts full (the library starts it empty)
      bucket.content = limit.burst;
    } else {
      bucket.bucketSize = limit.burst;
      bucket.tokensPerInterval = limit.perSecond;
      bucket.content = Math.min(bucket.content, limit.burst);
      bucket.parentBucket = parent;
    }
    this.buckets.set(name, bucket, { ttl });
    return bucket;
  }
}

const state = (name: PolicyState['name'], bucket: TokenBucket): PolicyState => {
  bucket.drip();
  const perSecond = bucket.tokensPerInterval;
  return {
    name,
    quota: bucket.bucketSize,
    window: Math.max(1, Math.ceil(bucket.bucketSize / perSecond)),
    remaining: Math.max(0, Math.floor(bucket.content)),
    reset: Math.max(0, Math.ceil((bucket.bucketSize - bucket.content) / perSecond)),
  };
};

/** the limit in force: the admin's value, or the setting's default; undefined when unlimited (0 per second) */
function effective(perSecond: number | null, burst: number | null, fallback: RateLimit): RateLimit | undefined {
  const limit = { perSecond: perSecond ?? fallback.perSecond, burst: burst ?? fallback.burst };
  return limit.perSecond > 0 ? limit : undefined;
}

interface Turn {
  state: 'waiting' | 'running' | 'ended';
  start: () => void;
}

/**
 * At most `perUser` requests of one user running at once in this process, the others waiting their turn in
 * order, at most `queue` of them. A token bucket bounds a user's requests per second, not how many run at the
 * same moment: a client on 64 connections that waited out its Retry-After comes back on all of them at once,
 * with a second's worth of tokens in its bucket, and 50 reads started together took the event loop and the
 * database pool from every other tenant for tens of milliseconds each second (docs/performance.md, «Noisy
 * tenants»). Waiting here costs a closure; the user's rate is unchanged, only spread out.
 */
export class InFlight {
  private readonly users = new Map<number, { running: number; waiting: Turn[] }>();

  constructor(
    private readonly perUser: number,
    private readonly queue: number,
  ) {}

  enter(userId: number, start: () => void): (() => void) | undefined {
    if (this.perUser <= 0) {
      start();
      return () => undefined;
    }
    let user = this.users.get(userId);
    if (!user) this.users.set(userId, (user = { running: 0, waiting: [] }));
    const turn: Turn = { state: 'waiting', start };
    if (user.running < this.perUser) {
      user.running += 1;
      turn.state = 'running';
      start();
    } else if (user.waiting.length >= this.queue) {
      rateLimited.inc({ limit: 'concurrency' });
      if (!user.running && !user.waiting.length) this.users.delete(userId);
      return undefined;
    } else {
      user.waiting.push(turn);
    }
    const owner = user;
    return () => {
      if (turn.state === 'ended') return;
      const was = turn.state;
      turn.state = 'ended';
      if (was === 'waiting') owner.waiting.splice(owner.waiting.indexOf(turn), 1);
      else {
        owner.running -= 1;
        while (owner.running < this.perUser && owner.waiting.length) {
          const next = owner.waiting.shift()!;
          next.state = 'running';
          owner.running += 1;
          // on the next turn of the event loop: what is ready (another tenant's request) goes first
          setImmediate(next.start);
        }
      }
      if (!owner.running && !owner.waiting.length && this.users.get(userId) === owner) this.users.delete(userId);
    };
  }

  /** requests of the user running and waiting (tests, metrics) */
  of(userId: number): { running: number; waiting: number } {
    const user = this.users.get(userId);
    return { running: user?.running ?? 0, waiting: user?.waiting.length ?? 0 };
  }
}

/** The request limits of users and keys (HTTP and DNS UPDATE), per process. */
export class RateLimits {
  private readonly buckets = new Buckets();
  private readonly limits = new LRUCache<string, KeyRateLimits, Database>({
    max: 100_000,
    ttl: LIMITS_CACHE_MS,
    // after the first read, a request never waits for a refresh: the values are read again in the background
    allowStale: true,
    noDeleteOnStaleGet: true,
    allowStaleOnFetchRejection: true,
    fetchMethod: async (name, _stale, { context }) => {
      const [kind, id] = name.split(':');
      // a person's session (docs/people.md) has no rate of its own: its account's (user:<id>)
      if (kind === 'user') return keyRateLimits(context, { userId: Number(id) });
      return keyRateLimits(context, kind === 'tsig' ? { tsigKeyId: Number(id) } : { apiKeyId: Number(id) });
    },
  });

  private readonly inFlight: InFlight;

  constructor(private readonly settings: Settings) {
    this.inFlight = new InFlight(settings.rateLimitConcurrency.perUser, settings.rateLimitConcurrency.queue);
  }

  /**
   * Takes a request from the principal's buckets: undefined when no limit applies (the admin, or limits of 0),
   * else the decision with the state of each bucket.
   */
  async take(db: Database, principal: Principal): Promise<RateDecision | undefined> {
    if (principal.kind !== 'user') return undefined;
    const via = principal.via ?? 'api';
    const values =
      (await this.limits.fetch(via === 'session' ? `user:${principal.userId}` : `${via}:${principal.keyId}`, { context: db })) ?? NO_VALUES;
    const userLimit = effective(values.userPerSecond, values.userBurst, this.settings.rateLimit.user);
    const keyLimit = effective(values.keyPerSecond, values.keyBurst, this.settings.rateLimit.key);
    const user = userLimit && this.buckets.bucket(`user:${principal.userId}`, userLimit);
    const key = keyLimit && this.buckets.bucket(`${via}:${principal.keyId}`, keyLimit, user);
    const first = key ?? user;
    if (!first) return undefined;
    // the key's bucket checks its user's too, and takes from both or neither
    const allowed = first.tryRemoveTokens(1);
    const policies = [...(key ? [state('key', key)] : []), ...(user ? [state('user', user)] : [])];
    if (allowed) return { allowed, retryAfter: 0, policies };
    const limitedBy = user && user.content < 1 ? 'user' : 'key';
    rateLimited.inc({ limit: limitedBy });
    const retryAfterMs = first.getWaitTime(1);
    return { allowed, retryAfter: Math.max(1, Math.ceil(retryAfterMs / 1000)), retryAfterMs, limitedBy, policies };
  }

  /**
   * The principal's turn to run (RATE_LIMIT_CONCURRENCY, RATE_LIMIT_QUEUE): `start` is called when fewer than
   * the setting's requests of the same user are running in this process, else once one of them ends (first
   * come, first served); undefined when the user's queue is full (the request is to be refused). The returned
   * function ends the request's turn, or takes it out of the queue if it had not started.
   */
  enter(principal: Principal, start: () => void): (() => void) | undefined {
    if (principal.kind !== 'user') {
      start();
      return () => undefined;
    }
    return this.inFlight.enter(principal.userId, start);
  }

  /**
   * Runs `work` in the principal's turn (`enter`), which ends when it settles; RATE_LIMITED (`what` at once) when
   * the user's queue is full. For callers with no client connection to watch while they wait (DNS UPDATE: a
   * message, over UDP or TCP, that is answered once it ran).
   */
  async inTurn<T>(principal: Principal, what: string, work: () => Promise<T>): Promise<T> {
    let go: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (go = resolve));
    const leave = this.enter(principal, () => go());
    if (!leave) throw rateLimitError({ retryAfter: 1, limitedBy: 'user' }, `${what} at once`);
    try {
      await started;
      return await work();
    } finally {
      leave();
    }
  }

  /** the admin changed a user's or a key's limits: this process uses the new values at once */
  forget(): void {
    this.limits.clear();
  }
}

const NO_VALUES: KeyRateLimits = { keyPerSecond: null, keyBurst: null, userPerSecond: null, userBurst: null };

/** the error of a request over its limit (GraphQL RATE_LIMITED; REST and HTTP 429 with Retry-After) */
export function rateLimitError(decision: Pick<RateDecision, 'retryAfter' | 'limitedBy'>, what = 'requests'): DomainError {
  const field = decision.limitedBy === 'key' ? 'apiKey' : decision.limitedBy === 'user' ? 'user' : 'zone';
  const message = `too many ${what} for this ${field === 'apiKey' ? 'key' : field}; try again in ${decision.retryAfter} s`;
  return new DomainError('RATE_LIMITED', message, [{ field, code: 'RATE_LIMITED', message, retryAfter: decision.retryAfter }]);
}

/**
 * The changes one zone takes per second (ZONE_CHANGES_PER_SECOND, ZONE_CHANGES_BURST): every change of a zone's
 * records is one serial step, one journal row, one NOTIFY and IXFR for each secondary, whatever it holds (a
 * record, a change set, an import, a DNS UPDATE), so a change is what is counted. Users' changes only: the
 * admin and the signer are not limited. Per process, as the request limits: one per write engine (index.ts).
 */
export class ZoneChangeLimits {
  private readonly buckets = new Buckets();
  constructor(private readonly limit: RateLimit) {}

  /**
   * Throws RATE_LIMITED when the zone has no change left now, and takes none: it is asked at a change's write,
   * after every refusal of what the change is (the key's policy, the zone's rules), and the change is counted once
   * written (`taken`), so that one refused for what it is costs the zone nothing
   */
  check(zoneId: number): void {
    if (this.limit.perSecond <= 0) return;
    const bucket = this.buckets.bucket(`zone:${zoneId}`, this.limit);
    bucket.drip();
    if (bucket.content >= 1) return;
    rateLimited.inc({ limit: 'zone' });
    throw rateLimitError({ retryAfter: Math.max(1, Math.ceil(bucket.getWaitTime(1) / 1000)) }, 'changes');
  }

  /**
   * Takes one change of the zone for a change written after `check` found one: a zone's changes are decided one
   * at a time in the process (the write engine's zone queue), so none was taken between the two
   */
  taken(zoneId: number): void {
    if (this.limit.perSecond <= 0) return;
    this.buckets.bucket(`zone:${zoneId}`, this.limit).tryRemoveTokens(1);
  }
}

/**
 * The sign-in routes' requests per client address (per process): they need no credential, and each start writes
 * a row (an OIDC flow, a WebAuthn challenge) that waits up to its expiry, so one address could otherwise fill the
 * tables. A person signs in a few times a day; a burst of SIGN_IN_LIMIT.burst, then one a second, leaves any
 * person and any office behind one address room, and a flood of starts a second's worth at a time.
 */
export const SIGN_IN_LIMIT: RateLimit = { perSecond: 1, burst: 30 };
export class SignInLimits {
  private readonly buckets = new Buckets();

  /** takes one sign-in request of the address, or throws RATE_LIMITED (field `address`) */
  take(address: string): void {
    const bucket = this.buckets.bucket(`sign-in:${address}`, SIGN_IN_LIMIT);
    if (bucket.tryRemoveTokens(1)) return;
    rateLimited.inc({ limit: 'sign-in' });
    const retryAfter = Math.max(1, Math.ceil(bucket.getWaitTime(1) / 1000));
    const message = `too many sign-in requests from this address; try again in ${retryAfter} s`;
    throw new DomainError('RATE_LIMITED', message, [{ field: 'address', code: 'RATE_LIMITED', message, retryAfter }]);
  }
}

/** RateLimit-Policy and RateLimit field values (draft-ietf-httpapi-ratelimit-headers-10 §§3–4: structured-field lists) */
export function rateLimitFields(decision: RateDecision): { policy: string; state: string } {
  return {
    policy: decision.policies.map((p) => `"${p.name}";q=${p.quota};w=${p.window}`).join(', '),
    state: decision.policies.map((p) => `"${p.name}";r=${p.remaining};t=${p.reset}`).join(', '),
  };
}
