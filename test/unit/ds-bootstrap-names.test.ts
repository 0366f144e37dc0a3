/**
 * RFC 9615's signalling names (dns/dnssec/bootstrap-signal.ts) against the RFC's own example (§4.1.1), the name
 * length limit (§4.4), and which signals a set of zones asks for (services/dnssec/bootstrap-signals.ts,
 * `planSignals`): in-domain nameservers, nameservers in zones not hosted or not signed, in another account's zone
 * and not the service's own, and a child that publishes no CDS or the DS-delete one carry none.
 */
import { childOfSignalOwner, isSignalRecord, nameserverInChild, signalingName } from '../../src/dns/dnssec/bootstrap-signal';
import { ownerOf } from '../../src/dns/name';
import { CDS_DELETE } from '../../src/dns/record-types/cds';
import { planSignals } from '../../src/services/dnssec/bootstrap-signals';
import { dsyncNames } from '../../src/services/dnssec/cds-notify';
import { CDNSKEY_DELETE } from '../../src/services/dnssec/zone-keys';

test("the signalling names of the RFC's example: example.co.uk under ns1.example.net and ns2.example.org, none under ns3.example.co.uk", () => {
  expect(signalingName('example.co.uk', 'ns1.example.net.')).toBe('_dsboot.example.co.uk._signal.ns1.example.net');
  expect(signalingName('Example.CO.uk', 'NS2.example.org')).toBe('_dsboot.example.co.uk._signal.ns2.example.org');
  expect(nameserverInChild('example.co.uk', 'ns3.example.co.uk.')).toBe(true);
  expect(nameserverInChild('example.co.uk', 'ns1.example.net.')).toBe(false);
  // a name that merely ends in the child's letters is not inside it
  expect(nameserverInChild('example.co.uk', 'ns1.anexample.co.uk')).toBe(false);
  // as an owner in the zone holding the nameserver, and read back
  expect(ownerOf('_dsboot.example.co.uk._signal.ns1.example.net', 'example.net')).toBe('_dsboot.example.co.uk._signal.ns1');
  expect(ownerOf('_dsboot.example.co.uk._signal.ns1.example.net', 'ns1.example.net')).toBe('_dsboot.example.co.uk._signal');
  expect(childOfSignalOwner('_dsboot.example.co.uk._signal.ns1')).toBe('example.co.uk');
  expect(childOfSignalOwner('_dsboot.example.co.uk._signal')).toBe('example.co.uk');
  expect(isSignalRecord({ owner: '_dsboot.example.co.uk._signal.ns1', type: 'CDS' })).toBe(true);
  expect(isSignalRecord({ owner: '_dsboot.example.co.uk._signal.ns1', type: 'DNSKEY' })).toBe(false);
  expect(isSignalRecord({ owner: '@', type: 'CDS' })).toBe(false);
  expect(isSignalRecord({ owner: '_dsboot.example.co.uk', type: 'CDS' })).toBe(false);
});

test('a signalling name over 255 octets is none (RFC 9615 §4.4); at 255 it is one', () => {
  const label = 'a'.repeat(63);
  // child: 3 labels of 63 = 192 octets with their length octets; "_dsboot" 8, "_signal" 8, root 1: 209
  const child = `${label}.${label}.${label}`;
  // the nameserver's labels take the rest: 46 octets is "x" * 45 and its length octet
  const fits = `${'x'.repeat(45)}`;
  expect(signalingName(child, fits)).toBeDefined();
  expect(Buffer.byteLength(signalingName(child, fits)!) + 2).toBe(255);
  expect(signalingName(child, `${'x'.repeat(46)}`)).toBeUndefined();
});

const cds = (rdata: string) => ({ owner: '@', type: 'CDS', ttl: 300, rdata });
const cdnskey = (rdata: string) => ({ owner: '@', type: 'CDNSKEY', ttl: 300, rdata });

test('the plan: a signal in the signed zone holding each nameserver, none in-domain, unhosted, unsigned or for a DS-delete', () => {
  const hosting = [
    { id: 1, name: 'example.net', userId: 1, signed: true },
    { id: 2, name: 'sub.example.net', userId: 2, signed: true },
    { id: 3, name: 'example.org', userId: 1, signed: false },
    { id: 4, name: 'other.test', userId: 3, signed: true },
  ];
  // ns1.example.net is one of the service's own nameservers; ns.sub.example.net is the child's account's
  const service = new Set(['ns1.example.net']);
  const child = {
    id: 10,
    name: 'example.co.uk',
    userId: 2,
    state: 'signed' as const,
    nameservers: [
      'ns1.example.net.',
      'ns.sub.example.net.',
      'ns2.example.org.',
      'ns3.example.co.uk.',
      'ns.elsewhere.test.',
      'ns.other.test.',
    ],
    cds: [cds('12345 13 2 AABB'), cdnskey('257 3 13 AAAA')],
  };
  const plan = planSignals([child], hosting, service);
  expect([...plan.zones.keys()].sort()).toEqual([1, 2]);
  expect(plan.zones.get(1)!.records).toEqual([
    { owner: '_dsboot.example.co.uk._signal.ns1', type: 'CDS', ttl: 300, rdata: '12345 13 2 AABB' },
    { owner: '_dsboot.example.co.uk._signal.ns1', type: 'CDNSKEY', ttl: 300, rdata: '257 3 13 AAAA' },
  ]);
  // the longest hosted suffix holds the name
  expect(plan.zones.get(2)!.records.map((r) => r.owner)).toEqual(['_dsboot.example.co.uk._signal.ns', '_dsboot.example.co.uk._signal.ns']);
  expect(plan.skipped.map((s) => [s.nameserver, s.why])).toEqual([
    ['ns2.example.org', 'unsigned'],
    ['ns3.example.co.uk', 'in-domain'],
    ['ns.elsewhere.test', 'not-hosted'],
    // another account's zone, under a nameserver that is not the service's: no write into it (RFC 9615 §5: consent)
    ['ns.other.test', 'other-account'],
  ]);
  // a child going unsigned (the DS-delete pair) or publishing none mid-roll signals nothing
  expect(planSignals([{ ...child, cds: [cds(CDS_DELETE), cdnskey(CDNSKEY_DELETE)] }], hosting, service).zones.size).toBe(0);
  expect(planSignals([{ ...child, cds: [] }], hosting, service).zones.size).toBe(0);
  expect(planSignals([{ ...child, state: 'disabling' }], hosting, service).zones.size).toBe(0);
  // a child whose name makes the signalling name too long is skipped and said
  const long = `${'a'.repeat(63)}.${'a'.repeat(63)}.${'a'.repeat(63)}.${'a'.repeat(40)}`;
  const tooLong = planSignals([{ ...child, name: long, nameservers: ['ns1.example.net.'] }], hosting, service);
  expect(tooLong.zones.size).toBe(0);
  expect(tooLong.skipped).toEqual([{ child: long, nameserver: 'ns1.example.net', why: 'name-too-long' }]);
});

test('RFC 9859 §4.1: the DSYNC names of a child under its parent; none when the parent named is not strictly above it', () => {
  expect(dsyncNames('shop.example.com', 'example.com')).toEqual(['shop._dsync.example.com', '_dsync.example.com']);
  expect(dsyncNames('a.shop.example.com', 'example.com')).toEqual(['a.shop._dsync.example.com', '_dsync.example.com']);
  // a server that answers the child's own SOA for its parent's name names no parent
  expect(dsyncNames('example.com', 'example.com')).toBeUndefined();
  // labels compared whole: example.com is not above shop.notexample.com
  expect(dsyncNames('shop.notexample.com', 'example.com')).toBeUndefined();
});
