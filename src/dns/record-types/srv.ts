import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { inRdataField, Problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface SRVValue {
  priority: number;
  weight: number;
  port: number;
  target: string;
}

/** SRV: service location (RFC 2782); target '.' means "service decidedly not available here" */
export const SRV: RecordTypeDefinition<SRVValue> = {
  type: 'SRV',
  code: 33,
  rfcs: ['RFC 2782'],
  fields: [
    { name: 'priority', description: '0–65535, lower is tried first', kind: 'int' },
    { name: 'weight', description: '0–65535, relative share among equal priorities', kind: 'int' },
    { name: 'port', description: '0–65535', kind: 'int' },
    { name: 'target', description: "host name of the server; '.' means the service is not available" },
  ],
  parse(rdata: string, zone: Reading): ParseResult<SRVValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('SRV', split.fields, ['priority', 'weight', 'port', 'target'], problems)) return { ok: false, problems };
    const [p, w, po, t] = split.fields;
    // RFC 2782: priority, weight and port are 16-bit unsigned integers
    const priority = parseUnsigned(p.raw, { type: 'SRV', name: 'priority', max: 65535 }, problems);
    const weight = parseUnsigned(w.raw, { type: 'SRV', name: 'weight', max: 65535 }, problems);
    const port = parseUnsigned(po.raw, { type: 'SRV', name: 'port', max: 65535 }, problems);
    const target = parseDomainNameInRdata(t.raw, zone, 'rdata', { allowRoot: true });
    if (!target.ok) problems.push(...inRdataField(target.problems, 'target'));
    return finish(
      problems,
      () => ({ priority: priority!, weight: weight!, port: port!, target: (target as { name: string }).name }),
      SRV.format,
    );
  },
  format: (v) => `${v.priority} ${v.weight} ${v.port} ${v.target}`,
  fromWire: (r) => ({ priority: r.u16(), weight: r.u16(), port: r.u16(), target: r.name() }),
  // RFC 2782: the target is not compressed (SRV is no RFC 1035 type, RFC 3597 §4)
  toWire: (v, w) => {
    w.u16(v.priority).u16(v.weight).u16(v.port).name(v.target);
  },
};
