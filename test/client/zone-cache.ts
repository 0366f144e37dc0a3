import { ApolloClient, ApolloLink, HttpLink, InMemoryCache, type ApolloCache, type Reference } from '@apollo/client';
import { GraphQLWsLink } from '@apollo/client/link/subscriptions';
import { getMainDefinition } from '@apollo/client/utilities';
import { Kind, OperationTypeNode } from 'graphql';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { ZoneQuery } from './generated/graphql';
import { ApplyChangesDocument, CreateRecordDocument, RemoveRecordDocument, ZoneChangedDocument, ZoneDocument } from './operations';

/**
 * A front end's zone page over a normalised cache (Apollo Client's InMemoryCache, keyed by `__typename` and `id`,
 * no type policies): it reads a zone once, and every write and every zoneChanged event after that updates the
 * cache from what it answers, with no read of the zone again (docs/graphql.md).
 */
export type ZoneRecord = NonNullable<ZoneQuery['domain']>['records'][number];

interface Touched {
  domain: { id: string } | null | undefined;
  records: readonly { id: string }[];
  removedRecordIds: readonly string[];
}

/** what a write or an event touched, merged: its records and zone are in the cache by id already; the zone's list follows */
export function mergeTouched(cache: ApolloCache, touched: Touched): void {
  if (!touched.domain) return;
  const removed = new Set(touched.removedRecordIds);
  cache.modify({
    id: cache.identify({ __typename: 'Domain', id: touched.domain.id }),
    fields: {
      records(existing: readonly Reference[] = [], { readField, toReference }) {
        const kept = existing.filter((ref) => !removed.has(String(readField('id', ref))));
        const held = new Set(kept.map((ref) => String(readField('id', ref))));
        const added = touched.records
          .filter((record) => !held.has(record.id))
          .map((record) => toReference({ __typename: 'Record', id: record.id }))
          .filter((ref): ref is Reference => ref !== undefined);
        return [...kept, ...added];
      },
    },
  });
  for (const id of removed) cache.evict({ id: cache.identify({ __typename: 'Record', id }) });
  cache.gc();
}

export class ZonePage {
  readonly client: ApolloClient;
  private readonly ws: WsClient;
  /** the HTTP requests the page sent: a merge that needed the zone read again would show here */
  requests = 0;

  constructor(baseUrl: string, apiKey: string) {
    this.ws = createClient({
      url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { 'x-api-key': apiKey },
      retryAttempts: 0,
    });
    const http = new HttpLink({
      uri: `${baseUrl}/graphql`,
      headers: { 'x-api-key': apiKey },
      fetch: (input, init) => {
        this.requests++;
        return fetch(input, init);
      },
    });
    const link = ApolloLink.split(
      ({ query }) => {
        const definition = getMainDefinition(query);
        return definition.kind === Kind.OPERATION_DEFINITION && definition.operation === OperationTypeNode.SUBSCRIPTION;
      },
      new GraphQLWsLink(this.ws),
      http,
    );
    this.client = new ApolloClient({ link, cache: new InMemoryCache() });
  }

  async load(zone: string): Promise<void> {
    await this.client.query({ query: ZoneDocument, variables: { name: zone }, fetchPolicy: 'network-only' });
  }

  /** the zone as the cache holds it, never from the network */
  held(zone: string): ZoneQuery['domain'] | undefined {
    return this.client.readQuery({ query: ZoneDocument, variables: { name: zone } })?.domain;
  }

  async applyChanges(
    zone: string,
    changes: { kind: 'ADD' | 'REMOVE'; id?: string; owner?: string; type?: string; rdata?: string; ttl?: number }[],
  ) {
    await this.client.mutate({
      mutation: ApplyChangesDocument,
      variables: { zone, changes },
      update: (cache, { data }) => {
        const result = data?.applyZoneChanges;
        if (result?.change) mergeTouched(cache, { domain: result.domain, ...result.change });
      },
    });
  }

  async createRecord(input: { zone: string; owner: string; type: string; rdata: string; ttl: number }) {
    await this.client.mutate({
      mutation: CreateRecordDocument,
      variables: { input },
      update: (cache, { data }) => {
        const record = data?.createRecord;
        // the SOA's serial step is the zone's `soa`, merged by its id as the record is
        if (record) mergeTouched(cache, { domain: record.domain, records: [record], removedRecordIds: [] });
      },
    });
  }

  async removeRecord(id: string) {
    await this.client.mutate({
      mutation: RemoveRecordDocument,
      variables: { id },
      update: (cache, { data }) => {
        const removal = data?.removeRecord;
        if (removal) mergeTouched(cache, { domain: removal.domain, records: [], removedRecordIds: [removal.id] });
      },
    });
  }

  /** follows the zone's changes made elsewhere; answers a stop */
  follow(zone: string, onEvent: () => void): () => void {
    const subscription = this.client.subscribe({ query: ZoneChangedDocument, variables: { zone } }).subscribe({
      next: ({ data }) => {
        const event = data?.zoneChanged;
        if (event) mergeTouched(this.client.cache, { domain: event.domain, ...event.change });
        onEvent();
      },
    });
    return () => subscription.unsubscribe();
  }

  async close(): Promise<void> {
    await this.client.clearStore();
    await this.ws.dispose();
  }
}
