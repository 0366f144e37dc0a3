import type { RecordTypesQuery } from './generated/graphql';

export type RecordTypeInfo = RecordTypesQuery['recordTypes'][number];
export type RecordTypeField = RecordTypeInfo['fields'][number];

/**
 * A field that is one character-string (RFC 1035 §5.1: quoted when it holds blanks) rather than a name, number
 * or a list of strings the person writes with their own quotes (TXT, SPF).
 */
function isSingleString(field: RecordTypeField): boolean {
  return /^character-string(?!s)/.test(field.description) || /quoted(?! or)/.test(field.description);
}

function quoted(value: string): string {
  if (value.startsWith('"')) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** The presentation-form RDATA of a typed form: the fields in the order recordTypes lists them. */
export function rdataFromFields(type: RecordTypeInfo, values: Record<string, string>): string {
  return type.fields
    .map((field) => {
      const value = (values[field.name] ?? '').trim();
      if (value === '') return '';
      return isSingleString(field) ? quoted(value) : value;
    })
    .filter((value) => value !== '')
    .join(' ');
}

/** Presentation tokens: blanks separate, quotes keep a string whole (with its quotes, as the service shows it). */
function tokens(rdata: string): string[] {
  return rdata.match(/"(?:[^"\\]|\\.)*"|\S+/g) ?? [];
}

function unquoted(token: string): string {
  return token.startsWith('"') && token.endsWith('"') ? token.slice(1, -1).replace(/\\(["\\])/g, '$1') : token;
}

/**
 * A record's RDATA split over its type's fields, for an edit form; the last field takes the rest (base64 and
 * hexadecimal may hold blanks, TXT holds several strings). Null where the split cannot be trusted (LOC's
 * fields are several tokens each): the form then edits the RDATA as text.
 */
export function fieldsFromRdata(type: RecordTypeInfo, rdata: string): Record<string, string> | null {
  if (type.type === 'LOC') return null;
  const parts = tokens(rdata);
  const fields = type.fields;
  if (fields.length === 0) return {};
  const values: Record<string, string> = {};
  fields.forEach((field, index) => {
    const last = index === fields.length - 1;
    const value = last ? parts.slice(index).join(' ') : (parts[index] ?? '');
    values[field.name] = isSingleString(field) ? unquoted(value) : value;
  });
  return values;
}
