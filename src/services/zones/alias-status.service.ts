import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { DomainError } from '../../errors/catalogue';
import { aliasStatusOfZone, AliasStatusRow, derivedAmong } from '../../repositories/alias-refresh';

/**
 * What the API shows of ALIAS/ANAME flattening (docs/templates-and-alias.md): each ALIAS's last refresh
 * (`Domain.aliasStatus`) and which records are derived from one (`Record.derived`).
 */
export class AliasStatusService {
  constructor(private readonly settings: Pick<Settings, 'aliasResolvers'>) {}

  /**
   * each ALIAS/ANAME's last refresh; with ALIAS_RESOLVERS empty (only a secondary zone's transfer brings one in
   * then: every other write refuses it) `unresolvable`, saying why its owner serves no address
   */
  async ofZone(db: Database, domainId: number): Promise<AliasStatusRow[]> {
    const rows = await aliasStatusOfZone(db, domainId);
    if (this.settings.aliasResolvers.length) return rows;
    return rows.map((row) => ({ ...row, state: 'unresolvable', reason: aliasResolversUnsetReason(row.type) }));
  }

  /** the ids among `ids` that are derived rows, in one statement */
  async derivedAmong(db: Database, ids: readonly number[]): Promise<Set<number>> {
    return new Set(await derivedAmong(db, [...ids]));
  }
}

/** why an ALIAS/ANAME is not flattened while ALIAS_RESOLVERS is empty */
export const aliasResolversUnsetReason = (type: string): string =>
  `ALIAS_RESOLVERS is not set: nothing flattens the ${type}, its owner serves no address`;

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
