/**
 * RFC 1035 §5 master files: rendering a zone for name servers and checkers, and importing one.
 *
 * Import rules (documented in docs/dns-known-differences.md):
 * - `$ORIGIN` (absolute, relative to the current origin, or `.`), `$TTL` and BIND's `$GENERATE` (generate.ts)
 *   are understood; `$INCLUDE` is refused (DIRECTIVE_NOT_SUPPORTED): an API import cannot read other files.
 * - Identical records are merged with a warning (DUPLICATE_RECORD_MERGED), as BIND merges them; the signer's
 *   records (RRSIG, NSEC, NSEC3, NSEC3PARAM) are dropped and counted; name warnings (NAME_NOT_HOSTNAME,
 *   RELATIVE_NAME_REPEATS_ZONE, for a relative owner as for a relative target) and clamped TTLs (ttlPolicy CLAMP) come back as warnings with their line.
 * - A record without TTL takes the `$TTL` value (RFC 2308 §4); without `$TTL`, the last TTL written explicitly
 *   on an earlier record (RFC 1035 §5.1); with neither, it is a TTL_MISSING problem. TTLs may use units (1h).
 * - The records of one RRset whose TTLs differ take one TTL (RFC 2181 §5.2), the one BIND loads them with
 *   (`RrsetTtls` below), with an RRSET_TTLS_DIFFER warning naming the TTLs found and the one kept.
 * - Class IN is optional; other classes are refused. TTL and class may come in either order (RFC 1035 §5.1).
 * - A line starting with a blank has the previous owner (RFC 1035 §5.1).
 * - Every record is validated with parseRecord (so the TTL allow-list applies), then the whole zone with
 *   checkZone. Problems carry the 1-based line where their record starts.
 */
import { ownerToFqdn, parseDomainNameInRdata, relativeOwnerRepeatsOrigin } from './name';
import { SIGNER_TYPE_CODES } from './record-types/generic';
import { parseGenerateRange, substitute } from './generate';
import { Field, splitFields } from './presentation';
import { Problem, problem } from './problem';
import { CanonicalRecord, parseRecordWithOrigin, recordIdentity } from './record';
import { AllowedTtls, checkTtl, clampTtl, parseDuration, ttlAllowed } from './ttl';
import { checkZoneIndexed } from './zone-rules';

/** RFC 4034 §6.1 canonical order of owner names: compare label by label from the right (the labels given reversed, the apex none) */
function compareOwnerLabels(la: readonly string[], lb: readonly string[]): number {
  for (let i = 0; i < Math.min(la.length, lb.length); i++) {
    if (la[i] !== lb[i]) return la[i] < lb[i] ? -1 : 1;
  }
  return la.length - lb.length;
}

/** the owners in that order, each split into labels once */
function sortOwners(owners: Iterable<string>): string[] {
  const keyed = [...owners].map((owner) => ({ owner, labels: owner === '@' ? [] : owner.split('.').reverse() }));
  keyed.sort((a, b) => compareOwnerLabels(a.labels, b.labels));
  return keyed.map((k) => k.owner);
}

/**
 * RFC 1035 §5 master file: $ORIGIN <zone>., $TTL, the SOA first, then the records sorted by owner (canonical
 * order) then type; owners relative or '@'; one record per line, with explicit TTL and class. (A stored zone is
 * exported in the same order by its repository's sort, repositories/zone-export.ts, line by line.)
 */
export function renderZoneFile(zone: string, records: CanonicalRecord[]): string {
  const soa = records.find((r) => r.type === 'SOA');
  // the owners are sorted once each, not once per record comparison (a signed zone has several records per
  // owner), then each owner's records by type and RDATA: the same order as sorting the records themselves
  const byOwner = new Map<string, CanonicalRecord[]>();
  for (const record of records) {
    if (record === soa) continue;
    const list = byOwner.get(record.owner);
    if (list) list.push(record);
    else byOwner.set(record.owner, [record]);
  }
  const owners = sortOwners(byOwner.keys());
  const lines: string[] = [zoneFileHead(zone, soa)];
  for (const owner of owners) {
    const list = byOwner.get(owner)!;
    if (list.length > 1)
      list.sort((x, y) => (x.type < y.type ? -1 : x.type > y.type ? 1 : 0) || (x.rdata < y.rdata ? -1 : x.rdata > y.rdata ? 1 : 0));
    for (const record of list) lines.push(zoneFileLine(record));
  }
  return lines.join('');
}

/** The start of a master file: $ORIGIN, $TTL (the SOA's) and the SOA line. Each piece ends with a newline. */
export function zoneFileHead(zone: string, soa: CanonicalRecord | undefined): string {
  return `$ORIGIN ${ownerToFqdn('@', zone)}\n$TTL ${soa ? soa.ttl : 3600}\n${soa ? zoneFileLine(soa) : ''}`;
}

/** One record of a master file: owner (relative, '@' the apex), explicit TTL and class, type, RDATA. */
export function zoneFileLine(r: CanonicalRecord): string {
  return `${r.owner} ${r.ttl} IN ${r.type} ${r.rdata}\n`;
}

interface LogicalLine {
  /** 1-based line where the entry starts */
  line: number;
  /** the entry starts with a blank: it has no owner field */
  blankOwner: boolean;
  /** the entry with comments removed and parentheses replaced by blanks */
  text: string;
  /** a line a `$GENERATE` made: it gives no owner to the blank-owner lines after it, as in BIND */
  generated?: boolean;
  /**
   * the comment that ends a record written on one line (`www A 192.0.2.1 ; the web server`, Cloudflare's
   * `; cf_tags=cf-proxied:true`), its text after the `;`, trimmed: the record's RRset's comment (docs/changes.md,
   * «Comments»). A line of a comment alone, and the comments of an entry that spans lines (an SOA's fields
   * annotated one a line), are the file's notes, no record's.
   */
  comment?: string;
  /** the entry went on past its first line (parentheses) */
  spansLines?: boolean;
}

/** the characters that end a run of plain text, inside and outside a quoted string */
const QUOTED_SPECIAL = /[\n\\"]/g;
const UNQUOTED_SPECIAL = /[\n\\"();\r]/g;

/**
 * Appends the run of plain characters that starts at `start` to the entry in one piece, and returns the index
 * of its last character. Appending a character at a time builds a string rope of one node per character: a
 * 1 MB line took 34 MB of heap and 165 ms (bench/RESULTS-hostile.md).
 */
function appendRun(entry: LogicalLine, text: string, start: number, special: RegExp): number {
  special.lastIndex = start;
  const next = special.exec(text);
  const end = next ? next.index : text.length;
  entry.text += text.slice(start, end);
  return end - 1;
}

/**
 * Joins parenthesised continuation lines and removes comments (RFC 1035 §5.1), one entry at a time as the text is
 * read, piece by piece: the caller handles (and counts) each entry before the next is made, so that no list of the
 * file's entries is ever held, and a refusal part way through stops the reading there. Every piece but the last
 * ends with a line's end, so that an escape's or a comment's next character is always in the piece it is read in;
 * an entry (parentheses) may go on into the next piece.
 */
class LogicalLines {
  private line = 1;
  private current: LogicalLine | undefined;
  private depth = 0;
  private quoted = false;
  private parenLine = 0;

  constructor(private readonly problems: Problem[]) {}

  /** the entry made so far, unless it holds nothing; the next character starts another */
  private finished(): LogicalLine | undefined {
    const done = this.current && this.current.text.trim().length > 0 ? this.current : undefined;
    this.current = undefined;
    return done;
  }

  /** the entries that `text`, the next piece of the file, completes */
  *read(text: string): Generator<LogicalLine> {
    const problems = this.problems;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (!this.current) this.current = { line: this.line, blankOwner: c === ' ' || c === '\t', text: '' };
      const entry = this.current;
      if (c === '\n') {
        const line = this.line;
        if (this.quoted) {
          problems.push({
            ...problem('rdata', 'UNTERMINATED_QUOTE', `line ${line}: a quoted string is not closed before the end of the line`),
            line,
          });
          this.quoted = false;
          this.depth = 0;
          this.current = undefined;
        } else if (this.depth > 0) {
          entry.text += ' ';
          entry.spansLines = true;
        } else {
          const done = this.finished();
          if (done) {
            this.line++;
            yield done;
            continue;
          }
        }
        this.line++;
        continue;
      }
      if (c === '\\') {
        entry.text += c + (text[i + 1] === '\n' || text[i + 1] === undefined ? '' : text[i + 1]);
        if (text[i + 1] !== '\n' && text[i + 1] !== undefined) i++;
        continue;
      }
      if (this.quoted) {
        if (c === '"') {
          this.quoted = false;
          entry.text += c;
        } else {
          i = appendRun(entry, text, i, QUOTED_SPECIAL);
        }
        continue;
      }
      if (c === '"') {
        this.quoted = true;
        entry.text += c;
        continue;
      }
      if (c === ';') {
        const start = i + 1;
        while (i + 1 < text.length && text[i + 1] !== '\n') i++;
        // a record's own comment: after its data, outside parentheses, on an entry of one line
        if (this.depth === 0 && !entry.spansLines && entry.text.trim().length > 0) {
          const comment = text.slice(start, i + 1).trim();
          if (comment) entry.comment = comment;
        }
        continue;
      }
      if (c === '(') {
        if (this.depth === 0) this.parenLine = this.line;
        this.depth++;
        entry.text += ' ';
        continue;
      }
      if (c === ')') {
        const line = this.line;
        if (this.depth === 0) problems.push({ ...problem('rdata', 'ZONE_FILE_SYNTAX', `line ${line}: ')' without a matching '('`), line });
        else this.depth--;
        entry.text += ' ';
        continue;
      }
      if (c === '\r') continue;
      i = appendRun(entry, text, i, UNQUOTED_SPECIAL);
    }
  }

  /** the file's end: its last entry, and the problems of what it left open */
  end(): LogicalLine | undefined {
    const line = this.line;
    if (this.quoted)
      this.problems.push({
        ...problem('rdata', 'UNTERMINATED_QUOTE', `line ${line}: a quoted string is not closed at the end of the file`),
        line,
      });
    if (this.depth > 0)
      this.problems.push({ ...problem('rdata', 'ZONE_FILE_SYNTAX', `line ${this.parenLine}: '(' is never closed`), line: this.parenLine });
    return this.finished();
  }
}

/**
 * what an import does with a TTL outside the TTL policy (ALLOWED_TTLS, ALLOWED_TTLS_BEYOND_REST): refuse the file
 * (every line listed), or clamp it
 */
export type TtlPolicy = 'REFUSE' | 'CLAMP';

export type ZoneFileResult =
  | {
      ok: true;
      records: CanonicalRecord[];
      /** the 1-based line each record starts on (records[i] at lines[i]): a merge's conflicts name them */
      lines: number[];
      warnings: Problem[];
      dropped: { type: string; count: number }[];
      /** the comments that end the records' lines (LogicalLine.comment), in the file's order, with their RRsets */
      comments: FileComment[];
    }
  | {
      ok: false;
      problems: Problem[];
      /** the file passed `maxRecords`: the line of the record that passed it (reading stopped there) */
      recordLimit?: { limit: number; line: number };
    };

/** a record line's comment (LogicalLine.comment): the RRset it is of (owner relative, '@' the apex), its line */
export interface FileComment {
  owner: string;
  type: string;
  line: number;
  text: string;
}

/**
 * The most problems, and warnings, a parse keeps: a file of a million bad lines is refused with its first ten
 * thousand problems (reading stops there), not held whole; warnings past it are counted, not kept.
 */
export const MAX_REPORTED = 10_000;

const CLASS_NAMES = /^(IN|CH|CS|HS|CLASS[0-9]+)$/i;

export interface ZoneFileOptions {
  /** a whole zone (the SOA and apex NS required), or records to merge into one (default true) */
  complete?: boolean;
  ttlPolicy?: TtlPolicy;
  /**
   * The most distinct records the file may hold (the signer's dropped ones aside): reading stops at the record
   * that passes it, before the rest of the file is read or any more records are made (`recordLimit`).
   */
  maxRecords?: number;
  /** types dropped and counted as the signer's records are (a signed zone's DNSKEY, CDS and CDNSKEY) */
  drop?: ReadonlySet<string>;
}

/**
 * One RRset's TTLs in a file: the one BIND would hold it at so far, the first TTL its lines gave with its line,
 * and each other TTL with its first line (made only for an RRset that has one: most have none, and a file of
 * 100,000 RRsets would make as many maps for nothing)
 */
interface RrsetTtl {
  ttl: number;
  firstTtl: number;
  firstLine: number;
  others?: Map<number, number>;
}

/**
 * The TTL of each RRset of a file as BIND loads it (RFC 2181 §5.2: an RRset has one TTL). Checked against BIND
 * 9.18's named-checkzone (test/e2e/zone-files.test.ts):
 * - BIND's loader gathers consecutive lines of one owner (written the same way: case counts; comments, `$TTL`
 *   and `$ORIGIN` between them do not end the run) and gives each RRset among them the first record's TTL
 *   ("TTL set to prior TTL");
 * - it adds such a run to the zone when a line of another owner comes, or at the end of the file, and each
 *   `$GENERATE` record at once, as it is made; a record added to an RRset the zone holds gives the RRset its TTL
 *   (the last added wins, without a word).
 * A file whose RRsets' records all share their TTL is loaded unchanged.
 */
class RrsetTtls {
  private readonly rrsets = new Map<string, RrsetTtl>();
  /** the run being read: its owner as written (absolute) and the TTL each of its RRsets took first */
  private runOwner: string | undefined;
  private readonly run = new Map<string, number>();

  /** a line of `owner` (absolute, as written) starts: a line of another owner ends the run */
  owner(owner: string): void {
    if (owner === this.runOwner) return;
    this.flush();
    this.runOwner = owner;
  }

  /** a record of the file, read on `line`: where it comes in a run, it takes the run's TTL for its RRset */
  record(record: CanonicalRecord, line: number, generated: boolean): void {
    const key = `${record.owner} ${record.type}`;
    let rrset = this.rrsets.get(key);
    if (!rrset) this.rrsets.set(key, (rrset = { ttl: record.ttl, firstTtl: record.ttl, firstLine: line }));
    else if (record.ttl !== rrset.firstTtl && !rrset.others?.has(record.ttl)) (rrset.others ??= new Map()).set(record.ttl, line);
    if (generated) rrset.ttl = record.ttl;
    else if (!this.run.has(key)) this.run.set(key, record.ttl);
  }

  /**
   * At the end of the file: gives every record of an RRset whose lines gave several TTLs the RRset's one, and
   * answers a warning for each such RRset, at the first line whose TTL was not kept
   */
  settle(records: CanonicalRecord[]): Problem[] {
    this.flush();
    const warnings: Problem[] = [];
    const mixed = new Map<string, RrsetTtl>();
    for (const [key, rrset] of this.rrsets) if (rrset.others) mixed.set(key, rrset);
    if (!mixed.size) return warnings;
    for (const record of records) {
      const rrset = mixed.get(`${record.owner} ${record.type}`);
      if (rrset) record.ttl = rrset.ttl;
    }
    for (const [key, rrset] of mixed) {
      const [owner, type] = key.split(' ');
      const found = [[rrset.firstTtl, rrset.firstLine], ...rrset.others!].sort((a, b) => a[1] - b[1]);
      const line = Math.min(...found.filter(([ttl]) => ttl !== rrset.ttl).map(([, at]) => at));
      const list = found.map(([ttl, at]) => `${ttl} (line ${at})`).join(', ');
      warnings.push({
        ...problem(
          'ttl',
          'RRSET_TTLS_DIFFER',
          `line ${line}: the ${type} records at ${owner} have TTLs ${list}; an RRset has one TTL (RFC 2181 §5.2): ${rrset.ttl} is kept for all, as BIND loads the file`,
        ),
        line,
      });
    }
    return warnings;
  }

  /** whether the file gave `record`'s RRset several TTLs (one was kept for all: `settle`) */
  mixed(record: CanonicalRecord): boolean {
    return this.rrsets.get(`${record.owner} ${record.type}`)?.others !== undefined;
  }

  /** the run ends: the zone takes its RRsets' TTLs (BIND adds the run) */
  private flush(): void {
    for (const [key, ttl] of this.run) this.rrsets.get(key)!.ttl = ttl;
    this.run.clear();
  }
}

/**
 * Parses a master file for `zone` (without trailing dot). Every problem found is returned (the first
 * MAX_REPORTED of them), each with the line of its record.
 */
export function parseZoneFile(zone: string, text: string, allowedTtls: AllowedTtls, options: ZoneFileOptions = {}): ZoneFileResult {
  const reader = zoneFileReader(zone, allowedTtls, options);
  reader.read(text);
  return reader.end();
}

/** a master file read piece by piece (`splitPieces`), as it arrives: parseZoneFile's answer at the end */
export interface ZoneFileReader {
  /** reads the next piece; false once reading has stopped (the record limit passed, or too many problems) */
  read(piece: string): boolean;
  end(): ZoneFileResult;
}

/**
 * The pieces of `text` (about `size` characters each) as ZoneFileReader takes them: each ends with a line's end,
 * the last aside. A piece is sliced as it is asked for.
 */
export function* splitPieces(text: string, size: number): Generator<string> {
  for (let start = 0; start < text.length;) {
    const newline = text.indexOf('\n', start + size);
    const end = newline === -1 ? text.length : newline + 1;
    yield text.slice(start, end);
    start = end;
  }
}

export function zoneFileReader(zone: string, allowedTtls: AllowedTtls, options: ZoneFileOptions = {}): ZoneFileReader {
  // a partial file (records to merge into an existing zone) need not carry the SOA and apex NS
  const complete = options.complete ?? true;
  const problems: Problem[] = [];
  const records: CanonicalRecord[] = [];
  const recordLines: number[] = [];
  const comments: FileComment[] = [];
  const warnings: Problem[] = [];
  const dropped = new Map<string, number>();
  const seen = new Map<string, number>();
  const rrsetTtls = new RrsetTtls();
  const maxRecords = options.maxRecords ?? Infinity;
  let recordLimit: { limit: number; line: number } | undefined;
  let warningsLeftOut = 0;
  const z = zone.replace(/\.$/, '').toLowerCase();
  let origin = z;
  let defaultTtl: number | undefined;
  let lastExplicitTtl: number | undefined;
  let previousOwner: string | undefined;
  // every problem and warning says its line in the message too ("line 18: …"), not only in `line`
  const withLine = (p: Problem, line: number): Problem => ({
    ...p,
    message: p.message.startsWith('line ') ? p.message : `line ${line}: ${p.message}`,
    line,
  });
  const at = (line: number, list: Problem[]) => list.forEach((p) => problems.push(withLine(p, line)));
  const warn = (line: number, list: Problem[]) => list.forEach((p) => addWarning(withLine(p, line)));
  const addWarning = (p: Problem) => {
    if (warnings.length < MAX_REPORTED) warnings.push(p);
    else warningsLeftOut += 1;
  };
  /** reading stops: the record limit passed, or enough problems to refuse the file */
  const stopped = () => recordLimit !== undefined || problems.length >= MAX_REPORTED;

  const handle = (entry: LogicalLine): void => {
    const split = splitFields(entry.text);
    if (!split.ok) {
      at(entry.line, split.problems);
      return;
    }
    const fields = split.fields;
    if (fields.length === 0) return;

    if (!entry.blankOwner && fields[0].raw.startsWith('$')) {
      const directive = fields[0].raw.toUpperCase();
      if (directive === '$ORIGIN' && fields.length === 2 && fields[1].raw === '.') {
        // `$ORIGIN .` (the root) heads every zone BIND and pdnsutil dump: the names that follow are absolute
        // or relative to the root (RFC 1035 §5.1)
        origin = '';
      } else if (directive === '$ORIGIN' && fields.length === 2) {
        // RFC 1035 §5.1: $ORIGIN sets the origin for relative names that follow
        const name = parseDomainNameInRdata(fields[1].raw, origin, 'zone');
        if (name.ok) origin = name.name === '.' ? '' : name.name.slice(0, -1);
        else at(entry.line, name.problems);
      } else if (directive === '$TTL' && fields.length === 2) {
        // RFC 2308 §4: $TTL is the default TTL of the records that follow
        const seconds = parseDuration(fields[1].raw);
        const found = checkTtl(seconds ?? fields[1].raw, [], 'ttl');
        if (found.length) at(entry.line, found);
        else defaultTtl = seconds;
      } else if (directive === '$ORIGIN' || directive === '$TTL') {
        at(entry.line, [problem('rdata', 'ZONE_FILE_SYNTAX', `line ${entry.line}: ${directive} takes exactly one argument`)]);
      } else if (directive === '$GENERATE') {
        generate(entry, fields);
      } else if (directive === '$INCLUDE') {
        // RFC 1035 §5.1 $INCLUDE names a file of the server that reads the zone: an uploaded file cannot
        // reach the server's files, and must not
        at(entry.line, [
          problem(
            'rdata',
            'DIRECTIVE_NOT_SUPPORTED',
            `line ${entry.line}: $INCLUDE cannot be used in an uploaded zone file (it would read a file on the server); paste the included file's records in its place`,
          ),
        ]);
      } else {
        at(entry.line, [
          problem(
            'rdata',
            'DIRECTIVE_NOT_SUPPORTED',
            `line ${entry.line}: the directive ${fields[0].raw} is not supported (only $ORIGIN, $TTL and $GENERATE)`,
          ),
        ]);
      }
      return;
    }

    let index = 0;
    let ownerAbsolute: string | undefined;
    if (entry.blankOwner) {
      ownerAbsolute = previousOwner;
      if (!ownerAbsolute) {
        at(entry.line, [
          problem('owner', 'OWNER_MISSING', `line ${entry.line}: the record starts with a blank but no earlier record gives an owner`),
        ]);
        return;
      }
    } else {
      const raw = fields[index++].raw;
      const originFqdn = origin === '' ? '.' : `${origin}.`;
      const relative = raw !== '@' && !isAbsoluteText(raw);
      ownerAbsolute = raw === '@' ? originFqdn : relative ? `${raw}.${originFqdn === '.' ? '' : originFqdn}` : raw;
      if (!entry.generated) previousOwner = ownerAbsolute;
      // `www.example.com A …` in example.com is www.example.com.example.com.: warned as the same slip in a target is
      const repeats = relative ? relativeOwnerRepeatsOrigin(raw, origin) : undefined;
      if (repeats) warn(entry.line, [repeats]);
    }
    if (!entry.generated) rrsetTtls.owner(ownerAbsolute);

    let ttl: number | undefined;
    let klass: string | undefined;
    const lineProblems: Problem[] = [];
    for (let k = 0; k < 2 && index < fields.length; k++) {
      const raw = fields[index].raw;
      const seconds = parseDuration(raw);
      if (ttl === undefined && seconds !== undefined) {
        ttl = seconds;
        index++;
        continue;
      }
      if (klass === undefined && CLASS_NAMES.test(raw)) {
        klass = raw.toUpperCase();
        index++;
        continue;
      }
      break;
    }
    if (klass !== undefined && klass !== 'IN') {
      lineProblems.push(problem('type', 'CLASS_NOT_SUPPORTED', `line ${entry.line}: class ${klass} is not supported; only IN`));
    }
    if (index >= fields.length) {
      at(entry.line, [...lineProblems, problem('type', 'ZONE_FILE_SYNTAX', `line ${entry.line}: the record has no type`)]);
      return;
    }
    const type = fields[index].raw;
    const signerType = signerTypeOf(type) ?? (options.drop?.has(type.toUpperCase()) ? type.toUpperCase() : undefined);
    if (signerType) {
      // an imported signed zone: the primary does not sign (its signatures would be stale at the first change),
      // so the signer's records are dropped and counted, never a reason to refuse the file
      dropped.set(signerType, (dropped.get(signerType) ?? 0) + 1);
      return;
    }
    const rdata = index + 1 < fields.length ? entry.text.slice(fields[index + 1].start).trim() : '';
    if (ttl !== undefined) lastExplicitTtl = ttl;
    const effectiveTtl = ttl ?? defaultTtl ?? lastExplicitTtl;
    if (effectiveTtl === undefined) {
      lineProblems.push(problem('ttl', 'TTL_MISSING', `line ${entry.line}: the record has no TTL and no $TTL or earlier TTL applies`));
    }
    // the TTL policy is held to each RRset's one TTL once the file is read (`settle`): a line's own TTL may not be
    // the one its RRset keeps, as BIND loads the file
    const parsed = parseRecordWithOrigin(z, origin, { owner: ownerAbsolute, type, rdata, ttl: effectiveTtl ?? 0 }, []);
    if (!parsed.ok) lineProblems.push(...parsed.problems);
    if (lineProblems.length) {
      at(entry.line, lineProblems);
      return;
    }
    if (parsed.ok) {
      warn(entry.line, parsed.warnings);
      // identical records (owner, type, canonical RDATA: names compare case-insensitively) are one record in
      // the DNS (RFC 2181 §5); BIND merges them on load, so do we, with a warning
      // its TTL counts towards its RRset's, a repeat's too (BIND loads both); RRSET_TTLS_DIFFER says which is kept
      rrsetTtls.record(parsed.record, entry.line, entry.generated === true);
      // its line's comment is its RRset's, a repeated record's too (the file said it)
      if (entry.comment !== undefined)
        comments.push({ owner: parsed.record.owner, type: parsed.record.type, line: entry.line, text: entry.comment });
      const key = recordIdentity(parsed.record);
      const first = seen.get(key);
      if (first !== undefined) {
        const kept = records[first];
        addWarning({
          ...problem(
            'rdata',
            'DUPLICATE_RECORD_MERGED',
            `line ${entry.line}: the ${kept.type} record at ${kept.owner} repeats line ${recordLines[first]}; merged into one`,
          ),
          line: entry.line,
        });
        return;
      }
      if (records.length >= maxRecords) {
        // counted as it is read: the record that passes the limit ends the reading, whatever follows it
        recordLimit = { limit: maxRecords, line: entry.line };
        return;
      }
      seen.set(key, records.length);
      records.push(parsed.record);
      recordLines.push(entry.line);
    }
  };
  /** `$GENERATE range lhs [ttl] [class] type rhs`: each generated line is read as if written in the file */
  const generate = (entry: LogicalLine, fields: Field[]): void => {
    let typeAt = 3;
    while (
      typeAt < fields.length &&
      typeAt < 5 &&
      (parseDuration(fields[typeAt].raw) !== undefined || CLASS_NAMES.test(fields[typeAt].raw))
    )
      typeAt++;
    if (fields.length < typeAt + 2) {
      at(entry.line, [
        problem('rdata', 'GENERATE_INVALID', `line ${entry.line}: $GENERATE needs a range, a left-hand side, a type and a right-hand side`),
      ]);
      return;
    }
    const range = parseGenerateRange(fields[1].raw, entry.line);
    if (!range.ok) {
      at(entry.line, range.problems);
      return;
    }
    const middle = fields
      .slice(3, typeAt + 1)
      .map((f) => f.raw)
      .join(' ');
    const rhs = entry.text.slice(fields[typeAt + 1].start).trim();
    for (let i = range.start; i <= range.stop && !stopped(); i += range.step) {
      const owner = substitute(fields[2].raw, i, entry.line);
      const data = substitute(rhs, i, entry.line);
      if (!owner.ok || !data.ok) {
        at(entry.line, [...(owner.ok ? [] : owner.problems), ...(data.ok ? [] : data.problems)]);
        return;
      }
      handle({ line: entry.line, blankOwner: false, text: `${owner.text} ${middle} ${data.text}`, generated: true });
    }
  };
  const lines = new LogicalLines(problems);
  const read = (piece: string): boolean => {
    if (stopped()) return false;
    for (const entry of lines.read(piece)) {
      handle(entry);
      if (stopped()) return false;
    }
    return true;
  };
  return { read, end: () => finish(lines.end()) };

  /**
   * Each record's TTL, its RRset's one, held to the TTL policy: refused on the record's line, or with ttlPolicy
   * CLAMP the nearest allowed TTL, reported
   */
  function holdToAllowedTtls(): void {
    const clamp = options.ttlPolicy === 'CLAMP';
    for (const [index, record] of records.entries()) {
      if (ttlAllowed(record.ttl, allowedTtls)) continue;
      if (!clamp) {
        // where the file gave the RRset several TTLs, the refused one may not be this line's own: say whose it is
        const kept = rrsetTtls.mixed(record) ? ` (the TTL its ${record.type} RRset keeps, as BIND loads the file)` : '';
        at(
          recordLines[index],
          checkTtl(record.ttl, allowedTtls).map((found) => ({ ...found, message: found.message + kept })),
        );
        continue;
      }
      const clamped = clampTtl(record.ttl, allowedTtls);
      warn(recordLines[index], [problem('ttl', 'TTL_CLAMPED', `ttl: ${record.ttl} is not allowed; clamped to ${clamped}`)]);
      record.ttl = clamped;
    }
  }

  function finish(last: LogicalLine | undefined): ZoneFileResult {
    if (last && !stopped()) handle(last);
    if (recordLimit) return { ok: false, problems: [], recordLimit };
    warnings.push(...rrsetTtls.settle(records));
    holdToAllowedTtls();
    if (problems.length >= MAX_REPORTED) {
      problems.length = MAX_REPORTED;
      const last = problems[problems.length - 1].line;
      problems.push({
        ...problem('rdata', 'TOO_MANY_PROBLEMS', `the file has more than ${MAX_REPORTED} problems: reading stopped at line ${last}`),
        line: last,
      });
    }

    const recordsFailed = problems.length > 0;
    for (const found of checkZoneIndexed(z, records)) {
      // "no SOA" / "no apex NS" are noise when the SOA or NS line itself was refused above
      if (found.index === undefined) {
        if (!recordsFailed && complete) problems.push(found.problem);
      } else problems.push(withLine(found.problem, recordLines[found.index]));
    }
    if (problems.length) {
      problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
      return { ok: false, problems };
    }
    warnings.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    if (warningsLeftOut)
      warnings.push(
        problem('rdata', 'WARNINGS_LEFT_OUT', `${warningsLeftOut} more warnings past the first ${MAX_REPORTED} are not listed`),
      );
    return {
      ok: true,
      records,
      lines: recordLines,
      warnings,
      dropped: [...dropped].map(([type, count]) => ({ type, count })).sort((a, b) => (a.type < b.type ? -1 : 1)),
      comments,
    };
  }
}

/** a name in presentation form is absolute when it ends with a dot that is not escaped (`a\.` is relative) */
function isAbsoluteText(name: string): boolean {
  let backslashes = 0;
  for (let i = name.length - 2; i >= 0 && name[i] === '\\'; i--) backslashes++;
  return name.endsWith('.') && backslashes % 2 === 0;
}

const SIGNER_TYPE_NAMES: ReadonlySet<string> = new Set(SIGNER_TYPE_CODES.values());

function signerTypeOf(type: string): string | undefined {
  const upper = type.toUpperCase();
  const m = /^TYPE([0-9]{1,5})$/.exec(upper);
  if (m) return SIGNER_TYPE_CODES.get(Number(m[1]));
  return SIGNER_TYPE_NAMES.has(upper) ? upper : undefined;
}
