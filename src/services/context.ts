import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal';

/** What every service method receives first: the request's own EntityManager and who is calling. */
export interface RequestContext {
  em: EntityManager;
  /**
   * The process's EntityManager, not the request's fork: the zone-change path runs plain SQL on a connection
   * borrowed from the ORM's pool (`withSqlConnection`) and needs no identity map. Reaching the pool through
   * `em` forked an EntityManager per write, ~2.7% of a REST write's CPU (bench/FINDINGS.md, session 8).
   */
  rootEm: EntityManager;
  principal: Principal;
  /**
   * What a service accepted but wants the caller to see (e.g. NAME_NOT_HOSTNAME for a label outside the
   * host-name rule, RFC 1123 §2.1): GraphQL answers them as `extensions.warnings`. Present when the caller
   * collects them.
   */
  warnings?: { field: string; code: string; message: string }[];
}
