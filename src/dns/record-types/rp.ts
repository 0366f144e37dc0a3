import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, splitFields } from '../presentation';
import { Problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface RPValue {
  mbox: string;
  txt: string;
}

/**
 * RP: responsible person (RFC 1183 §2.2): a mailbox as a name and the owner of TXT records about the person;
 * either may be the root `.`, meaning "none" (RFC 1183 §2.2).
 */
export const RP: RecordTypeDefinition<RPValue> = {
  type: 'RP',
  code: 17,
  rfcs: ['RFC 1183 §2.2'],
  fields: [
    { name: 'mbox-dname', description: "mailbox with the @ written as a dot; '.' for none" },
    { name: 'txt-dname', description: "name holding TXT records about the person; '.' for none" },
  ],
  parse(rdata: string, zone: Reading): ParseResult<RPValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('RP', split.fields, ['mbox-dname', 'txt-dname'], problems)) return { ok: false, problems };
    const [mbox, txt] = split.fields.map((f) => parseDomainNameInRdata(f.raw, zone, 'rdata', { allowRoot: true }));
    for (const n of [mbox, txt]) if (!n.ok) problems.push(...n.problems);
    return finish(problems, () => ({ mbox: (mbox as { name: string }).name, txt: (txt as { name: string }).name }), RP.format);
  },
  format: (v) => `${v.mbox} ${v.txt}`,
  // wire form, names uncompressed (RFC 3597 §4), sent as RFC 3597 data
  fromWire: (r) => ({ mbox: r.name(), txt: r.name() }),
  toWire: (v, w) => {
    w.name(v.mbox).name(v.txt);
  },
};
