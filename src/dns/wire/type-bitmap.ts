/**
 * The Type Bit Maps field of NSEC and NSEC3 (RFC 4034 §4.1.2, RFC 5155 §3.2.1): the RR types present at a name,
 * in windows of 256 types; each window is its number, the length of its bitmap (1–32 octets, trailing zero
 * octets left out) and the bitmap, bit 0 of octet 0 being type window*256.
 */
export function typeBitmap(types: Iterable<number>): Buffer {
  const windows = new Map<number, number[]>();
  for (const type of new Set(types)) {
    const window = type >> 8;
    const list = windows.get(window) ?? [];
    list.push(type & 0xff);
    windows.set(window, list);
  }
  const parts: Buffer[] = [];
  for (const window of [...windows.keys()].sort((a, b) => a - b)) {
    const low = windows.get(window)!;
    const length = (Math.max(...low) >> 3) + 1;
    const block = Buffer.alloc(2 + length);
    block[0] = window;
    block[1] = length;
    for (const bit of low) block[2 + (bit >> 3)] |= 0x80 >> (bit & 7);
    parts.push(block);
  }
  return Buffer.concat(parts);
}

/** the types a Type Bit Maps field lists, ascending */
export function typesOfBitmap(bitmap: Buffer): number[] {
  const types: number[] = [];
  let at = 0;
  while (at + 2 <= bitmap.length) {
    const window = bitmap[at];
    const length = bitmap[at + 1];
    for (let octet = 0; octet < length; octet++) {
      for (let bit = 0; bit < 8; bit++) if (bitmap[at + 2 + octet] & (0x80 >> bit)) types.push(window * 256 + octet * 8 + bit);
    }
    at += 2 + length;
  }
  return types;
}
