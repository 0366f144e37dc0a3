/**
 * RDATA as named fields, from each type's field list (record-types/*: `fields`): the canonical presentation
 * form split into its fields for the API's typed RDATA (`Record.data`), and fields put back together into
 * presentation form for input (`RecordInput.data`), which the type's own `parse` then validates like any
 * RDATA. No type has code of its own here: the field list says how many tokens a field takes and how its
 * value reads.
 */
import { formatCharacterString, parseCharacterString, splitFields } from './presentation';
import { Problem, problem } from './problem';
import type { RecordFieldInfo, RecordTypeDefinition } from './record-types';

export type RdataFieldValue = string | number | string[] | null;

/** the member of the API's typed RDATA input for a type: `mx`, `txt`, `eui48` */
export const typedRdataMember = (type: string): string => type.toLowerCase();

/** `key-tag` → `keyTag`: the API's name of a field */
export const fieldApiName = (name: string): string => name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** <character-string> text of a token (quotes and escapes removed), as UTF-8 */
function text(token: string): string {
  const decoded = parseCharacterString(token, 'rdata', 'text', undefined, Number.MAX_SAFE_INTEGER);
  return decoded.ok ? decoded.bytes.toString('utf8') : token;
}

/** The fields of a canonical RDATA, by field name (`fieldApiName`). */
export function rdataFields(definition: RecordTypeDefinition, canonical: string): Record<string, RdataFieldValue> {
  const split = splitFields(canonical);
  const tokens = split.ok ? split.fields.map((f) => f.raw) : [canonical];
  const values: Record<string, RdataFieldValue> = {};
  let at = 0;
  definition.fields.forEach((field, index) => {
    const last = index === definition.fields.length - 1;
    const taken = last ? tokens.slice(at) : tokens.slice(at, at + (field.tokens ?? 1));
    at += taken.length;
    values[fieldApiName(field.name)] = valueOf(field, taken);
  });
  return values;
}

function valueOf(field: RecordFieldInfo, taken: string[]): RdataFieldValue {
  if (field.kind === 'texts') return taken.map(text);
  if (!taken.length) return null;
  if (field.kind === 'int' || field.kind === 'serial') return Number(taken[0]);
  if (field.kind === 'text') return text(taken.join(' '));
  return taken.join(' ');
}

/**
 * Presentation RDATA from fields given by name (`fieldApiName`); problems name `<path>.<field>`. The result
 * still goes through the type's `parse`, which decides whether it is valid.
 */
export function rdataFromFields(
  definition: RecordTypeDefinition,
  values: Record<string, unknown>,
  path: string,
): { ok: true; rdata: string } | { ok: false; problems: Problem[] } {
  const problems: Problem[] = [];
  const parts: string[] = [];
  for (const field of definition.fields) {
    const name = fieldApiName(field.name);
    const value = values[name];
    const at = `${path}.${name}`;
    if (value === undefined || value === null) {
      if (!field.optional) problems.push(problem(at, 'REQUIRED', `${at}: ${definition.type} needs ${name} (${field.description})`));
      continue;
    }
    if (field.kind === 'int' || field.kind === 'serial') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        problems.push(problem(at, 'INVALID_NUMBER', `${at}: a whole number of at least 0`));
      else parts.push(String(value));
    } else if (field.kind === 'texts') {
      const list = Array.isArray(value) ? value : [value];
      if (!list.length || list.some((item) => typeof item !== 'string'))
        problems.push(problem(at, 'INVALID_TEXT', `${at}: one or more strings`));
      else parts.push(...list.map((item: string) => formatCharacterString(Buffer.from(item, 'utf8'))));
    } else if (typeof value !== 'string' || (field.kind !== 'text' && value.trim() === '')) {
      problems.push(problem(at, 'INVALID_TEXT', `${at}: a string${field.kind === 'text' ? '' : ' (not empty)'}`));
    } else {
      parts.push(field.kind === 'text' ? formatCharacterString(Buffer.from(value, 'utf8')) : value.trim());
    }
  }
  return problems.length ? { ok: false, problems } : { ok: true, rdata: parts.join(' ') };
}
