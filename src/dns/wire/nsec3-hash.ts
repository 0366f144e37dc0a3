/**
 * NSEC3 owner hashing (RFC 5155 §5): IH(salt, x, 0) = H(x | salt), IH(salt, x, k) = H(IH(salt, x, k-1) | salt),
 * hash = IH(salt, owner, iterations), with H = SHA-1 (hash algorithm 1, the only one defined) and the owner in
 * canonical wire form. RFC 9276 §3.1: signers SHOULD use 0 extra iterations and an empty salt; the zone's
 * parameters are stored so that a zone can be read back whatever they are.
 */
import { createHash } from 'node:crypto';

export const NSEC3_HASH_SHA1 = 1;

export function nsec3Hash(ownerCanonicalWire: Buffer, salt: Buffer, iterations: number): Buffer {
  let digest = createHash('sha1').update(ownerCanonicalWire).update(salt).digest();
  for (let i = 0; i < iterations; i++) digest = createHash('sha1').update(digest).update(salt).digest();
  return digest;
}

const BASE32HEX = '0123456789abcdefghijklmnopqrstuv';
const BASE32HEX_CODES = [...BASE32HEX].map((c) => c.charCodeAt(0));

/** RFC 4648 §7 "base32hex" without padding, lower case: how hashed owners are written as labels (RFC 5155 §3.3) */
export function base32hex(data: Buffer): string {
  // five octets at a time into eight characters, written into one array of character codes (an NSEC3 chain
  // writes two per owner; a string grown a character at a time is a rope of one node per character)
  if (data.length % 5 === 0 && data.length <= 255) {
    const codes = new Array<number>((data.length / 5) * 8);
    for (let i = 0, o = 0; i < data.length; i += 5, o += 8) {
      const hi = (data[i] << 24) | (data[i + 1] << 16) | (data[i + 2] << 8) | data[i + 3];
      const lo = data[i + 4];
      codes[o] = BASE32HEX_CODES[(hi >>> 27) & 31];
      codes[o + 1] = BASE32HEX_CODES[(hi >>> 22) & 31];
      codes[o + 2] = BASE32HEX_CODES[(hi >>> 17) & 31];
      codes[o + 3] = BASE32HEX_CODES[(hi >>> 12) & 31];
      codes[o + 4] = BASE32HEX_CODES[(hi >>> 7) & 31];
      codes[o + 5] = BASE32HEX_CODES[(hi >>> 2) & 31];
      codes[o + 6] = BASE32HEX_CODES[((hi << 3) | (lo >>> 5)) & 31];
      codes[o + 7] = BASE32HEX_CODES[lo & 31];
    }
    return String.fromCharCode(...codes);
  }
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of data) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32HEX[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  if (bits > 0) out += BASE32HEX[(buffer << (5 - bits)) & 31];
  return out;
}

export function fromBase32hex(text: string): Buffer {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const c of text.toLowerCase()) {
    const value = BASE32HEX.indexOf(c);
    if (value < 0) throw new Error(`not base32hex: ${JSON.stringify(text)}`);
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bytes.push((buffer >>> (bits - 8)) & 0xff);
      bits -= 8;
      buffer &= (1 << bits) - 1;
    }
  }
  return Buffer.from(bytes);
}
