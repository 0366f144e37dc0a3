import { requireAllowed } from '../../auth/policy';
import type { Settings } from '../../config/settings';
import { DomainError } from '../../errors/catalogue';
import { replaceZoneSecondaries, zoneSecondaries, ZoneSecondaryRow } from '../../repositories/zone-secondaries';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import type { DomainsService } from '../zones/domains.service';
import { serverEntries } from '../zones/server-entries';

export type { ZoneSecondaryRow } from '../../repositories/zone-secondaries';

/** more would be a fleet of its own: nameserver sets are for that (docs/transfers.md) */
export const MAX_ZONE_SECONDARIES = 20;

export interface ZoneSecondaryInput {
  address: string;
  port?: number | null;
  tsigKeyName: string;
}

/**
 * A zone's extra secondaries (docs/transfers.md): a customer's own servers that get the zone's NOTIFYs (RFC 1996)
 * and may transfer it (AXFR, IXFR) from their address when signed with the TSIG key named for them, a key of the
 * zone's own user. Who may set them: whoever may write every record of the zone (a transfer reads all of it).
 */
export class ZoneSecondariesService {
  constructor(
    private readonly settings: Pick<Settings, 'transferServersAllow'>,
    private readonly domains: DomainsService,
  ) {}

  async list(ctx: RequestContext, zone: { id: number }): Promise<ZoneSecondaryRow[]> {
    return zoneSecondaries(ctx.db, zone.id);
  }

  /** replaces the zone's extra secondaries with `entries` (an empty list removes them all); all or nothing */
  async set(ctx: RequestContext, zoneName: string, entries: ZoneSecondaryInput[]): Promise<ZoneSecondaryRow[]> {
    const zone = await this.domains.get(ctx, { name: zoneName });
    requireAllowed(ctx.principal.policy, { zone: zone.name, access: 'write' }, 'zone');
    if (entries.length > MAX_ZONE_SECONDARIES)
      throw DomainError.invalid('secondaries', `secondaries: at most ${MAX_ZONE_SECONDARIES} per zone`, 'TOO_MANY_SECONDARIES');
    const rows = (
      await serverEntries(ctx.db, zone.userId, entries, 'secondaries', {
        keyRequired: true,
        namedBy: ctx.principal,
        allow: this.settings.transferServersAllow,
      })
    ).map((entry) => ({
      ...entry,
      tsigKeyId: entry.tsigKeyId!,
    }));
    await inTransaction(ctx.db, (sql) => replaceZoneSecondaries(sql, zone.id, rows));
    return zoneSecondaries(ctx.db, zone.id);
  }
}
