import type { Database } from '../db/pool';
import type { Principal } from '../auth/principal';

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
}
