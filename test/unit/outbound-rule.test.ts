/**
 * The outbound rule (src/outbound/addresses.ts, `mayConnect`): one answer for an address whoever asks, refused
 * when it is not the public internet or this host's own, allowed when the caller's allow-list names it. The CIDR
 * helpers it stands on are the DNS model's (src/dns/ip.ts).
 */
import os from 'node:os';
import { inNetworks, parseCidr, plainAddress } from '../../src/dns/ip';
import { mayConnect } from '../../src/outbound/addresses';
import { REFUSED_ADDRESSES as REFUSED } from '../support/outbound-table';

/** the host's own non-loopback addresses (what the service listens on when HOST=0.0.0.0) */
const own = Object.values(os.networkInterfaces())
  .flatMap((list) => list ?? [])
  .filter((entry) => !entry.internal && entry.family === 'IPv4')
  .map((entry) => entry.address);

test.each(REFUSED)('%s (%s) is refused without an allow-list, and allowed when the allow-list names it', (address) => {
  const refused = mayConnect(address, []);
  expect(refused.ok).toBe(false);
  expect(!refused.ok && refused.reason).toMatch(/non-public address/);
  // another range named does not open it
  expect(mayConnect(address, ['192.0.2.0/24']).ok).toBe(false);
  const named = address.includes(':') && !plainAddress(address).match(/^\d+\./) ? `${address}/128` : `${plainAddress(address)}/32`;
  expect(mayConnect(address, [named])).toEqual({ ok: true });
});

test('an address of this host is refused whatever its range, unless named', () => {
  for (const address of own) {
    const refused = mayConnect(address, []);
    expect({ address, ok: refused.ok }).toEqual({ address, ok: false });
    expect(mayConnect(address, [`${address}/32`]).ok).toBe(true);
  }
});

test('public addresses are allowed; what is no IP address is refused', () => {
  for (const address of ['93.184.216.34', '1.1.1.1', '2606:4700:4700::1111', '::ffff:93.184.216.34'])
    expect(mayConnect(address, [])).toEqual({ ok: true });
  expect(mayConnect('ns1.example.net', [])).toMatchObject({ ok: false, reason: expect.stringMatching(/not an IP address/) });
});

test('the CIDR helpers: parsing, membership, IPv4-mapped addresses read as IPv4', () => {
  expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  expect(parseCidr('2001:db8::1')).toEqual({ address: '2001:db8::1', prefix: 128, family: 'ipv6' });
  for (const bad of ['10.0.0.0/33', '10.0.0.0/8/1', 'example.net', '2001:db8::/129', '10.0.0.0/x']) expect(parseCidr(bad)).toBeUndefined();
  expect(inNetworks(['10.0.0.0/8'], '::ffff:10.1.2.3')).toBe(true);
  expect(inNetworks(['10.0.0.0/8'], '::ffff:a01:203')).toBe(true);
  expect(inNetworks(['10.0.0.0/8', 'bogus'], '11.0.0.1')).toBe(false);
  expect(plainAddress('::ffff:c000:201')).toBe('192.0.2.1');
  expect(plainAddress('2001:db8::1')).toBe('2001:db8::1');
});
