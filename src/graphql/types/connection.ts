import type { GraphQLResolveInfo } from 'graphql';
import { ClassType, Field, Int, ObjectType } from 'type-graphql';
import { asksFor } from '../selection';

@ObjectType({ simpleResolvers: true })
export class PageInfo {
  @Field()
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'Pass as `after` to get the next page.' })
  endCursor!: string | null;
}

export interface ConnectionValue<T> {
  nodes: T[];
  pageInfo: PageInfo;
  /** counted only when `totalCount` is selected */
  countAll: () => Promise<number>;
  /** a node's cursor (`after` pages after it); without it, its id: a list in id order */
  cursorOf?: (node: T) => string;
}

/** the cursor of a node of a list in id order: its id */
const idCursor = (node: object): string => String((node as { id: number | string }).id);

/**
 * A page of a list: `nodes`, `pageInfo` and `totalCount` (counted only when selected), and beside `nodes` the
 * Relay connection's `edges` (each node with its cursor), named `edgeName`, for the clients whose cache pages
 * by them (Relay's `@connection`, Apollo's `relayStylePagination`).
 */
export function Connection<T extends object>(node: ClassType<T>, edgeName: string) {
  @ObjectType(edgeName, { simpleResolvers: true, description: 'A node of the page with its cursor (a Relay connection’s edge).' })
  class EdgeClass {
    @Field({ description: 'Pass as `after` to get the nodes after this one.' })
    cursor!: string;

    @Field(() => node)
    node!: T;
  }

  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionClass {
    @Field(() => [node])
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    countAll!: () => Promise<number>;

    cursorOf?: (node: T) => string;

    @Field(() => Int, { description: 'Number of items over all pages.' })
    totalCount(): Promise<number> {
      return this.countAll();
    }

    @Field(() => [EdgeClass], { description: 'The page’s nodes, each with its cursor (the same nodes as `nodes`).' })
    edges(): EdgeClass[] {
      const cursorOf = this.cursorOf ?? idCursor;
      return this.nodes.map((item) => ({ cursor: cursorOf(item), node: item }));
    }
  }
  return ConnectionClass;
}

/**
 * Fetches one row more than asked, to know whether another page follows without counting. When the connection's
 * field (`info`) asks for `totalCount`, the count is read beside the page rather than after it: two statements on
 * two of the pool's connections at once, so that a page of 100,000 matches costs the longer of the two, not both.
 */
export async function connection<T extends { id: number }>(
  first: number,
  fetch: (limit: number) => Promise<T[]>,
  count: () => Promise<number>,
  info: GraphQLResolveInfo,
  cursorOf?: (node: T) => string,
): Promise<ConnectionValue<T>> {
  const counted = asksFor(info, 'totalCount') ? count() : undefined;
  // a page that fails fails the field; its count's failure then is told by no one
  counted?.catch(() => undefined);
  const rows = await fetch(first + 1);
  const nodes = rows.slice(0, first);
  const last = nodes[nodes.length - 1];
  return {
    nodes,
    pageInfo: { hasNextPage: rows.length > first, endCursor: last ? (cursorOf ?? idCursor)(last) : null },
    countAll: counted ? () => counted : count,
    ...(cursorOf ? { cursorOf } : {}),
  };
}
