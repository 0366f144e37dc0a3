import { ApolloClient, HttpLink, InMemoryCache } from '@apollo/client';
import { relayStylePagination } from '@apollo/client/utilities';
import type { DomainOrder, ZonePagesQuery } from './generated/graphql';
import { ZonePagesDocument } from './operations';

/** the zone list as a cache holds it: its edges, merged page by page, and its pageInfo */
export type ZoneEdges = NonNullable<ZonePagesQuery['domains']>;

/**
 * A front end's zone list over Apollo Client's normalised cache with the Relay connection policy
 * (`relayStylePagination`, one list per order: `orderBy` is its key argument), paged as such a list is: a first
 * page, then the list's `endCursor` as `after` until `hasNextPage` is false; or from the end, `last` and then
 * the list's `startCursor` as `before` until `hasPreviousPage` is false. The policy merges each page into
 * the list by its cursors (docs/graphql.md, «Pages»).
 */
export class ZoneList {
  readonly client: ApolloClient;
  /** the HTTP requests the list sent: one a page */
  requests = 0;

  constructor(baseUrl: string, apiKey: string) {
    const link = new HttpLink({
      uri: `${baseUrl}/graphql`,
      headers: { 'x-api-key': apiKey },
      fetch: (input, init) => {
        this.requests++;
        return fetch(input, init);
      },
    });
    const cache = new InMemoryCache({ typePolicies: { Query: { fields: { domains: relayStylePagination(['orderBy']) } } } });
    this.client = new ApolloClient({ link, cache });
  }

  /** every zone in `orderBy`, `pageSize` a page from the first; answers the list as the cache holds it at the end */
  pageForward(orderBy: DomainOrder, pageSize: number): Promise<ZoneEdges> {
    return this.page({ orderBy, first: pageSize }, (list) =>
      list.pageInfo.hasNextPage ? { after: list.pageInfo.endCursor, first: pageSize } : undefined,
    );
  }

  /** every zone in `orderBy`, `pageSize` a page from the last back to the first */
  pageBackward(orderBy: DomainOrder, pageSize: number): Promise<ZoneEdges> {
    return this.page({ orderBy, last: pageSize }, (list) =>
      list.pageInfo.hasPreviousPage ? { before: list.pageInfo.startCursor, last: pageSize } : undefined,
    );
  }

  /**
   * The list from its first page on, each next page's variables from the list so far (none: done). Each page is
   * a query of its own cursor, written into the cache, where the policy splices it into the list (as `fetchMore`
   * writes it): the list is the one field `domains({"orderBy": …})` whatever the page's other arguments.
   */
  private async page(
    variables: { orderBy: DomainOrder; first?: number; last?: number },
    next: (list: ZoneEdges) => { after?: string | null; before?: string | null; first?: number; last?: number } | undefined,
  ): Promise<ZoneEdges> {
    let page: { orderBy: DomainOrder; first?: number; last?: number; after?: string | null; before?: string | null } = variables;
    for (;;) {
      const { data } = await this.client.query({ query: ZonePagesDocument, variables: page, fetchPolicy: 'network-only' });
      // the answer is read back from the cache: the list so far, this page spliced in
      const list = data!.domains;
      const more = next(list);
      if (!more) return list;
      page = { orderBy: variables.orderBy, ...more };
    }
  }

  async close(): Promise<void> {
    await this.client.clearStore();
  }
}
