/**
 * Rules over the records of one owner and over a whole zone. Pure functions: the caller loads the records, we
 * say what is wrong. Records are compared in canonical form (record.ts), so equal data is equal text.
 */
import { Problem, problem } from './problem';
import { ownerOf } from './name';
import { CanonicalRecord } from './record';
import { serialGreaterThan } from './serial';
import { FLATTENED_TYPE_NAMES } from './record-types';

export interface StoredRecord extends CanonicalRecord {
  id?: number;
  /** derived by the worker from the owner's ALIAS/ANAME (docs/templates-and-alias.md) */
  derived?: boolean;
}

/** RFC 4035 §2.5 / RFC 2181 §10.1: DNSSEC types that may sit beside a CNAME */
const DNSSEC_TYPES = new Set(['RRSIG', 'NSEC']);

function describe(owner: string): string {
  return owner === '@' ? 'the apex (@)' : `owner ${owner}`;
}

/**
 * The owner an SOA was given, absolute; a name that already ends with the zone's (`example.com` in example.com),
 * written without its final dot, was read relative to the zone (RFC 1035 §5.1): the final dot is suggested
 */
function soaMisplaced(zone: string, owner: string): string {
  const apex = zone.replace(/\.$/, '');
  const absolute = `${owner}.${apex}.`;
  const repeats = owner.toLowerCase() === apex.toLowerCase() || owner.toLowerCase().endsWith(`.${apex.toLowerCase()}`);
  return repeats ? `${absolute} (\`${owner}\` without a final dot is relative to the zone: write \`${owner}.\`, or @)` : absolute;
}

function sameRecord(a: StoredRecord, b: StoredRecord): boolean {
  if (a.id !== undefined && b.id !== undefined) return a.id === b.id;
  return a.owner === b.owner && a.type === b.type && a.rdata === b.rdata && a.ttl === b.ttl;
}

const isNullMx = (r: CanonicalRecord) => r.type === 'MX' && r.rdata === '0 .';
/** the data a CNAME excludes at its owner: all but the DNSSEC types and DNAME (reported as DNAME_CONFLICT) */
const isOrdinary = (type: string) => !DNSSEC_TYPES.has(type) && type !== 'DNAME';

/**
 * Problems caused by putting `next` (a create, or an edit replacing `previous`) beside `sameOwner`: all the
 * zone's current records at next.owner, including `previous` if it is there.
 */
export function checkRecordPlacement(zone: string, sameOwner: StoredRecord[], next: CanonicalRecord, previous?: StoredRecord): Problem[] {
  const problems: Problem[] = [];
  const others = sameOwner.filter((r) => r.owner === next.owner && !(previous && sameRecord(r, previous)));
  const where = describe(next.owner);

  // docs/decisions.md §3: identity is owner + type + canonical RDATA; the TTL is not part of it
  const unchanged =
    previous !== undefined &&
    previous.owner === next.owner &&
    previous.type === next.type &&
    previous.rdata === next.rdata &&
    previous.ttl === next.ttl;
  if (unchanged) {
    // docs/decisions.md §3: an edit that changes nothing is "The record already exists", as RESTKnot
    problems.push(
      problem('rdata', 'DUPLICATE_RECORD', `rdata: the edit changes nothing: ${where} already has the ${next.type} record ${next.rdata}`),
    );
  } else if (others.some((r) => r.type === next.type && r.rdata === next.rdata)) {
    problems.push(problem('rdata', 'DUPLICATE_RECORD', `rdata: ${where} already has the ${next.type} record ${next.rdata}`));
  }

  if (previous && (previous.type === 'SOA') !== (next.type === 'SOA')) {
    // docs/decisions.md §3: the SOA cannot be changed into another type, nor another record into an SOA
    problems.push(
      problem(
        'type',
        'SOA_TYPE_CHANGE',
        previous.type === 'SOA'
          ? `type: the SOA record cannot be changed into ${next.type}`
          : `type: a ${previous.type} record cannot be changed into an SOA; a zone has exactly one SOA`,
      ),
    );
  }

  if (next.type === 'SOA') {
    // RFC 1035 §5.2 / RFC 1034 §4.2.1: exactly one SOA, at the top of the zone
    if (next.owner !== '@') {
      problems.push(
        problem(
          'owner',
          'SOA_NOT_AT_APEX',
          `owner: the SOA record belongs at the apex (@) of ${zone}, not at ${soaMisplaced(zone, next.owner)}`,
        ),
      );
    } else if (others.some((r) => r.type === 'SOA')) {
      problems.push(problem('type', 'SOA_SINGLETON', `type: ${zone} already has an SOA record; a zone has exactly one`));
    }
  }

  if (next.type === 'DS' && next.owner === '@') {
    // RFC 4034 §5 / RFC 4035 §2.4: DS records sit on the parent side of a delegation, never at a zone's own apex
    problems.push(problem('owner', 'DS_AT_APEX', `owner: a DS record cannot be at the apex of ${zone}; it belongs in the parent zone`));
  }

  if (next.type === 'CNAME' && next.owner === '@') {
    // RFC 1034 §3.6.2 / RFC 2181 §10.1: the apex holds SOA and NS, so it can never be an alias
    problems.push(
      problem(
        'owner',
        'CNAME_AT_APEX',
        `owner: a CNAME cannot be at the apex of ${zone}: the apex holds the SOA and NS records, and a CNAME's owner holds no other data (RFC 1034 §3.6.2, RFC 2181 §10.1); an ALIAS record serves its target's addresses there instead (with ALIAS_RESOLVERS set)`,
      ),
    );
  }

  // RFC 1034 §3.6.2, RFC 2181 §10.1: a CNAME owner has no other data (DNSSEC types aside), one CNAME at most.
  // DNAME beside CNAME is reported as DNAME_CONFLICT below. At the apex, CNAME_AT_APEX above says it once, on the
  // CNAME: the apex's own data (SOA, NS, …) is not also refused, line by line, for being beside it
  const saidAtApex = next.owner === '@' && (next.type === 'CNAME' || others.some((r) => r.type === 'CNAME'));
  if (next.type === 'CNAME' && !saidAtApex) {
    const blocking = others.filter((r) => isOrdinary(r.type) && !(r.type === 'CNAME' && r.rdata === next.rdata));
    if (blocking.length > 0) {
      const typesFound = [...new Set(blocking.map((r) => r.type))];
      const types = typesFound.join(', ');
      const existingCname = blocking.some((r) => r.type === 'CNAME');
      problems.push({
        ...problem(
          'type',
          'CNAME_CONFLICT',
          existingCname
            ? `type: ${where} already has a CNAME record; there is at most one CNAME per owner`
            : `type: a CNAME cannot be added at ${where}, which already has ${types} data (RFC 1034 §3.6.2)`,
        ),
        existingType: existingCname ? 'CNAME' : blocking[0].type,
        ...(existingCname || typesFound.length === 1 ? {} : { existingTypes: typesFound }),
      });
    }
  } else if (isOrdinary(next.type) && !saidAtApex && others.some((r) => r.type === 'CNAME')) {
    problems.push({
      ...problem(
        'type',
        'CNAME_CONFLICT',
        `type: ${where} has a CNAME record, so it cannot have ${next.type} data as well (RFC 1034 §3.6.2)`,
      ),
      existingType: 'CNAME',
    });
  }

  if (next.type === 'DNAME' || next.type === 'CNAME') {
    // RFC 6672 §2.4: no CNAME beside a DNAME, and no more than one DNAME per owner
    const clash =
      next.type === 'DNAME'
        ? others.find((r) => r.type === 'CNAME' || (r.type === 'DNAME' && r.rdata !== next.rdata))
        : others.find((r) => r.type === 'DNAME');
    if (clash) {
      problems.push(
        problem(
          'type',
          'DNAME_CONFLICT',
          clash.type === 'DNAME' && next.type === 'DNAME'
            ? `type: ${where} already has a DNAME record; there is at most one DNAME per owner (RFC 6672 §2.4)`
            : `type: CNAME and DNAME cannot share ${where} (RFC 6672 §2.4)`,
        ),
      );
    }
  }

  if (next.type === 'MX') {
    // RFC 7505 §3: a null MX is the only MX record of its owner
    const otherMx = others.filter((r) => r.type === 'MX' && r.rdata !== next.rdata);
    if (otherMx.length && (isNullMx(next) || otherMx.some(isNullMx))) {
      problems.push(
        problem(
          'rdata',
          'NULL_MX_NOT_ALONE',
          `rdata: ${where} would have a null MX ("0 .") beside other MX records; a null MX must be the only one (RFC 7505 §3)`,
        ),
      );
    }
  }

  problems.push(...checkFlattenedPlacement(zone, sameOwner, others, next, where));

  // RFC 2181 §5.2: all records of an RRset have the same TTL
  // (made only where the RRset has other records: a set of 1,000 new RRsets made 1,000 empty sets)
  let rrsetTtls: Set<number> | undefined;
  for (const r of others) if (r.type === next.type && r.rdata !== next.rdata) (rrsetTtls ??= new Set()).add(r.ttl);
  if (rrsetTtls && !rrsetTtls.has(next.ttl)) {
    problems.push(
      problem(
        'ttl',
        'TTL_MISMATCH',
        `ttl: the other ${next.type} records at ${where} have TTL ${[...rrsetTtls].join(', ')}; all records of one owner and type share one TTL (RFC 2181 §5.2)`,
      ),
    );
  }
  return problems;
}

const ADDRESS_TYPES = new Set(['A', 'AAAA']);

/** the in-zone owner an ALIAS or ANAME points at, if it points into the zone */
const flattenedTarget = (zone: string, record: CanonicalRecord) => ownerOf(record.rdata, zone);

/**
 * ALIAS and ANAME (docs/templates-and-alias.md): one per owner; the owner's A and AAAA are the service's,
 * derived from the target, so none of a person's may stand beside them; a target that leads back to its
 * owner would never resolve. (A CNAME beside them is refused by the CNAME rule above, RFC 1034 §3.6.2.)
 * `sameOwner` holds the records at the target's owner too when the caller read it (ownersToCheck).
 */
function checkFlattenedPlacement(
  zone: string,
  sameOwner: StoredRecord[],
  others: StoredRecord[],
  next: CanonicalRecord,
  where: string,
): Problem[] {
  const problems: Problem[] = [];
  if (FLATTENED_TYPE_NAMES.has(next.type)) {
    const other = others.find((r) => FLATTENED_TYPE_NAMES.has(r.type) && !(r.type === next.type && r.rdata === next.rdata));
    if (other) {
      problems.push(problem('type', 'ALIAS_CONFLICT', `type: ${where} already has an ${other.type} record; one ALIAS or ANAME per owner`));
    }
    const address = others.find((r) => ADDRESS_TYPES.has(r.type) && !r.derived);
    if (address) {
      problems.push(
        problem(
          'type',
          'ALIAS_CONFLICT',
          `type: ${where} has ${address.type} records; an ${next.type} publishes its target's addresses there itself (delete them first)`,
        ),
      );
    }
    const target = flattenedTarget(zone, next);
    const back =
      target === next.owner ||
      (target !== undefined &&
        sameOwner.some((r) => r.owner === target && FLATTENED_TYPE_NAMES.has(r.type) && flattenedTarget(zone, r) === next.owner));
    if (back) {
      problems.push(
        problem('rdata', 'ALIAS_LOOP', `rdata: the ${next.type} target ${next.rdata} leads back to ${where}; it would never resolve`),
      );
    }
  } else if (ADDRESS_TYPES.has(next.type) && !(next as StoredRecord).derived) {
    const flattened = others.find((r) => FLATTENED_TYPE_NAMES.has(r.type));
    if (flattened) {
      problems.push(
        problem(
          'type',
          'ALIAS_CONFLICT',
          `type: ${where} has an ${flattened.type} record; its ${next.type} records are derived from the target and read-only`,
        ),
      );
    }
  }
  return problems;
}

/**
 * Loops of ALIAS/ANAME records longer than one step (`a ALIAS b`, `b ALIAS a`), over a whole zone: each loop
 * once, at its last record. (A record pointing at its own owner is checkRecordPlacement's.)
 */
function flattenedLoops(zone: string, records: CanonicalRecord[]): { index: number; problem: Problem }[] {
  const byOwner = new Map<string, { index: number; target?: string }>();
  for (let index = 0; index < records.length; index++) {
    const r = records[index];
    if (FLATTENED_TYPE_NAMES.has(r.type)) byOwner.set(r.owner, { index, target: flattenedTarget(zone, r) });
  }
  // a loop takes two owners at least (one pointing at itself is checkRecordPlacement's): most zones have none
  if (byOwner.size < 2) return [];
  const found = new Map<number, Problem>();
  for (const [start, first] of byOwner) {
    const members = [first.index];
    let at = first.target;
    while (at !== undefined && at !== start && members.length <= byOwner.size) {
      const step = byOwner.get(at);
      if (!step) break;
      members.push(step.index);
      at = step.target;
    }
    if (at !== start || members.length < 2) continue;
    const last = Math.max(...members);
    const record = records[last];
    found.set(
      last,
      problem(
        'rdata',
        'ALIAS_LOOP',
        `rdata: the ${record.type} target ${record.rdata} leads back to ${record.owner} through ${members.length - 1} more; it would never resolve`,
      ),
    );
  }
  return [...found].map(([index, p]) => ({ index, problem: p }));
}

/**
 * the record types never deleted on their own, whatever else the zone holds: the SOA (docs/decisions.md §3: a
 * zone always has its SOA, RFC 1035 §5.2); what the console asks before it offers a Delete
 */
/**
 * The problems of one owner's records taken as a whole (a view's zone at an owner its overlay changes: the base's
 * records with the view's RRsets over them): each CNAME and DNAME placed beside the others, as `checkRecordPlacement`
 * places a new one. The DNSSEC types, which the signer writes, are not held to it here.
 */
export function checkOwnerData(zone: string, records: readonly CanonicalRecord[]): Problem[] {
  const problems: Problem[] = [];
  records.forEach((record, i) => {
    if (record.type !== 'CNAME' && record.type !== 'DNAME') return;
    const others = records.filter((r, j) => j !== i && r.owner === record.owner);
    problems.push(
      ...checkRecordPlacement(zone, others, record).filter(
        (p) => p.code === 'CNAME_CONFLICT' || p.code === 'CNAME_AT_APEX' || p.code === 'DNAME_CONFLICT',
      ),
    );
  });
  return problems;
}

export const UNDELETABLE_TYPES: readonly string[] = ['SOA'];

/** Problems caused by deleting `target` from the records at its owner. */
export function checkRecordDeletion(sameOwner: StoredRecord[], target: StoredRecord): Problem[] {
  if (UNDELETABLE_TYPES.includes(target.type)) {
    // docs/decisions.md §3: a zone always has its SOA (RFC 1035 §5.2)
    return [problem('type', 'SOA_UNDELETABLE', "type: the SOA record can't be deleted; delete the zone instead")];
  }
  if (target.type === 'NS' && target.owner === '@') {
    // RFC 1034 §4.2.1: the apex needs NS records; a zone without them cannot be delegated to or served
    const remaining = sameOwner.filter((r) => r.owner === '@' && r.type === 'NS' && !sameRecord(r, target));
    if (remaining.length === 0) {
      return [problem('type', 'LAST_APEX_NS', "type: the last NS record at the apex can't be deleted; add another NS first")];
    }
  }
  return [];
}

function soaFields(soaRdata: string): string[] {
  const fields = soaRdata.trim().split(/\s+/);
  if (fields.length !== 7 || !/^[0-9]+$/.test(fields[2])) throw new Error(`not a canonical SOA RDATA: ${soaRdata}`);
  return fields;
}

export function soaSerial(soaRdata: string): number {
  return Number(soaFields(soaRdata)[2]);
}

/** returns the SOA rdata with its serial replaced (canonical) */
export function withSerial(soaRdata: string, serial: number): string {
  if (!Number.isInteger(serial) || serial < 0 || serial > 4294967295)
    throw new RangeError(`SOA serial ${serial} is out of range 0–4294967295`);
  const fields = soaFields(soaRdata);
  fields[2] = String(serial);
  return fields.join(' ');
}

/** SOA edit: the new serial must be greater in RFC 1982 serial arithmetic (docs/decisions.md §3) */
export function checkSoaSerialRaised(previousRdata: string, nextRdata: string): Problem[] {
  const before = soaSerial(previousRdata);
  const after = soaSerial(nextRdata);
  if (serialGreaterThan(after, before)) return [];
  return [
    problem(
      'rdata',
      'SOA_SERIAL_NOT_INCREASED',
      `rdata: SOA serial must be increased: ${after} is not greater than the current ${before} (RFC 1982 serial arithmetic)`,
    ),
  ];
}

/** Whole-zone check with the index of the record each problem is about (zone-wide problems have none). */
export function checkZoneIndexed(zone: string, records: CanonicalRecord[]): { index?: number; problem: Problem }[] {
  const found: { index?: number; problem: Problem }[] = [];
  const byOwner = new Map<string, CanonicalRecord[]>();
  records.forEach((record, index) => {
    const before = byOwner.get(record.owner) ?? [];
    for (const p of checkRecordPlacement(zone, before, record)) found.push({ index, problem: p });
    before.push(record);
    byOwner.set(record.owner, before);
  });
  found.push(...flattenedLoops(zone, records));
  const apex = byOwner.get('@') ?? [];
  if (!records.some((r) => r.type === 'SOA')) {
    // RFC 1035 §5.2: exactly one SOA at the top of the zone
    found.push({ problem: problem('zone', 'SOA_MISSING', `zone: ${zone} has no SOA record at the apex`) });
  }
  if (!apex.some((r) => r.type === 'NS')) {
    // RFC 1035 §5.2 / RFC 1034 §4.2.1: the apex has NS records
    found.push({ problem: problem('zone', 'APEX_NS_MISSING', `zone: ${zone} has no NS record at the apex`) });
  }
  return found;
}

/** all rules above over a complete zone, plus: exactly one SOA at the apex, at least one NS at the apex */
export function checkZone(zone: string, records: CanonicalRecord[]): Problem[] {
  return checkZoneIndexed(zone, records).map((x) => x.problem);
}
