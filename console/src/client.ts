import { Cache, cacheExchange } from '@urql/exchange-graphcache';
import { retryExchange } from '@urql/exchange-retry';
import { createClient as createWsClient } from 'graphql-ws';
import { Client, CombinedError, fetchExchange, mapExchange, subscriptionExchange } from 'urql';
import { CONSISTENCY_TOKEN, ConsistencyToken } from './consistency-token';

/** graphql-ws's close code for a key that is wrong or was revoked (src/http/subscriptions.ts) */
const CLOSE_FORBIDDEN = 4403;

/** Is this error the service refusing the key (HTTP 401, or UNAUTHENTICATED in the answer)? */
export function isAuthFailure(error: CombinedError | undefined): boolean {
  if (!error) return false;
  const status = (error.response as Response | undefined)?.status;
  return status === 401 || error.graphQLErrors.some((e) => e.extensions?.code === 'UNAUTHENTICATED');
}

/**
 * Is this a read the service could not answer for now: a 503 (its database away or its pool busy past 4 s,
 * docs/deployment.md) or no answer at all? Such a read is asked again; a write never is (the service may have
 * committed it before the answer was lost), and a 4xx is the caller's to fix.
 */
function worthAskingAgain(error: CombinedError, kind: string): boolean {
  if (kind !== 'query') return false;
  const status = (error.response as Response | undefined)?.status;
  return status === 503 || (status === undefined && error.networkError !== undefined);
}

function invalidateZoneLists(cache: Cache): void {
  for (const field of cache.inspectFields('Query')) {
    if (field.fieldName === 'domains') cache.invalidate('Query', field.fieldKey);
  }
}

/**
 * A review that closes a request (applied, refused, rejected) takes it out of every queue the cache holds, from
 * the mutation's own answer: the queue is right at once, whichever of the reads asked again after the review
 * answers last (the queues list waiting requests only: `status: [PENDING, APPROVED]`).
 */
function leaveQueuesOnceClosed(result: Record<string, unknown>, mutation: string, cache: Cache): void {
  const request = result[mutation] as { id?: string; status?: string } | null | undefined;
  if (!request?.id || request.status === 'PENDING' || request.status === 'APPROVED') return;
  const closed = cache.keyOfEntity({ __typename: 'ChangeRequest', id: request.id });
  for (const field of cache.inspectFields('Query')) {
    if (field.fieldName !== 'changeRequests') continue;
    const queue = cache.resolve('Query', field.fieldKey);
    if (Array.isArray(queue))
      cache.link(
        'Query',
        field.fieldKey,
        (queue as (string | null)[]).filter((key) => key !== closed),
      );
  }
}

/**
 * How the console is signed in: an API key (kept by the tab), or a person's session (the HttpOnly cookie the
 * service set at sign-in, which the browser sends by itself; docs/people.md).
 */
export type Credentials = { kind: 'key'; key: string } | { kind: 'session' };

/**
 * What a cookie request must carry to pass the service's CSRF gate (src/http/request-gates.ts): a custom header,
 * which a page of another site cannot set without a preflight the service never grants.
 */
export const CSRF_HEADERS: Record<string, string> = { 'X-Requested-With': 'zonekeeper-console' };

/** a JSON POST to one of the documented sign-in endpoints (/auth/...), as a cookie request: CSRF header, same origin */
export async function postAuth(path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(path, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { ...CSRF_HEADERS, 'Content-Type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/**
 * One urql client per signed-in key or session: the normalised cache (graphcache: a Domain or Record fetched by two screens
 * is one entry, so a serial read after a write shows everywhere), HTTP for queries and mutations, graphql-ws on
 * the same /graphql for subscriptions. A key goes in X-API-Key and in graphql-ws's connection_init; a session is
 * the cookie (the browser sends it on the same-origin upgrade too) and every HTTP request carries the CSRF header.
 */
export function createConsoleClient(credentials: Credentials, onAuthFailure: () => void): { client: Client; dispose: () => void } {
  const headers = credentials.kind === 'key' ? { 'X-API-Key': credentials.key } : CSRF_HEADERS;
  const consistency = new ConsistencyToken();
  const ws = createWsClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: credentials.kind === 'key' ? { 'X-API-Key': credentials.key } : {},
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
    fetchOptions: () => ({ headers: { ...headers, ...consistency.headers() }, credentials: 'same-origin' }),
    // the header of every answer, whatever its body (an answer urql reads as an error carries none anyway)
    fetch: async (input, init) => {
      const response = await fetch(input, init);
      consistency.note(response.headers.get(CONSISTENCY_TOKEN));
      return response;
    },
    exchanges: [
      mapExchange({
        onError(error) {
          if (isAuthFailure(error)) onAuthFailure();
        },
        onResult(result) {
          consistency.note(result.extensions?.consistencyToken);
          return result;
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
          RecordWriteOutcome: embedded,
          ZoneDiff: embedded,
          Propagation: embedded,
          ServerPropagation: embedded,
          PropagationChangedEvent: embedded,
          ZoneChangedEvent: embedded,
          // one per zone: what enableDnssec, rollDnssecKey and the others answer replaces what domain.dnssec read
          Dnssec: (data) => (data.zone as string) ?? null,
          UserConnection: embedded,
          Me: embedded,
          // a person is a member of several accounts: one entry per (account, person)
          Membership: (data) => `${data.userId as string}/${data.personId as string}`,
          PolicyRule: embedded,
          KeyPolicy: embedded,
          ApiKeyRate: embedded,
          CreatedInvitation: embedded,
          CreatedApiKey: embedded,
          CreatedTsigKey: embedded,
          // a zone's traffic: values of the window asked for (docs/analytics.md)
          QueryStats: embedded,
          QueryBucket: embedded,
          QueryCount: embedded,
          QueriedName: embedded,
        },
        updates: {
          Mutation: {
            deleteRecord(_result, args, cache) {
              cache.invalidate({ __typename: 'Record', id: args.id as string });
            },
            // a removal written (not one proposed as a change request: the record is still served)
            removeRecordOrPropose(result, args, cache) {
              const outcome = result.removeRecordOrPropose as { outcome?: string } | null | undefined;
              if (outcome?.outcome === 'WRITTEN') cache.invalidate({ __typename: 'Record', id: args.id as string });
            },
            // a zone made or deleted changes every list of zones (and their totals): they are asked again
            createDomain(_result, _args, cache) {
              invalidateZoneLists(cache);
            },
            deleteDomain(_result, args, cache) {
              invalidateZoneLists(cache);
              cache.invalidate('Query', 'domain', { name: args.zone as string });
            },
            approveChangeRequest(result, _args, cache) {
              leaveQueuesOnceClosed(result, 'approveChangeRequest', cache);
            },
            rejectChangeRequest(result, _args, cache) {
              leaveQueuesOnceClosed(result, 'rejectChangeRequest', cache);
            },
          },
        },
      }),
      // a read refused for a moment is asked again twice, 4–7 s in all, before the page shows the outage
      retryExchange({
        initialDelayMs: 1000,
        maxDelayMs: 4000,
        randomDelay: true,
        maxNumberAttempts: 3,
        retryIf: (error, operation) => worthAskingAgain(error, operation.kind),
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
