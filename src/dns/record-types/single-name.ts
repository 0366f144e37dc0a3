/**
 * Types whose RDATA is one domain name (NS, CNAME, DNAME, PTR: RFC 1035 §3.3, RFC 6672 §2.1). Each type file
 * calls this with its own code and RFC references.
 */
import type { Reading } from '../reading';
import { parseDomainNameInRdata } from '../name';
import { splitFields, checkFieldCount } from '../presentation';
import { Problem } from '../problem';
import { RecordTypeDefinition, ParseResult } from './record-type';

export interface SingleNameValue {
  target: string;
}

export function singleNameType(spec: {
  type: string;
  code: number;
  rfcs: string[];
  fieldName: string;
  description: string;
  allowRoot?: boolean;
}): RecordTypeDefinition<SingleNameValue> {
  const definition: RecordTypeDefinition<SingleNameValue> = {
    type: spec.type,
    code: spec.code,
    rfcs: spec.rfcs,
    fields: [{ name: spec.fieldName, description: spec.description }],
    parse(rdata: string, zone: Reading): ParseResult<SingleNameValue> {
      const split = splitFields(rdata);
      if (!split.ok) return split;
      const problems: Problem[] = [];
      if (!checkFieldCount(spec.type, split.fields, [spec.fieldName], problems)) return { ok: false, problems };
      const name = parseDomainNameInRdata(split.fields[0].raw, zone, 'rdata', { allowRoot: spec.allowRoot });
      if (!name.ok) return name;
      const value = { target: name.name };
      return { ok: true, value, canonical: definition.format(value) };
    },
    format: (value) => value.target,
    fromWire: (r) => ({ target: r.name() }),
    toWire: (value, w) => {
      w.name(value.target);
    },
  };
  return definition;
}
