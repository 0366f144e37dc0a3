import net from 'node:net';
import { plainAddress } from '../../dns/ip';
import { mayConnect } from '../../outbound/addresses';
import type { Principal } from '../../auth/principal';
import { DomainError } from '../../errors/catalogue';
import { activeTsigKeyByName } from '../../repositories/accounts';
import type { Sql } from '../../db/pool';

/** RFC 1035 §4.2: the port of DNS */
const DNS_PORT = 53;

/** a server as given (address, port, TSIG key name), checked: `tsigKeyId` null when no key was named */
export interface ServerEntry {
  address: string;
  port: number;
  tsigKeyId: number | null;
}

/**
 * Servers given by a client (a zone's extra secondaries, a secondary zone's primaries, an import's source),
 * checked: an IP address, a port (53 unless given), each address and port once, and a TSIG key named by an
 * active key of the zone's user (another user's key would let that user read, or feed, the zone). The service
 * connects to these servers (transfers in, NOTIFYs out) and tells what it met: a key other than the admin's
 * (`namedBy`) names only addresses the outbound rule lets it (src/outbound/addresses.ts; `allow`,
 * TRANSFER_SERVERS_ALLOW, opens ranges: a customer's primary behind a VPN); the admin key names any server (an
 * operator's own). Refusals name the field (`<field>[i].address`, `.port`, `.tsigKeyName`).
 */
export async function serverEntries(
  db: Sql,
  userId: number,
  entries: { address: string; port?: number | null; tsigKeyName?: string | null }[],
  field: string,
  options: { keyRequired: boolean; namedBy: Principal; allow: readonly string[]; single?: boolean },
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
    const outbound = options.namedBy.kind === 'admin' ? { ok: true as const } : mayConnect(address, options.allow);
    if (!outbound.ok)
      throw DomainError.invalid(
        `${at}.address`,
        `${at}.address: ${outbound.reason}; the TRANSFER_SERVERS_ALLOW setting lets the operator allow it (the admin key names any server)`,
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
      // the admin's own keys (of no user, server-wide as PowerDNS's) may sign what the admin key transfers in
      const adminsOwn = key?.userId === null && options.namedBy.kind === 'admin';
      if (!key || (key.userId !== userId && !adminsOwn))
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
