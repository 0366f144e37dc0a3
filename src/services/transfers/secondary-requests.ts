/**
 * What the secondaries ask this process's DNS primary for after a NOTIFY: an SOA query, an IXFR or an AXFR of a
 * zone, by the address it came from. The notifier paces its NOTIFYs to each secondary by what that secondary has
 * been seen to take (worker/notify-pacing.ts): a zone NOTIFYed and then asked for is a zone taken.
 *
 * Held in the process (services/index.ts), told by the primary (`note`) and heard by the notifier (`listen`). The
 * primaries of other processes are heard through PostgreSQL (secondary-requests-relay.ts): a process with the `dns`
 * role sends what its primary is asked (`forward`), one with the `worker` role hears it (`heard`), so that a worker
 * without a primary of its own sees what the secondaries ask (`observing`), and one with a primary sees what they
 * ask the others.
 */
import { randomUUID } from 'node:crypto';

/**
 * `keyName`: the TSIG key the request was signed with (none: unsigned). One server may hold a zone under several
 * keys (BIND's views: one per key), each its own copy to refresh.
 */
export type SecondaryRequestListener = (address: string, zone: string, keyName: string | undefined) => void;

/** an IPv4 address as a dual-stack socket names it (`::ffff:192.0.2.1`) is the IPv4 address a setting names */
export const plainAddress = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1').toLowerCase();

export class SecondaryRequests {
  /** this process in the relay's notifications: the ones it hears back are its own primary's, heard here already */
  readonly id = randomUUID();
  private readonly listeners = new Set<SecondaryRequestListener>();
  /** what this process's primary is asked, sent on to the other processes (secondary-requests-relay.ts) */
  private readonly forwarders = new Set<SecondaryRequestListener>();
  /** the primaries of this process that tell what they are asked (each start says so, each stop unsays it) */
  private primaries = 0;
  /** whether the other processes' primaries are heard now (the relay's LISTEN connection listens), one a relay */
  private readonly others = new Set<() => boolean>();

  /** whether what the secondaries ask is seen here at all: a DNS primary runs in this process, or others' are heard */
  get observing(): boolean {
    if (this.primaries > 0) return true;
    for (const hearing of this.others) if (hearing()) return true;
    return false;
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

  /** the other processes' primaries are heard while `hearing` says so; the function returned ends that */
  hearOthers(hearing: () => boolean): () => void {
    this.others.add(hearing);
    return () => this.others.delete(hearing);
  }

  /** a secondary at `address` asked for the SOA, an IXFR or an AXFR of `zone` (no final dot), signed with `keyName` */
  note(address: string, zone: string, keyName?: string): void {
    if (!this.listeners.size && !this.forwarders.size) return;
    const [from, name, key] = normalised(address, zone, keyName);
    for (const listener of this.listeners) listener(from, name, key);
    for (const forwarder of this.forwarders) forwarder(from, name, key);
  }

  /** the same, asked of another process's primary (told by the relay): for this process's listeners alone */
  heard(address: string, zone: string, keyName?: string): void {
    if (!this.listeners.size) return;
    const [from, name, key] = normalised(address, zone, keyName);
    for (const listener of this.listeners) listener(from, name, key);
  }

  /** hears every request noted or heard from now on; the function returned stops it */
  listen(listener: SecondaryRequestListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** hears every request this process's own primary is asked from now on (not those heard); the function returned stops it */
  forward(forwarder: SecondaryRequestListener): () => void {
    this.forwarders.add(forwarder);
    return () => this.forwarders.delete(forwarder);
  }
}

/** a request's address as a setting names it, its zone and key name in lower case without a final dot */
function normalised(address: string, zone: string, keyName: string | undefined): [string, string, string | undefined] {
  return [plainAddress(address), zone.toLowerCase(), keyName?.toLowerCase().replace(/\.$/, '')];
}
