import type { Database } from '../db/pool';
import type { Principal } from '../auth/principal';
import type { Settings } from '../config/settings';
import type { AllowedTtls } from '../dns/ttl';

/** What every service method receives first: the process's Database and who is calling. */
export interface RequestContext {
  /** every statement of the request goes through it (src/db/pool.ts): one pool per process */
  db: Database;
  principal: Principal;
  /**
   * What a service accepted but wants the caller to see (e.g. NAME_NOT_HOSTNAME for a label outside the
   * host-name rule, RFC 1123 §2.1): GraphQL answers them as `extensions.warnings`. Present when the caller
   * collects them.
   */
  warnings?: { field: string; code: string; message: string }[];
  /**
   * The request came through the REST layer's documented paths (docs/decisions.md §1): its TTLs are RESTKnot's
   * contract's, ALLOWED_TTLS (allowedTtlsOf). Absent elsewhere.
   */
  restContract?: boolean;
}

/**
 * The TTL policy a request is held to: ALLOWED_TTLS on the REST layer (RESTKnot's preserved values, its
 * documented contract), ALLOWED_TTLS_BEYOND_REST on every other edge (the PowerDNS API, GraphQL, the console and
 * the CLI, DNS UPDATE) and in the service's own writes: by default any TTL of RFC 2181 §8, so that what a
 * client wrote is what it reads back. A TTL a policy does not allow is refused naming the setting, never changed.
 */
export function allowedTtlsOf(ctx: RequestContext, settings: Pick<Settings, 'allowedTtls' | 'allowedTtlsBeyondRest'>): AllowedTtls {
  return ctx.restContract ? settings.allowedTtls : settings.allowedTtlsBeyondRest;
}
