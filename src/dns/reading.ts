import type { Problem } from './problem';

/**
 * How record content is read: handed down as a parameter by whoever reads a record (its RDATA grammar, the name
 * and character-string readers inside it), never set aside in a module while a record is read, so that no
 * reading can leak into another's.
 */
export interface ContentReading {
  /** the origin relative names are completed with (RFC 1035 §5.1), with or without its final dot */
  origin: string;
  /**
   * content that stands alone, without an origin (the PowerDNS API's records): every name in it is written out
   * whole, ending with the root's dot, and every character-string is quoted; `www` or `v=spf1 mx -all` is refused
   * rather than read one way and published another. The zone the content is for, which a refusal's suggestion names
   */
  standaloneIn?: string;
  /** where the warnings about names go (NAME_NOT_HOSTNAME, RELATIVE_NAME_REPEATS_ZONE); none: not collected */
  warnings?: Problem[];
}

/** a reading, or only its origin: relative names completed with it, no warning collected */
export type Reading = ContentReading | string;

export const originOf = (reading: Reading): string => (typeof reading === 'string' ? reading : reading.origin);
export const standaloneZoneOf = (reading: Reading | undefined): string | undefined =>
  reading === undefined || typeof reading === 'string' ? undefined : reading.standaloneIn;
export const nameWarningsOf = (reading: Reading): Problem[] | undefined => (typeof reading === 'string' ? undefined : reading.warnings);
