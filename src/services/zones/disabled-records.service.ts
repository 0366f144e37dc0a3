import { readsRecord } from '../../auth/policy';
import { disabledOfZone, type DisabledRecord } from '../../repositories/disabled-records';
import type { RequestContext } from '../context';

/**
 * Disabled records (docs/powerdns-api.md): kept and not served. They are written by change sets
 * (ZoneChangesService: DISABLE, ENABLE, `disabled`, `disabledRdatas`), which move a record between the served
 * records and these; here they are read, where the key may read their RRset.
 */
export class DisabledRecordsService {
  /** a zone's disabled records the caller may read, by owner, type and RDATA (one owner, and one type, when given) */
  async list(
    ctx: RequestContext,
    zone: { id: number; name: string },
    filter: { owner?: string; type?: string } = {},
  ): Promise<DisabledRecord[]> {
    const rows = await disabledOfZone(ctx.db, zone.id, filter);
    return rows.filter((row) => readsRecord(ctx.principal.policy, zone.name, row.owner, row.type));
  }
}
