import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal';

/** What every service method receives first: the request's own EntityManager and who is calling. */
export interface RequestContext {
  em: EntityManager;
  principal: Principal;
  /**
   * What a service accepted but wants the caller to see (e.g. NAME_NOT_HOSTNAME for a label outside the
   * host-name rule, RFC 1123 §2.1): GraphQL answers them as `extensions.warnings`. Present when the caller
   * collects them.
   */
  warnings?: { field: string; code: string; message: string }[];
}
