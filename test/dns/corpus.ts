/**
 * A deterministic (seeded) corpus of record inputs, valid and invalid, over every supported type. Used by
 * zone-checkers.test.ts to hold the model against BIND's named-checkzone and Knot's kzonecheck.
 */
import { DEFAULT_ALLOWED_TTLS } from '../../src/dns/ttl';

export interface CorpusRecord {
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
}

/** mulberry32: a small, well-known 32-bit PRNG; enough for reproducible test data */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(maxInclusive: number): number {
    return Math.floor(this.next() * (maxInclusive + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length - 1)];
  }
}

const BAD_RATE = 0.12;

function makeGenerators(r: Random) {
  const g = {
    uint: (max: number, bad: string[] = [String(max + 1), '-1', 'x1', '1.5']) =>
      r.chance(BAD_RATE) ? r.pick(bad) : String(r.chance(0.2) ? r.pick([0, max]) : r.int(max)),
    timer: () =>
      r.chance(BAD_RATE)
        ? r.pick(['2147483648', '1x', '-5', 'abc'])
        : r.chance(0.3)
          ? r.pick(['1h', '30m', '2d', '1w', '1h30m'])
          : String(r.int(2147483647)),
    label: () => {
      const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
      let s = alphabet[r.int(25)];
      for (let i = r.int(10); i > 0; i--) s += alphabet[r.int(alphabet.length - 1)];
      return r.chance(0.15) ? s.toUpperCase() : s;
    },
    host: (allowRoot = false): string => {
      if (r.chance(BAD_RATE)) {
        return r.pick([
          'a..b.example.net.',
          'bad_name!.example.net.',
          `${'x'.repeat(64)}.example.net.`,
          '*.example.net.',
          'a\\.b.example.net.',
          'host .example.net.',
          Array.from({ length: 130 }, () => 'a').join('.') + '.',
          '.',
          'a@b.example.net.',
        ]);
      }
      const choice = r.int(9);
      if (choice === 0) return r.pick(['@', 'mail', 'ns1', 'host-1']);
      if (choice === 1 && allowRoot) return '.';
      if (choice === 2) return 'münchen.example.';
      if (choice === 3) return `${g.label()}.${g.label()}`;
      if (choice === 4) return '_srv.' + g.label() + '.example.org.';
      return `${g.label()}.example.${r.pick(['net', 'org', 'com'])}.`;
    },
    ipv4: () =>
      r.chance(BAD_RATE)
        ? r.pick(['256.1.1.1', '01.2.3.4', '1.2.3', '1.2.3.4.5', 'a.b.c.d', '::1', '1.2.3.04', ''])
        : [r.int(255), r.int(255), r.int(255), r.int(255)].join('.'),
    ipv6: () => {
      if (r.chance(BAD_RATE))
        return r.pick(['gggg::1', '1::2::3', '1:2:3:4:5:6:7:8:9', '12345::', '1.2.3.4', ':::', '1:2:3:4:5:6:7', 'fe80::1%eth0']);
      const words = Array.from({ length: 8 }, () => (r.chance(0.4) ? 0 : r.int(65535)));
      const form = r.int(4);
      if (form === 0) return '::' + (r.chance(0.5) ? '1' : 'ffff:' + [r.int(255), r.int(255), r.int(255), r.int(255)].join('.'));
      if (form === 1)
        return words
          .map((w) => w.toString(16).padStart(4, '0'))
          .join(':')
          .toUpperCase();
      return words
        .map((w) => w.toString(16))
        .join(':')
        .replace(/(^|:)0(:0)+(:|$)/, '::');
    },
    text: (maxLength = 60) => {
      const n = r.int(maxLength);
      let s = '';
      for (let i = 0; i < n; i++) {
        const k = r.int(40);
        if (k === 0) s += '\\"';
        else if (k === 1) s += '\\\\';
        else if (k === 2) s += '\\' + String(r.int(255)).padStart(3, '0');
        else if (k === 3) s += 'é';
        else if (k === 4) s += ';';
        else s += String.fromCharCode(32 + r.int(94)).replace(/["\\]/, 'q');
      }
      return s;
    },
    charString: (): string => {
      if (r.chance(BAD_RATE)) {
        return r.pick([`"${'y'.repeat(256 + r.int(40))}"`, '"\\256"', '"unterminated', 'a"b"c', '"\\12"', 'z'.repeat(300)]);
      }
      if (r.chance(0.1)) return `"${'w'.repeat(240 + r.int(15))}"`;
      if (r.chance(0.25)) return g.label();
      return `"${g.text()}"`;
    },
    hex: (octets: number) => {
      const bytes = Buffer.alloc(octets);
      for (let i = 0; i < octets; i++) bytes[i] = r.int(255);
      let h = bytes.toString('hex');
      if (r.chance(0.3)) h = h.toUpperCase();
      if (r.chance(0.2) && h.length > 8) h = h.slice(0, 8) + ' ' + h.slice(8);
      return h;
    },
    base64: () => {
      if (r.chance(BAD_RATE)) return r.pick(['abc', '!!!!', 'AAA=A', '']);
      const bytes = Buffer.alloc(1 + r.int(40));
      for (let i = 0; i < bytes.length; i++) bytes[i] = r.int(255);
      return bytes.toString('base64');
    },
  };
  return g;
}

type Generators = ReturnType<typeof makeGenerators>;

function svcbRdata(r: Random, g: Generators): string {
  const priority = r.chance(0.2) ? '0' : g.uint(65535);
  const target = g.host(true);
  if (priority === '0' && !r.chance(BAD_RATE)) return `${priority} ${target}`;
  const params: string[] = [];
  const keys = ['alpn', 'port', 'ipv4hint', 'ipv6hint', 'ech', 'no-default-alpn', 'mandatory', `key${1000 + r.int(60000)}`, 'key3', 'foo'];
  const used = new Set<string>();
  for (let n = r.int(4); n > 0; n--) {
    const key = r.pick(keys);
    if (used.has(key) && !r.chance(0.1)) continue;
    used.add(key);
    switch (key) {
      case 'alpn':
        params.push(`alpn=${r.pick(['h2', 'h3', '"h2,h3"', 'http/1.1', '"h3,h2,http/1.1"', r.chance(0.2) ? '""' : 'h2'])}`);
        break;
      case 'port':
      case 'key3':
        params.push(`${key}=${g.uint(65535)}`);
        break;
      case 'ipv4hint':
        params.push(`ipv4hint=${[g.ipv4(), g.ipv4()].slice(0, 1 + r.int(1)).join(',')}`);
        break;
      case 'ipv6hint':
        params.push(`ipv6hint=${[g.ipv6(), g.ipv6()].slice(0, 1 + r.int(1)).join(',')}`);
        break;
      case 'ech':
        params.push(`ech=${g.base64()}`);
        break;
      case 'no-default-alpn':
        params.push('no-default-alpn');
        if (!used.has('alpn') && r.chance(0.8)) {
          used.add('alpn');
          params.push('alpn=h2');
        }
        break;
      case 'mandatory':
        params.push(`mandatory=${r.pick(['alpn', 'port', 'alpn,port', 'ipv4hint', 'mandatory'])}`);
        break;
      case 'foo':
        params.push('foo=bar');
        break;
      default:
        params.push(r.chance(0.3) ? key : `${key}="${g.text(20)}"`);
    }
  }
  // mandatory keys usually present, so that most generated records are valid
  const mandatory = params.find((p) => p.startsWith('mandatory='));
  if (mandatory && r.chance(0.8)) {
    for (const k of mandatory.slice('mandatory='.length).split(',')) {
      if (k !== 'mandatory' && !used.has(k)) {
        used.add(k);
        params.push(k === 'alpn' ? 'alpn=h2' : k === 'port' ? 'port=443' : 'ipv4hint=192.0.2.1');
      }
    }
  }
  return [priority, target, ...params].join(' ');
}

function rdataFor(type: string, r: Random, g: Generators): string {
  switch (type) {
    case 'A':
      return g.ipv4();
    case 'AAAA':
      return g.ipv6();
    case 'MX':
      return r.chance(0.1) ? r.pick(['0 .', '10 .']) : `${g.uint(65535)} ${g.host()}`;
    case 'SRV':
      return `${g.uint(65535)} ${g.uint(65535)} ${g.uint(65535)} ${g.host(true)}`;
    case 'SOA':
      return `${g.host()} ${g.host()} ${g.uint(4294967295)} ${g.timer()} ${g.timer()} ${g.timer()} ${g.timer()}`;
    case 'TXT':
    case 'SPF':
      return Array.from({ length: 1 + r.int(3) }, () => g.charString()).join(' ');
    case 'CAA': {
      const tag = r.chance(BAD_RATE)
        ? r.pick(['is-sue', 'abcdefghijklmnop', '""', 'tag!'])
        : r.pick(['issue', 'issuewild', 'iodef', 'ISSUE', 'tbs', g.label().slice(0, 15)]);
      const value = r.chance(0.6)
        ? r.pick(['"letsencrypt.org"', '"ca.example.net; account=123"', '";"', '"mailto:sec@example.com"', '""'])
        : g.charString();
      return `${g.uint(255)} ${tag} ${value}`;
    }
    case 'DSYNC': {
      // RFC 9859 §2.2: the type notified by mnemonic or TYPEnnn, the scheme by number or mnemonic
      const rrtype = r.chance(BAD_RATE) ? r.pick(['BOGUS', 'TYPE0', '""']) : r.pick(['CDS', 'cds', 'CDNSKEY', 'CSYNC', 'TYPE62']);
      const scheme = r.chance(0.3) ? r.pick(['NOTIFY', 'notify']) : g.uint(255);
      return `${rrtype} ${scheme} ${g.uint(65535)} ${g.host()}`;
    }
    case 'HINFO':
      return r.chance(BAD_RATE) ? g.charString() : `${g.charString()} ${g.charString()}`;
    case 'RP':
      return `${r.chance(0.2) ? '.' : g.host()} ${r.chance(0.2) ? '.' : g.host()}`;
    case 'URI':
      return `${g.uint(65535)} ${g.uint(65535)} ${r.chance(BAD_RATE) ? '""' : r.pick(['"ftp://ftp1.example.com/public"', '"https://www.example.org/a?b=c"', '"mailto:x@example.net"', `"${g.text(40)}"`])}`;
    case 'CERT':
      return `${r.pick(['PKIX', 'PGP', 'IPGP', 'URI', g.uint(65535), 'BOGUS'])} ${g.uint(65535)} ${r.pick(['RSASHA256', 'ECDSAP256SHA256', 'PRIVATEOID', g.uint(255)])} ${g.base64()}`;
    case 'OPENPGPKEY':
    case 'DHCID':
      return g.base64();
    case 'SMIMEA': {
      const mt = r.chance(BAD_RATE) ? '3' : String(r.int(2));
      const octets = mt === '1' ? 32 : mt === '2' ? 64 : 1 + r.int(100);
      return `${r.int(3)} ${r.int(1)} ${mt} ${g.hex(r.chance(BAD_RATE) ? octets + 1 : octets)}`;
    }
    case 'IPSECKEY': {
      const gatewayType = r.chance(BAD_RATE) ? '4' : String(r.int(3));
      const gateway = [r.chance(BAD_RATE) ? 'x' : '.', g.ipv4(), g.ipv6(), g.host()][Number(gatewayType) % 4];
      return `${g.uint(255)} ${gatewayType} ${r.int(3)} ${gateway}${r.chance(0.8) ? ` ${g.base64()}` : ''}`;
    }
    case 'APL': {
      const item = () =>
        r.chance(0.5)
          ? `${r.chance(0.3) ? '!' : ''}1:${g.ipv4()}/${r.chance(BAD_RATE) ? 33 : r.int(32)}`
          : `${r.chance(0.3) ? '!' : ''}2:${g.ipv6()}/${r.chance(BAD_RATE) ? 129 : r.int(128)}`;
      return Array.from({ length: r.int(3) }, item).join(' ');
    }
    case 'LOC': {
      const angle = (max: number, hemispheres: string) => {
        const d = r.chance(BAD_RATE) ? max + 1 : r.int(max - 1);
        const parts = [String(d)];
        if (r.chance(0.7)) parts.push(String(r.int(59)));
        if (parts.length === 2 && r.chance(0.7)) parts.push(r.chance(0.5) ? String(r.int(59)) : `${r.int(59)}.${r.int(999)}`);
        return `${parts.join(' ')} ${r.pick(hemispheres.split(''))}`;
      };
      const sizes = Array.from({ length: r.int(3) }, () => `${r.pick(['0', '1', '30', '2000', '10000', '0.5', '15'])}m`);
      return `${angle(90, 'NS')} ${angle(180, 'EW')} ${r.pick(['-24m', '0', '10m', '123.45m', '-100000m', '42849672.95m', r.chance(BAD_RATE) ? '-100001m' : '5m'])} ${sizes.join(' ')}`;
    }
    case 'NID':
    case 'L64': {
      const groups = Array.from({ length: r.chance(BAD_RATE) ? 3 : 4 }, () => r.int(65535).toString(16).padStart(4, '0'));
      return `${g.uint(65535)} ${groups.join(':')}`;
    }
    case 'L32':
      return `${g.uint(65535)} ${g.ipv4()}`;
    case 'LP':
      return `${g.uint(65535)} ${g.host()}`;
    case 'EUI48':
    case 'EUI64': {
      const n = (type === 'EUI48' ? 6 : 8) + (r.chance(BAD_RATE) ? 1 : 0);
      return Array.from({ length: n }, () => r.int(255).toString(16).padStart(2, '0')).join(r.chance(0.05) ? ':' : '-');
    }
    case 'ZONEMD': {
      const algorithm = r.chance(BAD_RATE) ? r.pick(['0', '3', '256']) : r.pick(['1', '2']);
      const octets = { 1: 48, 2: 64 }[Number(algorithm)] ?? 20;
      return `${g.uint(4294967295)} ${r.chance(BAD_RATE) ? '0' : '1'} ${algorithm} ${g.hex(r.chance(BAD_RATE) ? octets - 1 : octets)}`;
    }
    case 'DNSKEY':
    case 'CDNSKEY': {
      const protocol = r.chance(BAD_RATE) ? r.pick(['2', '4', '256']) : '3';
      return `${r.pick(['256', '257', '0', g.uint(65535)])} ${protocol} ${r.pick(['8', '13', '15', g.uint(255)])} ${g.base64()}`;
    }
    case 'DS':
    case 'CDS': {
      const digestType = r.chance(BAD_RATE) ? r.pick(['0', '3', '5', '256']) : r.pick(['1', '2', '4']);
      const octets = { 1: 20, 2: 32, 4: 48 }[Number(digestType)] ?? 32;
      return `${g.uint(65535)} ${g.uint(255)} ${digestType} ${g.hex(r.chance(BAD_RATE) ? octets - 1 : octets)}${r.chance(0.05) ? 'z' : ''}`;
    }
    case 'TLSA': {
      const mt = r.chance(BAD_RATE) ? '3' : String(r.int(2));
      const octets = mt === '1' ? 32 : mt === '2' ? 64 : 1 + r.int(100);
      return `${r.chance(BAD_RATE) ? '4' : r.int(3)} ${r.chance(BAD_RATE) ? '2' : r.int(1)} ${mt} ${g.hex(r.chance(BAD_RATE) ? octets + 1 : octets)}`;
    }
    case 'SSHFP': {
      const fp = r.chance(0.15) ? String(3 + r.int(252)) : String(1 + r.int(1));
      const octets = fp === '1' ? 20 : fp === '2' ? 32 : 1 + r.int(40);
      return `${g.uint(255)} ${fp} ${g.hex(r.chance(BAD_RATE) ? octets + 2 : octets)}`;
    }
    case 'NAPTR': {
      const flags = r.chance(BAD_RATE) ? r.pick(['"U+"', '"!"']) : r.pick(['"U"', '"S"', '"A"', '"P"', '""', 'u']);
      const services = r.pick(['"E2U+sip"', '"SIP+D2U"', '""', '"x-service"', g.charString()]);
      const regexp = r.chance(BAD_RATE)
        ? r.pick(['"!a!b"', '"1abc1"', '"!a!\\\\2!"'])
        : r.pick(['""', '"!^.*$!sip:info@example.com!"', '"/(a)(b)/\\\\2\\\\1/i"', '""']);
      const replacement = regexp === '""' ? g.host(true) : r.chance(0.9) ? '.' : g.host();
      return `${g.uint(65535)} ${g.uint(65535)} ${flags} ${services} ${regexp} ${replacement}`;
    }
    case 'CNAME':
    case 'DNAME':
    case 'NS':
    case 'PTR':
      return g.host();
    case 'SVCB':
    case 'HTTPS':
      return svcbRdata(r, g);
    default:
      throw new Error(type);
  }
}

function ownerFor(index: number, type: string, r: Random): string {
  const base = `r${index}`;
  if (type === 'SOA') return r.chance(0.9) ? '@' : r.pick(['example.com.', base]);
  if (r.chance(0.8)) return base;
  const variants = [
    `*.${base}`,
    `_a._tcp.${base}`,
    `${base.toUpperCase()}.EXAMPLE.COM.`,
    `${base}.example.com`,
    `${base}..x`,
    `${base}.other.org.`,
    `${base}!`,
    `${'x'.repeat(64)}.${base}`,
    `bücher.${base}`,
  ];
  return r.pick(variants);
}

export function generateCorpus(seed: number, perType: number, types: string[]): CorpusRecord[] {
  const r = new Random(seed);
  const g = makeGenerators(r);
  const out: CorpusRecord[] = [];
  let index = 0;
  for (const type of types) {
    for (let i = 0; i < perType; i++) {
      index++;
      const ttl = r.chance(0.08) ? r.pick([61, 0, 2147483648, 100, 604800]) : r.pick(DEFAULT_ALLOWED_TTLS);
      out.push({ owner: ownerFor(index, type, r), type: r.chance(0.03) ? type.toLowerCase() : type, rdata: rdataFor(type, r, g), ttl });
    }
  }
  return out;
}
