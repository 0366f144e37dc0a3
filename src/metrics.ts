import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

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

/** DNS UPDATE (RFC 2136) answers by RCODE name and a reason from a fixed set (see UpdateOutcome in the primary) */
export const dnsUpdates = new Counter({
  name: 'zonekeeper_dns_updates_total',
  help: 'DNS UPDATE messages answered, by RCODE and reason (applied, address, unsigned, tsig, not_authoritative, not_in_zone, prerequisite, refused_by_rules, malformed, not_served, database)',
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
