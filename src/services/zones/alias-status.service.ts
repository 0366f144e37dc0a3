import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { aliasStatusOfZone, AliasStatusRow, derivedAmong } from '../../repositories/alias-refresh';
import { aliasResolversUnsetReason } from '../write-engine/alias-resolvers-unset';

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
