import type { RestAuditEventFragment } from './generated/audit';
import type { RestDnssecFragment, RestDnssecKeyEventFragment } from './generated/dnssec';
import type { RestDomainFragment } from './generated/domains';
import type { RestRecordFragment } from './generated/records';
import type { RestTsigKeyFragment } from './generated/tsig-keys';
import type { RestUserFragment, RestUserLimitsFragment } from './generated/users';

/**
 * GraphQL results → the documented REST shapes (docs/decisions.md §1): record `id`
 * and `zone_id` as JSON integers, user `id` as a string of digits, `ttl` as a numeric string.
 */

/**
 * a record as GraphQL answers it, or as the service's row (the record list's stream and a create, which call
 * the service directly): the same fields, the id a number there; its RRset's `comment` where it was read
 * (docs/changes.md, «Comments»; null: none)
 */
export type PresentedRecord = Omit<RestRecordFragment, 'id'> & { id: string | number; comment?: string | null };

/** A record; its RRset's `comment` only where it has one (the documented shape is unchanged without) */
export function presentRecord(record: PresentedRecord) {
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
export function presentZoneRecord(record: PresentedRecord) {
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

export function presentUser(user: RestUserFragment) {
  return { id: String(user.id), email: user.email, created_at: isoWithoutZone(user.createdAt) };
}

/** the create-user answer: the listing's fields, `created_at` in the create answer's own form */
export function presentCreatedUser(user: RestUserFragment) {
  return { ...presentUser(user), created_at: spaceSeparated(user.createdAt) };
}

export function presentTsigKey(key: RestTsigKeyFragment) {
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

export function presentDomain(domain: RestDomainFragment) {
  return {
    zone_id: Number(domain.id),
    zone: domain.name,
    user: { id: Number(domain.user.id), email: domain.user.email },
    records: domain.records.map(presentZoneRecord),
  };
}

/** a zone's DNSSEC in the REST layer's snake_case */
export function presentDnssec(d: RestDnssecFragment) {
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

/** a DNSSEC key event in the REST layer's snake_case */
export function presentDnssecKeyEvent(e: RestDnssecKeyEventFragment) {
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

export function presentAuditEvent(event: RestAuditEventFragment) {
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

/** a user's limits in the REST field names (snake_case, as the other REST bodies) */
export function presentUserLimits(limits: RestUserLimitsFragment) {
  const fields = (l: Omit<RestUserLimitsFragment, 'zoneCount' | 'effective'>) => ({
    rate_per_second: l.ratePerSecond,
    rate_burst: l.rateBurst,
    max_zones: l.maxZones,
    max_records_per_zone: l.maxRecordsPerZone,
  });
  return { ...fields(limits), zone_count: limits.zoneCount, effective: fields(limits.effective) };
}
