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

/** DNS UPDATE (RFC 2136) answers by RCODE name */
export const dnsUpdates = new Counter({
  name: 'zonekeeper_dns_updates_total',
  help: 'DNS UPDATE messages answered, by RCODE',
  labelNames: ['rcode'] as const,
  registers: [metrics],
});
