import type { Database } from '../db/pool';
import { DomainError } from '../errors/catalogue';
import { aliasStatusOfZone, AliasStatusRow, derivedAmong } from '../repositories/alias-refresh';

/**
 * What the API shows of ALIAS/ANAME flattening (docs/templates-and-alias.md): each ALIAS's last refresh
 * (`Domain.aliasStatus`) and which records are derived from one (`Record.derived`).
 */
export class AliasStatusService {
  ofZone(db: Database, domainId: number): Promise<AliasStatusRow[]> {
    return aliasStatusOfZone(db, domainId);
  }

  /** the ids among `ids` that are derived rows, in one statement */
  async derivedAmong(db: Database, ids: readonly number[]): Promise<Set<number>> {
    return new Set(await derivedAmong(db, [...ids]));
  }
}

/**
 * an ALIAS/ANAME refused because ALIAS_RESOLVERS is empty: nothing could flatten it, so it would never be served;
 * `line`: the zone file's line it came from
 */
export function aliasResolversUnset(type: string, field: string, at?: string, line?: number): DomainError {
  const where = at ? ` (${type} at ${at})` : '';
  const message = `${line === undefined ? '' : `line ${line}: `}${field}: ${type} records need the ALIAS_RESOLVERS setting (the resolvers the service flattens them with); it is empty${where}`;
  return new DomainError('ALIAS_RESOLVERS_UNSET', message, [
    { field, code: 'ALIAS_RESOLVERS_UNSET', message, ...(line === undefined ? {} : { line }) },
  ]);
}
