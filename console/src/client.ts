import { Cache, cacheExchange } from '@urql/exchange-graphcache';
import { createClient as createWsClient } from 'graphql-ws';
import { Client, CombinedError, fetchExchange, mapExchange, subscriptionExchange } from 'urql';

/** graphql-ws's close code for a key that is wrong or was revoked (src/http/subscriptions.ts) */
const CLOSE_FORBIDDEN = 4403;

/** Is this error the service refusing the key (HTTP 401, or UNAUTHENTICATED in the answer)? */
export function isAuthFailure(error: CombinedError | undefined): boolean {
  if (!error) return false;
  const status = (error.response as Response | undefined)?.status;
  return status === 401 || error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
}

function invalidateZoneLists(cache: Cache): void {
  for (const field of cache.inspectFields('Query')) {
    if (field.fieldName === 'domains') cache.invalidate('Query', field.fieldKey);
  }
}

/**
 * One urql client per signed-in key: the normalised cache (graphcache: a Domain or Record fetched by two screens
 * is one entry, so a serial read after a write shows everywhere), HTTP for queries and mutations, graphql-ws on
 * the same /graphql for subscriptions. The key goes in X-API-Key and in graphql-ws's connection_init.
 */
export function createConsoleClient(key: string, onAuthFailure: () => void): { client: Client; dispose: () => void } {
  const ws = createWsClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: { 'X-API-Key': key },
    lazy: true,
    retryAttempts: 20,
    shouldRetry: (event) => (event as CloseEvent | undefined)?.code !== CLOSE_FORBIDDEN,
    on: {
      closed: (event) => {
        if ((event as CloseEvent | undefined)?.code === CLOSE_FORBIDDEN) onAuthFailure();
      },
    },
  });
  // objects without an id are values inside their parent (connections, page info, diffs, propagation)
  const embedded = () => null;
  const client = new Client({
    url: '/graphql',
    preferGetMethod: false,
    fetchOptions: () => ({ headers: { 'X-API-Key': key } }),
    exchanges: [
      mapExchange({
        onError(error) {
          if (isAuthFailure(error)) onAuthFailure();
        },
      }),
      cacheExchange({
        keys: {
          RecordTypeInfo: (data) => (data.type as string) ?? null,
          RecordTypeField: embedded,
          PageInfo: embedded,
          DomainConnection: embedded,
          RecordConnection: embedded,
          ZoneChangeConnection: embedded,
          ChangedRecord: embedded,
          ChangeAuthor: embedded,
          ZoneChangesResult: embedded,
          ZoneDiff: embedded,
          Propagation: embedded,
          ServerPropagation: embedded,
          PropagationChangedEvent: embedded,
          ZoneChangedEvent: embedded,
          // one per zone: what enableDnssec, rollDnssecKey and the others answer replaces what domain.dnssec read
          Dnssec: (data) => (data.zone as string) ?? null,
          UserConnection: embedded,
        },
        updates: {
          Mutation: {
            deleteRecord(_result, args, cache) {
              cache.invalidate({ __typename: 'Record', id: args.id as string });
            },
            // a zone made or deleted changes every list of zones (and their totals): they are asked again
            createDomain(_result, _args, cache) {
              invalidateZoneLists(cache);
            },
            deleteDomain(_result, args, cache) {
              invalidateZoneLists(cache);
              cache.invalidate('Query', 'domain', { name: args.zone as string });
            },
          },
        },
      }),
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({ unsubscribe: ws.subscribe({ ...request, query: request.query ?? '' }, sink) }),
        }),
      }),
    ],
  });
  return { client, dispose: () => void ws.dispose() };
}
