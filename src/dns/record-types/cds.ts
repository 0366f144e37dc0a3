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
  // dns-packet 5.6.1 has no CDS: DS's wire form (RFC 4034 §5.1) sent as RFC 3597 data
  toPacketData: (v) => {
    const head = Buffer.alloc(4);
    head.writeUInt16BE(v.keyTag, 0);
    head.writeUInt8(v.algorithm, 2);
    head.writeUInt8(v.digestType, 3);
    return Buffer.concat([head, v.digest]);
  },
};
