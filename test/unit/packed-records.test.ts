/**
 * PackedRecords (read-model.ts): one zone's records packed as text by `string_agg`, checked once and cut into
 * records when the answer iterates them. Whatever does not check out (a separator inside a value, a record
 * count that differs, ids out of order, an id or TTL that is not a decimal number) must be refused, so that
 * the zone is read row by row; the e2e test nested-records-packed.test.ts forges the separators in the table.
 */
import { PackedRecords } from '../../src/repositories/read-model';
import { unpackedCounts } from '../../src/repositories/read-model/packed-records';
import { answerBody, PlainRecordList } from '../../src/graphql/fast-path/answer-body';
import {
  JsonRecordShape,
  PackedField,
  packedJsonBytesExpected,
  plainRecordObjects,
  writePackedJson,
} from '../../src/graphql/fast-path/packed-json';

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

  describe('as JSON bytes (writePackedJson, answerBody)', () => {
    // every character JSON.stringify escapes (controls, quote, backslash) and some it does not (DEL, U+2028,
    // non-ASCII, an astral character), the separators aside
    const controls = Array.from({ length: 0x1e }, (_, c) => String.fromCharCode(c)).join('');
    const awkward = `${controls}"\\\x7f\u2028é漢😀 \\"`;
    const text = pack(
      [7, 'www', 'A', '192.0.2.1', 300],
      [9, `o${awkward}`, 'TXT', `"${awkward}"`, 0],
      [1234567890123, 'mail', 'MX', '10 mx.example.net.', 2147483647],
    );
    const records = PackedRecords.of(4, 'ex"ample\\.com', text, 3)!;
    const shapes: [string[], PackedField[]][] = [
      [
        ['owner', 'type', 'rdata', 'ttl'],
        ['owner', 'type', 'rdata', 'ttl'],
      ],
      [
        ['id', 'zone', 'z2', 'o', 'kind', 'ttl', 'rdata'],
        ['id', 'zone', 'zone', 'owner', { value: 'Record' }, 'ttl', 'rdata'],
      ],
      [['t'], ['type']],
    ];

    it.each(shapes)('writes what JSON.stringify writes of the plain objects (%j)', (keys, fields) => {
      const shape = new JsonRecordShape(keys, fields);
      const expected = Buffer.from(JSON.stringify(plainRecordObjects(records, keys, fields)));
      // more bytes than expected (escapes, non-ASCII): refused with too little room, written with enough
      if (expected.length > packedJsonBytesExpected(records, shape))
        expect(writePackedJson(records, Buffer.alloc(packedJsonBytesExpected(records, shape) + 3), 3, shape)).toBe(-1);
      for (let room = 0; room < expected.length; room++) expect(writePackedJson(records, Buffer.alloc(room), 0, shape)).toBe(-1);
      const out = Buffer.alloc(6 * expected.length, 0xff);
      const end = writePackedJson(records, out, 3, shape);
      expect(out.subarray(3, end).toString()).toBe(expected.toString());
      expect(out.subarray(3, end).equals(expected)).toBe(true);
    });

    it('expects the bytes exactly for ASCII text that JSON does not escape', () => {
      const plainText = PackedRecords.of(4, 'e.com', pack([1, 'www', 'A', '192.0.2.1', 60], [2, '@', 'MX', '10 mx.e.com.', 3600]), 2)!;
      for (const [keys, fields] of shapes) {
        const shape = new JsonRecordShape(keys, fields);
        const out = Buffer.alloc(packedJsonBytesExpected(plainText, shape));
        const end = writePackedJson(plainText, out, 0, shape);
        expect(out.subarray(0, end).toString()).toBe(JSON.stringify(plainRecordObjects(plainText, keys, fields)));
        expect(end).toBeLessThanOrEqual(packedJsonBytesExpected(plainText, shape));
      }
    });

    it('writes an empty zone as an empty list', () => {
      const shape = new JsonRecordShape(['owner'], ['owner']);
      const out = Buffer.alloc(16);
      expect(out.subarray(0, writePackedJson(PackedRecords.of(4, 'e.com', '', 0)!, out, 0, shape)).toString()).toBe('[]');
    });

    it('gives an answer whose bytes are JSON.stringify of the plain objects, and the text itself without lists', () => {
      const [keys, fields] = shapes[1];
      const shape = new JsonRecordShape(keys, fields);
      const list = () => new PlainRecordList(records, keys, fields, shape);
      const answer = {
        data: {
          users: {
            nodes: [
              {
                email: 'a"\\@b',
                domains: [
                  { name: 'x', records: list() },
                  { name: 'y', records: list() },
                ],
              },
            ],
          },
        },
      };
      const plain = JSON.stringify(answer); // the lists' toJSON outside answerBody: their plain objects
      expect(plain).toBe(
        JSON.stringify({
          data: {
            users: {
              nodes: [
                {
                  email: 'a"\\@b',
                  domains: [
                    { name: 'x', records: plainRecordObjects(records, keys, fields) },
                    { name: 'y', records: plainRecordObjects(records, keys, fields) },
                  ],
                },
              ],
            },
          },
        }),
      );
      const body = answerBody(answer);
      expect(Buffer.isBuffer(body)).toBe(true);
      expect((body as Buffer).equals(Buffer.from(plain))).toBe(true);
      expect(answerBody({ data: { a: '\u0000x' } })).toBe(JSON.stringify({ data: { a: '\u0000x' } }));
    });
  });
});

describe('unpackedCounts', () => {
  const records = (counts: string | undefined) =>
    PackedRecords.of(4, 'example.com', pack([7, 'www', 'A', '192.0.2.1', 300], [9, 'mail', 'MX', '10 mx.example.net.', 60]), 2, counts)!;

  it("gives the last queries and each window's sums as columns, in the records' order", () => {
    const counts = unpackedCounts(records(pack([1764460800123, 5, 12], ['', 0, 3])), 2);
    expect(counts).toEqual({
      sums: [
        [5, 0],
        [12, 3],
      ],
      lastQueried: [1764460800123, null],
    });
    // no window: the last queries alone
    expect(unpackedCounts(records(pack([''], [42])), 0)).toEqual({ sums: [], lastQueried: [null, 42] });
  });

  it('gives nothing when the list did not ask for them, or when they are not one entry per record of its fields', () => {
    expect(unpackedCounts(records(undefined), 1)).toBeUndefined();
    for (const forged of [
      pack([1, 5]), // one record short
      pack([1, 5], ['', 0], [2, 1]), // one record too many
      pack([1, 5, 2], ['', 0]), // a field too many
      pack([5], ['', 0]), // a field short
      pack([1, ''], ['', 0]), // a sum that is empty
      pack([1, 'x'], ['', 0]), // a sum that is not a number
      pack(['1x', 5], ['', 0]), // a last query that is not a number
    ])
      expect(unpackedCounts(records(forged), 1)).toBeUndefined();
  });
});
