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
 */
import type { HostPort, Settings } from '../config/settings';
import type { TsigKey } from '../dns/wire/tsig';
import { catalogApexRecords } from '../dns/catalog-zone';
import { withSerial } from '../dns/zone-rules';
import type { Logger } from '../logger';
import type { PropagationRepository } from '../repositories/propagation';
import { sendNotify, serverName, SoaData } from '../dns-client/dns-client';
import { notifies } from '../metrics';

export const WINDOW_MS = 100;
const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 30_000;
const MAX_ATTEMPTS = 12;
/** at most one line a server this often about its failed NOTIFYs; the line counts those it stood for */
const FAILURE_LOG_INTERVAL_MS = 60_000;

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

/** one entry per zone, server and key: a customer's server may also be one of the fleet's, with another key */
const entryKeyOf = (zone: string, server: HostPort, key: TsigKey | undefined) => `${zone}|${serverName(server)}|${key?.name ?? ''}`;

export class Notifier {
  private readonly entries = new Map<string, Entry>();
  private stopped = false;
  /** counters, for tests and metrics */
  readonly stats = { sent: 0, answered: 0, failed: 0 };
  /** per server: when its last failure was logged, and the failures since that the log has not told */
  private readonly failureLog = new Map<string, { loggedAt: number; untold: number }>();

  constructor(
    private readonly settings: Settings,
    private readonly repository: PropagationRepository,
    private readonly log: Logger,
  ) {}

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
      entry = { zone, server, key, viewId, lastSent: 0, generation: 0, inFlight: 0 };
      this.entries.set(entryKey, entry);
    }
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = undefined;
    if (entry.trailing) return; // already folded into the coming NOTIFY
    const wait = entry.lastSent + WINDOW_MS - Date.now();
    const e = entry;
    if (wait <= 0) void this.send(e, 1);
    else
      e.trailing = setTimeout(() => {
        e.trailing = undefined;
        void this.send(e, 1);
      }, wait);
  }

  private async currentSoa(zone: string, viewId?: number): Promise<SoaData | undefined> {
    if (viewId !== undefined && zone !== this.settings.catalogZone && !this.otherCatalogs.has(zone)) {
      const soa = await this.repository.viewZoneSoa(zone, viewId);
      return soa ? soaData(withSerial(soa.rdata, soa.serial), soa.ttl) : undefined;
    }
    if (zone === this.settings.catalogZone || this.otherCatalogs.has(zone)) {
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
    if (this.stopped || entry.trailing || entry.retry || entry.inFlight || entry.idle) return;
    const key = entryKeyOf(entry.zone, entry.server, entry.key);
    entry.idle = setTimeout(
      () => {
        entry.idle = undefined;
        if (!entry.trailing && !entry.retry && !entry.inFlight && this.entries.get(key) === entry) this.entries.delete(key);
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
      if (generation === entry.generation) void this.send(entry, attempt + 1);
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
    for (const entry of this.entries.values()) {
      if (entry.trailing) clearTimeout(entry.trailing);
      if (entry.retry) clearTimeout(entry.retry);
      if (entry.idle) clearTimeout(entry.idle);
    }
    this.entries.clear();
  }
}
