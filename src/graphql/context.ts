import { GraphQLError } from 'graphql';
import type { Principal } from '../auth/principal';
import { databaseUnavailableError, noteDatabaseFailure } from '../db/availability';
import type { Database } from '../db/pool';
import { DomainError, ERROR_CATALOGUE } from '../errors/catalogue';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { createLoaders, Loaders } from './loaders';

export interface GraphQLContext extends RequestContext {
  services: Services;
  loaders: Loaders;
  /**
   * Nested lists come whole (no MAX_PAGE_SIZE per parent): set for the REST layer's own documents only, whose
   * answer is a zone with all its records (docs/decisions.md §1) and which no client shapes or costs
   * (`serviceOperations`). A client's nested list returns at most what it is costed as (`nestedFirst`).
   */
  wholeNestedLists?: boolean;
  /**
   * takes one of the process's turns for heavy requests (src/http/heavy-requests.ts) for this HTTP request, held
   * until its answer is sent; false when too many wait; a promise of either only while it waits
   * (HeavyRequests.take). Absent outside HTTP (WebSocket, the REST layer's runs)
   */
  heavyTurn?: () => boolean | Promise<boolean>;
  /**
   * the answer's body is written by answerBody (src/graphql/fast-path/answer-body.ts: /graphql over HTTP), so a plain record
   * list may stay packed until then. Absent elsewhere (WebSocket, the REST layer's runs): its plain objects
   */
  answerBodyWritten?: boolean;
  /**
   * the primary, when `db` is a standby serving a query (graphql/standby-reads.ts): where what a read writes
   * goes (the audit of a refusal); absent when `db` is the primary
   */
  primary?: Database;
  /** a subscription's connection (WebSocket): closes it with a close code, e.g. for a subscriber too slow */
  dropConnection?: (code: number, reason: string) => void;
}

/**
 * Builds the context of one GraphQL operation, for /graphql and for the REST layer alike: authenticates the
 * X-API-Key (every operation needs one, docs/decisions.md §2); see contextFor.
 */
/** a person's session token (the cookie's), where a WebSocket carries one instead of an API key */
export interface SessionCredential {
  session: string;
}

export async function buildContext(
  db: Database,
  services: Services,
  apiKey: string | SessionCredential | undefined,
  address?: string,
): Promise<GraphQLContext> {
  let principal: Principal | null;
  try {
    principal =
      typeof apiKey === 'object'
        ? await services.sessions.authenticate(db, apiKey.session, address)
        : await services.apiKeys.authenticate(db, apiKey, address);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'FORBIDDEN_BY_POLICY')
      throw new GraphQLError(error.message, {
        extensions: { code: error.code, details: error.details, http: { status: 403 } },
      });
    if (noteDatabaseFailure(error, 'authentication')) throw databaseUnavailableError();
    throw error;
  }
  if (!principal) {
    throw new GraphQLError(ERROR_CATALOGUE.UNAUTHENTICATED.message, {
      extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
    });
  }
  return contextFor(db, services, principal);
}

/**
 * The context of one operation for an authenticated principal. Its loaders (DataLoader batches: their caches
 * live as long as the operation) are made when a resolver first asks for them: a REST write uses none.
 *
 * A class, with `loaders` on its prototype, and not an object literal with a getter: a getter written in a
 * literal per operation, closing over the operation, kept everything it reaches (the loaders and their rows)
 * alive through young-generation collections until the next full one (measured: bench/FINDINGS.md,
 * «What kept every request's objects alive through young-generation collections»).
 */
class OperationContext implements GraphQLContext {
  readonly warnings: NonNullable<GraphQLContext['warnings']> = [];
  private madeLoaders?: Loaders;

  primary?: Database;

  constructor(
    /** the primary, or a standby once a query's operation chose one (graphql/standby-reads.ts) */
    public db: Database,
    readonly services: Services,
    readonly principal: Principal,
  ) {}

  get loaders(): Loaders {
    return (this.madeLoaders ??= createLoaders(this, this.services));
  }
}

export function contextFor(db: Database, services: Services, principal: Principal): GraphQLContext {
  return new OperationContext(db, services, principal);
}
