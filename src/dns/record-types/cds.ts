import { DS, DSValue } from './ds';
import { RecordTypeDefinition } from './record-type';

/**
 * RFC 8078 §4: the one CDS that asks the parent to delete the DS RRset (the zone is going unsigned). Digest
 * type 0 and algorithm 0 are refused in a DS, so this exact RDATA is the only place they are taken.
 */
export const CDS_DELETE = '0 0 0 00';
const DELETE_FORM = /^\s*0+\s+0+\s+0+\s+00\s*$/;

/**
 * CDS (type 59): the child's copy of the DS it wants at the parent (RFC 7344 §3.1), same RDATA as DS and the
 * same rules (RFC 7344 §4: what is valid in DS is valid in CDS), plus the DS-delete form of RFC 8078 §4.
 */
export const CDS: RecordTypeDefinition<DSValue> = {
  ...DS,
  type: 'CDS',
  code: 59,
  rfcs: ['RFC 7344 §3.1', 'RFC 8078', 'RFC 4034 §5'],
  parse(rdata, zone) {
    if (DELETE_FORM.test(rdata))
      return { ok: true, value: { keyTag: 0, algorithm: 0, digestType: 0, digest: Buffer.from([0]) }, canonical: CDS_DELETE };
    return DS.parse(rdata, zone);
  },
};
