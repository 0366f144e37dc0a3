import type { MikroORM } from '@mikro-orm/postgresql';
import { GraphQLError } from 'graphql';
import type { Principal } from '../auth/principal';
import { databaseUnavailableError, noteDatabaseFailure } from '../db/availability';
import { ERROR_CATALOGUE } from '../errors/catalogue';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { createLoaders, Loaders } from './loaders';

export interface GraphQLContext extends RequestContext {
  services: Services;
  loaders: Loaders;
  /** a subscription's connection (WebSocket): closes it with a close code, e.g. for a subscriber too slow */
  dropConnection?: (code: number, reason: string) => void;
}

/**
 * Builds the context of one GraphQL operation, for /graphql and for the REST layer alike: authenticates the
 * X-API-Key (every operation needs one, contract-decisions §2) and forks a request-scoped EntityManager.
 */
export async function buildContext(orm: MikroORM, services: Services, apiKey: string | undefined): Promise<GraphQLContext> {
  const em = orm.em.fork();
  let principal: Principal | null;
  try {
    principal = await services.apiKeys.authenticate(em, apiKey);
  } catch (error) {
    if (noteDatabaseFailure(error, 'authentication')) throw databaseUnavailableError();
    throw error;
  }
  if (!principal) {
    throw new GraphQLError(ERROR_CATALOGUE.UNAUTHENTICATED.message, {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
    });
  }
  return { em, principal, services, loaders: createLoaders(em), warnings: [] };
}
