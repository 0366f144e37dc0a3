/**
 * IPv4 and IPv6 address text forms, shared by A, AAAA and the SVCB address hints; and CIDR blocks (RFC 4632,
 * RFC 4291 §2.3) with membership, shared by the policy engine (a key's networks), the edges' allow-lists and the
 * outbound rule (src/outbound/).
 */
import net from 'node:net';

/**
 * IPv4 dotted-quad (RFC 1035 §3.4.1 master-file form): exactly four decimal octets 0–255. Leading zeros are
 * refused: `010` is octal to some parsers (inet_aton) and decimal to others, so its meaning is ambiguous.
 */
export function parseIPv4(text: string): number[] | undefined {
  // read character by character (a zone's addresses are most of its records): four numbers of 1–3 digits
  // separated by dots, none above 255, none with a leading zero. The numbers are held apart and the list made
  // once at the end, four long: no list for a text that is no address, none grown by pushes
  let a = 0;
  let b = 0;
  let c = 0;
  let count = 0;
  let value = 0;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 0x2e;
    if (code === 0x2e) {
      if (digits === 0 || value > 255 || count === 4) return undefined;
      if (count === 0) a = value;
      else if (count === 1) b = value;
      else if (count === 2) c = value;
      count++;
      if (count === 4) return i === text.length ? [a, b, c, value] : undefined;
      value = 0;
      digits = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      if (digits === 3 || (digits === 1 && value === 0)) return undefined;
      value = value * 10 + (code - 0x30);
      digits++;
    } else return undefined;
  }
  return undefined;
}

/** the value of 1–4 hex digits, or undefined */
function hexGroup(text: string): number | undefined {
  if (text.length === 0 || text.length > 4) return undefined;
  let value = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (digit < 0) return undefined;
    value = value * 16 + digit;
  }
  return value;
}

export function formatIPv4(octets: ArrayLike<number>): string {
  return Array.from(octets).join('.');
}

/**
 * IPv6 in any RFC 4291 §2.2 text form: eight groups of 1–4 hex digits, one `::` for a run of zero groups, an
 * optional trailing dotted-quad for the last 32 bits. Zone indices (`%eth0`) are not addresses and are refused.
 * Returns the 16 octets.
 */
export function parseIPv6(text: string): number[] | undefined {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parseGroups = (part: string, allowV4Tail: boolean): number[] | undefined => {
    if (part === '') return [];
    const groups = part.split(':');
    const words: number[] = [];
    for (let i = 0; i < groups.length; i++) {
      const g = groups[i];
      if (allowV4Tail && i === groups.length - 1 && g.includes('.')) {
        const v4 = parseIPv4(g);
        if (!v4) return undefined;
        words.push((v4[0] << 8) | v4[1], (v4[2] << 8) | v4[3]);
      } else {
        const word = hexGroup(g);
        if (word === undefined) return undefined;
        words.push(word);
      }
    }
    return words;
  };
  let words: number[];
  if (halves.length === 2) {
    const head = parseGroups(halves[0], false);
    const tail = parseGroups(halves[1], true);
    if (!head || !tail) return undefined;
    // '::' stands for one or more zero groups (RFC 4291 §2.2 item 2)
    if (head.length + tail.length > 7) return undefined;
    words = [...head, ...new Array(8 - head.length - tail.length).fill(0), ...tail];
  } else {
    const all = parseGroups(halves[0], true);
    if (!all || all.length !== 8) return undefined;
    words = all;
  }
  const bytes: number[] = [];
  for (const w of words) bytes.push(w >> 8, w & 0xff);
  return bytes;
}

/**
 * RFC 5952 canonical text: lower-case, no leading zeros, the longest run (first if tied) of two or more zero
 * groups shortened to `::` (§4.2), and IPv4-mapped addresses in mixed notation `::ffff:192.0.2.1` (§5).
 */
export function formatIPv6(bytes: ArrayLike<number>): string {
  const b = Array.from(bytes);
  const words: number[] = [];
  for (let i = 0; i < 16; i += 2) words.push((b[i] << 8) | b[i + 1]);
  const isMapped = words.slice(0, 5).every((w) => w === 0) && words[5] === 0xffff;
  if (isMapped) return `::ffff:${formatIPv4(b.slice(12))}`;
  let bestStart = -1;
  let bestLength = 0;
  for (let i = 0; i < 8;) {
    if (words[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = words.map((w) => w.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/**
 * An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket reports IPv4; RFC 4291 §2.5.5.2) as
 * IPv4, whatever its text form (`::ffff:c000:201` is the same address, and a socket connects to the IPv4 one).
 */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1];
  if (!address.includes(':')) return address;
  const bytes = parseIPv6(address);
  const isMapped = bytes && bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return isMapped ? formatIPv4(bytes.slice(12)) : address;
}

/** a CIDR block (`10.0.0.0/8`, `2001:db8::/32`), or an address alone (its own /32 or /128); undefined when neither */
export function parseCidr(text: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const version = net.isIP(address);
  if (!version) return undefined;
  const max = version === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** whether `address` (an IPv4-mapped one as IPv4) is inside one of `networks` (CIDR blocks; others are ignored) */
export function inNetworks(networks: readonly string[], address: string): boolean {
  const list = new net.BlockList();
  for (const text of networks) {
    const network = parseCidr(text);
    if (network) list.addSubnet(network.address, network.prefix, network.family);
  }
  const plain = plainAddress(address);
  const version = net.isIP(plain);
  if (!version) return false;
  return list.check(plain, version === 4 ? 'ipv4' : 'ipv6');
}
