/** TRANSFER_ALLOW and UPDATE_ALLOW: addresses and networks (CIDR); an IPv4 address mapped into IPv6 is taken as IPv4 */
import net from 'node:net';

export function allowList(entries: string[]): net.BlockList {
  const list = new net.BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split('/');
    const type = address.includes(':') ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

export function isAllowed(list: net.BlockList, address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const v4 = mapped ? mapped[1] : address;
  return net.isIPv4(v4) ? list.check(v4, 'ipv4') : list.check(address, 'ipv6');
}
