import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics, served open at /metrics. */
export const metrics = new Registry();
collectDefaultMetrics({ register: metrics });

export const httpRequestDuration = new Histogram({
  name: 'zonekeeper_http_request_duration_seconds',
  help: 'HTTP request duration by route and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  registers: [metrics],
});

export const propagationEvents = new Counter({
  name: 'zonekeeper_propagation_events_total',
  help: 'Propagation worker events by kind',
  labelNames: ['kind'] as const,
  registers: [metrics],
});

export const graphqlExecutions = new Counter({
  name: 'zonekeeper_graphql_executions_total',
  help: 'GraphQL operations executed, by engine: compiled by graphql-jit, or interpreted by graphql-js',
  labelNames: ['engine'] as const,
  registers: [metrics],
});

/**
 * The propagation worker's outbox drains and the journal rows they published, by what woke the drain: a
 * writer's notification after its commit (db/journal-signal.ts), the worker's one-second poll (the fallback),
 * its start, or its LISTEN connection coming back. Rows published by polls while writes go on mean the
 * notifications do not arrive. The tests read these to tell a drain woken by a notification from a poll.
 */
export const outboxDrains = new Counter({
  name: 'zonekeeper_outbox_drains_total',
  help: 'Outbox drains of the propagation worker, by what woke them (notification, poll, start, listen_restored)',
  labelNames: ['woken_by'] as const,
  registers: [metrics],
});

export const outboxRowsPublished = new Counter({
  name: 'zonekeeper_outbox_rows_published_total',
  help: 'Journal rows published by the propagation worker, by what woke the drain that claimed them (notification, poll, start, listen_restored)',
  labelNames: ['woken_by'] as const,
  registers: [metrics],
});

/** requests and changes refused by a rate limit (src/services/rate-limits.ts), by the bucket that was empty */
export const rateLimited = new Counter({
  name: 'zonekeeper_rate_limited_total',
  help: 'Requests (HTTP and DNS UPDATE) and zone changes refused by a rate limit, by limit (user, key, zone, sign-in)',
  labelNames: ['limit'] as const,
  registers: [metrics],
});

/** writes refused by a user's quota, by quota (zones, records_per_zone) */
export const quotaRefusals = new Counter({
  name: 'zonekeeper_quota_refusals_total',
  help: "Writes refused by a user's quota, by quota (zones, records_per_zone)",
  labelNames: ['quota'] as const,
  registers: [metrics],
});

/** DNS UPDATE (RFC 2136) answers by RCODE name and a reason from a fixed set (see UpdateOutcome in the primary) */
export const dnsUpdates = new Counter({
  name: 'zonekeeper_dns_updates_total',
  help: 'DNS UPDATE messages answered, by RCODE and reason (applied, address, unsigned, tsig, not_authoritative, not_in_zone, prerequisite, refused_by_rules, malformed, not_served, database, rate_limited, over_quota, protected, steered)',
  labelNames: ['rcode', 'reason'] as const,
  registers: [metrics],
});

/** DNS queries answered (transfers included), by question type (a known mnemonic, else OTHER) and RCODE name */
export const dnsQueries = new Counter({
  name: 'zonekeeper_dns_queries_total',
  help: 'DNS queries answered by the primary, by question type and RCODE',
  labelNames: ['qtype', 'rcode'] as const,
  registers: [metrics],
});

/** zone transfers served, by kind and by the client's address (the secondaries TRANSFER_ALLOW lets in) */
export const dnsTransfers = new Counter({
  name: 'zonekeeper_dns_transfers_total',
  help: 'Zone transfers served, by kind (AXFR, IXFR, IXFR answered with the SOA alone: IXFR_UPTODATE) and client address',
  labelNames: ['kind', 'client'] as const,
  registers: [metrics],
});

/** TSIG failures (RFC 8945 §5.2), by error */
export const tsigFailures = new Counter({
  name: 'zonekeeper_dns_tsig_failures_total',
  help: 'Requests whose TSIG failed, by error (BADKEY, BADSIG, BADTIME, BADTRUNC, FORMERR)',
  labelNames: ['error'] as const,
  registers: [metrics],
});

/** NOTIFY messages sent by the propagation worker, by secondary and outcome (answered, failed: no answer or an error) */
export const notifies = new Counter({
  name: 'zonekeeper_notify_total',
  help: 'NOTIFY messages sent to secondaries, by server and outcome (answered, failed)',
  labelNames: ['server', 'outcome'] as const,
  registers: [metrics],
});

/**
 * Each secondary's NOTIFY pace (worker/notify-pacing.ts), set by the worker once a second: the NOTIFYs a second it is
 * sent now, and how many wait here for their turn. A secondary's series go when its pace is forgotten.
 */
const notifyPace = new Gauge({
  name: 'zonekeeper_notify_pace',
  help: 'NOTIFYs a second a secondary is sent now: NOTIFY_RATE_PER_SECONDARY at first, then what it was seen to take',
  labelNames: ['server'] as const,
  registers: [metrics],
});
const notifyQueued = new Gauge({
  name: 'zonekeeper_notify_queued',
  help: 'NOTIFYs waiting for their turn at a secondary’s pace (one per zone: later changes fold into it)',
  labelNames: ['server'] as const,
  registers: [metrics],
});
export const notifyPaces = {
  set(server: string, rate: number, queued: number): void {
    notifyPace.set({ server }, Math.round(rate * 10) / 10);
    notifyQueued.set({ server }, queued);
  },
  forget(server: string): void {
    notifyPace.remove({ server });
    notifyQueued.remove({ server });
  },
};

/**
 * How far each secondary is behind, read from the status rows when /metrics is scraped (by any API process:
 * the rows are shared): zones not in sync, the largest serial difference among them, and the age of the
 * oldest change a secondary has not got yet. One series per configured secondary, whatever the number of zones.
 */
interface SecondaryLag {
  server: string;
  zonesBehind: number;
  serialsBehind: number;
  secondsBehind: number;
}

const lagGauge = (name: string, help: string) => new Gauge({ name, help, labelNames: ['server'] as const, registers: [metrics] });
const zonesBehind = lagGauge('zonekeeper_secondary_zones_behind', 'Zones a secondary does not serve at their current serial');
const serialsBehind = lagGauge(
  'zonekeeper_secondary_lag_serials',
  'The largest difference between a zone serial and the serial a secondary serves (0 when in sync)',
);
const secondsBehind = lagGauge(
  'zonekeeper_secondary_lag_seconds',
  'Age of the oldest change a secondary does not serve yet (0 when in sync)',
);

/**
 * the worker's source of the lag figures; the gauges read it on each scrape, the three from one reading. A reading
 * under way is shared, and one done is used again for 500 ms or four times as long as it took, whichever is longer:
 * with 90,000 zones behind, a reading took 2.4 s of the database's time, and scrapes a few seconds apart (a test's,
 * or several Prometheus servers') kept a core busy with readings side by side while the secondaries caught up
 */
export function observeSecondaryLag(read: () => Promise<SecondaryLag[]>): () => void {
  let last: { figures: Promise<SecondaryLag[]>; freshUntil: number } | undefined;
  const figures = () => {
    if (!last || Date.now() > last.freshUntil) {
      const began = Date.now();
      const reading: { figures: Promise<SecondaryLag[]>; freshUntil: number } = { figures: read(), freshUntil: Infinity };
      const done = () => (reading.freshUntil = Date.now() + Math.max(500, 4 * (Date.now() - began)));
      // a failed reading is not used again: the next scrape reads anew
      reading.figures.then(done, () => (reading.freshUntil = 0));
      last = reading;
    }
    return last.figures;
  };
  const install = (gauge: Gauge<'server'>, pick: (lag: SecondaryLag) => number) => {
    (gauge as unknown as { collect?: () => Promise<void> }).collect = async () => {
      gauge.reset();
      for (const lag of await figures()) gauge.set({ server: lag.server }, pick(lag));
    };
  };
  install(zonesBehind, (lag) => lag.zonesBehind);
  install(serialsBehind, (lag) => lag.serialsBehind);
  install(secondsBehind, (lag) => lag.secondsBehind);
  return () => {
    for (const gauge of [zonesBehind, serialsBehind, secondsBehind]) {
      (gauge as unknown as { collect?: () => void }).collect = undefined;
      gauge.reset();
    }
  };
}

/**
 * Zone health (docs/health.md), read from the shared rows when /metrics is scraped (at most once per 5 s: two
 * aggregates over every zone): zones by state (unknown: not checked yet), findings by code and severity, and
 * whether the checker reaches the root (its own state: absent until a round asked the root).
 */
const zonesByHealth = new Gauge({
  name: 'zonekeeper_zones_health',
  help: 'Zones by health state (ok, warning, critical, unknown: not checked yet)',
  labelNames: ['state'] as const,
  registers: [metrics],
});
const healthFindings = new Gauge({
  name: 'zonekeeper_health_findings',
  help: 'Health findings of the last checks, by code and severity',
  labelNames: ['code', 'severity'] as const,
  registers: [metrics],
});

const healthRootReachable = new Gauge({
  name: 'zonekeeper_health_root_reachable',
  help: 'Whether the health checker reaches the root servers (HEALTH_ROOT_HINTS): 1 yes, 0 no (zones are then not checked from the root)',
  registers: [metrics],
});

export function observeZoneHealth(
  read: () => Promise<{ states: Map<string, number>; findings: Map<string, number>; rootReachable?: boolean } | undefined>,
): void {
  let last: { at: number; figures: ReturnType<typeof read> } | undefined;
  const figures = () => {
    if (!last || Date.now() - last.at > 5000) last = { at: Date.now(), figures: read() };
    return last.figures;
  };
  (zonesByHealth as unknown as { collect?: () => Promise<void> }).collect = async () => {
    const read = await figures();
    zonesByHealth.reset();
    if (!read) return;
    for (const state of ['ok', 'warning', 'critical', 'unknown']) zonesByHealth.set({ state }, read.states.get(state) ?? 0);
  };
  (healthRootReachable as unknown as { collect?: () => Promise<void> }).collect = async () => {
    const read = await figures();
    healthRootReachable.reset();
    if (read?.rootReachable !== undefined) healthRootReachable.set(read.rootReachable ? 1 : 0);
  };
  (healthFindings as unknown as { collect?: () => Promise<void> }).collect = async () => {
    const read = await figures();
    healthFindings.reset();
    if (!read) return;
    for (const [key, count] of read.findings) {
      const [code, severity] = key.split(' ');
      healthFindings.set({ code, severity }, count);
    }
  };
}

/** steering's probes (docs/steering.md), by their outcome (passed, failed) */
export const steeringProbes = new Counter({
  name: 'zonekeeper_steering_probes_total',
  help: 'Probes of steering health checks, by outcome (passed, failed)',
  labelNames: ['outcome'] as const,
  registers: [metrics],
});

/** 1 while this process's prober is in a panic freeze: more than half of all checks fail, nothing is taken out */
export const steeringPanic = new Gauge({
  name: 'zonekeeper_steering_panic',
  help: "1 while the steering prober's vantage is in a panic freeze (more than half of all checks, at least STEERING_PANIC_MIN_CHECKS across three networks, failing within one interval: nothing is taken out while it decides alone; the prober's own network is the likelier fault)",
  registers: [metrics],
});

/** 1 while this process's vantage is isolated (its probes not counted: docs/steering.md, «Vantages and the quorum») */
export const steeringVantageIsolated = new Gauge({
  name: 'zonekeeper_steering_vantage_isolated',
  help: 'Whether the steering vantage is isolated: 1 while its probes are not counted (it fails what the other vantages pass, or its canaries fail)',
  labelNames: ['vantage'] as const,
  registers: [metrics],
});

/** the checks held where they are, by why (panic: the panic freeze; no-sound-vantage: every vantage that probed it is isolated) */
const steeringChecksHeld = new Gauge({
  name: 'zonekeeper_steering_checks_held',
  help: 'Steering checks whose state is held although their probes would move it, by why (panic: the panic freeze holds a failing check up; no-sound-vantage: every vantage that probed it is isolated)',
  labelNames: ['reason'] as const,
  registers: [metrics],
});

/** the held checks' counts, read from the database at each scrape (at most every 5 s) */
export function observeSteeringHeld(read: () => Promise<{ held: string; count: number }[] | undefined>): void {
  let last: { at: number; figures: ReturnType<typeof read> } | undefined;
  (steeringChecksHeld as unknown as { collect?: () => Promise<void> }).collect = async () => {
    if (!last || Date.now() - last.at > 5000) last = { at: Date.now(), figures: read() };
    const figures = await last.figures;
    steeringChecksHeld.reset();
    for (const reason of ['panic', 'no-sound-vantage'])
      steeringChecksHeld.set({ reason }, figures?.find((f) => f.held === reason)?.count ?? 0);
  };
}

/** served changes written by steering (one per zone change, however many RRsets it changed) */
export const steeringChanges = new Counter({
  name: 'zonekeeper_steering_changes_total',
  help: 'Zone changes written by steering (the served records of steered RRsets)',
  registers: [metrics],
});

/**
 * Reads that may lag (db/read-replicas.ts): those a standby served, and those the primary served instead, by
 * why (no_standby: none reachable and within REPLICA_MAX_LAG_MS; token_wait: none replayed a Consistency-Token
 * within REPLICA_WAIT_MS; token_invalid: the token was no WAL position; standby_failed: the standby chosen could not
 * answer, gone under the read or cancelling it in a conflict with its replay).
 */
export const standbyReads = new Counter({
  name: 'zonekeeper_replica_reads_total',
  help: 'Reads that may lag served by a standby (DATABASE_REPLICA_URL)',
  registers: [metrics],
});
export const replicaFallbackReads = new Counter({
  name: 'zonekeeper_replica_fallback_reads_total',
  help: 'Reads that may lag served by the primary instead of a standby, by reason (no_standby, token_wait, token_invalid, standby_failed)',
  labelNames: ['reason'] as const,
  registers: [metrics],
});

/**
 * How long a read that sent a Consistency-Token back (or whose session keeps one) waited for a standby to replay
 * it: what reading your own writes from a standby adds to a read, whether a standby then served it or, after
 * REPLICA_WAIT_MS, the primary. A token replayed already counts as 0.
 */
export const replicaTokenWait = new Histogram({
  name: 'zonekeeper_replica_token_wait_seconds',
  help: 'Time a read with a Consistency-Token waited for a standby to replay it',
  buckets: [0.001, 0.005, 0.025, 0.05, 0.1, 0.15, 0.2, 0.215, 0.23, 0.25, 0.3, 0.5, 1, 2.5],
  registers: [metrics],
});

/** each standby's replay lag and whether it serves reads, as its last check found it (one series per standby) */
const standbyLag = new Gauge({
  name: 'zonekeeper_replica_lag_seconds',
  help: "A standby's replay lag behind the primary, at most (absent while it cannot be measured)",
  labelNames: ['standby'] as const,
  registers: [metrics],
});
const standbyServing = new Gauge({
  name: 'zonekeeper_replica_serving',
  help: 'Whether a standby serves reads: 1 yes, 0 no (unreachable, further behind than REPLICA_MAX_LAG_MS, not in recovery, or the primary itself)',
  labelNames: ['standby'] as const,
  registers: [metrics],
});

/** the standbys' source of those gauges, read on each scrape; returns the stop */
export function observeStandbys(read: () => { standby: string; state: string; lagSeconds: number | null }[]): () => void {
  (standbyLag as unknown as { collect?: () => void }).collect = () => {
    standbyLag.reset();
    for (const { standby, lagSeconds } of read()) if (lagSeconds !== null) standbyLag.set({ standby }, lagSeconds);
  };
  (standbyServing as unknown as { collect?: () => void }).collect = () => {
    standbyServing.reset();
    for (const { standby, state } of read()) standbyServing.set({ standby }, state === 'streaming' ? 1 : 0);
  };
  return () => {
    for (const gauge of [standbyLag, standbyServing]) {
      (gauge as unknown as { collect?: () => void }).collect = undefined;
      gauge.reset();
    }
  };
}

/** the query analytics' collector (docs/analytics.md): dnstap frames by what they were to the counts */
export const analyticsFrames = new Counter({
  name: 'zonekeeper_analytics_frames_total',
  help: 'dnstap frames received by the collector, by kind (answer: counted; other: a query or another message type; unmatched: a name in none of the zones; malformed)',
  labelNames: ['kind'] as const,
  registers: [metrics],
});

/** answers counted but not stored: the database away longer than the collector may hold them */
export const analyticsDropped = new Counter({
  name: 'zonekeeper_analytics_dropped_total',
  help: 'Answers the collector counted and could not store (the database away past the rows it holds); told as dropped in the coverage',
  registers: [metrics],
});

export const analyticsConnections = new Gauge({
  name: 'zonekeeper_analytics_connections',
  help: 'dnstap senders connected to the collector',
  registers: [metrics],
});

/** how long ago the collector's counts were last stored: its lag behind the secondaries */
export const analyticsFlushLag = new Gauge({
  name: 'zonekeeper_analytics_flush_lag_seconds',
  help: 'Seconds since the collector last stored its counts',
  registers: [metrics],
});

export const analyticsConnectionErrors = new Counter({
  name: 'zonekeeper_analytics_connection_errors_total',
  help: 'dnstap connections the collector closed for a stream out of step (framing, content type)',
  registers: [metrics],
});
