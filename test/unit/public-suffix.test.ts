import { isPublicSuffix, selfAndAncestors } from '../../src/dns/public-suffix';

describe('isPublicSuffix (the Public Suffix List as tldts ships it)', () => {
  it.each(['com', 'co.uk', 'github.io', 'in-addr.arpa', 'foo.ck', 's3.amazonaws.com', 'xn--fiqs8s'])('%s is one', (name) => {
    expect(isPublicSuffix(name)).toBe(true);
  });

  // names under a suffix, the exception of a wildcard rule (!www.ck), and special-use TLDs (RFC 6761) that the
  // list does not carry: only its implicit `*` rule matches them
  it.each([
    'example.com',
    'example.co.uk',
    'www.ck',
    'a.github.io',
    'test',
    'zone.test',
    'example',
    'localhost',
    'invalid',
    '_dmarc.example.com',
  ])('%s is not', (name) => {
    expect(isPublicSuffix(name)).toBe(false);
  });
});

it('selfAndAncestors lists the name and each ancestor, nearest first', () => {
  expect(selfAndAncestors('a.example.com')).toEqual(['a.example.com', 'example.com', 'com']);
});
