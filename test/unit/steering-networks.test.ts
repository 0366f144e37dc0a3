/**
 * Client networks of steering's rules (docs/steering.md, «Rules by network and country»): sets of CIDR blocks
 * compared and written as ranges (dns/networks.ts), and countries' networks from the public-domain IPtoASN
 * database (services/steering/country-networks.ts), walked from its MaxMind DB tree and checked against
 * look-ups of single addresses down the same tree.
 */
import { addressNumber, cidrRange, formatAddress, mergeRanges, rangesOverlap, rangesToCidrs } from '../../src/dns/networks';
import { countryDatabaseBuilt, countryOfAddress, geoCountries, networksOfCountries } from '../../src/services/steering/country-networks';

const set = (...cidrs: string[]) => mergeRanges(cidrs.map((c) => cidrRange(c)!));

describe('network sets', () => {
  it('drops host bits, merges adjacent blocks and writes the fewest blocks back', () => {
    expect(rangesToCidrs(set('10.1.2.3/16'))).toEqual(['10.1.0.0/16']);
    expect(rangesToCidrs(set('10.0.0.0/25', '10.0.0.128/25', '10.0.1.0/24'))).toEqual(['10.0.0.0/23']);
    expect(rangesToCidrs(set('2001:db8::/33', '2001:db8:8000::/33', '127.0.0.16/28'))).toEqual(['127.0.0.16/28', '2001:db8::/32']);
    expect(rangesToCidrs(set('10.0.0.1', '10.0.0.2'))).toEqual(['10.0.0.1/32', '10.0.0.2/32']);
    expect(cidrRange('10.0.0.0/33')).toBeUndefined();
    expect(cidrRange('not-an-address')).toBeUndefined();
  });

  it('tells overlapping sets from apart ones, family by family', () => {
    expect(rangesOverlap(set('10.0.0.0/8'), set('10.200.0.0/16'))).toBe(true);
    expect(rangesOverlap(set('10.0.0.0/8'), set('11.0.0.0/8'))).toBe(false);
    expect(rangesOverlap(set('10.0.0.0/8', '2001:db8::/32'), set('2001:db8:1::/48'))).toBe(true);
    expect(rangesOverlap(set('::/0'), set('0.0.0.0/0'))).toBe(false);
  });
});

describe('countries from the IPtoASN database', () => {
  it('knows octoDNS geos: continents and their countries, not provinces', () => {
    expect(geoCountries('EU-DE')).toEqual(['DE']);
    expect(geoCountries('EU')).toContain('FR');
    expect(geoCountries('NA-US-CA')).toBeUndefined();
    expect(geoCountries('EU-US')).toBeUndefined();
  });

  it("gives a country's networks as the tree's blocks, each address of which the tree looks up as that country", () => {
    expect(countryDatabaseBuilt().getUTCFullYear()).toBeGreaterThanOrEqual(2026);
    const de = networksOfCountries(['DE']);
    const cidrs = rangesToCidrs(de);
    // thousands of prefixes, in both families
    expect(cidrs.length).toBeGreaterThan(1000);
    expect(de.some((r) => r.family === 4) && de.some((r) => r.family === 6)).toBe(true);
    // every 50th range: its first, last and middle address are DE by a look-up down the tree
    for (const range of de.filter((_, i) => i % 50 === 0))
      for (const address of [range.first, range.last, (range.first + range.last) / 2n])
        expect([formatAddress(range.family, address), countryOfAddress(range.family, address)]).toEqual([
          formatAddress(range.family, address),
          'DE',
        ]);
    // the address just past a range is not DE when it is in no other DE range
    const outside = de.filter((r, i) => r.family === 4 && i % 50 === 0).map((r) => r.last + 1n);
    for (const address of outside)
      if (!de.some((r) => r.family === 4 && r.first <= address && address <= r.last)) expect(countryOfAddress(4, address)).not.toBe('DE');
    // a continent is its countries
    const eu = networksOfCountries(geoCountries('EU')!);
    expect(rangesOverlap(eu, de)).toBe(true);
    expect(rangesOverlap(networksOfCountries(['JP']), de)).toBe(false);
    const google = addressNumber('8.8.8.8')!;
    expect(countryOfAddress(google.family, google.value)).toBe('US');
  });
});
