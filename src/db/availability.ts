import { GraphQLError } from 'graphql';
import { ERROR_CATALOGUE } from '../errors/catalogue';
import { logger } from '../logger';

/**
 * Whether PostgreSQL can be reached, as the process's Database sees it (src/db/pool.ts: its pool, whatever
 * role uses it, and its LISTEN connection). A lost or refused connection
 * is an outage, not a bug: requests answer 503 DATABASE_UNAVAILABLE, the primary SERVFAIL, and the log gets
 * one line when the database goes away and one when it is back, not one per request.
 */

/** SQLSTATE classes and codes that mean "the server is not there for us now" (PostgreSQL, Appendix A). */
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: a fast or smart stop terminated the session
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up, shutting down, in recovery
  '53300', // too_many_connections
  // read_only_sql_transaction: a write on a standby, or on a primary made read-only (a switchover under
  // pg_auto_failover, a just-promoted standby for a moment): the primary is elsewhere, the connection is
  // dropped and the next one looks for it (db/database-hosts.ts); what was in flight answers 503, nothing half done
  '25006',
]);
const UNAVAILABLE_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT',
]);
/** what pg (and knex, on the migrations' connection at start) say when a connection ends or cannot be had (they set no code) */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /Connection ended unexpectedly/i,
  /Client has encountered a connection error/i,
  /Client was closed and is not queryable/i,
  /Knex: Timeout acquiring a connection/i,
  /timeout exceeded when trying to connect/i,
  /Cannot use a pool after calling end/i,
  /the database system is (shutting down|starting up|in recovery mode)/i,
];

/** true when `error` (or an error it wraps) says the database is unreachable rather than that a statement failed */
export function isDatabaseUnavailable(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08') || UNAVAILABLE_ERRNOS.has(code))) return true;
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    const { errors } = current as { errors?: unknown };
    // AggregateError: a host name with several addresses, all refused
    if (Array.isArray(errors) && errors.some((inner) => isDatabaseUnavailable(inner))) return true;
    // graphql-js wraps what a resolver threw in `originalError`, and a thrown value it does not take for an
    // Error (one from another realm, or a plain object) in a NonErrorThrown with `thrownValue`
    const wrapper = current as { cause?: unknown; originalError?: unknown; thrownValue?: unknown };
    current = wrapper.cause ?? wrapper.originalError ?? wrapper.thrownValue;
  }
  return false;
}

let reachable = true;
let probe: (() => Promise<unknown>) | undefined;
let probeTimer: NodeJS.Timeout | undefined;
/** while the database is away, how often it is tried again (the service must serve within 1 s of its return) */
const PROBE_INTERVAL_MS = 250;

/**
 * Sets how to tell that the database is back (a `select 1` on the service's own pool). While it is away the
 * probe runs every PROBE_INTERVAL_MS, so the "back" line comes when it is back, not at the next request.
 */
export function watchDatabase(check: (() => Promise<unknown>) | undefined): void {
  probe = check;
  if (!check && probeTimer) {
    clearTimeout(probeTimer);
    probeTimer = undefined;
  }
}

function probeLater(): void {
  if (!probe || probeTimer) return;
  probeTimer = setTimeout(() => {
    const check = probe;
    if (!check) {
      probeTimer = undefined;
      return;
    }
    check().then(
      () => {
        probeTimer = undefined;
        noteDatabaseReachable();
      },
      () => {
        probeTimer = undefined;
        if (!reachable) probeLater();
      },
    );
  }, PROBE_INTERVAL_MS);
  probeTimer.unref();
}

let stopping = false;

/**
 * The service is stopping: its pools close and the embedded PostgreSQL stops on purpose, so what still fails
 * to reach them (a request finishing, a duty's last tick) is no outage, and the log says nothing of one. A
 * start clears it (tests start and stop services one after another in one process).
 */
export function noteStopping(value = true): void {
  stopping = value;
}

/**
 * Failures met on a standby's read pool (db/read-replicas.ts): the request that met one answers 503 as for any
 * outage, but the service's database is not away, and the standby's own watcher says what it is.
 */
const standbyFailures = new WeakSet<object>();

export function markStandbyFailure(error: unknown): void {
  if (error && typeof error === 'object') standbyFailures.add(error);
}

/** records a failure; logs once when the database goes from reachable to unreachable. Returns whether it was an outage. */
export function noteDatabaseFailure(error: unknown, where: string): boolean {
  if (!isDatabaseUnavailable(error)) return false;
  if (stopping || (!!error && typeof error === 'object' && standbyFailures.has(error))) return true;
  if (reachable) {
    reachable = false;
    logger.warn(`database unreachable (${where}): ${(error as Error)?.message ?? String(error)}; answering 503 until it is back`);
  }
  probeLater();
  return true;
}

/** records a success; logs once when the database is back */
export function noteDatabaseReachable(): void {
  if (!reachable) {
    reachable = true;
    logger.info('database reachable again');
  }
}

export function databaseReachable(): boolean {
  return reachable;
}

/** seconds a client should wait before retrying while the database is away (the Retry-After header) */
export const RETRY_AFTER_SECONDS = 2;

/** The GraphQL error of an operation that could not reach the database: HTTP 503 with Retry-After (Apollo reads `http`). */
export function databaseUnavailableError(): GraphQLError {
  return new GraphQLError(ERROR_CATALOGUE.DATABASE_UNAVAILABLE.message, {
    extensions: {
      code: 'DATABASE_UNAVAILABLE',
      details: [],
      http: { status: 503, headers: new Map([['retry-after', String(RETRY_AFTER_SECONDS)]]) },
    },
  });
}
