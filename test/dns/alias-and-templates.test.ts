/** The DNS model's side of templates and ALIAS (docs/templates-and-alias.md): expansion, and the ALIAS rules. */
import { parseRecord } from '../../src/dns/record';
import { checkRecordPlacement, checkZone } from '../../src/dns/zone-rules';
import { expandTemplate } from '../../src/dns/zone-template';
import { zoneFileLine } from '../../src/dns/zone-file';

const ZONE = 'example.org';
const SOA = { owner: '@', type: 'SOA', rdata: 'ns1.example.net. hostmaster.{zone}. 7 3600 900 604800 300', ttl: 3600 };
const NS = { owner: '@', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 };

test('a template expands {zone} and relative names for the zone, and the SOA takes the serial given', () => {
  const result = expandTemplate(ZONE, [SOA, NS, { owner: 'www', type: 'CNAME', rdata: '@', ttl: 300 }], [], 2026112501);
  expect(result).toEqual({
    ok: true,
    records: [
      { owner: '@', type: 'SOA', rdata: 'ns1.example.net. hostmaster.example.org. 2026112501 3600 900 604800 300', ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 },
      { owner: 'www', type: 'CNAME', rdata: 'example.org.', ttl: 300 },
    ],
  });
});

test('a template problem names its record: records[i].field, owner and type in the message', () => {
  const result = expandTemplate(ZONE, [SOA, NS, { owner: '@', type: 'CNAME', rdata: 'x.example.net.', ttl: 300 }], []);
  expect(result.ok).toBe(false);
  expect(!result.ok && result.problems[0]).toMatchObject({ field: 'records[2].owner', code: 'CNAME_AT_APEX' });
  expect(!result.ok && result.problems[0].message).toMatch(/^records\[2\] \(@ CNAME\): /);
});

test('ALIAS and ANAME parse as PowerDNS and the draft write them, and print back the same', () => {
  const alias = parseRecord(ZONE, { owner: '@', type: 'alias', rdata: 'CDN.example.net.', ttl: 300 }, []);
  expect(alias).toMatchObject({ ok: true, record: { owner: '@', type: 'ALIAS', rdata: 'cdn.example.net.' } });
  const aname = parseRecord(ZONE, { owner: 'www', type: 'ANAME', rdata: 'lb', ttl: 300 }, []);
  expect(aname).toMatchObject({ ok: true, record: { type: 'ANAME', rdata: 'lb.example.org.' } });
  expect(alias.ok && zoneFileLine(alias.record)).toBe('@ 300 IN ALIAS cdn.example.net.\n');
});

test('ALIAS rules: no CNAME or A/AAAA of a person beside it, one per owner, no loop (a zone-wide loop at its last record)', () => {
  const alias = { owner: '@', type: 'ALIAS', rdata: 'cdn.example.net.', ttl: 300 };
  const codes = (beside: (typeof alias)[], next: typeof alias) =>
    checkRecordPlacement(ZONE, beside, next).map((p) => `${p.field} ${p.code}`);
  expect(codes([{ owner: '@', type: 'A', rdata: '192.0.2.1', ttl: 300 }], alias)).toEqual(['type ALIAS_CONFLICT']);
  expect(codes([alias], { owner: '@', type: 'AAAA', rdata: '2001:db8::1', ttl: 300 })).toEqual(['type ALIAS_CONFLICT']);
  expect(codes([alias], { ...alias, type: 'ANAME' })).toEqual(['type ALIAS_CONFLICT']);
  expect(codes([{ owner: 'w', type: 'CNAME', rdata: 'x.', ttl: 300 }], { ...alias, owner: 'w' })).toEqual(['type CNAME_CONFLICT']);
  expect(codes([], { owner: 'a', type: 'ALIAS', rdata: 'a.example.org.', ttl: 300 })).toEqual(['rdata ALIAS_LOOP']);
  // the target's owner read beside it (ownersToCheck): a two-step loop
  expect(
    codes([{ owner: 'b', type: 'ALIAS', rdata: 'a.example.org.', ttl: 300 }], {
      owner: 'a',
      type: 'ALIAS',
      rdata: 'b.example.org.',
      ttl: 300,
    }),
  ).toEqual(['rdata ALIAS_LOOP']);
  const zone = [
    { ...SOA, rdata: 'ns1.example.net. hostmaster.example.org. 1 3600 900 604800 300' },
    NS,
    { owner: 'x', type: 'ALIAS', rdata: 'y.example.org.', ttl: 300 },
    { owner: 'y', type: 'ANAME', rdata: 'z.example.org.', ttl: 300 },
    { owner: 'z', type: 'ALIAS', rdata: 'x.example.org.', ttl: 300 },
  ];
  expect(checkZone(ZONE, zone).map((p) => p.code)).toEqual(['ALIAS_LOOP']);
  expect(checkZone(ZONE, zone.slice(0, 4))).toEqual([]);
});
