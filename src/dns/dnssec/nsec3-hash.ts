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

/** RFC 4648 §7 "base32hex" without padding, lower case: how hashed owners are written as labels (RFC 5155 §3.3) */
export function base32hex(data: Buffer): string {
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
