/**
 * The outbound rule: where the service may connect when a user or a zone chooses the address. One list of the
 * address ranges that are not the public internet, and one check, `mayConnect`, used by every such connection:
 *
 * | caller | whose choice | its allow-list |
 * |---|---|---|
 * | webhooks (events.service.ts checks the URL, worker/webhook-delivery.ts each connect) | a user's URL | WEBHOOK_ALLOW |
 * | health checks (services/operations/health-checks.ts, dns-client/iterative-resolver.ts) | a zone's NS names and glue | HEALTH_ALLOW_NETWORKS |
 * | transfers in and NOTIFY out (services/zones/server-entries.ts: a secondary zone's primaries, an import's source, a zone's extra secondaries) | a user's key | TRANSFER_SERVERS_ALLOW |
 * | other signers' DNSKEYs (services/dnssec/foreign-keys.ts, multi-signer) | a user's `fetchFrom` | DNSSEC_FOREIGN_KEYS_FETCH_ALLOW |
 * | NOTIFY(CDS) (services/dnssec/cds-notify.ts) | the parent's DSYNC record | DNSSEC_CDS_NOTIFY_ALLOW |
 * | steering's health checks (services/steering/, outbound/probes.ts each probe) | a check's address | STEERING_ALLOW_NETWORKS |
 *
 * The operator's own choices are not checked: the fleet (SECONDARIES, nameserver sets), ALIAS_RESOLVERS,
 * DNSSEC_PARENT_DS_SERVERS, HEALTH_ROOT_HINTS, OIDC_ISSUER, the database, and servers the admin key names.
 *
 * The service connects and tells what it met (a finding, an error, a delivery's status), so an address a tenant
 * chooses could otherwise probe the service's own host (its database among them), the link (cloud metadata at
 * 169.254.169.254) and the private networks it sits in.
 */
import net from 'node:net';
import os from 'node:os';
import { inNetworks, plainAddress } from '../dns/ip';

/**
 * HOST_ONLY_NETWORKS: the service's own host (loopback, unspecified, IPv4-compatible) and the link (link-local,
 * where cloud metadata services answer, 169.254.169.254), and multicast.
 */
export const HOST_ONLY_NETWORKS = ['127.0.0.0/8', '0.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '::/96', 'fe80::/10', 'ff00::/8'];

/**
 * Every range that is not the public internet (RFC 6890's special-purpose registries): the host's and the link's
 * above, private networks (RFC 1918, RFC 4193), shared address space (CGNAT, RFC 6598), IETF protocol
 * assignments, benchmarking (RFC 2544), the documentation ranges (RFC 5737, RFC 3849), reserved and broadcast,
 * site-local, discard-only (RFC 6666), and IPv6's translation and tunnel prefixes that embed an IPv4 address
 * (NAT64 64:ff9b::/96 and 64:ff9b:1::/48, RFC 6052 and RFC 8215; 6to4 2002::/16, RFC 3056; Teredo 2001::/32,
 * RFC 4380), which would reach the ranges above by a detour. (IPv4-mapped addresses are read as the IPv4 address
 * they hold: plainAddress.)
 */
export const NON_PUBLIC_NETWORKS = [
  ...HOST_ONLY_NETWORKS,
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '240.0.0.0/4',
  '255.255.255.255/32',
  'fc00::/7',
  'fec0::/10',
  '64:ff9b::/96',
  '64:ff9b:1::/48',
  '2001::/32',
  '2001:db8::/32',
  '2002::/16',
  '100::/64',
];

/** how long the host's own addresses are kept before they are read again (an interface may come and go) */
const OWN_ADDRESSES_MS = 60_000;
let own: { at: number; addresses: Set<string> } | undefined;

/** the addresses of this host's interfaces (the service listens on some of them), whatever their range */
export function ownAddresses(): Set<string> {
  if (!own || Date.now() - own.at > OWN_ADDRESSES_MS)
    own = {
      at: Date.now(),
      addresses: new Set(
        Object.values(os.networkInterfaces())
          .flatMap((list) => list ?? [])
          .map((entry) => plainAddress(entry.address.replace(/%.*$/, '')).toLowerCase()),
      ),
    };
  return own.addresses;
}

export type Outbound = { ok: true } | { ok: false; reason: string };

/**
 * Whether the service may connect to `address` (an IP address) for a user or a zone: not when it is in
 * NON_PUBLIC_NETWORKS or an address of this host, unless `allow` (the caller's setting, CIDR blocks: the operator's
 * word) names it. The reason is a sentence about the address; the caller adds the field and its setting.
 */
export function mayConnect(address: string, allow: readonly string[]): Outbound {
  const plain = plainAddress(address.trim()).toLowerCase();
  if (!net.isIP(plain)) return { ok: false, reason: `${JSON.stringify(address)} is not an IP address` };
  if (allow.length && inNetworks(allow, plain)) return { ok: true };
  if (inNetworks(NON_PUBLIC_NETWORKS, plain))
    return { ok: false, reason: `${plain} is a loopback, link-local, private, documentation or otherwise non-public address` };
  if (ownAddresses().has(plain)) return { ok: false, reason: `${plain} is an address of this service's own host` };
  return { ok: true };
}
