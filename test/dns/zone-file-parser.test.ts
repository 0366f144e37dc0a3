import { MAX_REPORTED, parseZoneFile, splitPieces, zoneFileReader } from '../../src/dns/zone-file';
import { DomainError } from '../../src/errors/catalogue';
import { PARSE_INLINE_BELOW_CHARS, ZoneFileParser } from '../../src/services/zones/zone-file-parser';

/** Large zone files parse on a worker thread, with the same answer as the DNS model's own parse. */
const zone = 'parser.example';
const file = (records: number, broken?: number) =>
  `$ORIGIN ${zone}.\n$TTL 3600\n` +
  Array.from({ length: records }, (_, i) => (i === broken ? `h${i} IN A 300.0.0.1` : `h${i} IN A 10.0.${(i >> 8) & 255}.${i & 255}`)).join(
    '\n',
  ) +
  '\n';

let parser: ZoneFileParser;
beforeEach(() => {
  parser = new ZoneFileParser(256);
});
afterEach(async () => parser.close());

test('a large file parses off the event loop, with the same records as the inline parse', async () => {
  const text = file(20_000);
  expect(text.length).toBeGreaterThan(PARSE_INLINE_BELOW_CHARS);
  let turns = 0;
  let counting = true;
  const count = () => {
    turns += 1;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  const result = await parser.parse(zone, text, [3600], { complete: false });
  counting = false;
  // the event loop kept turning while the file was parsed (an inline parse holds it for the whole parse)
  expect(turns).toBeGreaterThan(1);
  expect(result).toEqual(parseZoneFile(zone, text, [3600], { complete: false }));
  expect(result.ok && result.records.length).toBe(20_000);
});

test('problems come back with their lines, as from the inline parse', async () => {
  const text = file(5_000, 4_321);
  const result = await parser.parse(zone, text, [3600], { complete: false });
  expect(result.ok).toBe(false);
  expect(result).toEqual(parseZoneFile(zone, text, [3600], { complete: false }));
  if (!result.ok) expect(result.problems.map((p) => p.line)).toEqual([4_321 + 3]);
});

test('a stopped worker fails the parses it held; the next parse starts a new one', async () => {
  const text = file(20_000);
  const held = parser.parse(zone, text, [3600], { complete: false });
  await parser.close();
  await expect(held).rejects.toThrow(/zone-file parser stopped/);
  const again = await parser.parse(zone, text, [3600], { complete: false });
  expect(again.ok).toBe(true);
});

test('a small file parses inline', async () => {
  const text = file(10);
  let turns = 0;
  setImmediate(() => {
    turns += 1;
  });
  const result = await parser.parse(zone, text, [3600], { complete: false });
  expect(turns).toBe(0);
  expect(result.ok && result.records.length).toBe(10);
});

describe('the record limit is counted while the file is read', () => {
  // the first record of `file` is on line 3 (after $ORIGIN and $TTL)
  it('stops at the record that passes it, on the worker as inline', async () => {
    const text = file(200_000);
    const result = await parser.parse(zone, text, [3600], { complete: false, maxRecords: 1_000 });
    expect(result).toEqual({ ok: false, problems: [], recordLimit: { limit: 1_000, line: 1_000 + 3 } });
    expect(parseZoneFile(zone, file(2_000), [3600], { complete: false, maxRecords: 1_000 })).toEqual(result);
  });

  it('a file of exactly the limit parses whole', () => {
    const result = parseZoneFile(zone, file(1_000), [3600], { complete: false, maxRecords: 1_000 });
    expect(result.ok && result.records.length).toBe(1_000);
  });

  it("repeated records (merged) and the signer's (dropped) are not counted; `drop` drops more types the same way", () => {
    const text =
      file(3) +
      'h0 IN A 10.0.0.0\nh1 IN A 10.0.0.1\n' +
      'h0 IN RRSIG A 13 3 3600 20270101000000 20260101000000 12345 parser.example. AAAA\n' +
      'parser.example. IN DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==\n';
    const counted = parseZoneFile(zone, text, [3600], { complete: false, maxRecords: 3 });
    expect(counted).toEqual({ ok: false, problems: [], recordLimit: { limit: 3, line: 9 } });
    const dropped = parseZoneFile(zone, text, [3600], { complete: false, maxRecords: 3, drop: new Set(['DNSKEY']) });
    expect(dropped.ok && dropped.records.length).toBe(3);
    expect(dropped.ok && dropped.dropped).toEqual([
      { type: 'DNSKEY', count: 1 },
      { type: 'RRSIG', count: 1 },
    ]);
  });

  it('a $GENERATE range stops at the record that passes it', () => {
    const result = parseZoneFile(zone, `$TTL 3600\n$GENERATE 1-60000 h$ A 10.0.0.1\n`, [3600], { complete: false, maxRecords: 50 });
    expect(result).toEqual({ ok: false, problems: [], recordLimit: { limit: 50, line: 2 } });
  });
});

test('a file of many bad lines is refused with its first MAX_REPORTED problems, and read no further', () => {
  const text = Array.from({ length: MAX_REPORTED + 5_000 }, (_, i) => `h${i} 3600 IN A 300.0.0.1`).join('\n');
  const result = parseZoneFile(zone, text, [3600], { complete: false });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.problems).toHaveLength(MAX_REPORTED + 1);
  expect(result.problems[MAX_REPORTED]).toMatchObject({ code: 'TOO_MANY_PROBLEMS', line: MAX_REPORTED });
});

test("a file whose records pass the worker's heap is ZONE_FILE_TOO_LARGE, naming the setting; the next parse gets a new worker", async () => {
  const small = new ZoneFileParser(32);
  try {
    const refused = await small.parse(zone, file(600_000), [3600], { complete: false }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'ZONE_FILE_TOO_LARGE', details: [{ field: 'text', code: 'ZONE_FILE_TOO_LARGE', limit: 32 }] });
    expect((refused as Error).message).toContain('IMPORT_PARSER_HEAP_MB (32 MiB)');
    const again = await small.parse(zone, file(5_000), [3600], { complete: false });
    expect(again.ok).toBe(true);
  } finally {
    await small.close();
  }
  // 600,000 records parsed in a worker until its heap is passed: seconds alone, more than a minute in CI's checks,
  // which run at a lower priority beside the lanes (a bound on a hang)
}, 180_000);

test('read in pieces of any size, a file gives what it gives read whole', () => {
  const text =
    `$ORIGIN ${zone}.\n$TTL 3600\n@ IN SOA ( ns1.example.net. ; the primary\n  hostmaster.example.net. 1 3600\n 1800 604800 86400 )\n` +
    `@ NS ns1.example.net.\nt TXT "a;b" "c\\"d" ( "e"\n "f" )\n  A 192.0.2.1\nx\\ y A 192.0.2.2 ; comment\nbad A 300.1.1.1\nq TXT "open\n`;
  const whole = parseZoneFile(zone, text, [3600]);
  expect(whole.ok).toBe(false);
  for (const size of [1, 7, 40, 1000]) {
    const reader = zoneFileReader(zone, [3600]);
    for (const piece of splitPieces(text, size)) reader.read(piece);
    expect({ size, result: reader.end() }).toEqual({ size, result: whole });
  }
});
