import type { ApolloServerPlugin } from '@apollo/server';
import type { Principal } from '../auth/principal';
import type { Database } from '../db/pool';
import { CONSISTENCY_TOKEN_HEADER, ReadReplicas } from '../db/read-replicas';
import { logger } from '../logger';
import type { Services } from '../services';
import type { GraphQLContext } from './context';

/**
 * The Consistency-Token of what a request just wrote: the primary's WAL position after its commits. A write made
 * with a person's session keeps it on the session too (SessionsService.noteWrite), so that every later read with
 * the session waits for it, in any process, without the browser sending it; a key's write only answers it.
 */
export function tokenAfterWrite(
  replicas: ReadReplicas,
  services: Services,
  primary: Database,
  principal: Principal | undefined,
): Promise<string> {
  return principal?.via === 'session' && principal.keyId > 0
    ? services.sessions.noteWrite(primary, principal.keyId)
    : replicas.positionAfterWrite();
}

/** the token a read waits for besides the one it sent: its session's latest write's */
export const sessionTokenOf = (principal: Principal | undefined): string | undefined =>
  principal?.via === 'session' ? principal.person?.consistencyToken : undefined;

/**
 * GraphQL's share of reading from standbys (docs/deployment.md, «Reading from standbys»), decided by the
 * operation once it is known: a query reads, and may lag, so its services read from the database
 * db/read-replicas.ts chooses (a standby; one that replayed the Consistency-Token sent back, or its session's;
 * or the primary), while what a read writes (the audit of a refusal) stays on the primary (`primary`). A
 * mutation runs on the primary, and its answer carries the primary's WAL position after its commits, in the
 * Consistency-Token header and in `extensions.consistencyToken`. Subscriptions are not HTTP operations and read
 * the primary's feed.
 */
export function standbyReads(replicas: ReadReplicas, services: Services): ApolloServerPlugin<GraphQLContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ operation, request, contextValue }) {
          // a GET's database was chosen with its ETag (http/read-routing.ts, `primary` set then)
          if (operation?.operation !== 'query' || contextValue.primary) return;
          contextValue.primary = contextValue.db;
          contextValue.db = await replicas.readDatabase(
            request.http?.headers.get(CONSISTENCY_TOKEN_HEADER) ?? undefined,
            sessionTokenOf(contextValue.principal),
          );
        },
        async willSendResponse({ operation, response, contextValue }) {
          if (operation?.operation !== 'mutation') return;
          let token: string;
          try {
            token = await tokenAfterWrite(replicas, services, contextValue.db, contextValue.principal);
          } catch (error) {
            logger.warn({ err: error }, "a mutation's consistency token could not be read");
            return;
          }
          response.http.headers.set(CONSISTENCY_TOKEN_HEADER.toLowerCase(), token);
          if (response.body.kind === 'single') {
            const result = response.body.singleResult;
            result.extensions = { ...result.extensions, consistencyToken: token };
          }
        },
      };
    },
  };
}
