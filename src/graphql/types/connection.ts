import { ClassType, Field, Int, ObjectType } from 'type-graphql';
import type { PageInfoValue } from '../pages';

/** what `pageInfo` answers (its fields: graphql/pages.ts's PageInfoValue) */
@ObjectType({ simpleResolvers: true })
export class PageInfo implements PageInfoValue {
  @Field({ description: 'Whether the list has nodes after this page (pass `endCursor` as `after` to get them).' })
  hasNextPage!: boolean;

  @Field(() => String, { nullable: true, description: 'The last node’s cursor: pass as `after` to get the next page.' })
  endCursor!: string | null;

  @Field({ description: 'Whether the list has nodes before this page (pass `startCursor` as `before`, with `last`, to get them).' })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: 'The first node’s cursor: pass as `before`, with `last`, to get the page before.' })
  startCursor!: string | null;
}

/**
 * A page of a list: `nodes`, `pageInfo` and `totalCount` (counted only when selected), and beside `nodes` the
 * Relay connection's `edges` (each node with its cursor), named `edgeName`, for the clients whose cache pages
 * by them (Relay's `@connection`, Apollo's `relayStylePagination`).
 */
export function Connection<T extends object>(node: ClassType<T>, edgeName: string) {
  @ObjectType(edgeName, { simpleResolvers: true, description: 'A node of the page with its cursor (a Relay connection’s edge).' })
  class EdgeClass {
    @Field({ description: 'Pass as `after` to get the nodes after this one, or as `before` (with `last`) the nodes before it.' })
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

    cursorOf!: (node: T) => string;

    @Field(() => Int, { description: 'Number of items over all pages.' })
    totalCount(): Promise<number> {
      return this.countAll();
    }

    @Field(() => [EdgeClass], { description: 'The page’s nodes, each with its cursor (the same nodes as `nodes`).' })
    edges(): EdgeClass[] {
      return this.nodes.map((item) => ({ cursor: this.cursorOf(item), node: item }));
    }
  }
  return ConnectionClass;
}
