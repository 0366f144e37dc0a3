import { svcbLikeType } from './svcb-params';

/** SVCB: general-purpose service binding (RFC 9460 §2) */
export const SVCB = svcbLikeType({ type: 'SVCB', code: 64, rfcs: ['RFC 9460 §2', 'RFC 9460 §7', 'RFC 9460 §8'] });
