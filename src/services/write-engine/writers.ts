/**
 * Who writes a zone change, and which of the engine's gates it passes through (docs/architecture.md, «Who
 * writes»). Every change of a zone's records names its writer (`ZoneChangeRequest.writer`); the engine asks this
 * table, never the kind itself, whether a gate applies: the review of a zone requiring approvals, the guards of
 * locked, steered and derived records, the rate and the quota, the author the history names, whether a secondary
 * zone takes it, its journal kind, the views' rules, the ALIAS resolvers' refusal, the zone's head, a batch of the
 * zone queue, and the signer's signalling records.
 *
 * No writer is a person's (or a key's) change: the common case, made through every edge (GraphQL, REST, the
 * PowerDNS API, DNS UPDATE, the console) by many callers, and the one the most gates hold. A caller that forgets
 * to name another writer is held to more gates, never fewer.
 */

/**
 * The writer of a change. `note` is what the history shows as its author where no person made it (an ALIAS
 * refresh, steering's decision, the signer's signalling records): the service's own words for it.
 */
export type Writer =
  | { kind: 'person' }
  | { kind: 'signer' }
  | { kind: 'transfer' }
  | { kind: 'alias'; note: string }
  | { kind: 'bootstrap'; note: string }
  | { kind: 'steering' }
  | { kind: 'service'; note: string }
  | { kind: 'rules' };

export type WriterKind = Writer['kind'];

/** The gates a writer's change passes through, each as the engine asks it. */
export interface WriterGates {
  /**
   * a zone that requires approvals (docs/changes.md, «Review») refuses it, ZONE_UNDER_REVIEW, unless it is a change
   * request's (`ZoneChangeRequest.review`) or a key confined to `_acme-challenge` TXT records makes it (staging.ts)
   */
  review: boolean;
  /** a locked RRset (docs/changes.md, «Protected RRsets») refuses a change that stages a record of it, RRSET_PROTECTED */
  protectedRrsets: boolean;
  /** a steered RRset (docs/steering.md) refuses a change that stages a record of it, RRSET_STEERED */
  steeredRrsets: boolean;
  /** an ALIAS/ANAME's derived A/AAAA refuse being edited or removed, RECORD_DERIVED (change the ALIAS instead) */
  derivedRows: boolean;
  /** takes one of the zone's changes per second (services/rate-limits.ts) when a user's key or person makes it */
  rate: boolean;
  /** held to the records per zone quota (quotas.ts) when a user's key or person makes it */
  quota: boolean;
  /** whom the history names: the principal, the writer's `note` (no person), or nobody (a signer's step) */
  author: 'principal' | 'note' | 'none';
  /**
   * what a secondary zone takes of it: nothing (refused, ZONE_IS_SECONDARY), everything (its primary's data), or
   * the flattened A/AAAA of its ALIAS records alone (docs/transfers.md, «ALIAS in secondary zones»)
   */
  secondary: 'refused' | 'all' | 'flattened';
  /** its journal row's kind: `zone-signed` steps the history skips (signing.ts) */
  journal: 'zone-changed' | 'zone-signed';
  /** held to the rules in every view's zone over the owners it touches (docs/views.md) */
  views: boolean;
  /** refuses an ALIAS/ANAME that no resolver could flatten (ALIAS_RESOLVERS_UNSET: it would never be served) */
  unresolvableAlias: boolean;
  /** may be decided on the zone's head, without a read (zone-heads.ts) */
  onHead: boolean;
  /** may join other queued changes of its zone in one transaction (zone-queue.ts) */
  batched: boolean;
  /** may stage the signer's RFC 9615 signalling records (CDS/CDNSKEY below `_signal`), which a signed zone keeps the signer's */
  signalRecords: boolean;
}

/** a person's gates, which every other row states as its differences from them */
const PERSON: WriterGates = {
  review: true,
  protectedRrsets: true,
  steeredRrsets: true,
  derivedRows: true,
  rate: true,
  quota: true,
  author: 'principal',
  secondary: 'refused',
  journal: 'zone-changed',
  views: true,
  unresolvableAlias: true,
  onHead: true,
  batched: true,
  signalRecords: false,
};

/**
 * The service's own writers run as a service principal (auth/principal.ts `servicePrincipal`: an admin, never a
 * user), which no rate or quota binds: `rate` and `quota` false say so outright.
 */
const SERVICE_OWN = { review: false, protectedRrsets: false, steeredRrsets: false, rate: false, quota: false } as const;

export const WRITER_GATES: { readonly [K in WriterKind]: Readonly<WriterGates> } = {
  /** a person's or a key's change, through any edge: every gate */
  person: PERSON,
  /**
   * the signer's own step (a refresh of expiring RRSIGs, a key step, DNSSEC enabled or disabled, a parent's DS):
   * no one's change, so no review, guard, rate or quota, no author, journalled `zone-signed`; it stages signer
   * records and the apex's, which no view's rules concern; its questions need a read, not the zone's head
   */
  signer: {
    ...PERSON,
    ...SERVICE_OWN,
    author: 'none',
    journal: 'zone-signed',
    views: false,
    onHead: false,
  },
  /**
   * a secondary zone's transfer from its primaries (services/transfers/secondary-zones.service.ts): the one change
   * a secondary zone takes whole; the primary's data is taken as it is, an ALIAS no resolver flattens too (served
   * with its owner empty, docs/transfers.md); named by the primary it came from; it reads the zone whole or by id
   */
  transfer: {
    ...PERSON,
    ...SERVICE_OWN,
    secondary: 'all',
    unresolvableAlias: false,
    onHead: false,
  },
  /**
   * the A/AAAA flattened from ALIAS/ANAME records (services/zones/alias-flattening.ts): the service's own rows,
   * which it alone edits, so a secondary zone takes them too (their only write there not its primary's; its serial
   * steps by one, as near the primary's as it can be: docs/transfers.md); the history shows the note
   */
  alias: {
    ...PERSON,
    ...SERVICE_OWN,
    derivedRows: false,
    author: 'note',
    secondary: 'flattened',
  },
  /**
   * the signer's RFC 9615 signalling records (CDS/CDNSKEY below `_signal`) in a zone its nameservers are named in
   * (services/dnssec/bootstrap-signals.ts): the signer's own records in another zone, which it alone may write, as
   * it alone writes the apex's; the history shows the note; its questions need a read, not the zone's head
   */
  bootstrap: {
    ...PERSON,
    ...SERVICE_OWN,
    derivedRows: false,
    author: 'note',
    onHead: false,
    signalRecords: true,
  },
  /**
   * a person's change of steering's (services/steering, docs/steering.md): a steered RRset's or a check's
   * definition, a report, with the records they lead to. A person's in all but one gate: a steered RRset's records
   * are steering's to write, so its own changes pass the steered guard every other write meets
   */
  steering: { ...PERSON, steeredRrsets: false },
  /**
   * a change the service makes on its own with no person behind it (steering's decision of what a steered RRset
   * serves, services/steering/materialise.ts): its own records, no one's change request; the history shows the note
   */
  service: {
    ...PERSON,
    ...SERVICE_OWN,
    derivedRows: false,
    author: 'note',
  },
  /**
   * a change of the zone's rules (services/zones/protected-rrsets.service.ts: an RRset locked or unlocked,
   * strictChecks), made in the zone's turn holding its row's lock. A kind of its own, not a person's, because it
   * is a rule, not a change of the zone's records: a zone under review takes it (a rule is no change request's),
   * it writes no serial step so it takes none of the zone's changes per second, and it runs alone in the zone's
   * queue (the changes after it are decided on the rules it leaves, read anew). It stages no record; the record
   * gates are a person's, so that one it ever staged would be held to them
   */
  rules: { ...PERSON, review: false, rate: false, batched: false },
};

/** the gates of `writer` (none: a person's) */
export const gatesOf = (writer: Writer | undefined): Readonly<WriterGates> => WRITER_GATES[writer?.kind ?? 'person'];

/** the note the history shows for `writer`'s change, where it names one (`WriterGates.author` 'note') */
export const noteOf = (writer: Writer | undefined): string | undefined =>
  writer !== undefined && 'note' in writer ? writer.note : undefined;
