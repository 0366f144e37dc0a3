import { euiType } from './eui48';

/** EUI64: a 64-bit Extended Unique Identifier (RFC 7043 §4) */
export const EUI64 = euiType('EUI64', 109, 8, 'RFC 7043 §4');
