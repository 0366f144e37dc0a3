/**
 * The one error catalogue. Services throw `DomainError`s with a code from here; GraphQL shows the code as
 * `extensions.code` with `details`, REST maps it to the status below and the documented error body
 * (docs/decisions.md §1). Messages follow RESTKnot's wording where it had one.
 */
export interface ErrorDetail {
  field: string;
  code: string;
  message: string;
  limit?: number;
  line?: number;
  /** a zone file's problem found identically on several lines: how many (`line` is the first) */
  count?: number;
  existingType?: string;
  /** a conflict with several types at the owner: each of them (`existingType` is the first) */
  existingTypes?: string[];
  /** a zone check's finding (dns/zone-checks.ts): how much it weighs, the RRset it is about, the RFC that says so */
  severity?: 'error' | 'warning';
  owner?: string;
  type?: string;
  rfc?: string;
  current?: number;
  /** seconds until a refused request would be taken (RATE_LIMITED) */
  retryAfter?: number;
  /** the zone a problem of a call about many zones is about (ZONES_NOT_CREATED) */
  zone?: string;
}

interface CatalogueEntry {
  status: number;
  message: string;
}

export const ERROR_CATALOGUE = {
  UNAUTHENTICATED: { status: 401, message: 'Access denied' },
  FORBIDDEN: { status: 403, message: 'This operation needs the operator (the admin key, or an operator person signed in)' },
  /** a key's least-privilege policy (docs/least-privilege.md) refuses it; the message names the missing rule */
  FORBIDDEN_BY_POLICY: { status: 403, message: "The key's policy does not allow this" },
  USER_NOT_FOUND: { status: 404, message: 'User Not Found' },
  ZONE_NOT_FOUND: { status: 404, message: 'Zone Not Found' },
  RECORD_NOT_FOUND: { status: 404, message: 'Record Not Found' },
  API_KEY_NOT_FOUND: { status: 404, message: 'API Key Not Found' },
  TSIG_KEY_NOT_FOUND: { status: 404, message: 'TSIG Key Not Found' },
  /** a record template (docs/templates-and-alias.md) the caller may use by that name or id */
  TEMPLATE_NOT_FOUND: { status: 404, message: 'Template Not Found' },
  /** a nameserver set (docs/transfers.md, «Nameserver sets») by that name */
  NAMESERVER_SET_NOT_FOUND: { status: 404, message: 'Nameserver Set Not Found' },
  /** a webhook subscription (docs/events.md) of the caller's */
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook Not Found' },
  /** an event a webhook was asked to redeliver that it never had a delivery of (none such, or not its) */
  EVENT_NOT_FOUND: { status: 404, message: 'Event Not Found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method Not Allowed' },
  DUPLICATE_EMAIL: { status: 409, message: 'Duplicate Email' },
  USER_HAS_NEW_ZONES: { status: 409, message: 'Zones kept being created for the user while it was deleted; try again' },
  DUPLICATE_ZONE: { status: 409, message: 'Duplicate Zone' },
  ZONES_NOT_CREATED: { status: 400, message: 'No zone was created: the zones named in details were refused' },
  ZONE_OWNED_BY_ANOTHER_USER: { status: 409, message: 'The zone would be inside, or would contain, a zone of another user' },
  DUPLICATE_TSIG_KEY: { status: 409, message: 'A TSIG key with that name exists' },
  DUPLICATE_TEMPLATE: { status: 409, message: 'A template with that name exists' },
  DUPLICATE_NAMESERVER_SET: { status: 409, message: 'A nameserver set with that name or catalog zone exists' },
  /** a set some zone is in, or still leaves (a move under way), is not deleted */
  /** a rotation past WEBHOOK_MAX_SECRETS secrets signing at once (docs/events.md, «Rotating a secret») */
  TOO_MANY_WEBHOOK_SECRETS: {
    status: 409,
    message: 'The webhook has as many secrets signing as WEBHOOK_MAX_SECRETS allows; rotate again once the first previous one ends',
  },
  NAMESERVER_SET_IN_USE: { status: 409, message: 'The nameserver set has zones; move them first' },
  /** the `default` set is the settings' (SECONDARIES, DEFAULT_NS, CATALOG_ZONE): changed there, never deleted */
  NAMESERVER_SET_FROM_SETTINGS: { status: 409, message: 'The default nameserver set comes from the settings' },
  /** a zone moved to another set leaves its old set's catalog once the new set serves it; one move at a time */
  ZONE_MOVE_IN_PROGRESS: { status: 409, message: "The zone's previous move to another nameserver set is not complete yet" },
  NS_FOLLOW_IN_PROGRESS: { status: 409, message: "The nameserver set's zones still follow its last change of NS names" },
  DUPLICATE_RECORD: { status: 409, message: 'The record already exists' },
  CNAME_CONFLICT: { status: 409, message: 'A CNAME record already exist with that owner' },
  RRSET_TTL_MISMATCH: { status: 409, message: 'All records of one owner and type must share one TTL' },
  SOA_SERIAL_NOT_INCREASED: { status: 409, message: 'SOA serial must be increased' },
  ZONE_RULE_VIOLATION: { status: 409, message: 'The change breaks a zone rule' },
  SERIAL_MISMATCH: { status: 409, message: 'The zone changed since the expected serial' },
  RRSET_PROTECTED: { status: 409, message: 'The RRset is protected: unlock it first' },
  /** a steered RRset's served records are steering's (docs/steering.md): changed through its definition only */
  RRSET_STEERED: {
    status: 409,
    message: 'The RRset is steered: change it through steering, or delete its steering definition first',
  },
  CHANGE_NEEDS_FORCE: {
    status: 409,
    message: 'The change deletes or replaces much of the zone, or changes its apex NS: send it again with force',
  },
  /** a zone of kind SECONDARY changes only by transfer from its primaries (docs/transfers.md) */
  ZONE_IS_SECONDARY: {
    status: 409,
    message: 'The zone is of kind SECONDARY: it changes only by transfer from its primaries (promote it to change it here)',
  },
  ZONE_NOT_SECONDARY: { status: 409, message: 'The zone is not of kind SECONDARY' },
  ZONE_NOT_TRANSFERRED: { status: 409, message: 'The SECONDARY zone was never transferred from its primaries: nothing to promote yet' },
  UPDATE_PREREQUISITE_FAILED: { status: 412, message: 'A prerequisite of the update does not hold' },
  NAME_NOT_IN_ZONE: { status: 422, message: 'The name is not in the zone' },
  DNSSEC_RECORD_MANAGED: {
    status: 409,
    message: 'The signer keeps this type of record (DNSKEY, CDS, CDNSKEY in a signed zone; RRSIG, NSEC, NSEC3, NSEC3PARAM always)',
  },
  DNSSEC_ALREADY_ENABLED: { status: 409, message: 'The zone is signed already' },
  DNSSEC_NOT_ENABLED: { status: 409, message: 'The zone is not signed' },
  DNSSEC_ROLL_IN_PROGRESS: { status: 409, message: 'A roll of that key is under way' },
  DNSSEC_ALGORITHM_UNCHANGED: { status: 409, message: 'The zone is signed with that algorithm already' },
  DNSSEC_NOTHING_TO_CONFIRM: { status: 409, message: 'Nothing of the zone waits for that at the parent' },
  DNSSEC_DISABLING: { status: 409, message: 'The zone is being unsigned (its DS-delete CDS/CDNSKEY are published)' },
  /** multi-signer (RFC 8901): no foreign DNSKEY of that id in the zone */
  DNSSEC_FOREIGN_KEY_NOT_FOUND: { status: 404, message: 'The zone holds no such foreign DNSKEY' },
  /** multi-signer (RFC 8901): the other signer's server gave no DNSKEY RRset with authority */
  DNSSEC_FOREIGN_KEYS_UNREADABLE: { status: 422, message: "The other signer's server did not answer its DNSKEY RRset" },
  /** multi-signer (RFC 8901): withdrawing the zone's DS would leave the parent none (docs/dnssec.md «Moving a signed zone in / out») */
  DNSSEC_NO_FOREIGN_KSK: {
    status: 409,
    message: "The zone holds no other signer's KSK: withdrawing its DS would leave the parent no DS (insecure)",
  },
  /** multi-signer (RFC 8901): the zone's DS is withdrawn (withdrawDnssecDs): its KSK does not roll until it is restored */
  DNSSEC_DS_WITHDRAWN: { status: 409, message: "The zone's DS is withdrawn from the parent (restoreDnssecDs brings it back)" },
  /** ALIAS and ANAME in a signed zone: not yet (docs/templates-and-alias.md) */
  /** ALIAS flattening (docs/templates-and-alias.md): no resolver to flatten with, and the derived addresses */
  ALIAS_RESOLVERS_UNSET: { status: 422, message: 'ALIAS and ANAME records need the ALIAS_RESOLVERS setting' },
  RECORD_DERIVED: { status: 409, message: 'The record is derived from an ALIAS or ANAME and is read-only' },
  /** steering (docs/steering.md): a check or steered RRset the caller may see, by that id */
  STEERING_CHECK_NOT_FOUND: { status: 404, message: 'Steering Check Not Found' },
  STEERED_RRSET_NOT_FOUND: { status: 404, message: 'Steered RRset Not Found' },
  /** a view (docs/views.md) by that name or id */
  VIEW_NOT_FOUND: { status: 404, message: 'View Not Found' },
  /** a view of that name exists, or the TSIG key is another view's already (a request's key picks its view) */
  VIEW_EXISTS: { status: 409, message: 'A view of that name, or with that TSIG key, exists already' },
  /**
   * deprecated, no longer raised: a signed zone's views' zones are signed with the zone's keys (docs/views.md,
   * «DNSSEC»). Kept so that clients that name the code still build.
   */
  VIEW_ZONE_SIGNED: {
    status: 409,
    message: "A signed zone takes no view overlay, and a zone with a view's zone is not signed, in this version (docs/views.md)",
  },
  /** a zone's check name, or an owner and type, that another check or steered RRset has */
  DUPLICATE_STEERING: { status: 409, message: 'A steering check with that name, or a steered RRset at that owner and type, exists' },
  /** a check that a steered RRset's members follow is not deleted while they do */
  STEERING_CHECK_IN_USE: { status: 409, message: 'The check is followed by members of steered RRsets; change them first' },
  /** a report of status for a check that is probed: only an external check's status is reported */
  STEERING_CHECK_NOT_EXTERNAL: { status: 422, message: 'The check is probed; only an external check’s status is reported' },
  /**
   * deprecated, no longer raised: rules by subnet or geography are compiled into views (docs/steering.md, «Rules by
   * network and country»). Kept so that clients that name the code still build.
   */
  STEERING_RULES_NEED_VIEWS: {
    status: 422,
    message: 'Rules by subnet or geography need an answer per asker (views); every secondary serves one answer, so they are not taken',
  },
  /**
   * steering rules whose networks overlap without being the same networks (in one RRset, or another RRset's rule):
   * a view is chosen by the asker's address alone, so an address in two views would get one of them for every
   * zone, and the rules' order could not be kept (docs/steering.md, «Rules by network and country»)
   */
  STEERING_RULES_OVERLAP: {
    status: 422,
    message: 'The rules’ networks overlap in a way views cannot express: a view is chosen by the asker’s address alone',
  },
  /** a view of steering's own: its name and networks are its rules', and it goes when no rule uses it */
  VIEW_STEERED: { status: 409, message: 'The view is steering’s own: its name and networks follow its rules' },
  /** a PowerDNS `LUA` record other than an octoDNS dynamic record: no Lua runs here (docs/steering.md) */
  LUA_NOT_SUPPORTED: {
    status: 422,
    message:
      'LUA records are taken only as octoDNS dynamic records (an A, AAAA or CNAME LUA record carrying the octodns-dynamic:v1 marker); other Lua is not run',
  },
  DNSSEC_UNAVAILABLE: { status: 503, message: 'The DNSSEC key store cannot be opened; try again shortly' },
  CHANGE_SET_TOO_LARGE: { status: 413, message: 'Too many changes in one set' },
  HISTORY_EXPIRED: { status: 410, message: 'That serial is older than the kept history' },
  SOA_UNDELETABLE: { status: 403, message: "Can't Delete SOA Record" },
  QUOTA_EXCEEDED: { status: 403, message: 'The quota of the user would be exceeded; nothing was written' },
  RATE_LIMITED: { status: 429, message: 'Too many requests; try again later' },
  BAD_REQUEST: { status: 400, message: 'Malformed request' },
  INVALID_INPUT: { status: 422, message: 'Invalid input' },
  INVALID_ZONE_FILE: { status: 422, message: 'Bad zone file' },
  /** the zone-file parser's heap (IMPORT_PARSER_HEAP_MB) could not hold the file's records */
  ZONE_FILE_TOO_LARGE: { status: 413, message: 'The zone file holds more records than the parser can hold' },
  /** a webhook's endpoint at an address the service does not connect to for a client (WEBHOOK_ALLOW, docs/events.md) */
  ADDRESS_NOT_ALLOWED: { status: 422, message: 'The service does not connect to that address' },
  INVALID_RDATA: { status: 422, message: 'Bad RDATA' },
  INVALID_OWNER: { status: 422, message: 'Bad OWNER' },
  INVALID_ZONE_NAME: { status: 422, message: 'Bad Domain Name' },
  ZONE_IS_PUBLIC_SUFFIX: { status: 422, message: 'A public suffix cannot be a zone of a user' },
  ZONE_IS_SINGLE_LABEL: { status: 422, message: 'A single-label name (a top-level domain) cannot be a zone of a user' },
  INVALID_TYPE: { status: 422, message: 'Bad Record Type' },
  INVALID_TTL: { status: 422, message: 'Bad TTL' },
  INVALID_EMAIL: { status: 422, message: 'Bad Email' },
  QUERY_TOO_COMPLEX: { status: 400, message: 'Query is too complex' },
  OPERATION_NOT_SUPPORTED: { status: 400, message: 'This kind of operation is not served' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'Request body too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Unsupported content type' },
  DATABASE_UNAVAILABLE: { status: 503, message: 'The database is unavailable; try again shortly' },
  SERVER_BUSY: { status: 503, message: 'Too many large requests are waiting in this process; try again shortly' },
  INTERNAL: { status: 500, message: 'Internal Server Error' },
  // people and sessions (docs/people.md)
  NOT_SIGNED_IN: { status: 403, message: 'This needs a person signed in, not a key' },
  FORBIDDEN_BY_ROLE: { status: 403, message: 'Your role in this account does not allow this' },
  MEMBER_NOT_FOUND: { status: 404, message: 'Member Not Found' },
  /** a person (by e-mail address or person id) the service knows: one who signed in, or was invited and joined */
  PERSON_NOT_FOUND: { status: 404, message: 'Person Not Found' },
  INVITATION_NOT_FOUND: { status: 404, message: 'The invitation is unknown, used or expired' },
  INVITATION_FOR_ANOTHER_ADDRESS: { status: 403, message: 'The invitation is for another e-mail address' },
  INVITATION_NEEDS_SIGN_IN: {
    status: 409,
    message: 'The invited address has a way to sign in already: sign in with it, then open the invitation link',
  },
  RECOVERY_LINK_NOT_FOUND: { status: 404, message: 'The recovery link is unknown, used or expired' },
  LAST_OWNER: { status: 409, message: 'The last owner of an account cannot leave it or stop being its owner' },
  SESSION_NOT_FOUND: { status: 404, message: 'Session Not Found' },
  PASSKEY_NOT_FOUND: { status: 404, message: 'The passkey is unknown or not yours' },
  SIGN_IN_FAILED: { status: 401, message: 'The sign-in was refused' },
  /** a terminal's sign-in (RFC 8628) answered on a second device: no terminal waits for the code typed */
  DEVICE_CODE_NOT_FOUND: { status: 404, message: 'No terminal is waiting for this code' },
  /** the OIDC provider did not answer a terminal's sign-in (its discovery or device endpoint) */
  IDENTITY_PROVIDER_UNAVAILABLE: { status: 503, message: 'The identity provider could not be reached; try again shortly' },
  SIGN_IN_NOT_CONFIGURED: { status: 404, message: 'This sign-in method is not configured' },
  // zone transfers between accounts (docs/people.md)
  ZONE_TRANSFER_NOT_FOUND: { status: 404, message: 'The zone transfer is unknown, accepted or cancelled' },
  ZONE_TRANSFER_EXPIRED: { status: 410, message: 'The zone transfer offer has expired' },
  ZONE_TRANSFER_PENDING: { status: 409, message: 'The zone is already offered to an account' },
  ZONE_TRANSFER_TO_SAME_ACCOUNT: { status: 422, message: 'The zone is already in that account' },
  // review and scheduled changes (docs/changes.md, «Review», «Scheduled changes»)
  /** a zone that requires approvals takes a change only as a change request; the message names the policy */
  ZONE_UNDER_REVIEW: {
    status: 409,
    message: 'The zone requires approvals: a change is proposed as a change request and applied once approved',
  },
  CHANGE_REQUEST_NOT_FOUND: { status: 404, message: 'Change Request Not Found' },
  /** the request is no longer pending (approved and waiting for its time, applied, rejected, refused, cancelled) */
  CHANGE_REQUEST_CLOSED: { status: 409, message: 'The change request is not open to this any more' },
  /** a request applied when due or approved: the RRsets it was planned on moved since (it is refused, change.refused) */
  CHANGE_REQUEST_CONFLICT: { status: 409, message: 'The RRsets the change request was planned on moved since it was planned' },
  CHANGE_SELF_APPROVAL: { status: 403, message: 'The author of a change request cannot review it' },
  CHANGE_ALREADY_REVIEWED: { status: 409, message: 'This person has reviewed the change request already' },
  NOT_AN_APPROVER: { status: 403, message: "Only a person of the zone's account whose role may write the zone reviews its changes" },
  CSRF_REFUSED: { status: 403, message: 'A request signed in by cookie needs the X-Requested-With header and this origin' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * Warnings: what is taken but worth a look, answered beside the result (GraphQL `extensions.warnings`, an
 * import's `warnings`, the CLI's stderr), never a refusal. Each warning's own message says what and where.
 */
export const WARNING_CATALOGUE = {
  NAME_NOT_HOSTNAME: 'a name holds octets a host name may not (RFC 1123 §2.1); the DNS allows them (RFC 2181 §11)',
  RELATIVE_NAME_REPEATS_ZONE: 'a relative name in a zone file already ends with the zone (refused through the API)',
  TTL_CLAMPED:
    'a TTL outside the TTL policy (ALLOWED_TTLS_BEYOND_REST, or ALLOWED_TTLS through REST) took the nearest allowed one (an import with the CLAMP policy)',
  DUPLICATE_RECORD_MERGED: 'a zone file repeats a record; the two are one',
  RRSET_TTLS_DIFFER:
    'the records of one RRset in a zone file have different TTLs; the RRset takes one, the one BIND loads it with (RFC 2181 §5.2)',
  TARGET_IS_CNAME: 'an MX, NS or SRV target is an alias (RFC 2181 §10.3)',
  TARGET_MISSING: 'a CNAME, MX, NS or SRV target in the zone does not exist',
  TARGET_NO_ADDRESS: 'an MX, NS or SRV target in the zone has no A or AAAA',
  GLUE_MISSING: "a delegation's name server inside it has no address here",
  NS_TARGET_NO_ADDRESS: 'a name server in the zone has no A or AAAA there (RFC 1034 §4.2.2)',
  OCCLUDED_DATA: 'data beside or below a delegation, never served',
  TXT_SPLIT: 'unquoted TXT text longer than 255 octets was stored as several strings of 255 (RFC 1035 §3.3.14)',
  CAA_UNKNOWN_TAG: 'a CAA property tag that is not in the IANA registry; CAs ignore it (RFC 8659 §4.2)',
  NS_KEPT_ON_MOVE: "a zone moved to another nameserver set kept its apex NS records: they were not the old set's NS names",
  SPF_MULTIPLE_RECORDS: 'a name holds more than one SPF record ("v=spf1"); SPF checks of it fail (RFC 7208 §3.2, §4.5)',
  APEX_NS_NOT_AT_PARENT:
    "the zone's apex NS set is not the one its parent lists, as the health checker last saw it; the two sides of the cut should agree (RFC 1034 §4.2.2)",
  RRSET_IN_USE:
    'a plan deletes or replaces an RRset the secondaries answered within ANALYTICS_IN_USE_DAYS or twice its TTL (docs/analytics.md); under strictChecks refused until forced',
  DELEGATION_IN_USE:
    'a plan deletes a delegation whose names are still queried (docs/analytics.md); under strictChecks refused until forced',
  RRSET_USE_UNKNOWN:
    "a plan deletes or replaces an RRset not seen queried, but the query analytics' coverage of the window has a gap: whether it is in use cannot be told",
} as const;

export type WarningCode = keyof typeof WARNING_CATALOGUE;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string = ERROR_CATALOGUE[code].message,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'DomainError';
  }

  /** the same problems under another top-level code (e.g. a zone file's problems as INVALID_ZONE_FILE) */
  withCode(code: ErrorCode, message: string = ERROR_CATALOGUE[code].message): DomainError {
    return new DomainError(code, message, this.details);
  }

  static notFound(
    code:
      | 'USER_NOT_FOUND'
      | 'ZONE_NOT_FOUND'
      | 'RECORD_NOT_FOUND'
      | 'API_KEY_NOT_FOUND'
      | 'TSIG_KEY_NOT_FOUND'
      | 'TEMPLATE_NOT_FOUND'
      | 'NAMESERVER_SET_NOT_FOUND'
      | 'WEBHOOK_NOT_FOUND'
      | 'DNSSEC_FOREIGN_KEY_NOT_FOUND'
      | 'PERSON_NOT_FOUND'
      | 'STEERING_CHECK_NOT_FOUND'
      | 'STEERED_RRSET_NOT_FOUND'
      | 'VIEW_NOT_FOUND'
      | 'CHANGE_REQUEST_NOT_FOUND',
    field: string,
  ) {
    const message = ERROR_CATALOGUE[code].message;
    return new DomainError(code, message, [{ field, code, message }]);
  }

  static invalid(field: string, message: string, code = 'INVALID_VALUE') {
    return new DomainError(codeForField(field), message, [{ field, code, message }]);
  }
}

/** The top-level code of a 422 names the first bad field's kind; `details` lists every problem. */
export function codeForField(field: string): ErrorCode {
  // RDATA given as typed fields (`data`, `data.mx`, `data.mx.preference`) is RDATA, as `rdata` is: the top-level
  // code agrees with what the detail is about, wherever in `data` it points
  if (/^data(\.|$)/.test(field)) return 'INVALID_RDATA';
  // a field inside an input or a list (`input.email`, `changes[3].rdata`) is of its own kind
  switch (field.replace(/^.*\./, '')) {
    case 'rdata':
      return 'INVALID_RDATA';
    case 'owner':
      return 'INVALID_OWNER';
    case 'zone':
      return 'INVALID_ZONE_NAME';
    case 'type':
    case 'rtype':
      return 'INVALID_TYPE';
    case 'ttl':
      return 'INVALID_TTL';
    case 'email':
      return 'INVALID_EMAIL';
    default:
      return 'INVALID_INPUT';
  }
}

/** Zone-rule problem codes (from the DNS model) that are conflicts with stored data rather than bad input. */
const CONFLICT_CODES: Partial<Record<string, ErrorCode>> = {
  DUPLICATE_RECORD: 'DUPLICATE_RECORD',
  CNAME_CONFLICT: 'CNAME_CONFLICT',
  CNAME_AT_APEX: 'CNAME_CONFLICT',
  DNAME_CONFLICT: 'CNAME_CONFLICT',
  TTL_MISMATCH: 'RRSET_TTL_MISMATCH',
  SOA_SERIAL_NOT_INCREASED: 'SOA_SERIAL_NOT_INCREASED',
  SOA_UNDELETABLE: 'SOA_UNDELETABLE',
  SOA_SINGLETON: 'ZONE_RULE_VIOLATION',
  SOA_NOT_AT_APEX: 'ZONE_RULE_VIOLATION',
  SOA_TYPE_CHANGE: 'ZONE_RULE_VIOLATION',
  LAST_APEX_NS: 'ZONE_RULE_VIOLATION',
  // RRSIG, NSEC, NSEC3, NSEC3PARAM: the signer's, refused with the code DNSKEY, CDS and CDNSKEY get in a signed zone
  DNSSEC_RECORD_MANAGED: 'DNSSEC_RECORD_MANAGED',
  ALIAS_CONFLICT: 'ZONE_RULE_VIOLATION',
  ALIAS_LOOP: 'ZONE_RULE_VIOLATION',
  // the zone checks a change set's plan refuses (dns/zone-checks.ts, FINDING_SEVERITY)
  TARGET_IS_CNAME: 'ZONE_RULE_VIOLATION',
  OCCLUDED_DATA: 'ZONE_RULE_VIOLATION',
  GLUE_MISSING: 'ZONE_RULE_VIOLATION',
  NS_TARGET_NO_ADDRESS: 'ZONE_RULE_VIOLATION',
  // a zone set to refuse warnings too (strictChecks)
  TARGET_MISSING: 'ZONE_RULE_VIOLATION',
  TARGET_NO_ADDRESS: 'ZONE_RULE_VIOLATION',
  CAA_UNKNOWN_TAG: 'ZONE_RULE_VIOLATION',
  SPF_MULTIPLE_RECORDS: 'ZONE_RULE_VIOLATION',
  APEX_NS_NOT_AT_PARENT: 'ZONE_RULE_VIOLATION',
  RRSET_PROTECTED: 'RRSET_PROTECTED',
  RRSET_STEERED: 'RRSET_STEERED',
  CHANGE_NEEDS_FORCE: 'CHANGE_NEEDS_FORCE',
  // a name still queried, on a zone with strictChecks: the caller says force (services/zones/in-use-guard.ts)
  RRSET_IN_USE: 'CHANGE_NEEDS_FORCE',
  DELEGATION_IN_USE: 'CHANGE_NEEDS_FORCE',
};

/**
 * Turns the DNS model's problems into one error: bad input (422) wins over conflicts, so that a client
 * first fixes what it sent. Every problem is kept in `details`.
 */
export function errorFromProblems(problems: ErrorDetail[], rdataType?: string): DomainError {
  const invalid = problems.filter((p) => !CONFLICT_CODES[p.code]);
  if (invalid.length) {
    const code = codeForField(invalid[0].field);
    const message = code === 'INVALID_RDATA' && rdataType ? `Bad ${rdataType.toUpperCase()} RDATA` : ERROR_CATALOGUE[code].message;
    return new DomainError(code, message, problems);
  }
  const code = CONFLICT_CODES[problems[0].code] as ErrorCode;
  // a CNAME at the apex is no clash with one record there but a rule of the apex: its own message says so
  const ownMessage =
    code === 'ZONE_RULE_VIOLATION' ||
    code === 'RRSET_PROTECTED' ||
    code === 'RRSET_STEERED' ||
    code === 'CHANGE_NEEDS_FORCE' ||
    problems[0].code === 'CNAME_AT_APEX';
  const message = ownMessage ? problems[0].message : conflictMessage(code, problems[0]);
  return new DomainError(code, message, problems);
}

/**
 * A conflict's message; a CNAME conflict names the type already at the owner, in RESTKnot's words (grammar
 * included, docs/decisions.md §3): "An A record already exist with that owner" when a CNAME meets an A,
 * "A CNAME record already exist with that owner" when other data meets a CNAME. An owner holding several types
 * names each: "A, AAAA and TXT records already exist with that owner".
 */
function conflictMessage(code: ErrorCode, first: ErrorDetail): string {
  if (code !== 'CNAME_CONFLICT' || !first.existingType) return ERROR_CATALOGUE[code].message;
  const types = first.existingTypes ?? [];
  if (types.length > 1) return `${types.slice(0, -1).join(', ')} and ${types[types.length - 1]} records already exist with that owner`;
  // the article follows the type's first letter as spoken: an A, an MX, an NS; a CNAME, a TXT
  const article = /^[AEFHILMNORSX]/.test(first.existingType) ? 'An' : 'A';
  return `${article} ${first.existingType} record already exist with that owner`;
}
