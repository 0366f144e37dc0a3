import type { JournalCommentChange, JournalRecord } from '../../entities/change.entity';
import type { CanonicalRecord } from '../../dns/record';
import type { StoredRow } from '../../repositories/zone-writes';
import type { ErrorDetail } from '../../errors/catalogue';

/*
 * The vocabulary of a change set, as every edge hands it to ZoneChangesService (zone-changes.service.ts): the
 * changes, how their text is read, what a set answers, and what a plan decides on and returns.
 */

/**
 * One change of a change set. ADD a record; REMOVE one (by id, or by owner + type + rdata); REPLACE one (by id)
 * with another; REPLACE_RRSET: every record of an owner and type becomes `rdatas` (none: the RRset goes), as
 * PowerDNS's `changetype: REPLACE`. EXTEND_RRSET adds those of `rdatas` the RRset lacks and PRUNE_RRSET removes
 * those it holds, each leaving the rest of the RRset as it is and doing nothing where there is nothing to do
 * (PowerDNS's `EXTEND` and `PRUNE`).
 *
 * Disabled records are kept and not served (PowerDNS's `disabled: true`, PowerDNS-Admin's toggle): DISABLE a
 * served record (by id, or by owner + type + rdata) and it leaves the served zone (a removal, journalled as a
 * toggle) and is kept; ENABLE one (by owner + type + rdata) and it is served again with its TTL. `disabled` on
 * an ADD or an EXTEND_RRSET brings records disabled; `disabledRdatas` on a REPLACE_RRSET: the RRset's disabled
 * records become those (absent: they stay). A record is served or disabled, never both: a served addition of a
 * disabled record enables it, a disabled addition of a served one disables it. REMOVE by content and
 * PRUNE_RRSET take a disabled record away as well as a served one.
 *
 * Comments (docs/changes.md, «Comments»): `comment` on a change that names an owner and a type becomes that RRset's
 * comment ('' removes it; absent, it stays as it is); a COMMENT change (owner, type, comment) changes the comment
 * alone. A comment is no DNS data: a set of comments alone steps no serial, and the history keeps it.
 */
export type ZoneChangeKind =
  'ADD' | 'REMOVE' | 'REPLACE' | 'REPLACE_RRSET' | 'EXTEND_RRSET' | 'PRUNE_RRSET' | 'DISABLE' | 'ENABLE' | 'COMMENT';

/**
 * How a set's text is read. `rdataNames: 'fullyQualified'`: the content stands alone, without an origin
 * (PowerDNS's record content): a name inside RDATA must end with the root's dot (`mail` is refused) and every
 * character-string must be quoted (`v=spf1 mx -all` is refused), as PowerDNS requires (parseStandaloneRecord);
 * otherwise relative names are completed with the zone and an unquoted TXT is one string (the record API).
 * A TTL is held to the request's policy (allowedTtlsOf), never changed. `soa: 'fields'`: a REPLACE of the apex SOA with one record
 * gives the SOA its other fields (MNAME, RNAME, the timers) and its TTL, while its serial stays the zone's and
 * steps with the set as every set's does (the given serial is not read; a serial never goes back), as the
 * zone-file import gives an SOA: PowerDNS's SOA-EDIT-API. Without it, and for any SOA DELETE, an SOA in a set is
 * refused. Whatever the options, a set that changes nothing writes nothing (ZoneChange.changesNothing).
 */
export interface ZoneChangeOptions {
  rdataNames?: 'fullyQualified' | 'zone';
  soa?: 'refuse' | 'fields';
}
export interface ZoneChangeSpec {
  kind: ZoneChangeKind;
  id?: number;
  owner?: string;
  type?: string;
  rdata?: string;
  ttl?: number;
  rdatas?: string[];
  /** ADD, EXTEND_RRSET: the records come disabled (kept, not served) */
  disabled?: boolean;
  /** REPLACE_RRSET: the RRset's disabled records become these (none: none stays); absent, they stay as they are */
  disabledRdatas?: string[];
  /** the comment of the RRset of `owner` and `type` becomes this ('' removes it); absent or null, it stays */
  comment?: string | null;
}

export interface ZoneChangesResult {
  zone: string;
  serialBefore: number;
  serial: number;
  /** the records the set added and removed (the SOA's serial step aside), in presentation form */
  added: JournalRecord[];
  removed: JournalRecord[];
  /** a dry run: nothing was written; `serial` is the one the set would make */
  dryRun?: boolean;
  /** a dry run: the served records of each RRset the set changes, before and after */
  rrsets?: { owner: string; type: string; before: JournalRecord[]; after: JournalRecord[] }[];
  /** a dry run: the records the set would keep disabled, and those it would no longer keep */
  disabledAdded?: JournalRecord[];
  disabledRemoved?: JournalRecord[];
  /** a dry run: the zone checks' warnings about what the set adds (a write answers them beside its result) */
  warnings?: ErrorDetail[];
  /** the RRsets' comments the set changed (a dry run: would change), before and after; absent when none */
  comments?: JournalCommentChange[];
}

/** a set's result and whether it changed anything (served, or kept disabled) */
export type ZoneChangesOutcome = ZoneChangesResult & { changed: boolean };

/** The zone a planned change set is decided on: its serial and the records at the owners it named and the apex (the SOA too). */
export interface PlanView {
  name: string;
  serial: number;
  records: readonly StoredRow[];
}
/**
 * What a plan returns: the changes, as a change set's to be read, or as records the plan has read itself with the
 * zone's rules (canonical, their TTLs allowed): the ids of those to remove, then those to add. And an SOA to
 * replace the zone's (its serial becomes the zone's).
 */
export type PlannedChanges = ({ changes: ZoneChangeSpec[] } | { removedIds: number[]; additions: CanonicalRecord[] }) & {
  soa?: CanonicalRecord;
};
