import { base64BlobType } from './openpgpkey';

/** DHCID: a DHCP client's identity digest, opaque base64 (RFC 4701 §3) */
export const DHCID = base64BlobType('DHCID', 49, ['RFC 4701 §3'], 'identifier type, digest type and digest, base64 (RFC 4701 §3.4)');
