import type { Reading } from '../reading';
import { checkFieldCount, formatCharacterString, parseCharacterString, splitFields } from '../presentation';
import { Problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface HINFOValue {
  cpu: Buffer;
  os: Buffer;
}

/** HINFO: host information, two character-strings (RFC 1035 §3.3.2); RFC 8482 §4.2 gives it a use again */
export const HINFO: RecordTypeDefinition<HINFOValue> = {
  type: 'HINFO',
  code: 13,
  rfcs: ['RFC 1035 §3.3.2', 'RFC 8482 §4.2'],
  fields: [
    { name: 'cpu', description: 'character-string, at most 255 octets', kind: 'text' },
    { name: 'os', description: 'character-string, at most 255 octets', kind: 'text' },
  ],
  parse(rdata: string, reading: Reading): ParseResult<HINFOValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('HINFO', split.fields, ['cpu', 'os'], problems)) return { ok: false, problems };
    const [cpu, os] = split.fields.map((f, i) => parseCharacterString(f.raw, 'rdata', `HINFO ${i === 0 ? 'cpu' : 'os'}`, reading));
    for (const s of [cpu, os]) if (!s.ok) problems.push(...s.problems);
    return finish(problems, () => ({ cpu: (cpu as { bytes: Buffer }).bytes, os: (os as { bytes: Buffer }).bytes }), HINFO.format);
  },
  format: (v) => `${formatCharacterString(v.cpu)} ${formatCharacterString(v.os)}`,
  // two <character-string>s (RFC 1035 §3.3.2), octets as they are; never folded to lower case (RFC 4034 §6.2 lists
  // HINFO, but only names are folded and HINFO holds none)
  fromWire: (r) => ({ cpu: r.characterString(), os: r.characterString() }),
  toWire: (v, w) => {
    w.characterString(v.cpu).characterString(v.os);
  },
};
