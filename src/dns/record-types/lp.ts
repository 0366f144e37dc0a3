import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface LPValue {
  preference: number;
  fqdn: string;
}

/** LP: ILNP locator pointer, a preference and a name (RFC 6742 §2.4) */
export const LP: RecordTypeDefinition<LPValue> = {
  type: 'LP',
  code: 107,
  rfcs: ['RFC 6742 §2.4'],
  fields: [
    { name: 'preference', description: '0–65535, lower is preferred', kind: 'int' },
    { name: 'fqdn', description: 'the name holding L32 or L64 records' },
  ],
  parse(rdata: string, zone: Reading): ParseResult<LPValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('LP', split.fields, ['preference', 'fqdn'], problems)) return { ok: false, problems };
    const preference = parseUnsigned(split.fields[0].raw, { type: 'LP', name: 'preference', max: 65535 }, problems);
    const name = parseDomainNameInRdata(split.fields[1].raw, zone, 'rdata');
    if (!name.ok) problems.push(...name.problems);
    return finish(problems, () => ({ preference: preference!, fqdn: (name as { name: string }).name }), LP.format);
  },
  format: (v) => `${v.preference} ${v.fqdn}`,
  // RFC 6742 §2.4: PREFERENCE (16), FQDN
  fromWire: (r) => ({ preference: r.u16(), fqdn: r.name() }),
  toWire: (v, w) => {
    w.u16(v.preference).name(v.fqdn);
  },
};
