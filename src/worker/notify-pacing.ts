/**
 * The pace of the NOTIFYs to one secondary (RFC 1996): a token bucket whose rate follows what the secondary has
 * been seen to take, so that a change to 100,000 zones does not send it 100,000 NOTIFYs at once.
 *
 * A secondary takes a NOTIFY by asking for the zone (RFC 1996 §3.11, §4.7: an SOA query, then a transfer). What it
 * asks of a primary is heard (services/transfers/secondary-requests.ts: this process's primary directly, the other
 * processes' through PostgreSQL, secondary-requests-relay.ts): a zone NOTIFYed and then asked for is a zone taken.
 * BIND passes every refresh through one limiter (`serial-query-rate`, 20 a second by default), so it takes 20 a
 * second however many it is sent; Knot takes them as fast as its background workers go.
 *
 * Once a second (`adapt`), from the zones newly NOTIFYed and the zones taken (both smoothed over a few seconds; a
 * zone NOTIFYed again before it was asked for counts once, so that re-NOTIFYs of a zone a secondary has queued do
 * not read as NOTIFYs it dropped): when it took less than nine tenths of what it was sent and more than
 * BACKLOG_SECONDS of the pace waits to be asked for, it is behind, and the pace becomes what it took (a fifth more,
 * to find out when it takes more); when it took nine tenths of the pace or more while NOTIFYs queue here, the pace
 * rises by half (the last second's take, not the smoothed one: a pace just raised is taken at once by a secondary that
 * keeps up). So the pace never rises far above what the secondary was seen to take. It starts at
 * NOTIFY_RATE_PER_SECONDARY, and stays there while nothing it asks is seen (no primary heard: none in this process
 * and the relay's LISTEN connection away; or the secondary asks from another address than the one it is NOTIFYed
 * at). A paced NOTIFY is queued, never dropped (notifier.ts).
 */

/** when more NOTIFYs than this many seconds of the pace wait to be asked for, the secondary is behind */
const BACKLOG_SECONDS = 2;
/** a secondary that takes this share of the zones it is sent (or of the pace) keeps up (a few it had are never asked for) */
const KEEPING_UP = 0.9;
/** a NOTIFY not followed by a request within this is forgotten: the secondary had the serial, or folded it into another */
export const AWAIT_MS = 30_000;
/** the slowest pace: a secondary seen to take nothing still gets its NOTIFYs, a few a second */
export const MIN_RATE = 5;
/** the fastest pace, whatever a secondary takes */
export const MAX_RATE = 20_000;
/** the tokens a bucket holds: a tenth of a second of its pace (a burst no larger than that) */
const BURST_SECONDS = 0.1;
/** paced at what it took, and this much more, so that a secondary that takes more is seen to */
const PROBE = 1.2;
/** how much the pace rises in a second while the secondary keeps up and NOTIFYs wait */
const RISE = 1.5;

export class NotifyPace {
  /** NOTIFYs a second now */
  rate: number;
  private tokens: number;
  private refilledAt: number;
  /** zones NOTIFYed and not asked for yet, each with when its NOTIFY left (in that order) */
  private readonly awaiting = new Map<string, number>();
  /** zones asked for after their NOTIFY since the last `adapt` */
  private taken = 0;
  /** zones NOTIFYed since the last `adapt` that were not waited for already */
  private fresh = 0;
  /** zones taken, and zones newly NOTIFYed, a second: smoothed over the last few seconds (half the weight on the last) */
  private takes = 0;
  private sends = 0;
  private adaptedAt: number;
  /** whether this secondary was ever seen to ask for a zone it was NOTIFYed of: only then is its pace learnt */
  private seen = false;
  /** when a NOTIFY last left or a zone was last asked for (a pace idle long enough is forgotten) */
  lastActive: number;

  constructor(
    /** NOTIFY_RATE_PER_SECONDARY */
    readonly startRate: number,
    private readonly clock: () => number = Date.now,
  ) {
    this.rate = startRate;
    this.tokens = this.capacity();
    this.refilledAt = this.adaptedAt = this.lastActive = clock();
  }

  private capacity(): number {
    return Math.max(1, this.rate * BURST_SECONDS);
  }

  private refill(now: number): void {
    this.tokens = Math.min(this.capacity(), this.tokens + ((now - this.refilledAt) / 1000) * this.rate);
    this.refilledAt = now;
  }

  /** takes a token for one NOTIFY; false when the pace says wait (`waitMs`) */
  take(): boolean {
    this.refill(this.clock());
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** how long until the next token */
  waitMs(): number {
    this.refill(this.clock());
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.rate) * 1000);
  }

  /** a NOTIFY of `zone` left for this secondary */
  sent(zone: string): void {
    const now = this.clock();
    if (!this.awaiting.delete(zone)) this.fresh += 1;
    this.awaiting.set(zone, now);
    this.lastActive = now;
  }

  /** the secondary asked for `zone` (its SOA, an IXFR or an AXFR) */
  asked(zone: string): void {
    if (!this.awaiting.delete(zone)) return;
    this.taken += 1;
    this.seen = true;
    this.lastActive = this.clock();
  }

  /** NOTIFYed and not asked for yet (within AWAIT_MS) */
  get outstanding(): number {
    return this.awaiting.size;
  }

  /**
   * Once a second: the pace from what the secondary took since the last call, `queued` NOTIFYs waiting here for
   * their turn, `observing` whether what secondaries ask is seen in this process at all.
   */
  adapt(queued: number, observing: boolean): void {
    const now = this.clock();
    for (const [zone, at] of this.awaiting) {
      if (now - at <= AWAIT_MS) break;
      this.awaiting.delete(zone);
    }
    const seconds = Math.max(0.001, (now - this.adaptedAt) / 1000);
    const tookLast = this.taken / seconds;
    this.takes = (this.takes + tookLast) / 2;
    this.sends = (this.sends + this.fresh / seconds) / 2;
    this.taken = this.fresh = 0;
    this.adaptedAt = now;
    if (!observing || !this.seen) return;
    this.refill(now);
    if (this.takes < this.sends * KEEPING_UP && this.awaiting.size > this.rate * BACKLOG_SECONDS)
      this.rate = Math.min(MAX_RATE, Math.max(MIN_RATE, this.takes * PROBE));
    // faster only for one seen to take nearly the whole pace (not one that asks for zones on its own, from its catalog)
    else if (queued > 0 && tookLast >= this.rate * KEEPING_UP) this.rate = Math.min(MAX_RATE, this.rate * RISE);
    this.tokens = Math.min(this.tokens, this.capacity());
  }
}
