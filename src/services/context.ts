import type { EntityManager } from '@mikro-orm/postgresql';
import type { Principal } from '../auth/principal';

/** What every service method receives first: the request's own EntityManager and who is calling. */
export interface RequestContext {
  em: EntityManager;
  principal: Principal;
}
