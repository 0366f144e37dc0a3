/**
 * The whole-zone signer on a zone of 150,000 names: past the ~125,000 arguments a JavaScript call takes before
 * the stack overflows, so anything that passes the chain or the zone as a spread of arguments fails here.
 * (It did: `added.push(...chain)` threw RangeError on the benchmark's 1,000,000-record zone.)
 */
import { DNSSEC_ALGORITHMS } from '../../src/dns/dnssec/algorithms';
import { canonicalRdata } from '../../src/dns/dnssec/canonical-rdata';
import { dnskeyOf, dnskeyTag } from '../../src/dns/dnssec/keys';
import { signZone, ZoneKey } from '../../src/dns/dnssec/zone-signer';
import { CanonicalRecord } from '../../src/dns/record';
describe('signing a large zone whole', () => {
  it('builds the chain of 150,000 names (no argument list the size of the zone)', () => {
    // the keys are published but sign nothing: the chain alone, which is what outgrew a spread's arguments
    const algorithm = DNSSEC_ALGORITHMS.ECDSAP256SHA256;
    const privateKey = algorithm.generate();
    const dnskey = dnskeyOf(privateKey, algorithm, true);
    const key: ZoneKey = { role: 'CSK', algorithm, privateKey, dnskey, tag: dnskeyTag(dnskey), published: true, signing: false };
    const names = 150_000;
    const records: CanonicalRecord[] = [
      { owner: '@', type: 'SOA', ttl: 3600, rdata: 'ns1.large.example. hostmaster.large.example. 1 7200 3600 1209600 300' },
      { owner: '@', type: 'NS', ttl: 3600, rdata: 'ns1.large.example.' },
    ];
    for (let i = 0; i < names; i++)
      records.push({ owner: `h${i}`, type: 'A', ttl: 3600, rdata: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` });
    const window = { inception: 0, expiration: () => 1 };
    const added = signZone('large.example', records, [key], { kind: 'nsec' }, window, canonicalRdata);
    // the DNSKEY and one NSEC per name and at the apex
    expect(added.filter((r) => r.type === 'NSEC')).toHaveLength(names + 1);
    expect(added.filter((r) => r.type === 'DNSKEY')).toHaveLength(1);
  });
});
