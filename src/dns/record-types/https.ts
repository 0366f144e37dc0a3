import { svcbLikeType } from './svcb-params';

/** HTTPS: the SVCB-compatible type for HTTP origins (RFC 9460 §9), same RDATA as SVCB */
export const HTTPS = svcbLikeType({ type: 'HTTPS', code: 65, rfcs: ['RFC 9460 §9', 'RFC 9460 §2', 'RFC 9460 §7'] });
