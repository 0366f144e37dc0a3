import type { HostPort, Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { serverName } from '../../dns-client/dns-client';
import { listNameserverSets } from '../../repositories/nameserver-sets';
import { effectiveSet, NameserverSetView } from '../../services/zones/nameserver-set-view';
import type { Notifier } from '../notifier';
import type { Duty } from '../duties';
import type { Services } from '../../services';

/** how often the nameserver sets are read again (the worker's poll) */
export const POLL_MS = 1000;

/**
 * The nameserver sets as the worker last read them (docs/transfers.md, «Nameserver sets»): whose servers get
 * which NOTIFYs and status checks. The outbox drain, the status checks and the adoption of new secondaries read
 * them; the duty below reads them again each poll.
 */
export class NameserverFleet {
  /** every nameserver set's secondaries, by name */
  servers: Map<string, HostPort>;
  /** the sets as last read (the default one from the settings) */
  sets: NameserverSetView[] = [];

  constructor(
    private readonly settings: Settings,
    private readonly db: Database,
    private readonly notifier: Notifier,
  ) {
    this.servers = new Map(settings.secondaries.map((s) => [serverName(s), s]));
  }

  /** reads the sets (an admin may add one or change its secondaries at any time, in another process) */
  async read(): Promise<void> {
    this.sets = (await listNameserverSets(this.db)).map((row) => effectiveSet(row, this.settings));
    this.servers = new Map(this.sets.flatMap((set) => set.servers.map((s) => [serverName(s), s] as const)));
    this.notifier.otherCatalogs = new Set(this.sets.filter((set) => !set.isDefault).map((set) => set.catalogZone));
  }
}

export const NAMESERVER_SETS = 'nameserver sets';

/** the sets read again each poll; a failed read keeps the last ones */
export function nameserverSetsDuty(fleet: NameserverFleet): Duty {
  return {
    name: NAMESERVER_SETS,
    every: POLL_MS,
    run: () => fleet.read(),
    where: 'propagation worker',
    failure: { level: 'warn', message: 'propagation worker: reading the nameserver sets failed; the last ones read stay' },
  };
}

export const NS_FOLLOWS = 'NS names followed';

/**
 * A set's zones following its new NS names (docs/transfers.md, «A set's NS names, followed by its zones»): each
 * poll, the follows no live process walks are walked, one after another, each to its end or the worker's stop (which
 * gives it back at once).
 */
export function nsFollowsDuty(nameserverSets: Services['nameserverSets'], db: Database): Duty {
  return {
    name: NS_FOLLOWS,
    every: POLL_MS,
    run: async (signal) => {
      while (await nameserverSets.walkNsFollow(db, signal));
    },
    where: 'NS names followed',
    failure: {
      level: 'warn',
      // the follow stays leased (nameserver-set-ns-follow.ts): a failure that persists is tried once a lease, not once a poll
      message: "NS names followed: a step of a set's zones failed; the walk goes on from its last step once its lease (60 s) lapses",
    },
  };
}
