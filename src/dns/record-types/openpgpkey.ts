import { MAX_RDATA_OCTETS, parseBase64, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface KeyBlobValue {
  data: Buffer;
}

/**
 * Types whose RDATA is one base64 blob, blanks allowed between pieces: OPENPGPKEY (RFC 7929 §2.3), DHCID
 * (RFC 4701 §3.4). Stored as one block.
 */
export function base64BlobType(type: string, code: number, rfcs: string[], description: string): RecordTypeDefinition<KeyBlobValue> {
  const definition: RecordTypeDefinition<KeyBlobValue> = {
    type,
    code,
    rfcs,
    fields: [{ name: 'data', description }],
    parse(rdata: string): ParseResult<KeyBlobValue> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (split.fields.length === 0)
        return { ok: false, problems: [problem('rdata', 'RDATA_FIELD_COUNT', `rdata: ${type} needs base64 data`, 1)] };
      const data = parseBase64(split.fields.map((f) => f.raw).join(''), `${type} data`, problems);
      if (data && data.length > MAX_RDATA_OCTETS)
        problems.push(
          problem(
            'rdata',
            'RDATA_TOO_LONG',
            `rdata: ${type} data is ${data.length} octets; the limit is ${MAX_RDATA_OCTETS}`,
            MAX_RDATA_OCTETS,
          ),
        );
      return finish(problems, () => ({ data: data! }), definition.format);
    },
    format: (v) => v.data.toString('base64'),
    fromWire: (r) => ({ data: r.rest() }),
    toWire: (v, w) => {
      w.bytes(v.data);
    },
  };
  return definition;
}

/** OPENPGPKEY: an OpenPGP transferable public key (RFC 7929 §2) */
export const OPENPGPKEY = base64BlobType('OPENPGPKEY', 61, ['RFC 7929 §2'], 'the OpenPGP public key, base64 (RFC 7929 §2.3)');
