import net from 'node:net';
import { inNetworks, plainAddress, requireAllowed } from '../auth/policy';
import type { Principal } from '../auth/principal';
import { DomainError } from '../errors/catalogue';
import { activeTsigKeyByName } from '../repositories/accounts';
import { replaceZoneSecondaries, zoneSecondaries, ZoneSecondaryRow } from '../repositories/zone-secondaries';
import type { RequestContext } from './context';
import { inTransaction } from './db-errors';
import type { DomainsService } from './domains.service';
import type { Sql } from '../db/pool';

export type { ZoneSecondaryRow } from '../repositories/zone-secondaries';

/** more would be a fleet of its own: nameserver sets are for that (docs/transfers.md) */
export const MAX_ZONE_SECONDARIES = 20;
/** RFC 1035 §4.2: the port of DNS */
const DNS_PORT = 53;

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
  constructor(private readonly domains: DomainsService) {}

  async list(ctx: RequestContext, zone: { id: number }): Promise<ZoneSecondaryRow[]> {
    return zoneSecondaries(ctx.db, zone.id);
  }

  /** replaces the zone's extra secondaries with `entries` (an empty list removes them all); all or nothing */
  async set(ctx: RequestContext, zoneName: string, entries: ZoneSecondaryInput[]): Promise<ZoneSecondaryRow[]> {
    const zone = await this.domains.get(ctx, { name: zoneName });
    requireAllowed(ctx.principal.policy, { zone: zone.name, access: 'write' }, 'zone');
    if (entries.length > MAX_ZONE_SECONDARIES)
      throw DomainError.invalid('secondaries', `secondaries: at most ${MAX_ZONE_SECONDARIES} per zone`, 'TOO_MANY_SECONDARIES');
    const rows = (await serverEntries(ctx.db, zone.userId, entries, 'secondaries', { keyRequired: true })).map((entry) => ({
      ...entry,
      tsigKeyId: entry.tsigKeyId!,
    }));
    await inTransaction(ctx.db, (sql) => replaceZoneSecondaries(sql, zone.id, rows));
    return zoneSecondaries(ctx.db, zone.id);
  }
}

/** a server as given (address, port, TSIG key name), checked: `tsigKeyId` null when no key was named */
export interface ServerEntry {
  address: string;
  port: number;
  tsigKeyId: number | null;
}

/**
 * Addresses a user's key may not have the service transfer a zone from (a secondary zone's primaries, an import's
 * source): the service's own host (loopback, unspecified) and the link (link-local, where cloud metadata
 * services answer), and multicast. The service connects there and tells what it met, so a tenant could otherwise
 * probe the ports of the service's host (its database among them) through `lastError`. Private ranges stay
 * open: a customer's primary behind a VPN is one. The admin key names any server (an operator's own).
 */
const HOST_ONLY_NETWORKS = ['127.0.0.0/8', '0.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '::1/128', '::/128', 'fe80::/10', 'ff00::/8'];

/**
 * Servers given by a client (a zone's extra secondaries, a secondary zone's primaries, an import's source),
 * checked: an IP address, a port (53 unless given), each address and port once, and a TSIG key named by an
 * active key of the zone's user (another user's key would let that user read, or feed, the zone); with `readFrom`
 * (servers the service transfers from, for that principal), none of HOST_ONLY_NETWORKS unless the admin key.
 * Refusals name the field (`<field>[i].address`, `.port`, `.tsigKeyName`).
 */
export async function serverEntries(
  db: Sql,
  userId: number,
  entries: { address: string; port?: number | null; tsigKeyName?: string | null }[],
  field: string,
  options: { keyRequired: boolean; readFrom?: Principal; single?: boolean },
): Promise<ServerEntry[]> {
  const seen = new Set<string>();
  const keys = new Map<string, number>();
  const rows: ServerEntry[] = [];
  for (const [index, entry] of entries.entries()) {
    // one server (an import's source) is named by the field alone: `from.address`
    const at = options.single ? field : `${field}[${index}]`;
    const address = plainAddress(String(entry.address ?? '').trim());
    if (!net.isIP(address))
      throw DomainError.invalid(`${at}.address`, `${at}.address: ${JSON.stringify(entry.address)} is not an IP address`, 'INVALID_ADDRESS');
    if (options.readFrom && options.readFrom.kind !== 'admin' && inNetworks(HOST_ONLY_NETWORKS, address))
      throw DomainError.invalid(
        `${at}.address`,
        `${at}.address: ${address} is this host's own or link-local; only the admin key names such a server to transfer from`,
        'ADDRESS_NOT_ALLOWED',
      );
    const port = entry.port ?? DNS_PORT;
    if (!Number.isInteger(port) || port < 1 || port > 65535)
      throw DomainError.invalid(`${at}.port`, `${at}.port: ${port} is not a port (1 to 65535)`, 'INVALID_PORT');
    const where = `${net.isIPv6(address) ? `[${address}]` : address}:${port}`;
    if (seen.has(where)) throw DomainError.invalid(`${at}.address`, `${at}: ${where} is given twice`, 'DUPLICATE_SERVER');
    seen.add(where);
    const keyName = String(entry.tsigKeyName ?? '')
      .trim()
      .toLowerCase()
      .replace(/\.$/, '');
    if (!keyName && !options.keyRequired) {
      rows.push({ address, port, tsigKeyId: null });
      continue;
    }
    let keyId = keys.get(keyName);
    if (keyId === undefined) {
      const key = keyName ? await activeTsigKeyByName(db, keyName) : undefined;
      if (!key || key.userId !== userId)
        throw DomainError.invalid(
          `${at}.tsigKeyName`,
          `${at}.tsigKeyName: no active TSIG key ${JSON.stringify(entry.tsigKeyName ?? '')} of the zone's user`,
          'TSIG_KEY_NOT_FOUND',
        );
      keyId = key.id;
      keys.set(keyName, keyId);
    }
    rows.push({ address, port, tsigKeyId: keyId });
  }
  return rows;
}
