/**
 * Names for the service's fixed SQL (zone changes, the worker's claim), so PostgreSQL parses and plans each
 * text once per connection instead of on every call: the zone-change statements are long CTEs whose planning
 * cost more than running them (docs/performance.md, «Writing zones»). The texts are parameterised and come from a
 * small set built by the repositories; the name cache is bounded all the same, and a text beyond it runs unnamed.
 *
 * Behind PgBouncer in transaction pooling before 1.21, a statement prepared in one transaction is not on the
 * server connection the next transaction gets ("prepared statement does not exist"):
 * DATABASE_PREPARED_STATEMENTS=off runs everything unnamed.
 */
const statementNames = new Map<string, string>();
const MAX_NAMED_STATEMENTS = 200;
let enabled = true;

export function usePreparedStatements(on: boolean): void {
  enabled = on;
}

/** the statement name for `text`, or undefined to run it unnamed */
export function statementName(text: string): string | undefined {
  if (!enabled) return undefined;
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `zk_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}
