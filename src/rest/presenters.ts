/**
 * GraphQL results → the documented REST shapes (docs/decisions.md §1): record `id`
 * and `zone_id` as JSON integers, user `id` as a string of digits, `ttl` as a numeric string.
 */
export interface GqlRecord {
  id: string | number;
  zone: string;
  owner: string;
  type: string;
  rdata: string;
  ttl: number;
  /** the record's RRset's comment, where it was read (docs/changes.md, «Comments»); null: none */
  comment?: string | null;
}
export interface GqlUser {
  id: string;
  email: string;
  createdAt: string;
}
export interface GqlTsigKey {
  id: string;
  userId: string | null;
  name: string;
  algorithm: string;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
  policy: {
    restricted: boolean;
    preset: string | null;
    rules: { zone: string | null; owner: string | null; types: string[] | null; access: string }[] | null;
    mayCreateZones: boolean;
    mayDeleteZones: boolean;
    mayManageKeys: boolean;
    expiresAt: string | null;
    idleDays: number | null;
    allowedNetworks: string[] | null;
  };
}
export interface GqlDomain {
  id: string;
  name: string;
  user: { id: string; email: string };
  records: GqlRecord[];
}

/** A record; its RRset's `comment` only where it has one (the documented shape is unchanged without) */
export function presentRecord(record: GqlRecord) {
  const presented = {
    id: Number(record.id),
    owner: record.owner,
    rdata: record.rdata,
    zone: record.zone,
    type: record.type,
    ttl: String(record.ttl),
  };
  return record.comment === undefined || record.comment === null ? presented : { ...presented, comment: record.comment };
}

/** what a change set or a history entry answers of RRsets' comments: only where it changed some */
export function withoutNoComments<T extends { comments?: unknown[] | null }>(answer: T): T {
  if (answer.comments !== undefined && (answer.comments === null || answer.comments.length === 0)) {
    const { comments: _none, ...rest } = answer;
    return rest as T;
  }
  return answer;
}

/** Inside a domain's `records`, items carry no `zone`. */
export function presentZoneRecord(record: GqlRecord) {
  return { id: Number(record.id), owner: record.owner, rdata: record.rdata, type: record.type, ttl: String(record.ttl) };
}

/**
 * `2026-11-22T02:54:52.123Z` → `2026-11-22T02:54:52.123000`: ISO 8601 without zone, in UTC, to the
 * microsecond: `created_at` as the listings show it (`<date>T<time>`, docs/decisions.md §1).
 */
export function isoWithoutZone(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?/.exec(iso);
  if (!match) return iso;
  return `${match[1]}T${match[2]}.${(match[3] ?? '').padEnd(6, '0').slice(0, 6)}`;
}

/**
 * `2026-11-22T02:54:52.123Z` → `2026-11-22 02:54:52.123000`: the create-user answer's documented form, a date
 * and a time with fractional seconds separated by a space (as RESTKnot's create answer, which legacy clients
 * parse), where the listings use the `T` form.
 */
export function spaceSeparated(iso: string): string {
  return isoWithoutZone(iso).replace('T', ' ');
}

export function presentUser(user: GqlUser) {
  return { id: String(user.id), email: user.email, created_at: isoWithoutZone(user.createdAt) };
}

/** the create-user answer: the listing's fields, `created_at` in the create answer's own form */
export function presentCreatedUser(user: GqlUser) {
  return { ...presentUser(user), created_at: spaceSeparated(user.createdAt) };
}

export function presentTsigKey(key: GqlTsigKey) {
  return {
    id: Number(key.id),
    user_id: key.userId === null ? null : String(key.userId),
    name: key.name,
    algorithm: key.algorithm,
    created_at: isoWithoutZone(key.createdAt),
    revoked_at: key.revokedAt === null ? null : isoWithoutZone(key.revokedAt),
    last_used_at: key.lastUsedAt === null ? null : isoWithoutZone(key.lastUsedAt),
    policy: {
      restricted: key.policy.restricted,
      preset: key.policy.preset,
      rules: key.policy.rules?.map((rule) => ({ ...rule, access: rule.access.toLowerCase() })) ?? null,
      may_create_zones: key.policy.mayCreateZones,
      may_delete_zones: key.policy.mayDeleteZones,
      may_manage_keys: key.policy.mayManageKeys,
      expires_at: key.policy.expiresAt,
      idle_days: key.policy.idleDays,
      allowed_networks: key.policy.allowedNetworks,
    },
  };
}

export function presentDomain(domain: GqlDomain) {
  return {
    zone_id: Number(domain.id),
    zone: domain.name,
    user: { id: Number(domain.user.id), email: domain.user.email },
    records: domain.records.map(presentZoneRecord),
  };
}

export interface GqlDnssec {
  zone: string;
  enabled: boolean;
  state: string;
  denial: string | null;
  nsec3Iterations: number | null;
  nsec3OptOut: boolean | null;
  ds: string[];
  dnskeys: string[];
  disableAt: string | null;
  dsWithdrawnAt: string | null;
  parentDs: {
    inZonekeeper: boolean;
    waitingFor: string;
    seenAt: string | null;
    checkedAt: string | null;
    nextCheckAt: string | null;
    lastCheck: {
      at: string;
      want: string;
      expected: string[];
      confirmed: boolean;
      servers: { server: string; ok: boolean; ds: string[]; ttl: number | null; transport: string | null; error: string | null }[];
    } | null;
  } | null;
  algorithmRoll: { from: string; to: string; step: string; nextStepAt: string | null } | null;
  foreignKeys: {
    id: string;
    role: string;
    keyTag: number;
    algorithm: string;
    dnskey: string;
    ds: string[];
    source: string;
    fetchedFrom: string | null;
    createdAt: string;
  }[];
  keys: {
    id: string;
    keyTag: number;
    role: string;
    algorithm: string;
    state: string;
    dnskey: string;
    createdAt: string;
    publishedAt: string | null;
    readyAt: string | null;
    activeAt: string | null;
    retiredAt: string | null;
    removedAt: string | null;
    nextEvent: string | null;
    nextEventAt: string | null;
  }[];
}

/** a zone's DNSSEC in the REST layer's snake_case */
export function presentDnssec(d: GqlDnssec) {
  return {
    zone: d.zone,
    enabled: d.enabled,
    state: d.state,
    denial: d.denial,
    nsec3_iterations: d.nsec3Iterations,
    nsec3_opt_out: d.nsec3OptOut,
    ds: d.ds,
    dnskeys: d.dnskeys,
    foreign_keys: d.foreignKeys.map((k) => ({
      foreign_key_id: Number(k.id),
      role: k.role,
      key_tag: k.keyTag,
      algorithm: k.algorithm,
      dnskey: k.dnskey,
      ds: k.ds,
      source: k.source,
      fetched_from: k.fetchedFrom,
      created_at: k.createdAt,
    })),
    keys: d.keys.map((k) => ({
      key_id: Number(k.id),
      key_tag: k.keyTag,
      role: k.role,
      algorithm: k.algorithm,
      state: k.state,
      dnskey: k.dnskey,
      created_at: k.createdAt,
      published_at: k.publishedAt,
      ready_at: k.readyAt,
      active_at: k.activeAt,
      retired_at: k.retiredAt,
      removed_at: k.removedAt,
      next_event: k.nextEvent,
      next_event_at: k.nextEventAt,
    })),
    disable_at: d.disableAt,
    ds_withdrawn_at: d.dsWithdrawnAt,
    parent_ds: d.parentDs && {
      in_zonekeeper: d.parentDs.inZonekeeper,
      waiting_for: d.parentDs.waitingFor,
      seen_at: d.parentDs.seenAt,
      checked_at: d.parentDs.checkedAt,
      next_check_at: d.parentDs.nextCheckAt,
      last_check: d.parentDs.lastCheck,
    },
    algorithm_roll: d.algorithmRoll && {
      from: d.algorithmRoll.from,
      to: d.algorithmRoll.to,
      step: d.algorithmRoll.step,
      next_step_at: d.algorithmRoll.nextStepAt,
    },
  };
}

export interface GqlDnssecKeyEvent {
  id: string;
  keyId: string;
  keyTag: number;
  role: string;
  algorithm: string;
  fromState: string | null;
  toState: string;
  reason: string;
  at: string;
}

/** a DNSSEC key event in the REST layer's snake_case */
export function presentDnssecKeyEvent(e: GqlDnssecKeyEvent) {
  return {
    id: Number(e.id),
    key_id: Number(e.keyId),
    key_tag: e.keyTag,
    role: e.role,
    algorithm: e.algorithm,
    from_state: e.fromState,
    to_state: e.toState,
    reason: e.reason,
    at: e.at,
  };
}

export interface GqlAuditEvent {
  id: string;
  at: string;
  kind: string;
  actorKeyType: string | null;
  actorKeyId: string | null;
  actorKeyName: string | null;
  actorUserId: string | null;
  actorAdmin: boolean;
  subject: string | null;
  detail: Record<string, unknown>;
  sourceAddress: string | null;
  count: number;
}

export function presentAuditEvent(event: GqlAuditEvent) {
  const idOrNull = (value: string | null) => (value === null ? null : Number(value));
  return {
    id: Number(event.id),
    at: event.at,
    kind: event.kind,
    actor_key_type: event.actorKeyType,
    actor_key_id: idOrNull(event.actorKeyId),
    actor_key_name: event.actorKeyName,
    actor_user_id: idOrNull(event.actorUserId),
    actor_admin: event.actorAdmin,
    subject: event.subject,
    detail: event.detail,
    source_address: event.sourceAddress,
    count: event.count,
  };
}

export interface GqlUserLimits {
  ratePerSecond: number | null;
  rateBurst: number | null;
  maxZones: number | null;
  maxRecordsPerZone: number | null;
  zoneCount: number;
  effective: { ratePerSecond: number; rateBurst: number; maxZones: number; maxRecordsPerZone: number };
}

/** a user's limits in the REST field names (snake_case, as the other REST bodies) */
export function presentUserLimits(limits: GqlUserLimits) {
  const fields = (l: Omit<GqlUserLimits, 'zoneCount' | 'effective'>) => ({
    rate_per_second: l.ratePerSecond,
    rate_burst: l.rateBurst,
    max_zones: l.maxZones,
    max_records_per_zone: l.maxRecordsPerZone,
  });
  return { ...fields(limits), zone_count: limits.zoneCount, effective: fields(limits.effective) };
}
