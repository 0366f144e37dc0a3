/**
 * PackedRecords (read-model.ts): one zone's records packed as text by `string_agg`, checked once and cut into
 * records when the answer iterates them. Whatever does not check out (a separator inside a value, a record
 * count that differs, ids out of order, an id or TTL that is not a decimal number) must be refused, so that
 * the zone is read row by row; the e2e test nested-records-packed.test.ts forges the separators in the table.
 */
import { PackedRecords } from '../../src/repositories/read-model';

const F = '\x1f';
const R = '\x1e';
const pack = (...records: (string | number)[][]) => records.map((fields) => fields.join(F)).join(R);

describe('PackedRecords', () => {
  it('gives the records in order, each time it is iterated', () => {
    const text = pack(
      [7, 'www', 'A', '192.0.2.1', 300],
      [9, '@', 'TXT', '"v=spf1 -all"', 0],
      [12, 'mail', 'MX', '10 mx.example.net.', 86400],
    );
    const records = PackedRecords.of(4, 'example.com', text, 3)!;
    expect(records).toBeDefined();
    expect(records.length).toBe(3);
    const expected = [
      { id: 7, domainId: 4, zone: 'example.com', owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 300 },
      { id: 9, domainId: 4, zone: 'example.com', owner: '@', type: 'TXT', rdata: '"v=spf1 -all"', ttl: 0 },
      { id: 12, domainId: 4, zone: 'example.com', owner: 'mail', type: 'MX', rdata: '10 mx.example.net.', ttl: 86400 },
    ];
    expect([...records]).toEqual(expected);
    expect([...records]).toEqual(expected);
  });

  it('gives no records for an empty zone', () => {
    expect([...PackedRecords.of(4, 'example.com', '', 0)!]).toEqual([]);
    expect(PackedRecords.of(4, 'example.com', pack([1, 'a', 'A', '192.0.2.1', 1]), 0)).toBeUndefined();
  });

  it.each([
    ['a record separator inside a value (one record more than counted)', pack([1, 'a', 'A', `x${R}y`, 1]), 1],
    ['a record fewer than counted', pack([1, 'a', 'A', '192.0.2.1', 1]), 2],
    ['a field separator inside a value (six fields)', pack([1, 'a', 'TXT', `x${F}y`, 1]), 1],
    ['four fields', [1, 'a', 'A', '192.0.2.1'].join(F), 1],
    ['ids out of order', pack([5, 'a', 'A', '192.0.2.1', 1], [3, 'b', 'A', '192.0.2.2', 1]), 2],
    ['the same id twice', pack([5, 'a', 'A', '192.0.2.1', 1], [5, 'b', 'A', '192.0.2.2', 1]), 2],
    ['an id that is not a decimal number', pack(['5x', 'a', 'A', '192.0.2.1', 1]), 1],
    ['an empty TTL', pack([5, 'a', 'A', '192.0.2.1', '']), 1],
    ['a negative TTL', pack([5, 'a', 'A', '192.0.2.1', -1]), 1],
  ])('refuses %s', (_what, text, count) => {
    expect(PackedRecords.of(4, 'example.com', text, count)).toBeUndefined();
  });
});
