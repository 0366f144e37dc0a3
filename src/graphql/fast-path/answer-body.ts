import { randomBytes } from 'node:crypto';
import type { PackedRecords } from '../../repositories/read-model';
import {
  GivenJson,
  givenJsonOf,
  GivenValues,
  JsonRecordShape,
  PackedField,
  packedJsonBytesExpected,
  plainRecordObjects,
  writePackedJson,
} from './packed-json';

/**
 * What a plain record list stands for in the JSON text of its answer until answerBody puts the list's own text
 * there: a NUL (which no text read from PostgreSQL holds) and a number drawn when the process starts, so that no
 * value of an answer can spell it.
 */
const MARKER = `\u0000plain records ${randomBytes(16).toString('hex')}`;
const MARKER_JSON = JSON.stringify(MARKER);

/** the lists met while answerBody's JSON.stringify runs (it is synchronous: one answer at a time) */
let writing: PlainRecordList[] | undefined;

/**
 * A zone's plain record list (plain-record-lists.ts) as it is answered over HTTP: its packed text and the
 * members its records have, written as JSON by answerBody straight into the answer's bytes. Written by
 * anything else (JSON.stringify of the result elsewhere), it is the plain objects it stands for.
 */
export class PlainRecordList {
  /** the given values' JSON text (written twice when the answer's buffer grows: made once) */
  private givenJson: GivenJson | undefined;

  constructor(
    private readonly records: PackedRecords,
    private readonly keys: readonly string[],
    private readonly fields: readonly PackedField[],
    private readonly shape: JsonRecordShape,
    /** the members given per record beside the packed text (the RRsets' counts) */
    private readonly given: GivenValues = [],
  ) {}

  toJSON(): unknown {
    if (!writing) return plainRecordObjects(this.records, this.keys, this.fields, this.given);
    writing.push(this);
    return MARKER;
  }

  /** about the bytes write writes (exactly, for ASCII text that JSON does not escape) */
  bytesExpected(): number {
    return packedJsonBytesExpected(this.records, this.shape, this.json());
  }

  /** writes the list's JSON into `out` from `at`: the end, or -1 when it does not fit */
  write(out: Buffer, at: number): number {
    return writePackedJson(this.records, out, at, this.shape, this.json());
  }

  private json(): GivenJson {
    return (this.givenJson ??= givenJsonOf(this.given));
  }
}

/**
 * The body of a /graphql answer (Apollo's `stringifyResult`, src/app.ts): its JSON text, or, when it holds plain
 * record lists, its JSON as UTF-8 bytes, written once. The answer is stringified with each list as a marker
 * (users, zones and everything else as JSON.stringify writes them), then the bytes are that text with each
 * marker replaced by its list's JSON (packed-json.ts, writePackedJson): the same bytes as JSON.stringify of the plain
 * objects, without them, and without the answer's text as one large string that express then copies into a
 * Buffer (0.7 MB each in the nested answer of the bench: bench/FINDINGS.md, «The nested answer written as
 * bytes»). Apollo hands the body to express's `res.send` as it is, which sends a Buffer with the Content-Type
 * Apollo set. Should a marker be missing, the answer is stringified again with the plain objects.
 */
export function answerBody(value: unknown): string | Buffer {
  const lists: PlainRecordList[] = [];
  writing = lists;
  let text: string;
  try {
    text = JSON.stringify(value);
  } finally {
    writing = undefined;
  }
  if (lists.length === 0) return text;
  let size = Buffer.byteLength(text);
  for (const list of lists) size += list.bytesExpected();
  let out: Buffer = Buffer.allocUnsafe(size);
  let o = 0;
  let from = 0;
  for (const list of lists) {
    const at = text.indexOf(MARKER_JSON, from);
    if (at < 0) return JSON.stringify(value);
    const before = text.slice(from, at);
    // room for the text before the list (its bytes: UTF-8 takes 3 at most per UTF-16 unit)
    if (o + 3 * before.length > out.length) out = grown(out, o, 3 * before.length);
    o += out.write(before, o);
    let end = list.write(out, o);
    // a list with more bytes than expected (escapes, non-ASCII text): the bytes so far in a larger buffer
    while (end < 0) {
      out = grown(out, o, list.bytesExpected());
      end = list.write(out, o);
    }
    o = end;
    from = at + MARKER_JSON.length;
  }
  const rest = text.slice(from);
  if (o + 3 * rest.length > out.length) out = grown(out, o, 3 * rest.length);
  o += out.write(rest, o);
  return out.subarray(0, o);
}

/** a buffer twice as large or with `more` bytes beyond `used` (the larger), the first `used` bytes copied */
function grown(out: Buffer, used: number, more: number): Buffer {
  const larger = Buffer.allocUnsafe(Math.max(2 * out.length, used + more));
  out.copy(larger, 0, 0, used);
  return larger;
}
