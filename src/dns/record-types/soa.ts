import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { checkFieldCount, parseUnsigned, splitFields } from '../presentation';
import { Problem, problem } from '../problem';
import { parseDuration } from '../ttl';
import { finish, ParseResult, RecordTypeDefinition } from './record-type';

export interface SOAValue {
  mname: string;
  rname: string;
  serial: number;
  refresh: number;
  retry: number;
  expire: number;
  minimum: number;
}

/** the timers are 32-bit values that RFC 2181 §8 (for TTL-like values) limits to 0..2^31-1 */
const MAX_TIMER = 2147483647;

/** SOA: start of authority (RFC 1035 §3.3.13) */
export const SOA: RecordTypeDefinition<SOAValue> = {
  type: 'SOA',
  code: 6,
  rfcs: ['RFC 1035 §3.3.13', 'RFC 1982', 'RFC 2181 §8', 'RFC 2308 §4'],
  fields: [
    { name: 'mname', description: 'host name of the primary name server' },
    { name: 'rname', description: 'mailbox of the person responsible, with the @ written as a dot (hostmaster.example.net.)' },
    { name: 'serial', description: 'zone version, 0–4294967295, compared in RFC 1982 serial arithmetic', kind: 'serial' },
    { name: 'refresh', description: 'seconds between secondary refresh checks, 0–2147483647', kind: 'int' },
    { name: 'retry', description: 'seconds before a failed refresh is retried, 0–2147483647', kind: 'int' },
    { name: 'expire', description: 'seconds after which a secondary stops answering without a refresh, 0–2147483647', kind: 'int' },
    { name: 'minimum', description: 'negative-caching TTL in seconds (RFC 2308 §4), 0–2147483647', kind: 'int' },
  ],
  parse(rdata: string, zone: Reading): ParseResult<SOAValue> {
    const split = splitFields(rdata);
    if (!split.ok) return split;
    const problems: Problem[] = [];
    const names = ['mname', 'rname', 'serial', 'refresh', 'retry', 'expire', 'minimum'];
    if (!checkFieldCount('SOA', split.fields, names, problems)) return { ok: false, problems };
    const f = split.fields.map((x) => x.raw);
    const mname = parseDomainNameInRdata(f[0], zone, 'rdata');
    if (!mname.ok) problems.push(...mname.problems);
    // RFC 1035 §8: the mailbox is a name, its first label the local part, so `hostmaster@example.net.` is
    // always a typing mistake (a one-label local part "hostmaster@example"); `.` is "no mailbox" (as RFC 7505
    // null MX and RFC 2142 practice; both checkers load it)
    const rname =
      /^[^\\]*@/.test(f[1]) && f[1] !== '@'
        ? {
            ok: false as const,
            problems: [
              problem(
                'rdata',
                'SOA_RNAME_AT_SIGN',
                `rdata: the SOA mailbox ${JSON.stringify(f[1])} holds an @; write it with a dot (${f[1].replace('@', '.')})`,
              ),
            ],
          }
        : parseDomainNameInRdata(f[1], zone, 'rdata', { allowRoot: true });
    if (!rname.ok) problems.push(...rname.problems);
    // RFC 1035 §3.3.13 / RFC 1982: SERIAL is an unsigned 32-bit number
    const serial = parseUnsigned(f[2], { type: 'SOA', name: 'serial', max: 4294967295 }, problems);
    // the timers may be written with units (1h, 2w), as BIND and Knot accept; stored in seconds
    const timer = (text: string, name: string) => {
      const seconds = parseDuration(text);
      return parseUnsigned(seconds === undefined ? text : String(seconds), { type: 'SOA', name, max: MAX_TIMER }, problems);
    };
    const refresh = timer(f[3], 'refresh');
    const retry = timer(f[4], 'retry');
    const expire = timer(f[5], 'expire');
    const minimum = timer(f[6], 'minimum');
    return finish(
      problems,
      () => ({
        mname: (mname as { name: string }).name,
        rname: (rname as { name: string }).name,
        serial: serial!,
        refresh: refresh!,
        retry: retry!,
        expire: expire!,
        minimum: minimum!,
      }),
      SOA.format,
    );
  },
  format: (v) => `${v.mname} ${v.rname} ${v.serial} ${v.refresh} ${v.retry} ${v.expire} ${v.minimum}`,
  fromWire: (r) => ({
    mname: r.name(),
    rname: r.name(),
    serial: r.u32(),
    refresh: r.u32(),
    retry: r.u32(),
    expire: r.u32(),
    minimum: r.u32(),
  }),
  toWire: (v, w) => {
    w.name(v.mname).name(v.rname).u32(v.serial).u32(v.refresh).u32(v.retry).u32(v.expire).u32(v.minimum);
  },
};
