import type { Settings } from '../../config/settings';
import { hostPortName } from '../../config/settings';
import {
  dsAtParent,
  failedTransfers,
  healthFindings,
  secondariesBehind,
  steeringHeld,
  type AttentionList,
} from '../../repositories/attention';
import { DomainError } from '../../errors/catalogue';
import type { RequestContext } from '../context';
import type { DomainsService } from '../zones/domains.service';

export type { AttentionList, AttentionRow } from '../../repositories/attention';

/** what needs attention across the zones a caller may see (docs/console.md, «Home»), one list per kind */
export interface Attention {
  secondariesBehind: AttentionList;
  failedTransfers: AttentionList;
  dsAtParent: AttentionList;
  /** zones whose last health check found something (docs/health.md) */
  health: AttentionList;
  /** zones whose failover is held (panic freeze, no sound vantage) or probed by an isolated vantage (docs/steering.md) */
  steering: AttentionList;
}

/** the most items a list returns: the counts say how many more there are */
export const MAX_ATTENTION_ITEMS = 100;

/**
 * A secondary still behind after this long is listed even before the worker calls it `error`: by then the
 * worker's checks have backed off to their longest interval (five minutes) and re-NOTIFYed it several times,
 * so it is no longer a change on its way.
 */
const LAG_SECONDS = 15 * 60;

/**
 * The home screen's question, answered in five statements whatever the number of zones (src/repositories/
 * attention.ts), under the caller's reach as the zone list has it (DomainsService.reach): a key sees only the
 * zones it may read.
 */
export class AttentionService {
  private readonly defaultSetServers: string[];

  constructor(
    settings: Settings,
    private readonly domains: DomainsService,
  ) {
    this.defaultSetServers = settings.secondaries.map(hostPortName);
  }

  async attention(ctx: RequestContext, first = 20): Promise<Attention> {
    if (!Number.isInteger(first) || first < 0 || first > MAX_ATTENTION_ITEMS)
      throw DomainError.invalid('first', `first must be between 0 and ${MAX_ATTENTION_ITEMS}`);
    const scope = this.domains.reach(ctx);
    return {
      secondariesBehind: await secondariesBehind(ctx.db, scope, first, this.defaultSetServers, LAG_SECONDS),
      failedTransfers: await failedTransfers(ctx.db, scope, first),
      dsAtParent: await dsAtParent(ctx.db, scope, first),
      health: await healthFindings(ctx.db, scope, first),
      steering: await steeringHeld(ctx.db, scope, first),
    };
  }
}
