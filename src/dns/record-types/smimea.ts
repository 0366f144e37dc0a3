import { TLSA, TLSAValue } from './tlsa';
import { RecordTypeDefinition } from './record-type';

/** SMIMEA: S/MIME certificate association (RFC 8162 §2), TLSA's RDATA and rules (RFC 8162 §2: "identical") */
export const SMIMEA: RecordTypeDefinition<TLSAValue> = {
  ...TLSA,
  type: 'SMIMEA',
  code: 53,
  rfcs: ['RFC 8162 §2', 'RFC 6698 §2'],
  // dns-packet 5.6.1 has no SMIMEA: TLSA's wire form (RFC 6698 §2.1) sent as RFC 3597 data
  toPacketData: (v) => Buffer.concat([Buffer.from([v.usage, v.selector, v.matchingType]), v.data]),
};
