import type { HostPort } from '../../config/settings';
import { parseServerAddress } from '../../config/settings';
import type { Database } from '../../db/pool';
import type { TsigKey } from '../../dns/wire/tsig';
import { markViewNotified, unnotifiedViewZones, viewNotifyTargets } from '../../repositories/views';
import type { Duty } from '../duties';
import type { Notifier } from '../notifier';

/** how often the views are read again and the views' zones that moved are sent their NOTIFYs */
const VIEW_NOTIFY_MS = 500;

interface ViewTarget {
  id: number;
  key: TsigKey;
  servers: HostPort[];
}

/**
 * NOTIFY (RFC 1996) to the views' secondaries (docs/views.md), each signed with its view's key, so that the view
 * of a secondary that matches on that key refreshes: a view's zone whose serial moved alone (an overlay change),
 * and, through the outbox drain (`publish`), every zone and catalog the base changed, with the serial the view
 * serves. The views are read again each run; a view's zones not yet told are told then.
 */
export class ViewNotifies {
  private views: ViewTarget[] = [];

  constructor(
    private readonly db: Database,
    private readonly notifier: Notifier,
  ) {}

  /** the base changed these zones and catalogs (the outbox drain's claim): each view's secondaries are told */
  publish(zones: Iterable<string>, catalogs: Iterable<string>): void {
    const names = [...catalogs, ...zones];
    for (const view of this.views)
      for (const name of names) for (const server of view.servers) this.notifier.request(name, server, view.key, view.id);
  }

  async run(): Promise<void> {
    const views = await this.db.connection((sql) => viewNotifyTargets(sql));
    this.views = views.map((v) => ({
      id: v.id,
      key: v.key as TsigKey,
      servers: v.notify.map((n) => parseServerAddress(n)).filter((s): s is HostPort => s !== undefined),
    }));
    const due = await this.db.connection((sql) => unnotifiedViewZones(sql));
    for (const row of due) {
      const view = this.views.find((v) => v.id === row.viewId);
      for (const server of view?.servers ?? []) this.notifier.request(row.zone, server, view!.key, view!.id);
      await this.db.connection((sql) => markViewNotified(sql, row.domainId, row.viewId, row.serial));
    }
  }
}

export function viewNotifiesDuty(views: ViewNotifies): Duty {
  return {
    name: "views' NOTIFYs",
    every: VIEW_NOTIFY_MS,
    firstAfter: 0,
    run: () => views.run(),
    where: 'propagation worker',
    failure: { level: 'warn', message: "propagation worker: the views' NOTIFYs failed; they run again at the next tick" },
  };
}
