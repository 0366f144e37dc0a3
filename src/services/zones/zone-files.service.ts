import { SIGNER_OWNED_TYPES } from '../../dns/dnssec/signer-records';
import type { Settings } from '../../config/settings';
import { decide, ownerName, readRulesOf, requireAllowed } from '../../auth/policy';
import { CanonicalRecord, recordIdentity } from '../../dns/record';
import { nextSerial, serialGreaterThan } from '../../dns/serial';
import { ownerToFqdn } from '../../dns/name';
import { type FileComment, TtlPolicy, zoneFileHead, zoneFileLine } from '../../dns/zone-file';
import type { Problem } from '../../dns/problem';
import { journalCommentChange, replaceRrsetComments, type RrsetComments } from '../../repositories/rrset-comments';
import { RrsetCommentsService } from './rrset-comments.service';
import { changeAuthor, scopeUserId } from '../../auth/principal';
import { zoneFileRecords } from '../../repositories/zone-export';
import { FLATTENED_TYPE_NAMES } from '../../dns/record-types';
import { checkZoneIndexed, soaSerial, withSerial } from '../../dns/zone-rules';
import { apexNsNotAtParent, checkZoneRecords, ZoneWarning } from '../../dns/zone-checks';
import { parentNsOf } from '../../repositories/health';
import { warningDetail } from './zone-warnings';
import { DomainError, ErrorDetail, errorFromProblems } from '../../errors/catalogue';
import { listDomains } from '../../repositories/read-model';
import { allowedTtlsOf, type RequestContext } from '../context';
import { normaliseZoneName } from '../../dns/zone-name';
import type { StoredRow } from '../../repositories/zone-writes';
import type { WriteEngine, ZoneChange } from '../write-engine';
import type { ZoneChangeOptions, ZoneChangeSpec } from './zone-change-set';
import type { RecordSource } from '../write-engine/staging';
import { type ParseResult, ZoneFileParser } from './zone-file-parser';
import { importBounds } from '../../repositories/zone-writes';
import { quotaExceeded } from '../write-engine/quotas';

export type ImportMode = 'REPLACE' | 'MERGE';
export interface ImportInput {
  zone: string;
  text: string;
  mode: ImportMode;
  dryRun?: boolean;
  ttlPolicy?: TtlPolicy;
}
export interface ImportWarning {
  line?: number;
  field: string;
  code: string;
  message: string;
}
export interface ImportResult {
  zone: string;
  added: number;
  removed: number;
  /** the serial the zone has after the import (a dry run: the one it would have) */
  serial: number;
  dryRun: boolean;
  /** records the file held that are not stored: the signer's (RRSIG, NSEC, NSEC3, NSEC3PARAM), per type */
  dropped: { type: string; count: number }[];
  /**
   * the record lines whose comment the import kept as (part of) its RRset's comment (docs/changes.md, «Comments»;
   * a change request: the comments it carries); a comment line and a comment inside parentheses are the file's notes
   */
  commentsKept: number;
  warnings: ImportWarning[];
  /** a dry run's diff, one record per line in master-file form (absolute owners); undefined otherwise */
  addedRecords?: string[];
  removedRecords?: string[];
}

/** a file read whole, without a problem */
type ParsedFile = Extract<ParseResult, { ok: true }>;

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Zone files (RFC 1035 §5): export any zone, import one all-or-nothing. */
export class ZoneFilesService {
  private readonly parser: ZoneFileParser;
  private readonly comments: RrsetCommentsService;

  constructor(
    private readonly settings: Settings,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {
    this.parser = new ZoneFileParser(settings.importParserHeapMb);
    this.comments = new RrsetCommentsService(settings);
  }

  /** stops the parser's worker thread */
  close(): Promise<void> {
    return this.parser.close();
  }

  /** A zone as a master file, whole (GraphQL's `zoneFile`, `exportZone`). */
  async export(ctx: RequestContext, by: { id?: number; name?: string }): Promise<string> {
    const parts: string[] = [];
    for await (const chunk of await this.exportChunks(ctx, by)) parts.push(chunk);
    return parts.join('');
  }

  /**
   * A zone as a master file in chunks of about 2,000 lines, read page by page from one snapshot: REST streams
   * them, so a zone of a million records is exported with the memory of one page. The zone is looked up (and
   * a missing one refused) before the first chunk.
   */
  async exportChunks(ctx: RequestContext, by: { id?: number; name?: string }): Promise<AsyncIterable<string>> {
    const domain = await visibleZone(ctx, by);
    // a zone file is the whole zone: a restricted key needs to read all of it
    requireAllowed(ctx.principal.policy, { zone: domain.name, access: 'read' });
    const db = ctx.db;
    return (async function* chunks() {
      let first = true;
      for await (const page of zoneFileRecords(db, domain.id, undefined, false)) {
        // the SOA comes first (and gives $TTL): the SOA and the records are of one snapshot
        const soa = first && page[0].type === 'SOA' && page[0].owner === '@' ? page[0] : undefined;
        if (first) yield zoneFileHead(domain.name, soa);
        yield (soa ? page.slice(1) : page).map(zoneFileLine).join('');
        first = false;
      }
      if (first) yield zoneFileHead(domain.name, undefined);
    })();
  }

  /**
   * The zone checks over a whole zone (named-checkzone's kind: aliases and missing addresses behind MX, NS
   * and SRV, missing glue, data hidden by a delegation), read page by page from one snapshot; and the apex NS set
   * against what the parent lists, as the health checker last saw it (APEX_NS_NOT_AT_PARENT).
   */
  async check(ctx: RequestContext, by: { name: string }): Promise<{ zone: string; serial: number; warnings: ZoneWarning[] }> {
    const zone = normaliseZoneName(by.name);
    const domain = await visibleZone(ctx, { name: zone });
    requireAllowed(ctx.principal.policy, { zone: domain.name, access: 'read' });
    const records: CanonicalRecord[] = [];
    for await (const page of zoneFileRecords(ctx.db, domain.id)) records.push(...page);
    const warnings = checkZoneRecords(zone, records);
    const atParent = apexNsNotAtParent(
      zone,
      records.filter((r) => r.owner === '@' && r.type === 'NS').map((r) => r.rdata),
      await parentNsOf(ctx.db, domain.id),
    );
    return { zone, serial: domain.serial, warnings: atParent ? [...warnings, atParent] : warnings };
  }

  /**
   * A restricted key's import: every record it removes or adds (the SOA's serial step aside) must be one its
   * rules let it write; a refusal names each record (an added one by its index among the file's records and its
   * line) and nothing is written, dry run or not.
   */
  private checkPolicy(
    ctx: RequestContext,
    zone: string,
    removed: StoredRow[],
    added: CanonicalRecord[],
    sourceOf: (record: CanonicalRecord) => RecordSource,
  ): void {
    const policy = ctx.principal.policy;
    if (!policy?.rules) return;
    const refused: ErrorDetail[] = [];
    const check = (record: CanonicalRecord, source: RecordSource, what: string) => {
      const decision = decide(policy, { zone, owner: record.owner, type: record.type, access: 'write' });
      if (!decision.allowed)
        refused.push({
          field: source.field,
          code: 'FORBIDDEN_BY_POLICY',
          ...(source.line === undefined ? {} : { line: source.line }),
          message: `${source.line === undefined ? '' : `line ${source.line}: `}${source.field}: ${decision.missing} (${what} ${ownerName(zone, record.owner)} ${record.type})`,
        });
    };
    for (const record of removed) check(record, { field: `removed[${record.id}]` }, 'removes');
    for (const record of added) check(record, sourceOf(record), 'adds');
    if (refused.length) throw new DomainError('FORBIDDEN_BY_POLICY', refused[0].message, refused);
  }

  /** a restricted key comments only the RRsets it may write: a refusal names each comment's line, nothing written */
  private checkCommentPolicy(ctx: RequestContext, zone: string, comments: readonly FileComment[]): void {
    const policy = ctx.principal.policy;
    if (!policy?.rules) return;
    const refused: ErrorDetail[] = [];
    for (const comment of comments) {
      const decision = decide(policy, { zone, owner: comment.owner, type: comment.type, access: 'write' });
      if (!decision.allowed)
        refused.push({
          field: 'comments',
          code: 'FORBIDDEN_BY_POLICY',
          line: comment.line,
          message: `line ${comment.line}: comments: ${decision.missing} (comments ${ownerName(zone, comment.owner)} ${comment.type})`,
        });
    }
    if (refused.length) throw new DomainError('FORBIDDEN_BY_POLICY', refused[0].message, refused);
  }

  /**
   * Imports a master file into an existing zone. REPLACE makes the zone exactly the file (which must be a
   * whole zone); MERGE adds the file's records that the zone lacks, and takes the file's SOA fields if it
   * has an SOA. The serial rises past both the
   * zone's and the file's; every problem comes back at once, with its line; nothing is written on failure.
   */
  async import(ctx: RequestContext, input: ImportInput): Promise<ImportResult> {
    const { zone, parsed } = await this.parseFile(ctx, input);
    const dryRun = input.dryRun ?? false;
    // a dry run writes nothing: a zone under review shows it too (docs/changes.md, «Review»)
    const request = { zone: { name: zone }, allRecords: true, ...(dryRun ? { review: 'plan' as const } : {}) };
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, request, async (change) => {
      const decided = await this.decide(ctx, zone, input, parsed, change);
      const { removedRecords, wanted, warnings, dropped, serial, commit, comments } = decided;
      // the file's comments are written in the import's transaction, holding the zone row's lock, and what they
      // change is kept with its journal row (or, beside no record changed, a row of their own)
      if (comments.sets.length && !dryRun) change.requireLock();
      const commentChanges = comments.sets.length ? await this.comments.changesOf(change.connection, change.zone.id, comments.sets) : [];
      const writeComments = async () => {
        if (!comments.sets.length) return;
        await replaceRrsetComments(change.connection, change.zone.id, comments.sets);
        if (change.serialAfter === undefined && commentChanges.length)
          await journalCommentChange(change.connection, {
            domainId: change.zone.id,
            zone,
            serial: change.zone.serial,
            comments: commentChanges,
            author: changeAuthor(ctx.principal),
          });
      };
      // staged alike for a dry run and an import: from here to the commit, one path
      for (const record of removedRecords)
        if (record.derived) change.removeDerived(record);
        else change.remove(record);
      for (const record of wanted.values()) change.insert(record, { source: decided.sourceOf(record) });
      // a file that changes nothing (the same file imported again) writes nothing: no serial step, journal row,
      // event or NOTIFY, and its answer says so (nothing added or removed, the zone's serial); a dry run alike.
      // Its comments are no DNS data: new ones are written and journalled without a serial step
      if (change.changesNothing(commit)) {
        if (!dryRun) await writeComments();
        return {
          zone,
          added: 0,
          removed: 0,
          serial: change.zone.serial,
          dryRun,
          dropped,
          commentsKept: comments.kept,
          warnings,
          ...(dryRun ? { addedRecords: [], removedRecords: [] } : {}),
        };
      }
      const result: ImportResult = {
        zone,
        added: wanted.size,
        removed: removedRecords.length,
        serial,
        dryRun,
        dropped,
        commentsKept: comments.kept,
        warnings,
      };
      if (dryRun) {
        // octoDNS-style plan: the diff, and nothing written. `check` refuses what `commit` would (an ALIAS
        // without ALIAS_RESOLVERS, the record quota, the policy, the signer) and writes nothing; the SOA's
        // change is listed too (its serial always, its other fields when the file has an SOA)
        await change.check(commit);
        const line = (r: CanonicalRecord) => `${ownerToFqdn(r.owner, zone)} ${r.ttl} IN ${r.type} ${r.rdata}`;
        const soaBefore = change.zone.soa;
        const soaAfter = { ...soaBefore, rdata: withSerial(decided.desiredSoa.rdata, serial), ttl: decided.desiredSoa.ttl };
        return {
          ...result,
          addedRecords: [line(soaAfter), ...[...wanted.values()].map(line)],
          removedRecords: [line(soaBefore), ...removedRecords.map(line)],
        };
      }
      await change.commit(commentChanges.length ? { ...commit, comments: commentChanges } : commit);
      await writeComments();
      return { ...result, serial: change.serialAfter! };
    });
  }

  /**
   * A file's import as a change set, for a zone under review (docs/changes.md, «Review»): decided as the import
   * is, on the zone as it is, and written as nothing. Each RRset the import would change becomes a REPLACE_RRSET
   * with its records as the import leaves them (none: the RRset goes), so that the request's apply refuses it
   * where such an RRset moved meanwhile; an SOA whose fields the file changes, a REPLACE_RRSET of the apex SOA
   * read with `soa: 'fields'` (its serial is the zone's, stepped as every set's: a file's serial ahead of the
   * zone's is not asked for).
   */
  async importChanges(
    ctx: RequestContext,
    input: ImportInput,
  ): Promise<{
    zone: string;
    changes: ZoneChangeSpec[];
    options: ZoneChangeOptions;
    dropped: ImportResult['dropped'];
    commentsKept: number;
    warnings: ImportWarning[];
  }> {
    const { zone, parsed } = await this.parseFile(ctx, input);
    const request = { zone: { name: zone }, allRecords: true, review: 'plan' as const };
    return this.engine.changeZone(ctx.db, this.settings, ctx.principal, request, async (change) => {
      const { removedRecords, wanted, desired, desiredSoa, keptDerived, warnings, dropped, comments } = await this.decide(
        ctx,
        zone,
        input,
        parsed,
        change,
      );
      const key = (r: { owner: string; type: string }) => `${r.owner} ${r.type}`;
      const touched = new Map<string, { owner: string; type: string }>();
      for (const r of [...removedRecords, ...wanted.values()]) touched.set(key(r), { owner: r.owner, type: r.type });
      // the records each touched RRset holds once the import is done (the service's own, flattened from an
      // ALIAS or the signer's, are not a person's to write: they follow the zone's records)
      const after = new Map<string, CanonicalRecord[]>();
      for (const r of desired) {
        if (r.type === 'SOA' || keptDerived.has(r as StoredRow) || (r as StoredRow).derived) continue;
        const k = key(r);
        if (touched.has(k)) after.set(k, [...(after.get(k) ?? []), r]);
      }
      const changes: ZoneChangeSpec[] = [...touched].map(([k, { owner, type }]) => {
        const records = after.get(k) ?? [];
        const ttl = records[0]?.ttl ?? removedRecords.find((r) => key(r) === k)?.ttl;
        return { kind: 'REPLACE_RRSET', owner, type, ttl, rdatas: records.map((r) => r.rdata) };
      });
      const soa = change.zone.soa;
      if (withSerial(desiredSoa.rdata, 0) !== withSerial(soa.rdata, 0) || desiredSoa.ttl !== soa.ttl)
        changes.push({ kind: 'REPLACE_RRSET', owner: '@', type: 'SOA', ttl: desiredSoa.ttl, rdatas: [desiredSoa.rdata] });
      // the comments the file changes, as COMMENT changes of the request (applied with it, docs/changes.md)
      for (const changed of await this.comments.changesOf(change.connection, change.zone.id, comments.sets))
        changes.push({ kind: 'COMMENT', owner: changed.owner, type: changed.type, comment: changed.after ?? '' });
      return { zone, changes, options: { soa: 'fields' }, dropped, commentsKept: comments.kept, warnings };
    });
  }

  /** the file read for an import into a zone the caller sees, bounded by the record quota (see `import`) */
  private async parseFile(ctx: RequestContext, input: ImportInput) {
    const zone = normaliseZoneName(input.zone);
    // a zone the key cannot see is ZONE_NOT_FOUND alone, before the file is read: its lines would otherwise
    // each be "not inside the zone" first
    const domain = await visibleZone(ctx, { name: zone });
    // the record quota is known before the file is read, and counted while it is read: a file of a million
    // records stops at the one that passes it, instead of being held whole first (docs/performance.md, «Memory
    // under hostile input»). REPLACE makes the zone the file, and MERGE keeps every record of the file too, so
    // in both modes a file whose own records pass the quota is refused; the exact count (the zone's records
    // beside the file's) is the write's, as for any change. A zone already over a lowered quota may stay so.
    const bounds = (await importBounds(ctx.db, domain.id, this.settings.quotas.maxRecordsPerZone))!;
    const quota = ctx.principal.kind === 'user' && bounds.limit !== 0 ? { limit: bounds.limit, current: bounds.current } : undefined;
    // what the parser's heap holds bounds every file, the admin's too (no quota stops it): counted as the quota is
    const parserRecords = this.parser.maxRecords;
    const quotaRecords = quota ? Math.max(quota.limit, quota.current) : Infinity;
    // a large file parses on a worker thread: the event loop keeps answering meanwhile
    let parsed = await this.parser.parse(zone, input.text, allowedTtlsOf(ctx, this.settings), {
      complete: input.mode === 'REPLACE',
      ttlPolicy: input.ttlPolicy,
      maxRecords: Math.min(quotaRecords, parserRecords),
      drop: bounds.signed ? SIGNER_OWNED_TYPES : undefined,
    });
    if (!parsed.ok && parsed.recordLimit && quotaRecords > parserRecords) throw this.parser.tooLarge(parsed.recordLimit.line);
    if (!parsed.ok && parsed.recordLimit)
      throw quotaExceeded('maxRecordsPerZone', quota!, `records in zone ${zone}`, {
        line: parsed.recordLimit.line,
        reason: `by the file alone: its record on this line is one past the quota, and the file was read no further`,
      });
    // each RRset's comment, its lines' comments together, is held to MAX_COMMENT_LENGTH as one given through the API
    if (parsed.ok) {
      const tooLong = commentsTooLong(parsed.comments, this.settings.maxCommentLength);
      if (tooLong.length) parsed = { ok: false, problems: tooLong };
    }
    if (!parsed.ok) {
      // the top-level message names the first problem and the count; details keep every one with its line,
      // a problem repeated identically on many lines once, with them all
      const problems = collapseRepeatedProblems(parsed.problems);
      const [first, ...more] = problems;
      const message = `Bad zone file: ${first.message}${more.length ? ` (and ${more.length} more problem${more.length === 1 ? '' : 's'})` : ''}`;
      throw errorFromProblems(problems).withCode('INVALID_ZONE_FILE', message);
    }
    return { zone, parsed };
  }

  /**
   * What an import does to the zone as read: the zone as it will be (`desired`: the file, or the zone with the
   * file merged in), checked by the zone rules and the key's policy, the records to remove and to add, the
   * serial and SOA of the commit, and the warnings.
   */
  private async decide(ctx: RequestContext, zone: string, input: ImportInput, parsed: ParsedFile, change: ZoneChange) {
    const current = change.zone.sameOwner;
    const fileSoa = parsed.records.find((r) => r.type === 'SOA');

    // a set of the zone's identities: MERGE stays linear in zone + file (a scan per file record was
    // quadratic: 13 s for 20,000 records into a zone of as many)
    const currentIdentities = new Set(current.map((r) => recordIdentity(r)));
    // a zone we sign keeps its own DNSKEY, CDS and CDNSKEY: the file's are left out and counted, as its
    // RRSIGs and NSECs are (docs/dnssec.md)
    const fileRecords = change.zone.dnssec ? parsed.records.filter((r) => !SIGNER_OWNED_TYPES.has(r.type)) : parsed.records;
    const dropped = change.zone.dnssec ? withDroppedKeys(parsed.dropped, parsed.records) : parsed.dropped;
    // the A/AAAA derived from an ALIAS/ANAME are the service's (docs/templates-and-alias.md): a REPLACE keeps
    // those of the owners where the file keeps an ALIAS/ANAME, and takes the others with their ALIAS
    const aliasOwners = new Set(fileRecords.filter((r) => FLATTENED_TYPE_NAMES.has(r.type)).map((r) => r.owner));
    // and a signed zone keeps the signer's RFC 9615 signalling records (CDS/CDNSKEY under `_signal`), as it keeps
    // its apex's: the file's are left out above
    const keptDerived = new Set(
      input.mode === 'REPLACE'
        ? current.filter((r) => (r.derived && aliasOwners.has(r.owner)) || (change.zone.dnssec && SIGNER_OWNED_TYPES.has(r.type)))
        : [],
    );
    // MERGE keeps what the zone holds: a file's record that joins an RRset of the zone takes its TTL (RFC 2181
    // §5.2: one TTL per RRset), with a warning, as a repeated record keeps the zone's
    const merged =
      input.mode === 'MERGE'
        ? mergedIntoZone(
            current,
            fileRecords.filter((r) => !currentIdentities.has(recordIdentity(r)) && r.type !== 'SOA'),
            parsed.records,
            parsed.lines,
          )
        : undefined;
    const desired: CanonicalRecord[] = merged
      ? [...current.filter((r) => r.type !== 'SOA' || !fileSoa), ...merged.records, ...(fileSoa ? [fileSoa] : [])]
      : [...fileRecords, ...keptDerived];
    // each step over the whole zone takes tens of milliseconds for 20,000 records; the event loop gets a turn
    // between them, so that /health and other requests are not held for their sum
    await yieldToEventLoop();
    const problems = checkZoneIndexed(zone, desired);
    const lineOf = merged?.lineOf ?? fileLines(parsed.records, parsed.lines);
    if (problems.length) throw errorFromProblems(withFileLines(problems, desired, lineOf));
    await yieldToEventLoop();

    // the serial never goes back: past the zone's own, and the file's when that one is higher (RFC 1982). A
    // file whose serial is ahead of the zone's asks for a step even where its records change nothing, as BIND
    // serves a reloaded file's serial; one at or behind it asks nothing of the serial
    const automatic = nextSerial(change.zone.serial, this.settings.serialPolicy, new Date());
    const fromFile = fileSoa ? soaSerial(fileSoa.rdata) : undefined;
    const serial = fromFile !== undefined && serialGreaterThan(fromFile, automatic) ? fromFile : automatic;
    const fileRaisesSerial = fromFile !== undefined && serialGreaterThan(fromFile, change.zone.serial);
    const desiredSoa = desired.find((r) => r.type === 'SOA')!;

    const wanted = new Map(desired.filter((r) => r.type !== 'SOA' && !keptDerived.has(r as StoredRow)).map((r) => [recordIdentity(r), r]));
    await yieldToEventLoop();
    const removedRecords: StoredRow[] = [];
    for (const record of current) {
      if (record.type === 'SOA' || keptDerived.has(record)) continue;
      const key = recordIdentity(record);
      const keep = wanted.get(key);
      if (keep && keep.ttl === record.ttl) {
        wanted.delete(key);
        continue;
      }
      removedRecords.push(record); // a record whose TTL changes is removed and added again
    }
    await yieldToEventLoop();
    // where each of the file's records is (its index among them, its line): every refusal about one names it
    const position = new Map(parsed.records.map((r, i) => [recordIdentity(r), i]));
    const sourceOf = (record: CanonicalRecord): RecordSource => {
      const index = position.get(recordIdentity(record));
      return index === undefined ? { field: 'records[?]' } : { field: `records[${index}]`, line: parsed.lines[index] };
    };
    this.checkPolicy(ctx, zone, removedRecords, [...wanted.values()], sourceOf);
    // the zone checks over the zone as the import leaves it: warnings beside the file's own, never refusals
    const warnings = [...parsed.warnings, ...(merged?.warnings ?? []), ...checkZoneRecords(zone, desired).map(warningDetail)];
    const commit = { serialSetByCaller: fileRaisesSerial ? serial : undefined, soaRdata: desiredSoa.rdata, soaTtl: desiredSoa.ttl };
    // the file's comments: those of the records it keeps (a signed zone's own keys are not taken from it), each
    // RRset's under the key's policy for it
    const kept = change.zone.dnssec ? parsed.comments.filter((c) => !SIGNER_OWNED_TYPES.has(c.type)) : parsed.comments;
    this.checkCommentPolicy(ctx, zone, kept);
    const comments = { sets: rrsetCommentsOfFile(kept), kept: kept.length };
    return { desired, desiredSoa, keptDerived, removedRecords, wanted, sourceOf, warnings, dropped, serial, commit, comments };
  }
}

/**
 * A MERGE's records from the file that the zone lacks, each joining an RRset of the zone at its TTL (RFC 2181
 * §5.2: one TTL per RRset; a merge leaves what the zone holds as it is), with a warning for each such RRset at
 * the file's first line of it; and the line of each of the file's records, the copies made here included.
 */
function mergedIntoZone(
  current: readonly StoredRow[],
  added: readonly CanonicalRecord[],
  fileRecords: readonly CanonicalRecord[],
  lines: readonly number[],
): { records: CanonicalRecord[]; warnings: ImportWarning[]; lineOf: Map<CanonicalRecord, number> } {
  const lineOf = fileLines(fileRecords, lines);
  const zoneTtl = new Map<string, number>();
  for (const r of current) if (r.type !== 'SOA') zoneTtl.set(`${r.owner} ${r.type}`, r.ttl);
  const differ = new Map<string, { ttls: Set<number>; line?: number }>();
  const records = added.map((record) => {
    const key = `${record.owner} ${record.type}`;
    const ttl = zoneTtl.get(key);
    if (ttl === undefined || ttl === record.ttl) return record;
    const line = lineOf.get(record);
    const seen = differ.get(key) ?? { ttls: new Set<number>(), line };
    seen.ttls.add(record.ttl);
    differ.set(key, seen);
    const copy = { ...record, ttl };
    if (line !== undefined) lineOf.set(copy, line);
    return copy;
  });
  const warnings: ImportWarning[] = [];
  for (const [key, { ttls, line }] of differ) {
    const [owner, type] = key.split(' ');
    const kept = zoneTtl.get(key)!;
    const message = `the ${type} records at ${owner} have TTL ${kept} in the zone and ${[...ttls].join(', ')} in the file; an RRset has one TTL (RFC 2181 §5.2): the zone's ${kept} is kept for all, as MERGE keeps what the zone holds`;
    warnings.push({
      ...(line === undefined ? {} : { line }),
      field: 'ttl',
      code: 'RRSET_TTLS_DIFFER',
      message: line === undefined ? message : `line ${line}: ${message}`,
    });
  }
  return { records, warnings, lineOf };
}

/** the line of each of a file's records */
const fileLines = (records: readonly CanonicalRecord[], lines: readonly number[]) =>
  new Map<CanonicalRecord, number>(records.map((r, i) => [r, lines[i]]));

/** how each client takes the nearest allowed TTL instead of a refusal: what a TTL_NOT_ALLOWED in a file says */
const TTL_REMEDY =
  'to take the nearest allowed TTL instead, import with --clamp-ttls (CLI), ttlPolicy: CLAMP (GraphQL) or ttl_policy=CLAMP (REST), or change that setting';

/** `2-5, 7, 9`: ascending line numbers as ranges, the first 20 of them */
function lineRanges(lines: number[]): string {
  const ranges: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === lines[j] + 1) j += 1;
    ranges.push(i === j ? String(lines[i]) : `${lines[i]}-${lines[j]}`);
    i = j;
  }
  return ranges.length > 20 ? `${ranges.slice(0, 20).join(', ')}, …` : ranges.join(', ');
}

/**
 * A zone file's problems with each one repeated identically on several lines (a `$TTL` outside the TTL policy
 * makes every record wrong the same way) told once: its lines, their count, and the first line as `line`.
 * A TTL outside the policy (the message names its setting) also says how to have it clamped instead.
 */
export function collapseRepeatedProblems(problems: readonly ErrorDetail[]): ErrorDetail[] {
  const withoutLine = (p: ErrorDetail) => p.message.replace(/^line \d+: /, '');
  const groups = new Map<string, ErrorDetail[]>();
  for (const p of problems) {
    const key = `${p.field}\u0000${p.code}\u0000${withoutLine(p)}`;
    const group = groups.get(key);
    if (group) group.push(p);
    else groups.set(key, [p]);
  }
  return [...groups.values()].map((group) => {
    const [first] = group;
    const remedy = first.code === 'TTL_NOT_ALLOWED' ? `; ${TTL_REMEDY}` : '';
    if (group.length === 1) return remedy ? { ...first, message: `${first.message}${remedy}` } : first;
    const lines = group.map((p) => p.line).filter((line): line is number => line !== undefined);
    return {
      ...first,
      count: group.length,
      message: `lines ${lineRanges(lines)} (${group.length} lines): ${withoutLine(first)}${remedy}`,
    };
  });
}

/** the zone by id or name, if the key may see it (its user's, and within a restricted key's read rules) */
async function visibleZone(ctx: RequestContext, by: { id?: number; name?: string }) {
  const name = by.name === undefined ? undefined : normaliseZoneName(by.name);
  const readRules = readRulesOf(ctx.principal.policy);
  const [domain] = await listDomains(ctx.db, { id: by.id, name, scopeUserId: scopeUserId(ctx.principal), readRules }, { first: 1 });
  if (!domain) throw DomainError.notFound('ZONE_NOT_FOUND', by.id !== undefined ? 'id' : 'zone');
  return domain;
}

/**
 * The zone rules' problems with the line of the file's record each is about (a merge into a zone that holds
 * a template's records: `www CNAME` of the template meets the file's `www A` on line 7): the rules report a
 * clash at the later record, and the file's records come after the zone's own in a merge.
 */
function withFileLines(
  found: { index?: number; problem: ErrorDetail }[],
  desired: readonly CanonicalRecord[],
  lineOf: ReadonlyMap<CanonicalRecord, number>,
): ErrorDetail[] {
  return found.map(({ index, problem }) => {
    const line = index === undefined ? undefined : lineOf.get(desired[index]);
    return line === undefined ? problem : { ...problem, line, message: `line ${line}: ${problem.message}` };
  });
}

/** the file's dropped signer records, with the DNSKEY, CDS and CDNSKEY a signed zone leaves out counted too */
function withDroppedKeys(
  dropped: { type: string; count: number }[],
  records: readonly CanonicalRecord[],
): { type: string; count: number }[] {
  const counts = new Map(dropped.map((d) => [d.type, d.count]));
  for (const r of records) if (SIGNER_OWNED_TYPES.has(r.type)) counts.set(r.type, (counts.get(r.type) ?? 0) + 1);
  return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => (a.type < b.type ? -1 : 1));
}

/**
 * A file's comments as its RRsets' (docs/changes.md, «Comments»): each RRset's one comment, the distinct comments
 * of its lines in the file's order, one a line (a Cloudflare export's `cf_tags=…` kept as written)
 */
function rrsetCommentsOfFile(comments: readonly FileComment[]): RrsetComments[] {
  const byRrset = new Map<string, { owner: string; type: string; texts: string[] }>();
  for (const comment of comments) {
    const key = `${comment.owner} ${comment.type}`;
    const rrset = byRrset.get(key) ?? { owner: comment.owner, type: comment.type, texts: [] };
    byRrset.set(key, rrset);
    if (!rrset.texts.includes(comment.text)) rrset.texts.push(comment.text);
  }
  const now = new Date();
  return [...byRrset.values()].map(({ owner, type, texts }) => ({
    owner,
    type,
    comments: [{ content: texts.join('\n'), account: '', modifiedAt: now }],
  }));
}

/**
 * The RRsets whose comment (`rrsetCommentsOfFile`) passes MAX_COMMENT_LENGTH: refused at the line whose comment
 * passed it, as a file's problem (nothing is written)
 */
function commentsTooLong(comments: readonly FileComment[], max: number): Problem[] {
  const length = new Map<string, { texts: Set<string>; chars: number; refused: boolean }>();
  const problems: Problem[] = [];
  for (const comment of comments) {
    const key = `${comment.owner} ${comment.type}`;
    const rrset = length.get(key) ?? { texts: new Set<string>(), chars: -1, refused: false };
    length.set(key, rrset);
    if (rrset.texts.has(comment.text) || rrset.refused) continue;
    rrset.texts.add(comment.text);
    rrset.chars += comment.text.length + 1;
    if (rrset.chars <= max) continue;
    rrset.refused = true;
    const together = rrset.texts.size > 1 ? ` (with the comments of its RRset's lines before it, ${rrset.chars} characters)` : '';
    problems.push({
      field: 'comment',
      code: 'COMMENT_TOO_LONG',
      line: comment.line,
      limit: max,
      message: `line ${comment.line}: the comment of the ${comment.type} RRset at ${comment.owner} holds at most ${max} characters (MAX_COMMENT_LENGTH)${together}; this one has ${comment.text.length}`,
    });
  }
  return problems;
}
