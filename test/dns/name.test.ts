import { isAtOrBelow, nameLabels, ownerOf, ownerToFqdn, parseDomainNameInRdata, parseOwner, parseZoneName } from '../../src/dns/name';
import type { Problem } from '../../src/dns/problem';
import { nameToWire, nameWireLength } from '../../src/dns/wire';

const codesOf = (r: { ok: boolean; problems?: { code: string }[] }) => (r.ok ? [] : r.problems!.map((p) => p.code));

describe('zone names', () => {
  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['  sub.example.com  ', 'sub.example.com'],
    ['com', 'com'],
    ['www.example.com', 'www.example.com'],
    ['a.b.c.d.e.f.example', 'a.b.c.d.e.f.example'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['例え。テスト', 'xn--r8jz45g.xn--zckzah'],
    ['_tcp.example.com', '_tcp.example.com'],
    ['2.0.192.in-addr.arpa', '2.0.192.in-addr.arpa'],
  ])('%j -> %j', (input, expected) => {
    expect(parseZoneName(input)).toEqual({ ok: true, name: expected });
  });

  it.each([
    ['', ['BAD_DOMAIN_NAME']],
    ['.', ['BAD_DOMAIN_NAME']],
    ['*.example.com', ['NAME_WILDCARD_POSITION']],
    ['exa mple.com', ['NAME_INVALID_CHARACTER']],
    ['a..com', ['NAME_EMPTY_LABEL']],
    [`${'a'.repeat(64)}.com`, ['NAME_LABEL_TOO_LONG']],
    [Array.from({ length: 128 }, () => 'ab').join('.'), ['NAME_TOO_LONG']],
    ['ex\\046ample.com', ['NAME_INVALID_CHARACTER']],
  ])('%j is refused with %j', (input, expected) => {
    const result = parseZoneName(input);
    expect(codesOf(result)).toEqual(expected);
    if (!result.ok) expect(result.problems.every((p) => p.field === 'zone')).toBe(true);
  });

  it('accepts exactly 255 octets in wire form and refuses 256', () => {
    // 4 labels of 63 octets = 4*64 + 1 = 257; 3 of 63 + one of 61 = 3*64 + 62 + 1 = 255
    const ok = [63, 63, 63, 61].map((n) => 'a'.repeat(n)).join('.');
    const tooLong = [63, 63, 63, 62].map((n) => 'a'.repeat(n)).join('.');
    expect(parseZoneName(ok).ok).toBe(true);
    const refused = parseZoneName(tooLong);
    expect(codesOf(refused)).toEqual(['NAME_TOO_LONG']);
    expect(!refused.ok && refused.problems[0].limit).toBe(255);
  });
});

describe('owners', () => {
  it.each([
    ['@', '@'],
    ['', '@'],
    ['example.com', '@'],
    ['example.com.', '@'],
    ['EXAMPLE.com.', '@'],
    ['www', 'www'],
    ['WWW', 'www'],
    ['www.example.com.', 'www'],
    ['www.example.com', 'www'],
    ['a.b.example.com.', 'a.b'],
    ['_dmarc', '_dmarc'],
    ['_sip._tcp', '_sip._tcp'],
    ['*', '*'],
    ['*.sub', '*.sub'],
    ['bücher', 'xn--bcher-kva'],
    ['www.other.org', 'www.other.org'],
  ])('%j -> %j', (input, expected) => {
    expect(parseOwner(input, 'example.com')).toEqual({ ok: true, name: expected });
  });

  it.each([
    ['www.other.org.', ['OWNER_OUTSIDE_ZONE']],
    ['notexample.com.', ['OWNER_OUTSIDE_ZONE']],
    ['a.*', ['NAME_WILDCARD_POSITION']],
    ['a b', ['NAME_INVALID_CHARACTER']],
    ['a..b', ['NAME_EMPTY_LABEL']],
    ['.www', ['NAME_EMPTY_LABEL']],
    [`${'x'.repeat(64)}`, ['NAME_LABEL_TOO_LONG']],
  ])('%j is refused with %j', (input, expected) => {
    const result = parseOwner(input, 'example.com');
    expect(codesOf(result)).toEqual(expected);
    if (!result.ok) expect(result.problems.every((p) => p.field === 'owner')).toBe(true);
  });

  it.each([
    ['*foo', '\\042foo'],
    ['w@w', 'w\\@w'],
    ['\\100\\079g', 'dog'],
    ['a\\.b', 'a\\.b'],
    ['A\\046B.Example.COM.', 'a\\.b'],
    ['#%&^[]?', '\\035\\037\\038\\094\\091\\093\\063'],
    ['*foo.a', '\\042foo.a'],
    ['\\000\\255', '\\000\\255'],
  ])(
    '%j is taken as %j (RFC 2181 §11; escapes canonical), with a NAME_NOT_HOSTNAME warning where not letters, digits, - and _',
    (input, expected) => {
      const warnings: Problem[] = [];
      const result = parseOwner(input, 'example.com', 'owner', warnings);
      expect(result).toEqual({ ok: true, name: expected });
      expect(warnings.map((w) => w.code)).toEqual(/^[a-z0-9_.-]+$/.test(expected) ? [] : ['NAME_NOT_HOSTNAME']);
    },
  );

  it('counts the zone in the 255-octet limit of the full name', () => {
    const zone = [63, 63].map((n) => 'z'.repeat(n)).join('.'); // 129 octets with the root
    const fits = [63, 61].map((n) => 'a'.repeat(n)).join('.'); // +126 = 255
    const overflows = [63, 62].map((n) => 'a'.repeat(n)).join('.');
    expect(parseOwner(fits, zone).ok).toBe(true);
    expect(codesOf(parseOwner(overflows, zone))).toEqual(['NAME_TOO_LONG']);
  });

  it('builds FQDNs', () => {
    expect(ownerToFqdn('www', 'example.com')).toBe('www.example.com.');
    expect(ownerToFqdn('@', 'example.com')).toBe('example.com.');
    expect(ownerToFqdn('@', 'example.com.')).toBe('example.com.');
  });
});

describe('names inside RDATA', () => {
  it.each([
    ['mail', 'mail.example.com.'],
    ['Mail.Example.NET.', 'mail.example.net.'],
    ['@', 'example.com.'],
    ['a.b', 'a.b.example.com.'],
    ['xn--bcher-kva.example.', 'xn--bcher-kva.example.'],
  ])('%j -> %j', (input, expected) => {
    expect(parseDomainNameInRdata(input, 'example.com', 'rdata')).toEqual({ ok: true, name: expected });
  });

  it('allows the root only when asked', () => {
    expect(codesOf(parseDomainNameInRdata('.', 'example.com', 'rdata'))).toEqual(['NAME_ROOT_NOT_ALLOWED']);
    expect(parseDomainNameInRdata('.', 'example.com', 'rdata', { allowRoot: true })).toEqual({ ok: true, name: '.' });
  });

  it('checks the length after completing a relative name with the origin', () => {
    const zone = [63, 63, 63].map((n) => 'z'.repeat(n)).join('.');
    expect(codesOf(parseDomainNameInRdata('a'.repeat(63), zone, 'rdata'))).toEqual(['NAME_TOO_LONG']);
    expect(parseDomainNameInRdata('a'.repeat(61), zone, 'rdata').ok).toBe(true);
  });

  it('uses the field name given', () => {
    const result = parseDomainNameInRdata('', 'example.com', 'rdata');
    expect(!result.ok && result.problems[0]).toMatchObject({ field: 'rdata', code: 'NAME_EMPTY' });
  });
});

test('nameToWire: the plain-name shortcut writes what the escape parser writes', () => {
  const slow = (name: string) => {
    const labels = nameLabels(name.replace(/\.$/, ''));
    return Buffer.concat([...labels.flatMap((l) => [Buffer.from([l.length]), l]), Buffer.from([0])]);
  };
  for (const name of [
    'example.com.',
    'www.example.com',
    '*.example.com.',
    '_sip._tcp.example.com.',
    'a-b.xn--bcher-kva.example.',
    'A.Example.COM.',
    `${'a'.repeat(63)}.example.`,
    'a\\.b.example.com.',
    '\\200.example.com.',
    '.',
  ]) {
    expect([name, nameToWire(name).toString('hex')]).toEqual([name, slow(name === '.' ? '' : name).toString('hex')]);
  }
});

test('nameWireLength: the octets nameToWire writes, with or without escapes', () => {
  for (const name of [
    'example.com.',
    'www.example.com',
    '*.example.com.',
    '_sip._tcp.example.com.',
    `${'a'.repeat(63)}.example.`,
    'a\\.b.example.com.',
    '\\200.example.com.',
    '.',
  ]) {
    expect([name, nameWireLength(name)]).toEqual([name, nameToWire(name).length]);
  }
  // a name that cannot be on the wire is never written (RFC 1035 §2.3.4: labels 1–63 octets, names 255)
  expect(() => nameToWire(`${'a'.repeat(64)}.example.`)).toThrow(RangeError);
  expect(() => nameToWire(`${Array(128).fill('a').join('.')}.`)).toThrow(RangeError);
});

describe('parseDomainNameInRdata: an absolute host name skips the escape parser and gives the same answer', () => {
  // what the escape parser makes of these: lower case, the same text, no problem, no warning
  it.each([
    'mx.example.com.',
    'MX.Example.COM.',
    '_sip._tcp.example.com.',
    `${'a'.repeat(63)}.example.`,
    `${['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.')}.`,
  ])('%s', (name) => {
    const warnings: Problem[] = [];
    const result = parseDomainNameInRdata(name, { origin: 'example.com', warnings }, 'rdata');
    expect(result).toEqual({ ok: true, name: name.toLowerCase() });
    expect(warnings).toEqual([]);
  });

  it('still refuses what the parser refuses: a long label, a long name, an empty label, a wildcard', () => {
    expect(codesOf(parseDomainNameInRdata(`${'a'.repeat(64)}.example.`, 'example.com', 'rdata'))).toEqual(['NAME_LABEL_TOO_LONG']);
    expect(
      codesOf(
        parseDomainNameInRdata(`${['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(62)].join('.')}.`, 'example.com', 'rdata'),
      ),
    ).toEqual(['NAME_TOO_LONG']);
    expect(codesOf(parseDomainNameInRdata('a..example.', 'example.com', 'rdata'))).toEqual(['NAME_EMPTY_LABEL']);
    expect(codesOf(parseDomainNameInRdata('*.example.', 'example.com', 'rdata'))).toEqual(['NAME_WILDCARD_POSITION']);
  });
});

describe('ownerOf: a name in a zone, as owners are stored', () => {
  it.each([
    ['example.com', 'example.com', '@'],
    ['example.com.', 'example.com', '@'],
    ['example.com', 'example.com.', '@'],
    ['www.example.com.', 'example.com', 'www'],
    ['www.example.com', 'example.com.', 'www'],
    ['a.b.example.com.', 'example.com', 'a.b'],
    ['_dsboot.example.co.uk._signal.ns1.example.net', 'example.net', '_dsboot.example.co.uk._signal.ns1'],
    ['*.example.com.', 'example.com', '*'],
    // case is not significant (RFC 4343 §2): the owner comes back lower case
    ['WWW.Example.COM.', 'example.com', 'www'],
    ['www.example.com.', 'EXAMPLE.Com.', 'www'],
    // labels are compared whole: a name that merely ends with the zone's text is not in it
    ['notexample.com.', 'example.com', undefined],
    ['badexample.com', 'example.com', undefined],
    ['www.notexample.com.', 'example.com', undefined],
    ['example.com.evil.', 'example.com', undefined],
    ['com.', 'example.com', undefined],
    ['example.org.', 'example.com', undefined],
    // an escaped dot is inside a label (RFC 1035 §5.1): `www\.example` is one label under com
    ['www\\.example.com.', 'example.com', undefined],
    ['www\\.example.com.', 'com', 'www\\.example'],
    // an escaped backslash before a dot leaves the dot a separator
    ['www\\\\.example.com.', 'example.com', 'www\\\\'],
    // an escaped final dot is part of the last label, not the root
    ['www.example.com\\.', 'example.com', undefined],
    // the root zone holds every name; the root is its apex
    ['www.example.com.', '', 'www.example.com'],
    ['www.example.com', '.', 'www.example.com'],
    ['.', '.', '@'],
    ['', '', '@'],
    ['.', 'com', undefined],
  ])('%j in %j -> %j', (name, zone, owner) => {
    expect(ownerOf(name, zone)).toBe(owner);
    expect(isAtOrBelow(name, zone)).toBe(owner !== undefined);
  });
});
