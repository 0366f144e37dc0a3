import type { PackedRecords } from '../../repositories/read-model';
import * as packedText from '../../repositories/read-model/packed-records';

// read once: a binding imported through a module that re-exports it is a getter call at every use (CommonJS),
// and writePackedJson reads the separators at every byte
const FIELD_SEPARATOR_BYTE = packedText.FIELD_SEPARATOR_BYTE;
const RECORD_SEPARATOR_BYTE = packedText.RECORD_SEPARATOR_BYTE;
const packedRecordAt = packedText.packedRecordAt;
const packedDecimal = packedText.decimal;

/**
 * A zone's packed records (repositories/read-model/packed-records.ts: the repository's text of a zone's
 * records, read with the zones) as what a plain record list answers (plain-record-lists.ts): plain objects of
 * the members the operation asks for, or those objects' JSON text written straight into the answer's bytes
 * (answer-body.ts). The repository knows the text; what GraphQL answers of it is written here.
 */

/**
 * a member of the plain records: a field of the record, a constant, or a value given per record beside the packed
 * text (`{ given: g }`: the g-th of the list's given values, e.g. each record's RRset counts)
 */
export type PackedField = 'id' | 'zone' | 'owner' | 'type' | 'rdata' | 'ttl' | { value: string } | { given: number };

/**
 * The values of a list's given members: `given[g][i]` is member `{ given: g }` of the i-th record, as its scalar
 * serializes it (a string, a number or null); its JSON text in `GivenJson`.
 */
export type GivenValues = readonly (readonly unknown[])[];
export type GivenJson = readonly (readonly string[])[];

/** the JSON text of each given value (JSON.stringify's, as it writes them in a plain object) */
export function givenJsonOf(given: GivenValues): GivenJson {
  return given.map((values) => values.map((value) => JSON.stringify(value)));
}

/**
 * The records as plain objects of the members named `keys[i]` for `fields[i]`, in that order: `id` as a string
 * (GraphQL's ID), `ttl` as a number, `{ value }` that value, the others as strings. This is the nested GraphQL
 * answer's plain record lists as they are answered: one small object per record instead of a record, a result
 * object and a call per field. Those were most of what a nested answer allocated, and the garbage collections
 * they bring are its tail (bench/FINDINGS.md, «The nested answer's record lists as plain values»).
 */
export function plainRecordObjects(
  records: PackedRecords,
  keys: readonly string[],
  fields: readonly PackedField[],
  given: GivenValues = [],
): Record<string, unknown>[] {
  const { packed, zone, length } = records;
  const list = new Array<Record<string, unknown>>(length);
  let at = 0;
  for (let i = 0; i < length; i++) {
    const bounds = packedRecordAt(records, at, i);
    const f1 = bounds[0];
    const f2 = bounds[1];
    const f3 = bounds[2];
    const f4 = bounds[3];
    const end = bounds[4];
    const record: Record<string, unknown> = {};
    for (let k = 0; k < fields.length; k++) {
      const field = fields[k];
      if (field === 'id') record[keys[k]] = packed.slice(at, f1);
      else if (field === 'owner') record[keys[k]] = packed.slice(f1 + 1, f2);
      else if (field === 'type') record[keys[k]] = packed.slice(f2 + 1, f3);
      else if (field === 'rdata') record[keys[k]] = packed.slice(f3 + 1, f4);
      else if (field === 'ttl') record[keys[k]] = packedDecimal(packed, f4 + 1, end);
      else if (field === 'zone') record[keys[k]] = zone;
      else if ('given' in field) record[keys[k]] = given[field.given][i];
      else record[keys[k]] = field.value;
    }
    list[i] = record;
    at = end + 1;
  }
  return list;
}

/**
 * The records as the JSON text of `plainRecordObjects(records, keys, fields)` (what JSON.stringify writes of
 * them, byte for byte), written as UTF-8 into `out` from `at`: the end, or -1 when `out` has too little room
 * from `at` (the caller grows it; `packedJsonBytesExpected` says how much is about enough). The packed text's
 * bytes are copied as they are, escaped as JSON.stringify escapes them (`"`, `\`, control characters), with the
 * members' names between: no object, string or slice per record. The nested answer of the bench allocated 9 MB,
 * its 10,000 plain records and their JSON text the largest part (bench/FINDINGS.md, «The nested answer written
 * as bytes»).
 */
export function writePackedJson(records: PackedRecords, out: Buffer, at: number, shape: JsonRecordShape, given: GivenJson = []): number {
  const { packed, length } = records;
  const n = packedBytes(packed);
  const bytes = scratch;
  const { names, codes, constants, perRecord, givenIndex } = shape;
  const members = codes.length;
  const zone = shape.zoneMembers ? shape.zoneJson(records.zone) : NO_BYTES;
  const beside = perRecord + shape.zoneMembers * zone.length;
  const f = FIELD_BOUNDS;
  let o = at;
  if (o + 2 > out.length) return -1;
  out[o++] = 0x5b; // [
  let p = 0;
  for (let i = 0; i < length; i++) {
    // the five fields' starts and ends (checked when the zone was read: PackedRecords.of)
    const start = p;
    for (let k = 0; k < 5; k++) {
      f[2 * k] = p;
      while (p < n && bytes[p] !== FIELD_SEPARATOR_BYTE && bytes[p] !== RECORD_SEPARATOR_BYTE) p++;
      f[2 * k + 1] = p++;
    }
    // room for the record as it is (each value byte once, its names, quotes and braces, its given values' UTF-8 at
    // worst) and the list's end; an escape (below) asks for room for the rest of the record at worst
    let room = beside;
    for (let g = 0; g < given.length; g++) room += 3 * given[g][i].length;
    if (o + room + (p - start) + 1 > out.length) return -1;
    if (i > 0) out[o++] = 0x2c; // ,
    if (members === 0) out[o++] = 0x7b; // {
    for (let k = 0; k < members; k++) {
      const name = names[k];
      for (let j = 0; j < name.length; j++) out[o++] = name[j];
      const code = codes[k];
      if (code === CONSTANT) {
        const value = constants[k];
        for (let j = 0; j < value.length; j++) out[o++] = value[j];
      } else if (code === ZONE) {
        for (let j = 0; j < zone.length; j++) out[o++] = zone[j];
      } else if (code === TTL) {
        for (let j = f[8]; j < f[9]; j++) out[o++] = bytes[j];
      } else if (code === GIVEN) {
        o += out.write(given[givenIndex[k]][i], o);
      } else {
        out[o++] = 0x22; // "
        for (let j = f[2 * code], to = f[2 * code + 1]; j < to; j++) {
          const b = bytes[j];
          if (b >= 0x20 && b !== 0x22 && b !== 0x5c) out[o++] = b;
          else if (o + room + 6 * (p - j) + 1 > out.length) return -1;
          else o = writeEscaped(out, o, b);
        }
        out[o++] = 0x22;
      }
    }
    out[o++] = 0x7d; // }
  }
  out[o++] = 0x5d; // ]
  return o;
}

/** about the bytes writePackedJson writes for this zone (exactly, for ASCII text that JSON does not escape) */
export function packedJsonBytesExpected(records: PackedRecords, shape: JsonRecordShape, given: GivenJson = []): number {
  const zone = shape.zoneMembers ? shape.zoneMembers * shape.zoneJson(records.zone).length : 0;
  let givenLength = 0;
  for (const texts of given) for (const text of texts) givenLength += text.length;
  return 2 + records.length * (shape.perRecord + zone) + records.packed.length + givenLength;
}

/** what a member of JsonRecordShape is: a packed field by its position (id 0, owner 1, type 2, rdata 3, ttl 4) */
const PACKED_INDEX = { id: 0, owner: 1, type: 2, rdata: 3, ttl: 4 } as const;
const TTL = PACKED_INDEX.ttl;
/** … or the zone's name, or a constant, or a value given per record */
const ZONE = 5;
const CONSTANT = 6;
const GIVEN = 7;
/** the start and end of a packed record's five fields, in the record writePackedJson writes (one at a time) */
const FIELD_BOUNDS = new Int32Array(10);
/** a process-wide buffer for the packed text's UTF-8 bytes while one zone is written (synchronously) */
let scratch = Buffer.allocUnsafe(64 * 1024);

const NO_BYTES = new Uint8Array(0);

/** the packed text as UTF-8 bytes at the start of `scratch` (until the next call): how many */
function packedBytes(packed: string): number {
  if (packed.length * 3 > scratch.length) scratch = Buffer.allocUnsafe(Math.max(packed.length * 3, 2 * scratch.length));
  return scratch.write(packed, 0);
}

/** JSON.stringify's escape of a byte below 0x20, `"` or `\` (RFC 8259 §7) written at `o`: the end */
function writeEscaped(out: Buffer, o: number, b: number): number {
  out[o++] = 0x5c; // \
  const short =
    b === 0x22 ? 0x22 : b === 0x5c ? 0x5c : b === 8 ? 0x62 : b === 9 ? 0x74 : b === 10 ? 0x6e : b === 12 ? 0x66 : b === 13 ? 0x72 : 0;
  if (short) {
    out[o++] = short;
    return o;
  }
  const hex = '0123456789abcdef';
  out[o++] = 0x75; // u
  out[o++] = 0x30;
  out[o++] = 0x30;
  out[o++] = hex.charCodeAt(b >> 4);
  out[o++] = hex.charCodeAt(b & 15);
  return o;
}

/**
 * What writePackedJson writes of each record: `names[i]` (`{"key":` for the first member, `,"key":` for the
 * next) then `fields[i]`'s value; a constant's JSON in `constants[i]`. `perRecord`: the most bytes of one record
 * beside its values and zone names (names, constants, quotes, braces and the comma before it).
 */
export class JsonRecordShape {
  readonly names: Uint8Array[];
  /** each member's field: PACKED_INDEX, ZONE, CONSTANT or GIVEN */
  readonly codes: Int8Array;
  /** a GIVEN member's index among the given values */
  readonly givenIndex: Int32Array;
  readonly constants: Uint8Array[];
  readonly perRecord: number;
  /** how many members are the zone's name */
  readonly zoneMembers: number;
  private lastZone = '';
  private lastZoneJson = Buffer.from('""');

  constructor(
    keys: readonly string[],
    readonly fields: readonly PackedField[],
  ) {
    this.names = keys.map((key, i) => Buffer.from(`${i ? ',' : '{'}${JSON.stringify(key)}:`));
    this.codes = Int8Array.from(fields, (field) =>
      typeof field !== 'string' ? ('given' in field ? GIVEN : CONSTANT) : field === 'zone' ? ZONE : PACKED_INDEX[field],
    );
    this.givenIndex = Int32Array.from(fields, (field) => (typeof field !== 'string' && 'given' in field ? field.given : -1));
    this.constants = fields.map((field) => Buffer.from(typeof field !== 'string' && 'value' in field ? JSON.stringify(field.value) : ''));
    let perRecord = 3;
    for (let i = 0; i < fields.length; i++) perRecord += this.names[i].length + this.constants[i].length + 2;
    this.perRecord = perRecord;
    this.zoneMembers = fields.filter((field) => field === 'zone').length;
  }

  /** the zone's name as JSON (the last one kept: a list's records share it) */
  zoneJson(zone: string): Uint8Array {
    if (zone !== this.lastZone) {
      this.lastZone = zone;
      this.lastZoneJson = Buffer.from(JSON.stringify(zone));
    }
    return this.lastZoneJson;
  }
}
