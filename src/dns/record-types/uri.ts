import type { Reading } from '../reading';
import { checkFieldCount, formatCharacterString, parseCharacterString, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface URIValue {
  priority: number;
  weight: number;
  target: Buffer;
}

/** URI (RFC 7553 §4): priority, weight and a URI written as one quoted string; on the wire the URI fills the rest */
export const URI: RecordTypeDefinition<URIValue> = {
  type: 'URI',
  code: 256,
  rfcs: ['RFC 7553 §4'],
  fields: [
    { name: 'priority', description: '0–65535, lower is preferred', kind: 'int' },
    { name: 'weight', description: '0–65535, relative weight among equal priorities', kind: 'int' },
    { name: 'target', description: 'the URI (RFC 3986), quoted', kind: 'text' },
  ],
  parse(rdata: string, reading: Reading): ParseResult<URIValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('URI', split.fields, ['priority', 'weight', 'target'], problems)) return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const priority = parseUnsigned(f[0], { type: 'URI', name: 'priority', max: 65535 }, problems);
    const weight = parseUnsigned(f[1], { type: 'URI', name: 'weight', max: 65535 }, problems);
    // RFC 7553 §4.4: the target is not a <character-string>, so it may exceed 255 octets
    const target = parseCharacterString(f[2], 'rdata', 'URI target', reading, 65535 - 4);
    if (!target.ok) problems.push(...target.problems);
    else if (target.bytes.length === 0)
      problems.push(problem('rdata', 'URI_TARGET_EMPTY', 'rdata: the URI target is empty; RFC 7553 §4.4 needs a URI'));
    return finish(problems, () => ({ priority: priority!, weight: weight!, target: (target as { bytes: Buffer }).bytes }), URI.format);
  },
  format: (v) => `${v.priority} ${v.weight} ${formatCharacterString(v.target)}`,
  fromWire: (r) => ({ priority: r.u16(), weight: r.u16(), target: r.rest() }),
  toWire: (v, w) => {
    w.u16(v.priority).u16(v.weight).bytes(v.target);
  },
};
