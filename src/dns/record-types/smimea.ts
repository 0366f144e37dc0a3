import { TLSA, TLSAValue } from './tlsa';
import { RecordTypeDefinition } from './record-type';

/** SMIMEA: S/MIME certificate association (RFC 8162 §2), TLSA's RDATA and rules (RFC 8162 §2: "identical") */
export const SMIMEA: RecordTypeDefinition<TLSAValue> = {
  ...TLSA,
  type: 'SMIMEA',
  code: 53,
  rfcs: ['RFC 8162 §2', 'RFC 6698 §2'],
};
