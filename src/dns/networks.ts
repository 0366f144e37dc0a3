/**
 * Sets of client networks as ranges of addresses (RFC 4632, RFC 4291 §2.3): a view's `match-clients` list made
 * from a steering rule's subnets and countries (docs/steering.md, «Rules by network and country»). Each set is
 * kept as the sorted, merged ranges it covers, so that two sets are compared exactly (the same, apart, or
 * overlapping) and written back as the fewest CIDR blocks that cover them.
 */
import { parseIPv4, parseIPv6, formatIPv4, formatIPv6 } from './ip';

export type Family = 4 | 6;

/** an inclusive range of addresses of one family */
export interface AddressRange {
  family: Family;
  first: bigint;
  last: bigint;
}

const BITS: Record<Family, number> = { 4: 32, 6: 128 };

function toNumber(bytes: readonly number[]): bigint {
  return bytes.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
}

function toBytes(value: bigint, octets: number): number[] {
  const bytes: number[] = [];
  for (let i = octets - 1; i >= 0; i--) bytes.push(Number((value >> BigInt(i * 8)) & 0xffn));
  return bytes;
}

/** an address as a number of its family; undefined when it is neither IPv4 nor IPv6 */
export function addressNumber(text: string): { family: Family; value: bigint } | undefined {
  const v4 = parseIPv4(text);
  if (v4) return { family: 4, value: toNumber(v4) };
  const v6 = parseIPv6(text);
  if (v6) return { family: 6, value: toNumber(v6) };
  return undefined;
}

export function formatAddress(family: Family, value: bigint): string {
  return family === 4 ? formatIPv4(toBytes(value, 4)) : formatIPv6(toBytes(value, 16));
}

/**
 * A CIDR block (or one address) as a range; the address's bits below the prefix are dropped, as a router and
 * BIND's `match-clients` read them. Undefined when it is not one.
 */
export function cidrRange(text: string): AddressRange | undefined {
  const [address, bits, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const parsed = addressNumber(address);
  if (!parsed) return undefined;
  const max = BITS[parsed.family];
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = bits === undefined ? max : Number(bits);
  if (prefix > max) return undefined;
  const size = 1n << BigInt(max - prefix);
  const first = parsed.value - (parsed.value % size);
  return { family: parsed.family, first, last: first + size - 1n };
}

/** the ranges sorted (IPv4 first) and merged where they touch or overlap: one form for one set of addresses */
export function mergeRanges(ranges: readonly AddressRange[]): AddressRange[] {
  const order = (a: AddressRange, b: AddressRange) => a.family - b.family || (a.first < b.first ? -1 : a.first > b.first ? 1 : 0);
  // a country's blocks come from the database's tree in order: sorting them again would cost most of the reading
  const inOrder = ranges.every((range, i) => i === 0 || order(ranges[i - 1], range) <= 0);
  const sorted = inOrder ? ranges : [...ranges].sort(order);
  const merged: AddressRange[] = [];
  for (const range of sorted) {
    const last = merged[merged.length - 1];
    if (last && last.family === range.family && range.first <= last.last + 1n) {
      if (range.last > last.last) last.last = range.last;
    } else merged.push({ ...range });
  }
  return merged;
}

/** whether two merged sets share an address (both as `mergeRanges` answers them) */
export function rangesOverlap(a: readonly AddressRange[], b: readonly AddressRange[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i];
    const y = b[j];
    if (x.family !== y.family) {
      if (x.family < y.family) i++;
      else j++;
      continue;
    }
    if (x.last < y.first) i++;
    else if (y.last < x.first) j++;
    else return true;
  }
  return false;
}

/** the fewest CIDR blocks that cover exactly a range (each block as large as its start's alignment allows) */
function rangeCidrs(range: AddressRange): string[] {
  const max = BITS[range.family];
  const blocks: string[] = [];
  let first = range.first;
  while (first <= range.last) {
    let size = 1n;
    let prefix = max;
    while (prefix > 0 && first % (size * 2n) === 0n && first + size * 2n - 1n <= range.last) {
      size *= 2n;
      prefix--;
    }
    blocks.push(`${formatAddress(range.family, first)}/${prefix}`);
    first += size;
  }
  return blocks;
}

/** a merged set written as CIDR blocks, IPv4 first, each in order: what a view's networks hold */
export function rangesToCidrs(ranges: readonly AddressRange[]): string[] {
  return mergeRanges(ranges).flatMap(rangeCidrs);
}
