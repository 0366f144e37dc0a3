/**
 * The query analytics' settings (docs/analytics.md): where the collector listens for dnstap, the bounds of what
 * it counts, how long each resolution is kept, the window of the "in use" guard, and where a collector alone
 * serves its metrics. Read with the other settings (settings.ts), their problems told with theirs.
 */
import { isIP } from 'node:net';
import path from 'node:path';

export interface AnalyticsSettings {
  /**
   * ANALYTICS_DNSTAP_LISTEN: where the collector (ROLES=collector) takes dnstap over Frame Streams: a unix
   * socket's path (absolute) or address:port; undefined: no collector
   */
  dnstapListen: { path: string } | { host: string; port: number } | undefined;
  /** ANALYTICS_NAMES_PER_MINUTE: distinct owners counted per zone and minute; the rest under one "other" row */
  namesPerMinute: number;
  /** ANALYTICS_FLUSH_MS: how often the collector writes its counts (one statement a table) */
  flushMs: number;
  /** ANALYTICS_MINUTES_KEEP_HOURS, ANALYTICS_HOURS_KEEP_DAYS, ANALYTICS_DAYS_KEEP_DAYS: each resolution's retention */
  minutesKeepHours: number;
  hoursKeepDays: number;
  daysKeepDays: number;
  /** ANALYTICS_IN_USE_DAYS: an RRset queried this recently (or within 2 × its TTL) is in use to a plan */
  inUseDays: number;
  /**
   * METRICS_PORT: for a process without the api role (a collector alone; a worker alone too), the port of a small
   * HTTP server answering GET /metrics (METRICS_ALLOW as on the API's) and GET /health on HOST; undefined (the
   * default): none. Refused with the api role (settings.ts), whose /metrics is on PORT: one process scraped at two
   * places is one too many.
   */
  metricsPort: number | undefined;
}

type Helpers = {
  read: (name: string) => string | undefined;
  integer: (name: string, fallback: number, min: number, max: number) => number;
  problems: string[];
};

export function loadAnalyticsSettings({ read, integer, problems }: Helpers): AnalyticsSettings {
  const dnstapListen = ((): AnalyticsSettings['dnstapListen'] => {
    const raw = read('ANALYTICS_DNSTAP_LISTEN');
    if (raw === undefined) return undefined;
    if (raw.startsWith('/')) {
      // a unix socket's path is at most 107 octets (sun_path, less its terminating NUL)
      if (Buffer.byteLength(raw) > 107)
        problems.push(`ANALYTICS_DNSTAP_LISTEN: a unix socket's path is at most 107 octets (got ${Buffer.byteLength(raw)})`);
      return { path: path.normalize(raw) };
    }
    const match = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(raw);
    const port = match ? Number(match[2]) : -1;
    if (!match || !isIP(match[1]) || port < 0 || port > 65535) {
      problems.push(`ANALYTICS_DNSTAP_LISTEN must be a unix socket's absolute path or address:port (got "${raw}")`);
      return undefined;
    }
    return { host: match[1], port };
  })();
  const minutesKeepHours = integer('ANALYTICS_MINUTES_KEEP_HOURS', 48, 4, 24 * 366);
  const hoursKeepDays = integer('ANALYTICS_HOURS_KEEP_DAYS', 35, 3, 3660);
  const daysKeepDays = integer('ANALYTICS_DAYS_KEEP_DAYS', 400, 3, 36_600);
  // a coarser resolution is rolled up from the finer one: it must outlive it, or reads would find neither
  if (hoursKeepDays * 24 < minutesKeepHours) problems.push('ANALYTICS_HOURS_KEEP_DAYS must cover ANALYTICS_MINUTES_KEEP_HOURS');
  if (daysKeepDays < hoursKeepDays) problems.push('ANALYTICS_DAYS_KEEP_DAYS must be at least ANALYTICS_HOURS_KEEP_DAYS');
  return {
    dnstapListen,
    namesPerMinute: integer('ANALYTICS_NAMES_PER_MINUTE', 1000, 1, 1_000_000),
    flushMs: integer('ANALYTICS_FLUSH_MS', 5000, 100, 60_000),
    minutesKeepHours,
    hoursKeepDays,
    daysKeepDays,
    inUseDays: integer('ANALYTICS_IN_USE_DAYS', 7, 1, 366),
    metricsPort: read('METRICS_PORT') === undefined ? undefined : integer('METRICS_PORT', 0, 0, 65535),
  };
}
