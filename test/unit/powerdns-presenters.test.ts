/** PowerDNS's shapes made from the services' rows (src/powerdns/presenters.ts). */
import { parseApiRecord, parseStandaloneRecord } from '../../src/dns/record';
import { powerDnsContent, presentRrsets, presentZone, presentZoneJson, type ZoneFacts } from '../../src/powerdns/presenters';
import type { RecordRow } from '../../src/repositories/read-model';

const row = (id: number, owner: string, type: string, rdata: string, ttl = 300): RecordRow => ({
  id,
  domainId: 1,
  zone: 'example.com',
  owner,
  type,
  rdata,
  ttl,
});

describe('presentRrsets', () => {
  it('groups records by owner and type with absolute names, sorted by name, type and content', () => {
    const sets = presentRrsets('example.com', [
      row(1, 'www', 'A', '192.0.2.2'),
      row(2, '@', 'NS', 'ns1.example.net.'),
      row(3, 'www', 'A', '192.0.2.1'),
      row(4, 'www', 'AAAA', '2001:db8::1'),
    ]);
    expect(sets.map((s) => `${s.name} ${s.type} ${s.records.map((r) => r.content).join(',')}`)).toEqual([
      'example.com. NS ns1.example.net.',
      'www.example.com. A 192.0.2.1,192.0.2.2',
      'www.example.com. AAAA 2001:db8::1',
    ]);
    expect(sets[1].records[0]).toEqual({ content: '192.0.2.1', disabled: false });
    expect(sets[1].comments).toEqual([]);
  });

  it("gives an RRset the lowest of its records' TTLs (RFC 2181 §5.2, as PowerDNS shows it)", () => {
    const [set] = presentRrsets('example.com', [row(1, 'mx', 'TXT', '"a"', 3600), row(2, 'mx', 'TXT', '"b"', 300)]);
    expect(set.ttl).toBe(300);
  });

  it('shows disabled records in their RRset with disabled: true; an RRset of disabled records only keeps their TTL', () => {
    const sets = presentRrsets(
      'example.com',
      [row(1, 'www', 'A', '192.0.2.2', 300)],
      [],
      [
        { owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
        { owner: 'off', type: 'TXT', rdata: '"b"', ttl: 900 },
        { owner: 'off', type: 'TXT', rdata: '"a"', ttl: 1800 },
      ],
    );
    expect(sets.map((s) => ({ name: s.name, ttl: s.ttl, records: s.records }))).toEqual([
      {
        name: 'off.example.com.',
        ttl: 900,
        records: [
          { content: '"a"', disabled: true },
          { content: '"b"', disabled: true },
        ],
      },
      {
        name: 'www.example.com.',
        ttl: 300,
        records: [
          { content: '192.0.2.1', disabled: true },
          { content: '192.0.2.2', disabled: false },
        ],
      },
    ]);
  });
});

describe('presentZone', () => {
  it('is a Master zone (lego notifies only Master zones) whose serials are the zone serial', () => {
    const zone = presentZone({ name: 'example.com', serial: 2026112501, kind: 'primary' }, { account: 'ops@example.org', dnssec: true });
    expect(zone).toMatchObject({
      id: 'example.com.',
      name: 'example.com.',
      url: '/api/v1/servers/localhost/zones/example.com.',
      kind: 'Master',
      serial: 2026112501,
      notified_serial: 2026112501,
      edited_serial: 2026112501,
      dnssec: true,
      account: 'ops@example.org',
      masters: [],
    });
  });

  it('is a Slave zone when it is taken by transfer (PowerDNS 4.7 names a secondary so)', () => {
    const zone = presentZone({ name: 'example.net', serial: 1, kind: 'secondary' }, { account: 'ops@example.org', dnssec: false });
    expect(zone.kind).toBe('Slave');
  });
});

describe('presentZoneJson: the zone list writes each zone as JSON.stringify(presentZone) writes it', () => {
  const zones = [
    { name: 'example.com', serial: 2026112501, kind: 'primary' as const },
    { name: 'xn--bcher-kva.example', serial: 0, kind: 'primary' as const },
    { name: 'sub.example.net', serial: 4294967295, kind: 'secondary' as const },
    // a name as the service would never store it: what JSON escapes is escaped alike wherever it appears
    { name: 'odd"\\name\u0001.example', serial: 7, kind: 'primary' as const },
    // a `/` is written `=2F` in PowerDNS's ids (ws-api.cc apiNameToId); no zone name here holds one, and were the id
    // ever to differ from the name, this zone tells
    { name: 'a/b.example', serial: 8, kind: 'primary' as const },
  ];
  const facts: ZoneFacts[] = [
    { account: 'ops@example.org', dnssec: true },
    { account: '', kind: 'Native', dnssec: false, soaEditApi: 'INCREASE' },
    { account: 'provider "7" \\ tab\t nl\n \u0000 é 😀 \u2028', kind: 'Master', dnssec: false, soaEditApi: 'EPOCH' },
    { account: 'x', dnssec: false, primaries: [] },
    { account: 'x', dnssec: false, primaries: [{ address: '192.0.2.1', port: 53, tsigKeyName: null, transferred: true }] },
    {
      account: 'x',
      dnssec: true,
      primaries: [
        { address: '2001:db8::53', port: 5300, tsigKeyName: 'xfr', transferred: false },
        { address: '192.0.2.2', port: 5353, tsigKeyName: 'xfr' },
      ],
    },
  ];

  it('is byte for byte the object written by JSON.stringify, for every kind, label, account and primaries', () => {
    for (const zone of zones) for (const fact of facts) expect(presentZoneJson(zone, fact)).toBe(JSON.stringify(presentZone(zone, fact)));
  });
});

describe('TXT at the PowerDNS API: a string over 255 octets cut as PowerDNS cuts it, read back as one', () => {
  const read = (rdata: string) => parseStandaloneRecord('example.com', { owner: 't.example.com.', type: 'TXT', rdata, ttl: 300 }, []);
  const octets = (rdata: string) => rdata.match(/"[^"]*"/g)!.map((s) => Buffer.byteLength(s.slice(1, -1)));

  it('cuts every 255 octets, each over-long string apart, and reads the cut strings back as the one written', () => {
    const long = read(`"ab" "${'c'.repeat(600)}"`);
    expect(long.ok && octets(long.record.rdata)).toEqual([2, 255, 255, 90]);
    expect(long.ok && powerDnsContent('example.com', 'TXT', long.record.rdata)).toBe(`"ab" "${'c'.repeat(600)}"`);
  });

  it('reads a string of 300 octets back as one string, as PowerDNS 4.7.3 answers it (the differential compares it)', () => {
    // what octoDNS sends for a DKIM key: stored and served as PowerDNS serves it, 255 and 45 octets; read back as sent
    const dkim = read(`"${'d'.repeat(300)}"`);
    expect(dkim.ok && octets(dkim.record.rdata)).toEqual([255, 45]);
    expect(dkim.ok && powerDnsContent('example.com', 'TXT', dkim.record.rdata)).toBe(`"${'d'.repeat(300)}"`);
  });

  it('cuts inside a UTF-8 character, as PowerDNS 4.7 does (its AXFR: 255 and 145 octets of 200 é)', () => {
    const utf8 = read(`"${'é'.repeat(200)}"`);
    expect(utf8.ok && utf8.record.rdata.split('" "').map((s) => s.replace(/"/g, '').split('\\').length - 1)).toEqual([255, 145]);
  });

  it('reads a string of 255 octets with the next one only where that one is not empty', () => {
    const exact = `"${'a'.repeat(255)}" ""`;
    expect(powerDnsContent('example.com', 'TXT', exact)).toBe(exact);
    expect(powerDnsContent('example.com', 'SPF', `"${'a'.repeat(255)}" "b"`)).toBe(`"${'a'.repeat(255)}b"`);
  });

  it('leaves the record API strict: a quoted string over 255 octets is refused there (its client chooses its strings)', () => {
    const strict = parseApiRecord('example.com', { owner: 't', type: 'TXT', rdata: `"${'x'.repeat(256)}"`, ttl: 300 }, []);
    expect(strict.ok ? 'taken' : strict.problems.map((p) => p.code)).toEqual(['TXT_STRING_TOO_LONG']);
  });
});
