/**
 * BIND's `$GENERATE` directive (BIND 9 Administrator Reference Manual, "BIND Primary File Extension: the
 * $GENERATE Directive"): `$GENERATE start-stop[/step] lhs [ttl] [class] type rhs` writes one record per value
 * of the iterator. In lhs and rhs, `$` is the iterator and `${offset[,width[,base]]}` the iterator plus offset,
 * zero-padded to width, in base d (decimal), o (octal), x/X (hex) or n/N (nibbles, reversed and dot-separated,
 * as in ip6.arpa names, RFC 3596 §2.5). `\$` is a literal `$`. Knot's kzonecheck does not read the directive;
 * expanding it here yields plain records that both checkers take.
 */
import { Problem, problem } from './problem';

/** BIND refuses ranges of more than this many values (lib/dns/master.c: a guard against typing mistakes) */
export const MAX_GENERATE_VALUES = 65536;

export type RangeResult = { ok: true; start: number; stop: number; step: number } | { ok: false; problems: Problem[] };

export function parseGenerateRange(text: string, line: number): RangeResult {
  const m = /^([0-9]+)-([0-9]+)(?:\/([0-9]+))?$/.exec(text);
  const bad = (why: string): RangeResult => ({
    ok: false,
    problems: [problem('rdata', 'GENERATE_INVALID', `line ${line}: $GENERATE range ${JSON.stringify(text)} ${why}`)],
  });
  if (!m) return bad('is not start-stop or start-stop/step');
  const [start, stop, step] = [Number(m[1]), Number(m[2]), m[3] === undefined ? 1 : Number(m[3])];
  if (start > stop) return bad('starts after it stops');
  if (step < 1) return bad('has a step below 1');
  if ((stop - start) / step + 1 > MAX_GENERATE_VALUES) return bad(`has more than ${MAX_GENERATE_VALUES} values`);
  return { ok: true, start, stop, step };
}

/** BIND's nibble form: lowest nibble first, a dot between nibbles, at least `width` characters (dots count) */
function nibbles(value: number, width: number, upper: boolean): string {
  let v = value >>> 0; // BIND computes in an unsigned 32-bit int: a negative offset wraps
  let out = '';
  let w = width;
  do {
    const digit = (v & 0x0f).toString(16);
    out += upper ? digit.toUpperCase() : digit;
    v >>>= 4;
    if (w > 0) w--;
    if (w > 0 || v !== 0) {
      out += '.';
      if (w > 0) w--;
    }
  } while (v !== 0 || w > 0);
  return out;
}

function formatValue(value: number, width: number, base: string): string {
  if (base === 'n' || base === 'N') return nibbles(value, width, base === 'N');
  const v = value >>> 0;
  const text = base === 'o' ? v.toString(8) : base === 'x' ? v.toString(16) : base === 'X' ? v.toString(16).toUpperCase() : String(value);
  return text.padStart(width, '0');
}

/** Substitutes the iterator into one template; a malformed modifier is a problem naming the line. */
export function substitute(
  template: string,
  iterator: number,
  line: number,
): { ok: true; text: string } | { ok: false; problems: Problem[] } {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === '\\' && i + 1 < template.length) {
      out += c + template[i + 1];
      i++;
      continue;
    }
    if (c !== '$') {
      out += c;
      continue;
    }
    if (template[i + 1] !== '{') {
      out += String(iterator);
      continue;
    }
    const close = template.indexOf('}', i);
    const body = close < 0 ? '' : template.slice(i + 2, close);
    const m = /^(-?[0-9]+)(?:,([0-9]+)(?:,([doxXnN]))?)?$/.exec(body);
    if (close < 0 || !m) {
      return {
        ok: false,
        problems: [
          problem(
            'rdata',
            'GENERATE_INVALID',
            `line ${line}: $GENERATE modifier ${JSON.stringify(template.slice(i, close < 0 ? undefined : close + 1))} is not \${offset[,width[,base]]} with base d, o, x, X, n or N`,
          ),
        ],
      };
    }
    out += formatValue(iterator + Number(m[1]), m[2] === undefined ? 0 : Number(m[2]), m[3] ?? 'd');
    i = close;
  }
  return { ok: true, text: out };
}
