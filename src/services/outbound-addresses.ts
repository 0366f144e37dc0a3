import os from 'node:os';
import { inNetworks, plainAddress } from '../auth/policy';

/**
 * Where the service may connect on a client's word (a secondary zone's primaries, an import's source, a webhook's
 * endpoint): one list of the address ranges that are not the public internet's, and one check.
 *
 * HOST_ONLY_NETWORKS: the service's own host (loopback, unspecified) and the link (link-local, where cloud
 * metadata services answer, 169.254.169.254), and multicast. The service connects there and tells what it met, so
 * a tenant could otherwise probe the ports of the service's host (its database among them).
 */
export const HOST_ONLY_NETWORKS = [
  '127.0.0.0/8',
  '0.0.0.0/8',
  '169.254.0.0/16',
  '224.0.0.0/4',
  '::1/128',
  '::/128',
  'fe80::/10',
  'ff00::/8',
];

/**
 * Every range that is not the public internet (RFC 6890's special-purpose registries): the host's and the link's
 * above, private networks (RFC 1918, RFC 4193), shared address space (CGNAT, RFC 6598), benchmarking, the
 * documentation ranges, reserved, broadcast, and IPv6's translation and tunnel prefixes that embed an IPv4 address
 * (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo 2001::/32), which would reach the ranges above by a detour.
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

/** the addresses of this host's interfaces: the service's own, whatever their range */
export function ownAddresses(): string[] {
  return Object.values(os.networkInterfaces()).flatMap((list) => (list ?? []).map((entry) => entry.address));
}

/**
 * Why the service must not connect to `address` for a client (a sentence), or undefined: it may. `allow` (an
 * operator's setting, CIDR blocks) opens ranges that would otherwise be refused.
 */
export function refusedDestination(address: string, allow: readonly string[]): string | undefined {
  const plain = plainAddress(address);
  if (allow.length && inNetworks(allow, plain)) return undefined;
  if (inNetworks(NON_PUBLIC_NETWORKS, plain)) return `${plain} is a loopback, link-local, private or otherwise non-public address`;
  if (ownAddresses().some((own) => plainAddress(own) === plain)) return `${plain} is an address of this service's own host`;
  return undefined;
}
