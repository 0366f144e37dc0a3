/**
 * What the secondaries ask this process's DNS primary for after a NOTIFY: an SOA query, an IXFR or an AXFR of a
 * zone, by the address it came from. The notifier paces its NOTIFYs to each secondary by what that secondary has
 * been seen to take (worker/notify-pacing.ts): a zone NOTIFYed and then asked for is a zone taken.
 *
 * Held in the process (services/index.ts), told by the primary (`note`) and heard by the notifier (`listen`): it
 * sees only the requests that reach this process's primary. Where the `dns` role runs in another process,
 * `observing` stays false and the notifier keeps its configured pace (NOTIFY_RATE_PER_SECONDARY).
 */
/**
 * `keyName`: the TSIG key the request was signed with (none: unsigned). One server may hold a zone under several
 * keys (BIND's views: one per key), each its own copy to refresh.
 */
export type SecondaryRequestListener = (address: string, zone: string, keyName: string | undefined) => void;

/** an IPv4 address as a dual-stack socket names it (`::ffff:192.0.2.1`) is the IPv4 address a setting names */
export const plainAddress = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1').toLowerCase();

export class SecondaryRequests {
  private readonly listeners = new Set<SecondaryRequestListener>();
  /** the primaries of this process that tell what they are asked (each start says so, each stop unsays it) */
  private primaries = 0;

  /** whether what the secondaries ask is seen here at all: a DNS primary runs in this process */
  get observing(): boolean {
    return this.primaries > 0;
  }

  /** a primary starts telling what it is asked; the function it is handed ends that */
  primaryStarted(): () => void {
    this.primaries += 1;
    let stopped = false;
    return () => {
      if (!stopped) this.primaries -= 1;
      stopped = true;
    };
  }

  /** a secondary at `address` asked for the SOA, an IXFR or an AXFR of `zone` (no final dot), signed with `keyName` */
  note(address: string, zone: string, keyName?: string): void {
    if (!this.listeners.size) return;
    const from = plainAddress(address);
    const name = zone.toLowerCase();
    const key = keyName?.toLowerCase().replace(/\.$/, '');
    for (const listener of this.listeners) listener(from, name, key);
  }

  /** hears every request noted from now on; the function returned stops it */
  listen(listener: SecondaryRequestListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
