import { dnskeyLike } from './dnskey';

/**
 * CDNSKEY (type 60): the DNSKEY the child wants the parent to make a DS of (RFC 7344 §3.2), DNSKEY's RDATA
 * and wire form (RFC 4034 §2.1).
 */
export const CDNSKEY = dnskeyLike('CDNSKEY', 60, ['RFC 7344 §3.2', 'RFC 8078', 'RFC 4034 §2']);
