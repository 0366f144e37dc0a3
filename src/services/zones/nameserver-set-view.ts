import { hostPortName, HostPort, parseHostPort, Settings } from '../../config/settings';
import { DEFAULT_SET_ID, NameserverSetRow } from '../../repositories/nameserver-sets';

export const DEFAULT_SET_NAME = 'default';

/**
 * A nameserver set as the service uses it (docs/transfers.md, «Nameserver sets»): the `default` set's
 * secondaries, NS names and catalog are the settings' (SECONDARIES, DEFAULT_NS, CATALOG_ZONE), the others'
 * their row's.
 */
export interface NameserverSetView {
  id: number;
  name: string;
  isDefault: boolean;
  /** `address:port`, as SECONDARIES and the status rows name servers */
  secondaries: string[];
  servers: HostPort[];
  nsNames: string[];
  catalogZone: string;
  zoneCount: number;
  createdAt: Date;
  updatedAt: Date;
}

export function effectiveSet(row: NameserverSetRow, settings: Settings): NameserverSetView {
  const isDefault = row.id === DEFAULT_SET_ID;
  const servers = isDefault ? settings.secondaries : (row.secondaries ?? []).flatMap((s) => parseHostPort(s) ?? []);
  return {
    id: row.id,
    name: row.name,
    isDefault,
    secondaries: servers.map(hostPortName),
    servers,
    nsNames: isDefault ? settings.defaultNs : (row.nsNames ?? []),
    catalogZone: isDefault ? settings.catalogZone : row.catalogZone!,
    zoneCount: row.zoneCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
