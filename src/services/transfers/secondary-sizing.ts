/**
 * A secondary's limits sized for the zones it holds (docs/scale.md, «Every secondary in step»): each software's
 * defaults are made for a few hundred zones, and the printed configuration (secondary-config.ts) carries these
 * values, each with its reason, so that a change to every zone reaches the secondary within TAKE_ALL_WITHIN_SECONDS.
 *
 * The reasons, from each software's documentation of its Debian 12 version:
 * - BIND 9.18: every refresh, one a NOTIFY asks for included, waits for one limiter of SOA queries
 *   (`serial-query-rate`, default 20 a second); a zone's transfer then waits for a slot of `transfers-in` (default
 *   10) and of `transfers-per-ns` (default 2, per primary: every zone here comes from one primary).
 * - Knot DNS 3.2: a zone's refresh (its SOA query and its transfer) runs in a background worker
 *   (`background-workers`, default one per core, at most 10), waiting on the network more than on a core.
 * - PowerDNS 4.7: transfers run in `retrieval-threads` (default 2); the members a catalog adds are fetched at the
 *   communicator's next cycle (`xfr-cycle-interval`, default 60 s), which also reads every secondary zone's
 *   refresh state from the backend.
 * - NSD 4.6: transfers share `xfrd-tcp-max` connections (default 128), up to `xfrd-tcp-pipeline` (default 128)
 *   on each. The primary answers a connection's requests one after the other (RFC 7766 §6.2.1.1 allows it), so
 *   transfers run side by side over several connections, not over one.
 */

/** a change to every zone is taken within this: half of the ten minutes a fleet is given, room for a restart */
export const TAKE_ALL_WITHIN_SECONDS = 300;
/** the REFRESH of the SOA a zone is made with (DomainsService.defaultSoa) and of a catalog (dns/catalog-zone.ts) */
const SOA_REFRESH_SECONDS = 3600;
/**
 * One refresh from this primary (an SOA query, then a transfer over a new TCP connection), as a secondary waits for
 * it: BIND logged a median of 23 ms and a 90th percentile of 55 ms for its transfers, ten at once, on a loaded host
 * (bench/FINDINGS.md, «Secondaries at a hoster's scale»); about the 90th percentile.
 */
const REFRESH_SECONDS = 0.05;
/** one transfer written to a PowerDNS backend (a SQL transaction per zone), rounded up as REFRESH_SECONDS */
const POWERDNS_RETRIEVAL_SECONDS = 0.1;
/** the fewest zones a configuration is sized for: below it, the values are the floors */
const SMALLEST_SIZE = 1000;

export interface SecondarySizing {
  /** the zones the secondary holds now */
  zones: number;
  /** what it is sized for: twice the zones now, rounded up to 1, 2 or 5 × 10^n (room to grow before printing again) */
  sizedFor: number;
  /** refreshes a second for a change to every zone within TAKE_ALL_WITHIN_SECONDS, and the REFRESH timers' own */
  refreshesPerSecond: number;
  /** in flight at once to keep up that rate, each refresh taking REFRESH_SECONDS */
  refreshesAtOnce: number;
  bind: { serialQueryRate: number; transfersIn: number; transfersPerNs: number };
  knot: { backgroundWorkers: number };
  powerdns: { retrievalThreads: number; xfrCycleInterval: number };
  nsd: { xfrdTcpMax: number; xfrdTcpPipeline: number };
}

/** the smallest 1, 2 or 5 × 10^n at or above `n` */
export function roundUpNice(n: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(1, n)));
  for (const step of [1, 2, 5, 10]) if (step * power >= n) return step * power;
  return 10 * power;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const ceilTo = (value: number, step: number) => Math.ceil(value / step) * step;

/** the limits of a secondary holding `zones` zones, each software's (see the file's comment for why) */
export function secondarySizing(zones: number): SecondarySizing {
  const sizedFor = roundUpNice(Math.max(SMALLEST_SIZE, 2 * zones));
  const refreshesPerSecond = Math.ceil(sizedFor / TAKE_ALL_WITHIN_SECONDS + sizedFor / SOA_REFRESH_SECONDS);
  const refreshesAtOnce = Math.ceil(refreshesPerSecond * REFRESH_SECONDS);
  // BIND's transfers are counted per primary and in all; every zone here comes from one primary
  const transfers = Math.max(10, refreshesAtOnce);
  return {
    zones,
    sizedFor,
    refreshesPerSecond,
    refreshesAtOnce,
    bind: { serialQueryRate: Math.max(20, ceilTo(refreshesPerSecond, 10)), transfersIn: transfers, transfersPerNs: transfers },
    // never below Knot's own ceiling of its default (10): its refreshes wait on the network
    knot: { backgroundWorkers: clamp(refreshesAtOnce, 10, 64) },
    powerdns: {
      retrievalThreads: clamp(Math.ceil(refreshesPerSecond * POWERDNS_RETRIEVAL_SECONDS), 2, 32),
      // a cycle reads every secondary zone's refresh state: a second of cycle per 10,000 zones, 10 to 60 s
      xfrCycleInterval: clamp(Math.ceil(sizedFor / 10_000), 10, 60),
    },
    // a connection's transfers are answered in turn: side by side over as many connections, one on each
    nsd: { xfrdTcpMax: Math.max(128, transfers), xfrdTcpPipeline: 1 },
  };
}

/** `12,345`: the numbers of a configuration's comments */
export const grouped = (n: number) => n.toLocaleString('en-US');
