import { ClassType, Field, Int, ObjectType } from 'type-graphql';

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
}

/** A page of a list: `nodes`, `pageInfo` and `totalCount` (counted only when selected). */
export function Connection<T extends object>(node: ClassType<T>) {
  @ObjectType({ simpleResolvers: true })
  abstract class ConnectionClass {
    @Field(() => [node])
    nodes!: T[];

    @Field(() => PageInfo)
    pageInfo!: PageInfo;

    countAll!: () => Promise<number>;

    @Field(() => Int, { description: 'Number of items over all pages.' })
    totalCount(): Promise<number> {
      return this.countAll();
    }
  }
  return ConnectionClass;
}

/** Fetches one row more than asked, to know whether another page follows without counting. */
export async function connection<T extends { id: number }>(
  first: number,
  fetch: (limit: number) => Promise<T[]>,
  count: () => Promise<number>,
): Promise<ConnectionValue<T>> {
  const rows = await fetch(first + 1);
  const nodes = rows.slice(0, first);
  const last = nodes[nodes.length - 1];
  return {
    nodes,
    pageInfo: { hasNextPage: rows.length > first, endCursor: last ? String(last.id) : null },
    countAll: count,
  };
}
