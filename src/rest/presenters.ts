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
}
export interface GqlDomain {
  id: string;
  name: string;
  user: { id: string; email: string };
  records: GqlRecord[];
}

export function presentRecord(record: GqlRecord) {
  return { id: Number(record.id), owner: record.owner, rdata: record.rdata, zone: record.zone, type: record.type, ttl: String(record.ttl) };
}

/** Inside a domain's `records`, items carry no `zone`. */
export function presentZoneRecord(record: GqlRecord) {
  return { id: Number(record.id), owner: record.owner, rdata: record.rdata, type: record.type, ttl: String(record.ttl) };
}

/**
 * `2026-11-22T02:54:52.123Z` → `2026-11-22T02:54:52.123000`: ISO 8601 without zone, in UTC, to the
 * microsecond: `created_at` as the listings show it (service-interface: "`<date>T<time>`").
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
