import { TXT, TXTValue } from './txt';
import { RecordTypeDefinition } from './record-type';

/**
 * SPF (type 99): TXT's twin, same RDATA (RFC 4408 §3.1.1). RFC 7208 §3.1 deprecates it in favour of TXT, but
 * old zones still hold it; it is stored and served as written, with TXT's rules.
 */
export const SPF: RecordTypeDefinition<TXTValue> = {
  ...TXT,
  type: 'SPF',
  code: 99,
  rfcs: ['RFC 4408 §3.1.1', 'RFC 7208 §3.1', 'RFC 1035 §3.3.14'],
};
