import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { inRdataField, Problem, problem } from '../problem';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface MXValue {
  preference: number;
  exchange: string;
}

/** MX: mail exchanger (RFC 1035 §3.3.9); `0 .` is the null MX: "this domain accepts no mail" (RFC 7505 §3) */
export const MX: RecordTypeDefinition<MXValue> = {
  type: 'MX',
  code: 15,
  rfcs: ['RFC 1035 §3.3.9', 'RFC 7505'],
  fields: [
    { name: 'preference', description: '0–65535, lower is preferred', kind: 'int' },
    { name: 'exchange', description: "host name of the mail server; '.' with preference 0 is the null MX (RFC 7505)" },
  ],
  parse(rdata: string, zone: Reading): ParseResult<MXValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    if (!checkFieldCount('MX', split.fields, ['preference', 'exchange'], problems)) return { ok: false, problems };
    const [pref, exch] = split.fields;
    // RFC 1035 §3.3.9: PREFERENCE is a 16 bit integer
    const preference = parseUnsigned(pref.raw, { type: 'MX', name: 'preference', max: 65535 }, problems);
    // the root as exchange is only meaningful as the null MX (RFC 7505 §3: preference 0, exchange '.')
    const exchange = parseDomainNameInRdata(exch.raw, zone, 'rdata', { allowRoot: true });
    if (!exchange.ok) problems.push(...inRdataField(exchange.problems, 'exchange'));
    else if (exchange.name === '.' && preference !== undefined && preference !== 0) {
      problems.push(
        problem(
          'rdata',
          'MX_NULL_PREFERENCE',
          `rdata: a null MX (exchange '.') must have preference 0 (RFC 7505 §3), got ${preference}`,
          0,
        ),
      );
    }
    return finish(problems, () => ({ preference: preference!, exchange: (exchange as { name: string }).name }), MX.format);
  },
  format: (value) => `${value.preference} ${value.exchange}`,
  fromWire: (r) => ({ preference: r.u16(), exchange: r.name() }),
  toWire: (value, w) => {
    w.u16(value.preference).name(value.exchange);
  },
};
