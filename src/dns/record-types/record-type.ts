import type { Reading } from '../reading';
import { Problem } from '../problem';
import type { RdataReader } from '../wire/reader';
import type { WireWriter } from '../wire/writer';

export type ParseResult<V> = { ok: true; value: V; canonical: string } | { ok: false; problems: Problem[] };

/**
 * One RDATA field in presentation order. `kind` says how its value reads (default: one token as written):
 * `int` a number (`serial`: an unsigned 32-bit one), `text` one <character-string> (quotes and escapes removed), `texts` the rest of the RDATA
 * as a list of <character-string>s. `tokens`: how many blank-separated tokens it takes (default 1; the last
 * field takes whatever is left). One list serves validation (each file's parse), `recordTypes`, and the typed
 * RDATA of the API (`Record.data`, `RecordInput.data`, src/dns/rdata-fields.ts).
 */
export interface RecordFieldInfo {
  name: string;
  description: string;
  kind?: 'int' | 'serial' | 'text' | 'texts';
  tokens?: number;
  optional?: boolean;
}

/**
 * Everything the service knows about one RR type. Adding a type = one file implementing this + one line in
 * `index.ts`.
 */
export interface RecordTypeDefinition<V = any> {
  /** mnemonic, upper-case: 'MX' */
  type: string;
  /** IANA RR type code: 15 */
  code: number;
  /** where the rules come from: ['RFC 1035 §3.3.9', 'RFC 7505'] */
  rfcs: string[];
  /** RDATA fields in presentation order, shown to API clients */
  fields: RecordFieldInfo[];
  /** parse + validate the presentation form, read as `zone` says: the origin relative names are completed with, or a whole reading (src/dns/reading.ts) */
  parse(rdata: string, zone: Reading): ParseResult<V>;
  /** canonical presentation form (what is stored and shown); parse(format(v)) gives the same canonical string */
  format(value: V): string;
  /**
   * Writes the value's RDATA in wire form (the type's RFC). Names go through `writer.name()`, which compresses
   * or lower-cases them as the framing code says (src/dns/wire/rules.ts), never by the type's choice. Every
   * type has one, and `fromWire` reads back what it writes (a test holds both).
   */
  toWire(value: V, writer: WireWriter): void;
  /**
   * Reads the value from RDATA on the wire (a DNS UPDATE, RFC 2136 §2.5): `format` then `parse` make it a
   * record like any other, with the same rules. Every type of the registry has one (a test holds this).
   */
  fromWire?(rdata: RdataReader): V;
  /**
   * How text typed into the record API (REST, GraphQL, change sets) is read, where it differs from a zone
   * file's reading of the same text: absent, the two are the same.
   */
  apiText?(rdata: string): ApiText;
  /**
   * PowerDNS's own text for this type, where the PowerDNS API (src/powerdns) reads or answers otherwise than
   * the model's: what PowerDNS 4.7 takes as content and reads back, measured against it
   * (test/powerdns/differential.test.ts, docs/powerdns-api.md «Record content»). Absent, PowerDNS's text is the model's. Only the PowerDNS edge uses it;
   * every other edge keeps `format`.
   */
  powerDns?: PowerDnsText<V>;
}

/** a type's text at the PowerDNS API, where it differs from the model's */
export interface PowerDnsText<V> {
  /** content as PowerDNS reads it, made text that `parse` reads as the same RDATA (TXT: an over-long string split) */
  content?: (rdata: string) => string;
  /** the value as PowerDNS 4.7 reads it back (`"rrsets"`' `content`) */
  present?: (value: V) => string;
  /**
   * a quick look at the stored text: false where `present` would give it back unchanged, so that a zone's rrsets
   * are not all parsed again to be shown (absent: every record of the type is presented)
   */
  differs?: (rdata: string) => boolean;
}

/** text typed into the record API as the zone file's syntax reads it, and what its reading changed (warnings) */
export interface ApiText {
  rdata: string;
  warnings: Problem[];
}

/** shared helper: the result of a parse whose problems were collected in a list */
export function finish<V>(problems: Problem[], value: () => V, format: (v: V) => string): ParseResult<V> {
  if (problems.length) return { ok: false, problems };
  const v = value();
  return { ok: true, value: v, canonical: format(v) };
}
