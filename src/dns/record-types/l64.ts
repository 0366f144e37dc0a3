import { locator64Type } from './nid';

/** L64: ILNP 64-bit locator (RFC 6742 §2.3), NID's presentation */
export const L64 = locator64Type('L64', 106, ['RFC 6742 §2.3'], 'locator64');
