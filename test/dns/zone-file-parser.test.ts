import { parseZoneFile } from '../../src/dns/zone-file';
import { PARSE_INLINE_BELOW_CHARS, ZoneFileParser } from '../../src/services/zone-file-parser';

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
  parser = new ZoneFileParser();
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
