/**
 * NOTIFY (RFC 1996) to the secondaries, coalesced under bursts and retried until answered.
 *
 * Per zone and server: the first request is sent at once; requests within the next WINDOW_MS are folded
 * into one trailing NOTIFY, sent when the window closes. The SOA is read from PostgreSQL when the NOTIFY
 * leaves, so it always carries the newest serial. A NOTIFY that is not answered with NOERROR is retried with
 * exponential backoff (RFC 1996 §3.6 asks for retries) until MAX_ATTEMPTS; after that the status checker
 * (status.ts) sends a new one whenever a server still lags.
 *
 * The state is per zone and server, so it is kept only while it matters: an entry goes once its NOTIFY is
 * answered (or given up) and its window has closed. A worker of a provider with 100,000 zones holds entries
 * for the zones changing now, not for every zone it ever notified (bench/RESULTS-scale.md).
 *
 * Every NOTIFY but a catalog's leaves at its secondary's pace (notify-pacing.ts: a token bucket that follows what
 * the secondary has been seen to take). One that must wait is queued for that secondary, in order, once per zone
 * and key: a later request for it is folded into the one queued (whose SOA is read when it leaves), so none is
 * lost and none is sent twice. A catalog's NOTIFY is not paced: its members must be known before theirs make sense.
 */
import type { HostPort, Settings } from '../config/settings';
import type { TsigKey } from '../dns/wire/tsig';
import { catalogApexRecords } from '../dns/catalog-zone';
import { withSerial } from '../dns/zone-rules';
import type { Logger } from '../logger';
import type { PropagationRepository } from '../repositories/propagation';
import { sendNotify, serverName, SoaData } from '../dns-client/dns-client';
import { notifies, notifyPaces } from '../metrics';
import type { SecondaryRequests } from '../services/transfers/secondary-requests';
import { NotifyPace } from './notify-pacing';

export const WINDOW_MS = 100;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const MAX_ATTEMPTS = 12;
/** at most one line a server this often about its failed NOTIFYs; the line counts those it stood for */
const FAILURE_LOG_INTERVAL_MS = 60_000;
/** how often each secondary's pace is set again from what it took */
const ADAPT_MS = 1000;
/** a secondary's pace with nothing queued, waited for or sent for this long is forgotten (it starts again when needed) */
const PACE_IDLE_MS = 10 * 60_000;

interface Entry {
  zone: string;
  server: HostPort;
  /** the key its NOTIFY is signed with: TSIG_KEY for the fleet, the customer's own for a zone's extra secondary */
  key: TsigKey | undefined;
  /** a view's secondary (docs/views.md): the NOTIFY carries the serial of the view's zone */
  viewId?: number;
  lastSent: number;
  trailing?: NodeJS.Timeout;
  retry?: NodeJS.Timeout;
  /** bumped by every send: a newer NOTIFY supersedes the retries of an older one */
  generation: number;
  /** sends under way (a request after the window may start one while another waits for its answer) */
  inFlight: number;
  /** removes the entry once its window has closed, unless a request comes first */
  idle?: NodeJS.Timeout;
  /** waiting in its secondary's queue for its turn (the pace), to be sent as this attempt */
  queued?: number;
  /** when a NOTIFY of it was last asked for (`request`): one asked for after a zone was found served tells of more */
  requestedAt: number;
}

/** one secondary's pace and the NOTIFYs waiting for it */
interface Paced {
  server: HostPort;
  pace: NotifyPace;
  /** in the order they were queued */
  queue: Set<Entry>;
  /** the queued ones by zone (one per key) */
  queuedZones: Map<string, Set<Entry>>;
  /** the next turn of the queue */
  timer?: NodeJS.Timeout;
}

function soaData(rdata: string, ttl: number): SoaData {
  const f = rdata.trim().split(/\s+/);
  return {
    mname: f[0],
    rname: f[1],
    serial: Number(f[2]),
    refresh: Number(f[3]),
    retry: Number(f[4]),
    expire: Number(f[5]),
    minimum: Number(f[6]),
    ttl,
  };
}

/** a key's name as a request names it (lower case, no final dot) */
const keyNameOf = (key: TsigKey | undefined) => key?.name.toLowerCase().replace(/\.$/, '');
/** what a pace waits to see asked for: a zone, under the key its NOTIFY was signed with (a view's copy of it) */
const pacedName = (zone: string, keyName: string | undefined) => (keyName ? `${zone}|${keyName}` : zone);

/** one entry per zone, server and key: a customer's server may also be one of the fleet's, with another key */
const entryKeyOf = (zone: string, server: HostPort, key: TsigKey | undefined) => `${zone}|${serverName(server)}|${key?.name ?? ''}`;

export class Notifier {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;
  /** counters, for tests and metrics */
  readonly stats = { sent: 0, answered: 0, failed: 0 };
  /** per server: when its last failure was logged, and the failures since that the log has not told */
  private readonly failureLog = new Map<string, { loggedAt: number; untold: number }>();

  /** each secondary's pace, by `address:port` */
  private readonly paced = new Map<string, Paced>();
  private readonly adapting: NodeJS.Timeout;
  private readonly unlisten: () => void;

  constructor(
    private readonly settings: Settings,
    private readonly repository: PropagationRepository,
    private readonly log: Logger,
    /** what the secondaries ask the primaries for (this process's, the others' heard): the paces follow it (none: the start pace) */
    private readonly requests?: SecondaryRequests,
  ) {
    this.unlisten = requests?.listen((address, zone, keyName) => this.asked(address, zone, keyName)) ?? (() => undefined);
    this.adapting = setInterval(() => this.adapt(), ADAPT_MS);
    this.adapting.unref();
  }

  /**
   * the catalogs of the nameserver sets other than the default's (CATALOG_ZONE), kept by the worker: their
   * SOA is made, not stored (docs/transfers.md, «Nameserver sets»)
   */
  otherCatalogs = new Set<string>();

  /** asks for a NOTIFY of `zone` to every secondary (of the default set), or to `servers` (a set's) */
  notifyAll(zone: string, servers: readonly HostPort[] = this.settings.secondaries): void {
    for (const server of servers) this.request(zone, server);
  }

  /** how many zone-and-server entries are held (bounded by the NOTIFYs under way, not by the zones) */
  get size(): number {
    return this.entries.size;
  }

  /** asks for a NOTIFY of `zone` to `server`, signed with TSIG_KEY or, for a zone's extra secondary, with `key` */
  request(zone: string, server: HostPort, key: TsigKey | undefined = this.settings.tsigKey, viewId?: number): void {
    if (this.stopped) return;
    const entryKey = entryKeyOf(zone, server, key);
    let entry = this.entries.get(entryKey);
    if (!entry) {
      entry = { zone, server, key, viewId, lastSent: 0, generation: 0, inFlight: 0, requestedAt: 0 };
      this.entries.set(entryKey, entry);
    }
    entry.requestedAt = Date.now();
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = undefined;
    if (entry.trailing) return; // already folded into the coming NOTIFY
    if (entry.queued !== undefined) {
      // folded into the one queued, which is a new NOTIFY now (it was maybe a retry of an older one)
      entry.queued = 1;
      return;
    }
    const wait = entry.lastSent + WINDOW_MS - Date.now();
    const e = entry;
    if (wait <= 0) this.dispatch(e, 1);
    else
      e.trailing = setTimeout(() => {
        e.trailing = undefined;
        this.dispatch(e, 1);
      }, wait);
  }

  private isCatalog(zone: string): boolean {
    return zone === this.settings.catalogZone || this.otherCatalogs.has(zone);
  }

  /** a secondary's pace, made at NOTIFY_RATE_PER_SECONDARY when it has none */
  private pacedOf(server: HostPort): Paced {
    const name = serverName(server);
    let paced = this.paced.get(name);
    if (!paced) {
      paced = { server, pace: new NotifyPace(this.settings.notifyRatePerSecondary), queue: new Set(), queuedZones: new Map() };
      this.paced.set(name, paced);
    }
    return paced;
  }

  /** sends the NOTIFY now if its secondary's pace allows, else queues it for its turn (a catalog's is not paced) */
  private dispatch(entry: Entry, attempt: number): void {
    if (this.stopped) return;
    if (this.isCatalog(entry.zone)) return void this.send(entry, attempt);
    if (entry.queued !== undefined) {
      entry.queued = Math.min(entry.queued, attempt);
      return;
    }
    const paced = this.pacedOf(entry.server);
    if (!paced.queue.size && paced.pace.take()) return void this.send(entry, attempt);
    entry.queued = attempt;
    paced.queue.add(entry);
    const ofZone = paced.queuedZones.get(entry.zone);
    if (ofZone) ofZone.add(entry);
    else paced.queuedZones.set(entry.zone, new Set([entry]));
    this.nextTurn(paced);
  }

  /** takes a queued NOTIFY off its secondary's queue (sent, or no longer needed) */
  private unqueue(paced: Paced, entry: Entry): void {
    paced.queue.delete(entry);
    const ofZone = paced.queuedZones.get(entry.zone);
    ofZone?.delete(entry);
    if (!ofZone?.size) paced.queuedZones.delete(entry.zone);
    entry.queued = undefined;
  }

  /** sends the queued NOTIFYs of one secondary as its pace allows, in order */
  private nextTurn(paced: Paced): void {
    if (paced.timer || this.stopped) return;
    paced.timer = setTimeout(() => {
      paced.timer = undefined;
      for (const entry of paced.queue) {
        if (!paced.pace.take()) break;
        const attempt = entry.queued ?? 1;
        this.unqueue(paced, entry);
        void this.send(entry, attempt);
      }
      if (paced.queue.size) this.nextTurn(paced);
    }, paced.pace.waitMs());
  }

  /**
   * A secondary at `address` asked for `zone`: the NOTIFY of it, if any, was taken; one still queued for it is no
   * longer needed, and goes. It was queued after the change it tells of had committed, so the secondary asked after
   * that commit, and its SOA query reads that serial or a later one (RFC 1996 §4.7): it is taking the change.
   */
  private asked(address: string, zone: string, keyName: string | undefined): void {
    for (const paced of this.paced.values()) {
      if (paced.server.host !== address) continue;
      paced.pace.asked(pacedName(zone, keyName));
      // the copy asked for is the one of that key: a BIND's other views hold theirs apart
      for (const entry of paced.queuedZones.get(zone) ?? [])
        if (keyNameOf(entry.key) === keyName) {
          this.unqueue(paced, entry);
          this.releaseWhenIdle(entry);
        }
    }
  }

  /**
   * `server` was found serving `zone` at the serial it had at `since` (a status check, claimed then): a NOTIFY of it
   * still queued there, and asked for before then, is no longer needed, and goes. A check that finds a zone behind
   * queues a re-NOTIFY; a secondary that serves a transfer only at its next load of its zones (NSD) is found behind
   * after it asked, and such re-NOTIFYs, sent, are ones it does not act on: while the pace waits for it to ask, they
   * held the queue at the slowest pace in front of the zones it did lack. One asked for since `since` tells of a
   * later change, and stays.
   */
  served(zone: string, server: HostPort, since: number, key: TsigKey | undefined = this.settings.tsigKey): void {
    const entry = this.entries.get(entryKeyOf(zone, server, key));
    const paced = this.paced.get(serverName(server));
    if (!entry || !paced || entry.queued === undefined || entry.requestedAt >= since) return;
    this.unqueue(paced, entry);
    this.releaseWhenIdle(entry);
  }

  /** each secondary's pace from what it took; the paces' metrics; the idle ones forgotten */
  private adapt(): void {
    const observing = this.requests?.observing ?? false;
    const now = Date.now();
    for (const [name, paced] of this.paced) {
      paced.pace.adapt(paced.queue.size, observing);
      if (!paced.queue.size && !paced.pace.outstanding && now - paced.pace.lastActive > PACE_IDLE_MS) {
        this.paced.delete(name);
        notifyPaces.forget(name);
      } else notifyPaces.set(name, paced.pace.rate, paced.queue.size);
    }
  }

  /** a secondary's pace (NOTIFYs a second) and how many wait for it; undefined when it has none (for tests) */
  paceOf(server: HostPort): { rate: number; queued: number; outstanding: number } | undefined {
    const paced = this.paced.get(serverName(server));
    return paced && { rate: paced.pace.rate, queued: paced.queue.size, outstanding: paced.pace.outstanding };
  }

  private async currentSoa(zone: string, viewId?: number): Promise<SoaData | undefined> {
    if (viewId !== undefined && !this.isCatalog(zone)) {
      const soa = await this.repository.viewZoneSoa(zone, viewId);
      return soa ? soaData(withSerial(soa.rdata, soa.serial), soa.ttl) : undefined;
    }
    if (this.isCatalog(zone)) {
      const soa = catalogApexRecords(await this.repository.catalogSerial(zone))[0];
      return soaData(soa.rdata, soa.ttl);
    }
    const soa = await this.repository.zoneSoa(zone);
    return soa ? soaData(withSerial(soa.rdata, soa.serial), soa.ttl) : undefined;
  }

  /**
   * Forgets an entry with nothing left to do, once its window has closed (a request within the window is
   * still folded into a trailing NOTIFY, so the entry must live that long).
   */
  private releaseWhenIdle(entry: Entry): void {
    if (this.stopped || entry.trailing || entry.retry || entry.inFlight || entry.idle || entry.queued !== undefined) return;
    const key = entryKeyOf(entry.zone, entry.server, entry.key);
    entry.idle = setTimeout(
      () => {
        entry.idle = undefined;
        if (!entry.trailing && !entry.retry && !entry.inFlight && entry.queued === undefined && this.entries.get(key) === entry)
          this.entries.delete(key);
      },
      Math.max(0, entry.lastSent + WINDOW_MS - Date.now()),
    );
    entry.idle.unref();
  }

  private async send(entry: Entry, attempt: number): Promise<void> {
    entry.inFlight += 1;
    try {
      await this.attempt(entry, attempt);
    } finally {
      entry.inFlight -= 1;
      this.releaseWhenIdle(entry);
    }
  }

  private async attempt(entry: Entry, attempt: number): Promise<void> {
    if (this.stopped) return;
    if (attempt === 1) {
      entry.generation += 1;
      entry.lastSent = Date.now();
      if (entry.retry) clearTimeout(entry.retry);
      entry.retry = undefined;
    }
    const generation = entry.generation;
    let soa: SoaData | undefined;
    try {
      soa = await this.currentSoa(entry.zone, entry.viewId);
    } catch (error) {
      this.log.warn({ err: error, zone: entry.zone }, 'NOTIFY: cannot read the SOA');
    }
    if (!soa) return; // the zone is gone: the catalog tells the secondaries
    this.stats.sent += 1;
    const result = await sendNotify(entry.server, entry.zone, soa, entry.key);
    // what the pace waits to see asked for: a NOTIFY taken, or one not answered at all (a secondary that drowns
    // answers nothing); one answered with an error (a zone the secondary does not hold yet) leads to no request
    if ((result.ok || !result.answered) && !this.isCatalog(entry.zone))
      this.paced.get(serverName(entry.server))?.pace.sent(pacedName(entry.zone, keyNameOf(entry.key)));
    if (result.ok) {
      this.stats.answered += 1;
      notifies.inc({ server: serverName(entry.server), outcome: 'answered' });
      this.log.debug({ zone: entry.zone, server: serverName(entry.server), serial: soa.serial }, 'NOTIFY answered');
      return;
    }
    this.stats.failed += 1;
    notifies.inc({ server: serverName(entry.server), outcome: 'failed' });
    const givingUp = attempt >= MAX_ATTEMPTS;
    this.logFailure(entry, result.reason, attempt, givingUp);
    if (this.stopped || generation !== entry.generation || givingUp) return;
    const delay = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** (attempt - 1));
    entry.retry = setTimeout(() => {
      entry.retry = undefined;
      if (generation === entry.generation) this.dispatch(entry, attempt + 1);
      else this.releaseWhenIdle(entry);
    }, delay);
  }

  /**
   * Says which server failed a NOTIFY and why (the metric counts them, the log names them), once a
   * FAILURE_LOG_INTERVAL_MS per server: a secondary that is down for an hour under a stream of changes gets a
   * line a minute, each with the number of failures it stands for, not a line per zone and retry.
   */
  private logFailure(entry: Entry, reason: string, attempt: number, givingUp: boolean): void {
    const server = serverName(entry.server);
    const now = Date.now();
    const state = this.failureLog.get(server);
    if (state && now - state.loggedAt < FAILURE_LOG_INTERVAL_MS) {
      state.untold += 1;
      return;
    }
    const failures = (state?.untold ?? 0) + 1;
    this.failureLog.set(server, { loggedAt: now, untold: 0 });
    this.log.warn(
      { zone: entry.zone, server, reason, attempt, failures },
      givingUp
        ? 'NOTIFY not answered, giving up for now (the status checker sends another while the server lags)'
        : 'NOTIFY failed, retrying',
    );
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.adapting);
    this.unlisten();
    for (const entry of this.entries.values()) {
      if (entry.trailing) clearTimeout(entry.trailing);
      if (entry.retry) clearTimeout(entry.retry);
      if (entry.idle) clearTimeout(entry.idle);
    }
    this.entries.clear();
    for (const [name, paced] of this.paced) {
      if (paced.timer) clearTimeout(paced.timer);
      notifyPaces.forget(name);
    }
    this.paced.clear();
  }
}
