import type { Problem } from '../../dns/problem';
import { parseOwner } from '../../dns/name';
import {
  CanonicalRecord,
  type KnownRrset,
  parseApiRecord,
  parseStandaloneRecord,
  parseStandaloneRecords,
  type RecordInput,
  type RecordResult,
  unsupportedTypeProblem,
} from '../../dns/record';
import type { AllowedTtls } from '../../dns/ttl';
import { getRecordType } from '../../dns/record-types';
import { ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import type { ZoneChangeOptions, ZoneChangeSpec } from './zone-change-set';

/*
 * A change set's changes read one by one, before the zone is: each record's own validity by the DNS model, with
 * no zone and no connection. What the planner (change-plan.ts) takes.
 */

/**
 * One change as read: its records in canonical form (`records` served, `disabledRecords` kept disabled), the
 * record it names by id or by content (`match`), or the RRset it names (`owner`, `type`). Undefined where the
 * change had problems (they are reported beside it, each naming the change), and for a COMMENT change, which
 * changes no record.
 */
export type ParsedChange =
  | {
      kind: 'ADD' | 'REPLACE' | 'REMOVE' | 'DISABLE' | 'ENABLE';
      id?: number;
      match?: CanonicalRecord;
      records: CanonicalRecord[];
      disabledRecords?: CanonicalRecord[];
    }
  | {
      kind: 'REPLACE_RRSET' | 'EXTEND_RRSET' | 'PRUNE_RRSET';
      owner: string;
      type: string;
      records: CanonicalRecord[];
      disabledRecords?: CanonicalRecord[];
    };

/** the fields each kind of change needs (`lacks`) */
const ADD_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdata', 'ttl'];
const REPLACE_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['id', 'owner', 'type', 'rdata', 'ttl'];
const MATCH_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdata'];
const RRSET_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'rdatas'];
const TTL_FIELD: readonly (keyof ZoneChangeSpec)[] = ['ttl'];
const COMMENT_FIELDS: readonly (keyof ZoneChangeSpec)[] = ['owner', 'type', 'comment'];
/** no allow-list of TTLs: a record only matched (PRUNE_RRSET), whose TTL is not read */
const NO_TTL_RULE: AllowedTtls = [];

/** `found` named as change `index`'s own (`changes[3].rdata`) */
const ofChange = (index: number, found: readonly ErrorDetail[]): ErrorDetail[] =>
  found.map((p) => ({ ...p, field: `changes[${index}].${p.field}`, message: `changes[${index}].${p.message}` }));

/** whether `change` lacks one of `fields`; each one it lacks is a REQUIRED problem of change `index` */
export function lacks(change: ZoneChangeSpec, index: number, fields: readonly (keyof ZoneChangeSpec)[], problems: ErrorDetail[]): boolean {
  let complete = true;
  for (let i = 0; i < fields.length; i++) if (change[fields[i]] === undefined || change[fields[i]] === null) complete = false;
  if (complete) return false;
  const absent = fields.filter((f) => change[f] === undefined || change[f] === null);
  problems.push(
    ...ofChange(
      index,
      absent.map((f) => ({ field: f, code: 'REQUIRED', message: `${f}: a ${change.kind} change needs ${f}` })),
    ),
  );
  return true;
}

/** a record read for change `index`: its problems are the change's, else its record, its warnings the change's too */
export function taken(parsed: RecordResult, index: number, problems: ErrorDetail[], warnings: ErrorDetail[]): CanonicalRecord | undefined {
  if (!parsed.ok) {
    problems.push(...ofChange(index, parsed.problems));
    return undefined;
  }
  if (parsed.warnings.length) warnings.push(...ofChange(index, parsed.warnings));
  return parsed.record;
}

/**
 * An RRset's records (`input`: its owner, type and TTL) read for change `index`: content that stands alone is
 * read under one set of the reading's modes, the record API's text one record at a time; each record's result,
 * problems and warnings its own, in order
 */
export function readRrset(
  zone: string,
  input: Omit<RecordInput, 'rdata'>,
  rdatas: readonly string[],
  allowedTtls: AllowedTtls,
  rrset: KnownRrset | undefined,
  standalone: boolean,
  index: number,
  problems: ErrorDetail[],
  warnings: ErrorDetail[],
): (CanonicalRecord | undefined)[] {
  const records = new Array<CanonicalRecord | undefined>(rdatas.length);
  if (standalone) {
    const results = parseStandaloneRecords(zone, input, rdatas, allowedTtls, rrset);
    for (let i = 0; i < results.length; i++) records[i] = taken(results[i], index, problems, warnings);
  } else {
    for (let i = 0; i < rdatas.length; i++)
      records[i] = taken(parseApiRecord(zone, { ...input, rdata: rdatas[i] }, allowedTtls, rrset), index, problems, warnings);
  }
  return records;
}

/**
 * One change, checked on its own; its problems are added to `problems` with the change's index. Its helpers
 * are functions of the module, not closures made for each change: a set of 1,000 RRsets made a dozen of them
 * (and their shared scope) for each, its largest allocation
 */
export function parseZoneChange(
  zone: string,
  change: ZoneChangeSpec,
  index: number,
  problems: ErrorDetail[],
  allowedTtlsOfRequest: AllowedTtls,
  options: ZoneChangeOptions = {},
  warnings: ErrorDetail[] = [],
): ParsedChange | undefined {
  const at = (found: ErrorDetail[]) => problems.push(...ofChange(index, found));
  const missing = (fields: readonly (keyof ZoneChangeSpec)[]) => lacks(change, index, fields, problems);
  // a record only matched against the zone's (PRUNE_RRSET) is matched by canonical form, whatever the TTL
  const matchOnly = change.kind === 'PRUNE_RRSET';
  const allowedTtls = matchOnly ? NO_TTL_RULE : allowedTtlsOfRequest;
  const recordTtl = matchOnly ? 0 : change.ttl!;
  const standalone = options.rdataNames === 'fullyQualified';
  const record = (rdata: string) => {
    const input = { owner: change.owner!, type: change.type!, rdata, ttl: recordTtl };
    const parsed = standalone ? parseStandaloneRecord(zone, input, allowedTtls) : parseApiRecord(zone, input, allowedTtls);
    return taken(parsed, index, problems, warnings);
  };
  switch (change.kind) {
    case 'ADD':
    case 'REPLACE': {
      if (missing(change.kind === 'REPLACE' ? REPLACE_FIELDS : ADD_FIELDS)) return undefined;
      const next = record(change.rdata!);
      if (next && change.kind === 'ADD' && change.disabled) return { kind: change.kind, records: [], disabledRecords: [next] };
      return next && { kind: change.kind, id: change.id, records: [next] };
    }
    case 'REMOVE':
    case 'DISABLE':
    case 'ENABLE': {
      if (change.kind !== 'ENABLE' && change.id !== undefined && change.id !== null)
        return { kind: change.kind, id: change.id, records: [] };
      if (missing(MATCH_FIELDS)) return undefined;
      // matched by canonical form, whatever the TTL
      const parsed = parseApiRecord(zone, { owner: change.owner!, type: change.type!, rdata: change.rdata!, ttl: 0 }, []);
      if (!parsed.ok) {
        at(parsed.problems);
        return undefined;
      }
      return { kind: change.kind, match: parsed.record, records: [] };
    }
    case 'REPLACE_RRSET':
    case 'EXTEND_RRSET':
    case 'PRUNE_RRSET': {
      if (missing(RRSET_FIELDS)) return undefined;
      const disabledRdatas = change.kind === 'REPLACE_RRSET' ? change.disabledRdatas : undefined;
      if (change.rdatas!.length + (disabledRdatas?.length ?? 0) > 0 && !matchOnly && missing(TTL_FIELD)) return undefined;
      // the RRset's owner and type in canonical form, also when the new set is empty; read once for its records
      // where the owner reads with no warning (each record's reading reports the owner's warnings as its own)
      const ownerWarnings: Problem[] = [];
      const owner = parseOwner(change.owner!, zone, 'owner', ownerWarnings);
      const definition = getRecordType(String(change.type).trim());
      if (!owner.ok) at(owner.problems);
      if (!definition) at([unsupportedTypeProblem(String(change.type), 'type')]);
      const known = owner.ok && definition && !ownerWarnings.length ? { owner: owner.name, definition } : undefined;
      const input = { owner: change.owner!, type: change.type!, ttl: recordTtl };
      const records = readRrset(zone, input, change.rdatas!, allowedTtls, known, standalone, index, problems, warnings);
      // none disabled (the PowerDNS API's REPLACE, every time): no reading at all, and still a list (they go)
      const disabled =
        disabledRdatas && disabledRdatas.length
          ? readRrset(zone, input, disabledRdatas, allowedTtls, known, standalone, index, problems, warnings)
          : disabledRdatas
            ? []
            : undefined;
      if (!owner.ok || !definition || records.includes(undefined) || disabled?.includes(undefined)) return undefined;
      // EXTEND_RRSET's records come disabled; a PRUNE_RRSET matches its records in either state. Written out, not
      // spread from a common part: the spread made each of a bulk set's 1,000 results slowly (a third of the parse)
      const kind = change.kind;
      const name = owner.name;
      const type = definition.type;
      if (kind === 'EXTEND_RRSET' && change.disabled)
        return { kind, owner: name, type, records: [], disabledRecords: records as CanonicalRecord[] };
      return {
        kind,
        owner: name,
        type,
        records: records as CanonicalRecord[],
        disabledRecords: disabled as CanonicalRecord[] | undefined,
      };
    }
    case 'COMMENT':
      // the RRset's comment alone, no record (zone-changes.service.ts reads the comment with the set's others)
      missing(COMMENT_FIELDS);
      return undefined;
    default:
      at([
        {
          field: 'kind',
          code: 'UNKNOWN_CHANGE_KIND',
          message: `kind: ${JSON.stringify(change.kind)} is not ADD, REMOVE, REPLACE, REPLACE_RRSET, EXTEND_RRSET, PRUNE_RRSET, DISABLE, ENABLE or COMMENT`,
        },
      ]);
      return undefined;
  }
}

/** a set's changes read with the zone's TTLs, every problem at once (each naming its change) */
export function parseZoneChanges(
  zone: string,
  changes: ZoneChangeSpec[],
  allowedTtls: AllowedTtls,
  options: ZoneChangeOptions = {},
): (ParsedChange | undefined)[] {
  const invalid: ErrorDetail[] = [];
  const parsed = changes.map((change, index) => parseZoneChange(zone, change, index, invalid, allowedTtls, options));
  if (invalid.length) throw errorFromProblems(invalid);
  return parsed;
}
