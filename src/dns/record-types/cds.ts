import { DS, DSValue } from './ds';
import { RecordTypeDefinition } from './record-type';

/**
 * CDS (type 59): the child's copy of the DS it wants at the parent (RFC 7344 §3.1), same RDATA as DS and the
 * same rules (RFC 7344 §4: what is valid in DS is valid in CDS).
 */
export const CDS: RecordTypeDefinition<DSValue> = {
  ...DS,
  type: 'CDS',
  code: 59,
  rfcs: ['RFC 7344 §3.1', 'RFC 8078', 'RFC 4034 §5'],
};
