import { CanonicalRecord } from '../../src/dns/record';
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';
import { parseZoneFile, renderZoneFile } from '../../src/dns/zone-file';

const ZONE = 'example.com';
const SOA = 'ns1.example.net. hostmaster.example.net. 2025010100 3600 1800 604800 86400';

const records: CanonicalRecord[] = [
  { owner: 'www', type: 'CNAME', rdata: 'example.com.', ttl: 3600 },
  { owner: '@', type: 'NS', rdata: 'ns2.example.net.', ttl: 3600 },
  { owner: '@', type: 'SOA', rdata: SOA, ttl: 3600 },
  { owner: '@', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 },
  { owner: 'a.b', type: 'A', rdata: '192.0.2.1', ttl: 300 },
  { owner: 'b', type: 'TXT', rdata: '"semi;colon" "(paren)" "quote\\"" "\\000"', ttl: 300 },
  { owner: '_sip._tcp', type: 'SRV', rdata: '1 2 5060 sip.example.com.', ttl: 300 },
  { owner: '*', type: 'MX', rdata: '0 .', ttl: 300 },
  { owner: '@', type: 'HTTPS', rdata: '1 . alpn="h2,h3"', ttl: 300 },
];

describe('renderZoneFile', () => {
  it('writes $ORIGIN, $TTL, the SOA first and the rest sorted by owner then type', () => {
    expect(renderZoneFile(ZONE, records)).toBe(
      [
        '$ORIGIN example.com.',
        '$TTL 3600',
        `@ 3600 IN SOA ${SOA}`,
        '@ 300 IN HTTPS 1 . alpn="h2,h3"',
        '@ 3600 IN NS ns1.example.net.',
        '@ 3600 IN NS ns2.example.net.',
        '* 300 IN MX 0 .',
        '_sip._tcp 300 IN SRV 1 2 5060 sip.example.com.',
        'b 300 IN TXT "semi;colon" "(paren)" "quote\\"" "\\000"',
        'a.b 300 IN A 192.0.2.1',
        'www 3600 IN CNAME example.com.',
        '',
      ].join('\n'),
    );
  });

  it('round-trips: render -> parse gives the same records', () => {
    const parsed = parseZoneFile(ZONE, renderZoneFile(ZONE, records), DEFAULT_ALLOWED_TTLS);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    const key = (r: CanonicalRecord) => `${r.owner} ${r.type} ${r.rdata} ${r.ttl}`;
    expect(parsed.records.map(key).sort()).toEqual(records.map(key).sort());
  });
});

describe('parseZoneFile', () => {
  it('understands comments, $ORIGIN, $TTL, parentheses, blank owners, class and TTL in either order', () => {
    const text = [
      '; a comment line',
      '$TTL 1h',
      '$ORIGIN example.com.',
      '@ IN SOA ns1.example.net. hostmaster.example.net. ( 2025010100 ; serial',
      '        1h 30m 1w 1d )',
      '  IN NS ns1.example.net. ; the blank owner is the previous one (@)',
      '  NS ns2.example.net.',
      'www 300 IN A 192.0.2.1',
      'WWW IN 300 A 192.0.2.2',
      'mail  MX 10 mx ; relative to the origin',
      '$ORIGIN sub.example.com.',
      'host A 192.0.2.3',
      '  TXT "in ( parens ) and ; semicolons"',
      '@ CNAME target',
    ].join('\n');
    const parsed = parseZoneFile(ZONE, text, DEFAULT_ALLOWED_TTLS);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.records).toEqual([
      { owner: '@', type: 'SOA', rdata: SOA, ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns1.example.net.', ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns2.example.net.', ttl: 3600 },
      { owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 300 },
      { owner: 'www', type: 'A', rdata: '192.0.2.2', ttl: 300 },
      { owner: 'mail', type: 'MX', rdata: '10 mx.example.com.', ttl: 3600 },
      { owner: 'host.sub', type: 'A', rdata: '192.0.2.3', ttl: 3600 },
      { owner: 'host.sub', type: 'TXT', rdata: '"in ( parens ) and ; semicolons"', ttl: 3600 },
      { owner: 'sub', type: 'CNAME', rdata: 'target.sub.example.com.', ttl: 3600 },
    ]);
  });

  it('without $TTL a record takes the last explicit TTL (RFC 1035 §5.1), and with neither it is a problem', () => {
    const ok = parseZoneFile(ZONE, `@ 3600 SOA ${SOA}\n@ NS ns1.example.net.\n`, DEFAULT_ALLOWED_TTLS);
    expect(ok.ok && ok.records[1].ttl).toBe(3600);
    const missing = parseZoneFile(ZONE, `@ SOA ${SOA}\n@ 3600 NS ns1.example.net.\n`, DEFAULT_ALLOWED_TTLS);
    expect(!missing.ok && missing.problems.map((p) => [p.line, p.code])).toEqual([[1, 'TTL_MISSING']]);
  });

  it('gives every problem with its line', () => {
    const text = [
      '$TTL 3600', // 1
      `@ SOA ${SOA}`, // 2
      '@ NS ns1.example.net.', // 3
      'a A 01.2.3.4', // 4
      'b 61 A 192.0.2.1', // 5
      'c CH TXT "x"', // 6
      '$INCLUDE other.zone', // 7
      'd TYPE5050 x', // 8
      'e CNAME x.example.net.', // 9
      'e A 192.0.2.9', // 10
      'www.other.org. A 192.0.2.1', // 11
      'f TXT "unterminated', // 12
      'g MX ( 10', // 13
      '  mx.example.net. )', // 14
      'h SRV 1 2 ) 3 x', // 15
    ].join('\n');
    const parsed = parseZoneFile(ZONE, text, DEFAULT_ALLOWED_TTLS);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.problems.map((p) => [p.line, p.code])).toEqual([
      [4, 'INVALID_IPV4'],
      [5, 'TTL_NOT_ALLOWED'],
      [6, 'CLASS_NOT_SUPPORTED'],
      [7, 'DIRECTIVE_NOT_SUPPORTED'],
      [8, 'GENERIC_RDATA_FORM'],
      [10, 'CNAME_CONFLICT'],
      [11, 'OWNER_OUTSIDE_ZONE'],
      [12, 'UNTERMINATED_QUOTE'],
      [15, 'ZONE_FILE_SYNTAX'],
    ]);
  });

  it('checks the whole zone: SOA and apex NS are required', () => {
    const parsed = parseZoneFile(ZONE, 'www 3600 A 192.0.2.1\n', DEFAULT_ALLOWED_TTLS);
    expect(!parsed.ok && parsed.problems.map((p) => p.code)).toEqual(['SOA_MISSING', 'APEX_NS_MISSING']);
  });
});

describe('parseZoneFile: what real zones hold', () => {
  const HEAD = `$TTL 3600\n@ SOA ${SOA}\n@ NS ns1.example.net.\n`;
  const ok = (text: string, options = {}) => {
    const parsed = parseZoneFile(ZONE, text, [], options);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    return parsed;
  };
  const lines = (records: CanonicalRecord[]) =>
    records.filter((r) => r.type !== 'SOA' && r.type !== 'NS').map((r) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`);

  it('reads $ORIGIN . (the head of BIND and pdnsutil dumps): the names after it are absolute', () => {
    const parsed = ok(`$ORIGIN .\n$TTL 300\nexample.com IN SOA ${SOA}\n  NS ns1.example.net.\nwww.example.com A 192.0.2.1\n`);
    expect(parsed.records.map((r) => `${r.owner} ${r.type}`)).toEqual(['@ SOA', '@ NS', 'www A']);
  });

  it("expands $GENERATE with BIND's modifiers ${offset,width,base}, nibbles included", () => {
    const parsed = ok(
      `${HEAD}$GENERATE 1-3/2 host$ A 192.0.2.\${10,2,d}\n$GENERATE 1024-1025 \${0,3,n} 300 IN AAAA 2001:db8::\${0,4,x}\n$GENERATE 1-1 x\${-2,0,n} TXT "\\$"\n`,
    );
    expect(lines(parsed.records)).toEqual([
      'host1 3600 A 192.0.2.11',
      'host3 3600 A 192.0.2.13',
      '0.0.4 300 AAAA 2001:db8::400',
      '1.0.4 300 AAAA 2001:db8::401',
      'xf.f.f.f.f.f.f.f 3600 TXT "$"',
    ]);
    const bad = parseZoneFile(ZONE, `${HEAD}$GENERATE 5-1 a$ A 192.0.2.1\n$GENERATE 1-2 a\${1,2,q} A 192.0.2.1\n`, []);
    expect(!bad.ok && bad.problems.map((p) => [p.line, p.code])).toEqual([
      [4, 'GENERATE_INVALID'],
      [5, 'GENERATE_INVALID'],
    ]);
  });

  it('merges identical records with a warning, names compared case-insensitively (as BIND does)', () => {
    const parsed = ok(`${HEAD}@ MX 10 Mail\n@ MX 10 mail.example.com.\n@ SOA ${SOA}\n`);
    expect(lines(parsed.records)).toEqual(['@ 3600 MX 10 mail.example.com.']);
    expect(parsed.warnings.map((w) => [w.line, w.code])).toEqual([
      [5, 'DUPLICATE_RECORD_MERGED'],
      [6, 'DUPLICATE_RECORD_MERGED'],
    ]);
  });

  it("gives an RRset whose records differ in TTL the one BIND loads it with, with a warning naming them (the TTLs are named-checkzone -D's)", () => {
    // lines 4-5: one run of `www` (its first TTL); 6-9: `v` in two runs, the later one's TTL (line 9 repeats
    // line 6: merged, its TTL one of the run's); 10-11: one TTL, left as it is; 12-13: a $GENERATE record is added
    // at once, before the run that was being read, which BIND adds when the file ends (h's 300 comes last)
    const text = `${HEAD}www 300 A 192.0.2.1\nwww 86400 A 192.0.2.2\nv 7200 A 192.0.2.1\nx 300 A 192.0.2.9\nv 600 A 192.0.2.2\n  900 A 192.0.2.1\nt 300 TXT "t"\nt 300 TXT "u"\nh 300 A 192.0.2.1\n$GENERATE 2-3 h 1800 A 192.0.2.$\n`;
    const parsed = ok(text);
    expect(lines(parsed.records)).toEqual([
      'www 300 A 192.0.2.1',
      'www 300 A 192.0.2.2',
      'v 600 A 192.0.2.1',
      'x 300 A 192.0.2.9',
      'v 600 A 192.0.2.2',
      't 300 TXT "t"',
      't 300 TXT "u"',
      'h 300 A 192.0.2.1',
      'h 300 A 192.0.2.2',
      'h 300 A 192.0.2.3',
    ]);
    expect(parsed.warnings.map((w) => [w.line, w.code])).toEqual([
      [5, 'RRSET_TTLS_DIFFER'],
      [6, 'RRSET_TTLS_DIFFER'],
      [9, 'DUPLICATE_RECORD_MERGED'],
      [13, 'RRSET_TTLS_DIFFER'],
    ]);
    expect(parsed.warnings[1].message).toBe(
      'line 6: the A records at v have TTLs 7200 (line 6), 600 (line 8), 900 (line 9); an RRset has one TTL (RFC 2181 §5.2): 600 is kept for all, as BIND loads the file',
    );
    // the same RRsets with one TTL each: read as they are, no warning
    expect(ok(`${HEAD}www 300 A 192.0.2.1\nx 300 A 192.0.2.9\nwww 300 A 192.0.2.2\n`).warnings).toEqual([]);
  });

  it('holds ALLOWED_TTLS to the TTL an RRset keeps, not to each line: a line outside it whose RRset keeps an allowed one loads', () => {
    // 600 is not among the default allowed TTLs; BIND keeps the run's first TTL (300) for the RRset
    const loaded = ok(`${HEAD}www 300 A 192.0.2.1\nwww 600 A 192.0.2.2\n`);
    expect(lines(loaded.records)).toEqual(['www 300 A 192.0.2.1', 'www 300 A 192.0.2.2']);
    expect(loaded.warnings.map((w) => [w.line, w.code])).toEqual([[5, 'RRSET_TTLS_DIFFER']]);
    // kept 600: refused on each of its lines, saying whose TTL it is
    const refused = parseZoneFile(ZONE, `${HEAD}www 600 A 192.0.2.1\nwww 300 A 192.0.2.2\n`, DEFAULT_ALLOWED_TTLS);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.problems.map((p) => [p.line, p.code])).toEqual([
      [4, 'TTL_NOT_ALLOWED'],
      [5, 'TTL_NOT_ALLOWED'],
    ]);
    expect(refused.problems[1].message).toMatch(
      /^line 5: ttl: 600 is not one of the allowed values .* \(the TTL its A RRset keeps, as BIND loads the file\)$/,
    );
    // with ttlPolicy CLAMP, the RRset's one TTL is clamped, each line reported
    const clamped = parseZoneFile(ZONE, `${HEAD}www 600 A 192.0.2.1\nwww 300 A 192.0.2.2\n`, DEFAULT_ALLOWED_TTLS, { ttlPolicy: 'CLAMP' });
    expect(clamped.ok && lines(clamped.records)).toEqual(['www 900 A 192.0.2.1', 'www 900 A 192.0.2.2']);
  });

  it("takes escaped names, canonical, with host-name warnings; drops and counts the signer's records", () => {
    const parsed = ok(
      `${HEAD}\\100og A 192.0.2.1\n#x A 192.0.2.2\na\\.b TXT "x"\n@ RRSIG SOA 8 2 3600 20300101000000 20250101000000 1 example.com. AAAA\nTYPE46 TYPE46 \\# 0\n@ NSEC3PARAM 1 0 0 -\n`,
    );
    expect(lines(parsed.records)).toEqual(['dog 3600 A 192.0.2.1', '\\035x 3600 A 192.0.2.2', 'a\\.b 3600 TXT "x"']);
    expect(parsed.warnings.map((w) => [w.line, w.code])).toEqual([
      [5, 'NAME_NOT_HOSTNAME'],
      [6, 'NAME_NOT_HOSTNAME'],
    ]);
    expect(parsed.dropped).toEqual([
      { type: 'NSEC3PARAM', count: 1 },
      { type: 'RRSIG', count: 2 },
    ]);
  });

  it('warns of an owner without its final dot that repeats the origin, as of such a target: one warning, one wording', () => {
    const parsed = ok(
      `${HEAD}www.example.com A 192.0.2.1\n@ MX 10 mail.example.com\nwww.example.com. A 192.0.2.2\nexample.com.sub A 192.0.2.3\n$ORIGIN sub.example.com.\nhost.sub.example.com AAAA 2001:db8::1\n`,
    );
    expect(lines(parsed.records)).toEqual([
      'www.example.com 3600 A 192.0.2.1',
      '@ 3600 MX 10 mail.example.com.example.com.',
      'www 3600 A 192.0.2.2',
      'example.com.sub 3600 A 192.0.2.3',
      'host.sub.example.com.sub 3600 AAAA 2001:db8::1',
    ]);
    expect(parsed.warnings.map((w) => [w.line, w.field, w.code])).toEqual([
      [4, 'owner', 'RELATIVE_NAME_REPEATS_ZONE'],
      [5, 'rdata', 'RELATIVE_NAME_REPEATS_ZONE'],
      [9, 'owner', 'RELATIVE_NAME_REPEATS_ZONE'],
    ]);
    expect(parsed.warnings[0].message).toBe(
      'line 4: owner: the relative name "www.example.com" already ends with example.com, so it means www.example.com.example.com.; did you mean "www.example.com."?',
    );
    // the target's warning says the same thing in the same words
    expect(parsed.warnings[1].message).toMatch(
      /: the relative name "mail\.example\.com" already ends with example\.com, so it means mail\.example\.com\.example\.com\.; did you mean "mail\.example\.com\."\?$/,
    );
  });

  it('clamps TTLs outside the policy with ttlPolicy CLAMP, and says so', () => {
    const parsed = parseZoneFile(ZONE, `${HEAD}a 61 A 192.0.2.1\nb 100000 A 192.0.2.2\n`, [[300, 86400]], { ttlPolicy: 'CLAMP' });
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(lines(parsed.records)).toEqual(['a 300 A 192.0.2.1', 'b 86400 A 192.0.2.2']);
    expect(parsed.warnings.map((w) => w.message)).toEqual([
      'line 4: ttl: 61 is not allowed; clamped to 300',
      'line 5: ttl: 100000 is not allowed; clamped to 86400',
    ]);
  });

  it('refuses $INCLUDE with a message that says why', () => {
    const parsed = parseZoneFile(ZONE, `${HEAD}$INCLUDE /etc/passwd\n`, []);
    expect(!parsed.ok && parsed.problems[0].message).toMatch(/^line 4: \$INCLUDE cannot be used in an uploaded zone file/);
  });
});

describe("a record line's comment (docs/changes.md, «Comments»)", () => {
  const parse = (text: string) => {
    const result = parseZoneFile(ZONE, text, DEFAULT_ALLOWED_TTLS, { complete: false });
    if (!result.ok) throw new Error(JSON.stringify(result.problems));
    return result.comments;
  };

  it('is the text after the ; that ends a record written on one line, with its RRset and line', () => {
    expect(
      parse(
        [
          'www 300 IN A 192.0.2.1 ; the web server cf_tags=cf-proxied:true',
          '    300 IN A 192.0.2.2 ;   second  ',
          'txt 300 IN TXT "a;b" "(c)" ; after the strings',
          'plain 300 IN A 192.0.2.3',
          'empty 300 IN A 192.0.2.4 ;',
        ].join('\n'),
      ),
    ).toEqual([
      { owner: 'www', type: 'A', line: 1, text: 'the web server cf_tags=cf-proxied:true' },
      { owner: 'www', type: 'A', line: 2, text: 'second' },
      { owner: 'txt', type: 'TXT', line: 3, text: 'after the strings' },
    ]);
  });

  it('a line of a comment alone, and the comments of an entry that spans lines, are the file’s notes', () => {
    expect(
      parse(
        [
          ';; A Records',
          '; www 300 IN A 192.0.2.9',
          `@ 3600 IN SOA ${SOA.split(' ').slice(0, 2).join(' ')} ( ; the SOA`,
          '  2025010100 ; serial',
          '  3600 1800 604800 86400 ) ; minimum',
          'one 300 IN TXT ( "kept" ) ; on one line',
        ].join('\n'),
      ),
    ).toEqual([{ owner: 'one', type: 'TXT', line: 6, text: 'on one line' }]);
  });
});
