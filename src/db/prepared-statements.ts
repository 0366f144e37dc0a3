/**
 * Names for the service's fixed SQL (zone changes, the worker's claim), so PostgreSQL parses and plans each
 * text once per connection instead of on every call: the zone-change statements are long CTEs whose planning
 * cost more than running them (docs/performance.md, «Writing zones»). The texts are parameterised and come from a
 * small set built by the repositories; the name cache is bounded all the same, and a text beyond it runs unnamed.
 *
 * Behind PgBouncer in transaction pooling before 1.21, a statement prepared in one transaction is not on the
 * server connection the next transaction gets ("prepared statement does not exist"):
 * DATABASE_PREPARED_STATEMENTS=off runs everything unnamed: the Database is made without statement names
 * (`DatabaseOptions.preparedStatements`).
 */
const MAX_NAMED_STATEMENTS = 200;

/** the statement names of one pool's connections (a Database's): a text is named once, the same on each */
export class StatementNames {
  private readonly names = new Map<string, string>();

  /** the statement name for `text`, or undefined to run it unnamed (beyond the bounded cache) */
  nameOf(text: string): string | undefined {
    let name = this.names.get(text);
    if (name === undefined && this.names.size < MAX_NAMED_STATEMENTS) {
      name = `zk_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }
}
