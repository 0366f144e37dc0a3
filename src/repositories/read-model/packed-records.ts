import type { RecordRow } from './rows';

/**
 * between the fields of a packed row, and between the rows of a packed text (ASCII's unit and record separators):
 * a zone's records here, a page of zones (zones.ts), an RRset's counts (query-analytics.ts)
 */
export const FIELD_SEPARATOR = '\x1f';
export const RECORD_SEPARATOR = '\x1e';
/** the same separators as bytes, for a reader of the text's UTF-8 (both are ASCII: one byte each) */
export const FIELD_SEPARATOR_BYTE = 0x1f;
export const RECORD_SEPARATOR_BYTE = 0x1e;

/**
 * One zone's packed records (see recordsGroupedByDomain), checked once when read and cut into records each
 * time they are iterated. The text is walked with indexOf and cut with slice, without an array per record
 * (3.5× faster than split, docs/performance.md, «Reading zones»); ids and TTLs are read digit by digit.
 */
export class PackedRecords implements Iterable<RecordRow> {
  private constructor(
    readonly domainId: number,
    readonly zone: string,
    /** the records' text: each record's id, owner, type, rdata and TTL between FIELD_SEPARATORs, the records between RECORD_SEPARATORs */
    readonly packed: string,
    readonly length: number,
    /**
     * each record's RRset counts when the list asked for them (read-model/records.ts, `counts`): per record, in
     * the same order, the sum over each window asked and the last query (ms since the epoch, empty: never),
     * between FIELD_SEPARATORs, the records between RECORD_SEPARATORs; its reader checks its shape
     */
    readonly counts?: string,
  ) {}

  /**
   * The zone's records, or undefined when the text is not `count` records of exactly five fields with decimal
   * ids and TTLs, in ascending id order (PostgreSQL keeps a sorted subquery's order into an aggregate in
   * practice, but does not promise it): the caller reads such a zone row by row.
   */
  static of(domainId: number, zone: string, packed: string, count: number, counts?: string): PackedRecords | undefined {
    if (count === 0) return packed === '' ? new PackedRecords(domainId, zone, packed, 0) : undefined;
    let at = 0;
    let previousId = -1;
    const b = BOUNDS;
    for (let i = 0; i < count; i++) {
      if (!fieldsAt(packed, at, i === count - 1)) return undefined;
      const id = decimal(packed, at, b[0]);
      if (id <= previousId || decimal(packed, b[3] + 1, b[4]) < 0) return undefined;
      previousId = id;
      at = b[4] + 1;
    }
    return new PackedRecords(domainId, zone, packed, count, counts);
  }

  *[Symbol.iterator](): Iterator<RecordRow> {
    const { packed, domainId, zone, length } = this;
    let at = 0;
    for (let i = 0; i < length; i++) {
      fieldsAt(packed, at, i === length - 1);
      const [f1, f2, f3, f4, end] = BOUNDS;
      yield {
        id: decimal(packed, at, f1),
        domainId,
        zone,
        owner: packed.slice(f1 + 1, f2),
        type: packed.slice(f2 + 1, f3),
        rdata: packed.slice(f3 + 1, f4),
        ttl: decimal(packed, f4 + 1, end),
      };
      at = end + 1;
    }
  }
}

/**
 * The packed counts of a zone's records (PackedRecords.counts) as columns: each record's last query (ms since the
 * epoch; null: never), then for each of `windows` windows each record's sum. Undefined when there are none, or
 * when the text is not one entry of `1 + windows` decimal fields (the first one may be empty) per record: the
 * caller reads the counts another way.
 */
export function unpackedCounts(records: PackedRecords, windows: number): { sums: number[][]; lastQueried: (number | null)[] } | undefined {
  const text = records.counts;
  if (text === undefined) return undefined;
  const sums: number[][] = Array.from({ length: windows }, () => new Array<number>(records.length));
  const lastQueried = new Array<number | null>(records.length);
  let at = 0;
  for (let i = 0; i < records.length; i++) {
    const end = i === records.length - 1 ? text.length : text.indexOf(RECORD_SEPARATOR, at);
    if (end === -1 || (i === records.length - 1 && text.indexOf(RECORD_SEPARATOR, at) !== -1)) return undefined;
    for (let w = -1; w < windows; w++) {
      const next = w === windows - 1 ? end : text.indexOf(FIELD_SEPARATOR, at);
      if (next === -1 || next > end) return undefined;
      const value = decimal(text, at, next);
      if (w === -1) {
        if (value < 0 && next !== at) return undefined;
        lastQueried[i] = value < 0 ? null : value;
      } else {
        if (value < 0) return undefined;
        sums[w][i] = value;
      }
      at = next + 1;
    }
  }
  return { sums, lastQueried };
}

/** where fieldsAt found the last record's four field separators and its end (f1, f2, f3, f4, end) */
const BOUNDS = new Int32Array(5);

/**
 * The record of `records` starting at `at` (the first at 0, each next one after the last one's end): its four
 * field separators and its end (f1, f2, f3, f4, end), in an array reused by the next call. The id is
 * [at, f1), the owner (f1, f2), the type (f2, f3), the rdata (f3, f4), the TTL (f4, end).
 */
export function packedRecordAt(records: PackedRecords, at: number, index: number): Readonly<Int32Array> {
  fieldsAt(records.packed, at, index === records.length - 1);
  return BOUNDS;
}

/**
 * Whether the record starting at `at` has exactly five fields and ends where a record must: at a record
 * separator, or (the last) at the text's end. Its four field separators and its end are left in BOUNDS (an
 * object per record was 0.5 MB of the nested answer's garbage).
 */
function fieldsAt(packed: string, at: number, last: boolean): boolean {
  const next = packed.indexOf(RECORD_SEPARATOR, at);
  if (last ? next !== -1 : next === -1) return false;
  const end = last ? packed.length : next;
  const f1 = packed.indexOf(FIELD_SEPARATOR, at);
  const f2 = packed.indexOf(FIELD_SEPARATOR, f1 + 1);
  const f3 = packed.indexOf(FIELD_SEPARATOR, f2 + 1);
  const f4 = packed.indexOf(FIELD_SEPARATOR, f3 + 1);
  if (f1 < at || f2 <= f1 || f3 <= f2 || f4 <= f3 || f4 >= end) return false;
  const f5 = packed.indexOf(FIELD_SEPARATOR, f4 + 1);
  if (f5 !== -1 && f5 < end) return false;
  BOUNDS[0] = f1;
  BOUNDS[1] = f2;
  BOUNDS[2] = f3;
  BOUNDS[3] = f4;
  BOUNDS[4] = end;
  return true;
}

/** the decimal number text[from, to) spells, or -1 when it is empty or not all digits */
export function decimal(text: string, from: number, to: number): number {
  if (to <= from) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
}
