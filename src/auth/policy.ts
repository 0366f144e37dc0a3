import { inNetworks, parseCidr } from '../dns/ip';
import { ownerOf, parseZoneName } from '../dns/name';
import { getRecordType } from '../dns/record-types';
import { DomainError, ErrorDetail } from '../errors/catalogue';

/**
 * The one policy engine of least-privilege keys (docs/least-privilege.md): pure functions over a key's policy,
 * used by the services (records, change sets, zone imports, DNS UPDATE, zones, keys) and the DNS primary's
 * transfers, so that REST, GraphQL and DNS decide alike. No I/O here.
 *
 * A rule names a zone (or every zone of the key's user: `zone` null), an owner (null: any; `www`: exactly that
 * owner; `_acme-challenge.*`: that leftmost label, at the zone's apex level or at any depth below it), record
 * types (null: all) and an access (`write` implies `read`). For a point (zone, owner, type) the most specific
 * matching rule decides: a named zone over every zone, then an exact owner over a wildcard (the longer one
 * first) over any owner, then listed types over all types; rules equally specific add up (the wider access).
 * A restricted key without a matching rule may do nothing there.
 */

export type Access = 'read' | 'write';

export interface PolicyRule {
  /** canonical zone name (no final dot), or null: every zone of the key's user */
  zone: string | null;
  /** owner relative to the zone (`@` the apex), `<labels>.*` (those leftmost labels at any depth), or null: any */
  owner: string | null;
  /** record type mnemonics, or null: every type */
  types: string[] | null;
  access: Access;
}

export const PRESETS = ['READ_ONLY', 'ONE_ZONE', 'ACME'] as const;
export type Preset = (typeof PRESETS)[number];

/** A key's policy. `rules` null: an unrestricted key (every key made before policies, or made without rules). */
export interface KeyPolicy {
  rules: PolicyRule[] | null;
  mayCreateZones: boolean;
  mayDeleteZones: boolean;
  mayManageKeys: boolean;
  expiresAt: Date | null;
  idleDays: number | null;
  /** CIDR blocks (`192.0.2.0/24`, `2001:db8::/32`, a bare address is a /32 or /128), or null: anywhere */
  allowedNetworks: string[] | null;
  preset: Preset | null;
}

export const UNRESTRICTED: KeyPolicy = {
  rules: null,
  mayCreateZones: true,
  mayDeleteZones: true,
  mayManageKeys: true,
  expiresAt: null,
  idleDays: null,
  allowedNetworks: null,
  preset: null,
};

export const isRestricted = (policy: KeyPolicy | undefined): policy is KeyPolicy & { rules: PolicyRule[] } =>
  policy !== undefined && policy.rules !== null;

/** What is asked: `owner` undefined means every owner of the zone, `type` undefined every type. */
export interface PolicyQuestion {
  zone: string;
  owner?: string;
  type?: string;
  access: Access;
}

export type Decision = { allowed: true } | { allowed: false; missing: string };

const ALLOWED: Decision = { allowed: true };

/** does `owner` (relative, `@` the apex) fall under the rule's owner? */
function ownerMatches(pattern: string | null, owner: string): boolean {
  if (pattern === null) return true;
  if (pattern.endsWith('.*')) {
    const prefix = pattern.slice(0, -2);
    return owner === prefix || owner.startsWith(`${prefix}.`);
  }
  return owner === pattern;
}

function matches(rule: PolicyRule, zone: string, owner: string, type: string): boolean {
  return (
    (rule.zone === null || rule.zone === zone) && ownerMatches(rule.owner, owner) && (rule.types === null || rule.types.includes(type))
  );
}

/** the rule's specificity, compared in order: zone, owner (exact > wildcard by its length > any), types */
function specificity(rule: PolicyRule): [number, number, number] {
  const owner = rule.owner === null ? 0 : rule.owner.endsWith('.*') ? 1 + rule.owner.split('.').length : 1000;
  return [rule.zone === null ? 0 : 1, owner, rule.types === null ? 0 : 1];
}

function compare(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** the access the most specific matching rules give at one point, or undefined: no rule matches */
function accessAt(rules: readonly PolicyRule[], zone: string, owner: string, type: string): Access | undefined {
  let best: [number, number, number] | undefined;
  let access: Access | undefined;
  for (const rule of rules) {
    if (!matches(rule, zone, owner, type)) continue;
    const s = specificity(rule);
    const order = best === undefined ? 1 : compare(s, best);
    if (order > 0) {
      best = s;
      access = rule.access;
    } else if (order === 0 && rule.access === 'write') access = 'write';
  }
  return access;
}

const grants = (given: Access | undefined, asked: Access) => given === 'write' || (given === 'read' && asked === 'read');

/** a name no rule can name (a NUL is in no owner, zone or type the model takes): "any other" */
const OTHER = '\u0000other';

/**
 * The points that stand for every point of a region (a zone or every zone, an owner pattern, a type list or
 * every type): the rules split names and types into classes their predicates cannot tell apart, and one
 * point per class that meets the region is enough to know the decision over the whole region.
 */
function representatives(rules: readonly PolicyRule[], region: Omit<PolicyRule, 'access'>): [string, string, string][] {
  const zones = region.zone !== null ? [region.zone] : [...new Set([...rules.flatMap((r) => (r.zone === null ? [] : [r.zone])), OTHER])];
  const patterns = rules.flatMap((r) => (r.owner === null ? [] : [r.owner]));
  let owners: string[];
  if (region.owner !== null && !region.owner.endsWith('.*')) owners = [region.owner];
  else {
    const within = (owner: string) => region.owner === null || ownerMatches(region.owner, owner);
    const candidates = region.owner === null ? [OTHER] : [region.owner.slice(0, -2), `${region.owner.slice(0, -2)}.${OTHER}`];
    for (const pattern of patterns) {
      if (pattern.endsWith('.*')) candidates.push(pattern.slice(0, -2), `${pattern.slice(0, -2)}.${OTHER}`);
      else candidates.push(pattern);
    }
    owners = [...new Set(candidates.filter(within))];
  }
  const types = region.types !== null ? region.types : [...new Set([...rules.flatMap((r) => r.types ?? []), `TYPE${OTHER}`])];
  const points: [string, string, string][] = [];
  for (const zone of zones) for (const owner of owners) for (const type of types) points.push([zone, owner, type]);
  return points;
}

/** the absolute name of a relative owner, for messages */
export function ownerName(zone: string, owner: string): string {
  return owner === '@' ? zone : `${owner}.${zone}`;
}

function describe(question: PolicyQuestion): string {
  const what = question.type === undefined ? 'every type' : question.type;
  const where = question.owner === undefined ? `every name of ${question.zone}` : ownerName(question.zone, question.owner);
  return `no rule lets this key ${question.access} ${what} at ${where}`;
}

/**
 * The engine's question: may the key (of `policy`) have `access` to the records at (zone, owner, type)? An
 * owner or type left out asks for all of them at once (a transfer, a DNS UPDATE deleting a whole name). An
 * unrestricted policy allows everything (the user's scope is the services' own check).
 */
export function decide(policy: KeyPolicy | undefined, question: PolicyQuestion): Decision {
  if (!isRestricted(policy)) return ALLOWED;
  const region = { zone: question.zone, owner: question.owner ?? null, types: question.type === undefined ? null : [question.type] };
  const ok = coversRegion(policy.rules, region, question.access);
  return ok ? ALLOWED : { allowed: false, missing: describe(question) };
}

/** does every point of the region get at least `access`? */
function coversRegion(rules: readonly PolicyRule[], region: Omit<PolicyRule, 'access'>, access: Access): boolean {
  return representatives(rules, region).every(([zone, owner, type]) => grants(accessAt(rules, zone, owner, type), access));
}

/**
 * may the key write anything in the zone (some owner, some type)? What a screen asks before it offers to add or
 * change records at all: each record is then decided on its own (decide), and a write is still decided there.
 */
export function writesSomewhere(policy: KeyPolicy | undefined, zone: string): boolean {
  if (!isRestricted(policy)) return true;
  return representatives(policy.rules, { zone, owner: null, types: null }).some(([z, owner, type]) =>
    grants(accessAt(policy.rules, z, owner, type), 'write'),
  );
}

/** may the key see the zone at all (a rule names it, or every zone)? Every rule grants at least read. */
export function seesZone(policy: KeyPolicy | undefined, zone: string): boolean {
  if (!isRestricted(policy)) return true;
  return policy.rules.some((rule) => rule.zone === null || rule.zone === zone);
}

/** may the key read the one record (zone, owner, type)? */
export function readsRecord(policy: KeyPolicy | undefined, zone: string, owner: string, type: string): boolean {
  if (!isRestricted(policy)) return true;
  return accessAt(policy.rules, zone, owner, type) !== undefined;
}

/** throws FORBIDDEN_BY_POLICY unless allowed; `field` (e.g. `changes[3]`) names the refused change */
export function requireAllowed(policy: KeyPolicy | undefined, question: PolicyQuestion, field?: string): void {
  const decision = decide(policy, question);
  if (!decision.allowed) throw forbidden(decision.missing, field);
}

export function forbidden(missing: string, field?: string, more: ErrorDetail[] = []): DomainError {
  const message = field ? `${field}: ${missing}` : missing;
  return new DomainError('FORBIDDEN_BY_POLICY', message, [{ field: field ?? 'key', code: 'FORBIDDEN_BY_POLICY', message }, ...more]);
}

export type KeyFlag = 'mayCreateZones' | 'mayDeleteZones' | 'mayManageKeys';
const FLAG_WORDS: Record<KeyFlag, string> = {
  mayCreateZones: 'create zones (mayCreateZones)',
  mayDeleteZones: 'delete zones (mayDeleteZones)',
  mayManageKeys: 'manage keys (mayManageKeys)',
};

/** a key-level flag: unrestricted keys have every flag */
export function requireFlag(policy: KeyPolicy | undefined, flag: KeyFlag): void {
  if (isRestricted(policy) && !policy[flag]) throw forbidden(`this key may not ${FLAG_WORDS[flag]}`);
}

// ---- key-level limits: expiry, idleness, networks ----

export interface KeyUse {
  /** the client's address (HTTP peer, or the DNS message's source) */
  address?: string;
  /** when the key was last used (or made, if never), as stored */
  lastUsedAt: Date;
  now?: Date;
}

/** why a key may not be used now: which limit (the audit log records each as its own kind) and the sentence */
export interface Unusable {
  limit: 'expired' | 'idle' | 'network';
  message: string;
}

/** why the key may not be used now from there (expired, idle, outside its networks), or undefined: it may */
export function unusable(policy: KeyPolicy | undefined, use: KeyUse): Unusable | undefined {
  if (!policy) return undefined;
  const now = use.now ?? new Date();
  if (policy.expiresAt && policy.expiresAt.getTime() <= now.getTime())
    return { limit: 'expired', message: `this key expired at ${policy.expiresAt.toISOString()}` };
  if (policy.idleDays !== null && now.getTime() - use.lastUsedAt.getTime() > policy.idleDays * 86_400_000)
    return {
      limit: 'idle',
      message: `this key was not used for more than ${policy.idleDays} days (idleDays) and is no longer accepted`,
    };
  if (policy.allowedNetworks !== null && (!use.address || !inNetworks(policy.allowedNetworks, use.address)))
    return { limit: 'network', message: `this key may not be used from ${use.address ?? 'an unknown address'} (allowedNetworks)` };
  return undefined;
}

/** the sentence of unusable(), or undefined: the key may be used */
export function unusableReason(policy: KeyPolicy | undefined, use: KeyUse): string | undefined {
  return unusable(policy, use)?.message;
}

// ---- building a policy from input, presets, and "never more than the creator" ----

export interface PolicyRuleInput {
  zone?: string | null;
  owner?: string | null;
  types?: string[] | null;
  access?: string | null;
}
export interface PolicyInput {
  rules?: PolicyRuleInput[] | null;
  mayCreateZones?: boolean | null;
  mayDeleteZones?: boolean | null;
  mayManageKeys?: boolean | null;
  expiresAt?: Date | string | null;
  idleDays?: number | null;
  allowedNetworks?: string[] | null;
}

/** at most this many rules on one key: each decision reads them all */
export const MAX_RULES = 100;

function canonicalZone(text: string, field: string): string {
  const parsed = parseZoneName(text, field);
  if (!parsed.ok) throw DomainError.invalid(field, parsed.problems[0].message, parsed.problems[0].code);
  return parsed.name;
}

/** an owner pattern: relative (`@`, `www`, `_acme-challenge.*`), lower case; an absolute name inside the zone is made relative */
function canonicalOwner(text: string, zone: string | null, field: string): string {
  let owner = text.trim().toLowerCase();
  if (owner.endsWith('.') && owner !== '.') {
    const inZone = zone === null ? undefined : ownerOf(owner, zone);
    if (inZone === undefined)
      throw DomainError.invalid(field, `${field}: give the owner relative to the zone (e.g. www, @, _acme-challenge.*)`, 'INVALID_OWNER');
    owner = inZone;
  }
  const labels = owner.split('.');
  const wildcardTail = labels.length > 1 && labels[labels.length - 1] === '*';
  const body = wildcardTail ? labels.slice(0, -1) : labels;
  const valid =
    owner === '@' || (owner.length <= 253 && body.every((label) => label.length > 0 && label.length <= 63 && /^[a-z0-9_*-]+$/.test(label)));
  if (!valid || owner.includes('\u0000'))
    throw DomainError.invalid(
      field,
      `${field}: ${JSON.stringify(text)} is not an owner (www, @) or a pattern like _acme-challenge.*`,
      'INVALID_OWNER',
    );
  return owner;
}

function canonicalRule(input: PolicyRuleInput, index: number): PolicyRule {
  const at = `policy.rules[${index}]`;
  const zone = input.zone === undefined || input.zone === null || input.zone === '' ? null : canonicalZone(input.zone, `${at}.zone`);
  const owner =
    input.owner === undefined || input.owner === null || input.owner === '' ? null : canonicalOwner(input.owner, zone, `${at}.owner`);
  let types: string[] | null = null;
  if (input.types !== undefined && input.types !== null) {
    if (input.types.length === 0)
      throw DomainError.invalid(`${at}.types`, `${at}.types: list at least one type, or leave types out for every type`, 'EMPTY_TYPES');
    types = [
      ...new Set(
        input.types.map((type, i) => {
          const definition = getRecordType(String(type).trim());
          if (!definition)
            throw DomainError.invalid(
              `${at}.types[${i}]`,
              `${at}.types[${i}]: ${JSON.stringify(type)} is not a supported record type`,
              'UNKNOWN_TYPE',
            );
          return definition.type;
        }),
      ),
    ].sort();
  }
  const access = String(input.access ?? '').toLowerCase();
  if (access !== 'read' && access !== 'write')
    throw DomainError.invalid(
      `${at}.access`,
      `${at}.access: ${JSON.stringify(input.access ?? null)} is not read or write`,
      'INVALID_ACCESS',
    );
  return { zone, owner, types, access };
}

/** the rules of a preset; `zone` absent: every zone of the key's user (READ_ONLY, ACME) */
export function presetRules(preset: string, zone?: string | null): { preset: Preset; rules: PolicyRule[] } {
  const name = String(preset).toUpperCase().replace(/-/g, '_') as Preset;
  const z = zone === undefined || zone === null || zone === '' ? null : canonicalZone(zone, 'zone');
  switch (name) {
    case 'READ_ONLY':
      return { preset: name, rules: [{ zone: z, owner: null, types: null, access: 'read' }] };
    case 'ONE_ZONE':
      if (z === null) throw DomainError.invalid('zone', 'zone: the ONE_ZONE preset needs the zone', 'REQUIRED');
      return { preset: name, rules: [{ zone: z, owner: null, types: null, access: 'write' }] };
    case 'ACME':
      // RFC 8555 §8.4: the DNS-01 challenge is a TXT record at _acme-challenge.<name>, for a name at any depth
      return { preset: name, rules: [{ zone: z, owner: '_acme-challenge.*', types: ['TXT'], access: 'write' }] };
    default:
      throw DomainError.invalid('preset', `preset: ${JSON.stringify(preset)} is not one of ${PRESETS.join(', ')}`, 'UNKNOWN_PRESET');
  }
}

/**
 * The policy of a new key from its input: `policy` (rules, flags, limits) and/or `preset` (+ `zone`). A key with
 * rules (even none), a preset or a flag is restricted; expiry, idle days and networks hold for any key.
 */
export function buildPolicy(input: { policy?: PolicyInput | null; preset?: string | null; zone?: string | null }): KeyPolicy {
  const given = input.policy ?? {};
  const rules: PolicyRule[] = [];
  let preset: Preset | null = null;
  if (input.preset !== undefined && input.preset !== null && input.preset !== '') {
    const made = presetRules(input.preset, input.zone);
    preset = made.preset;
    rules.push(...made.rules);
  } else if (input.zone !== undefined && input.zone !== null && input.zone !== '') {
    throw DomainError.invalid('zone', 'zone: a zone is given with a preset (ONE_ZONE, ACME, READ_ONLY)', 'ZONE_WITHOUT_PRESET');
  }
  if (given.rules) {
    if (given.rules.length > MAX_RULES)
      throw DomainError.invalid('policy.rules', `policy.rules: at most ${MAX_RULES} rules per key`, 'TOO_MANY_RULES');
    rules.push(...given.rules.map(canonicalRule));
  }
  const flags = [given.mayCreateZones, given.mayDeleteZones, given.mayManageKeys];
  const restricted =
    preset !== null || (given.rules !== undefined && given.rules !== null) || flags.some((f) => f !== undefined && f !== null);
  let expiresAt: Date | null = null;
  if (given.expiresAt !== undefined && given.expiresAt !== null) {
    expiresAt = given.expiresAt instanceof Date ? given.expiresAt : new Date(given.expiresAt);
    if (Number.isNaN(expiresAt.getTime()))
      throw DomainError.invalid('policy.expiresAt', 'policy.expiresAt: not a date-time (RFC 3339)', 'INVALID_DATE');
  }
  const idleDays = given.idleDays ?? null;
  if (idleDays !== null && (!Number.isInteger(idleDays) || idleDays < 1 || idleDays > 36_500))
    throw DomainError.invalid('policy.idleDays', 'policy.idleDays: a whole number of days, 1 to 36500', 'INVALID_IDLE_DAYS');
  let allowedNetworks: string[] | null = null;
  if (given.allowedNetworks !== undefined && given.allowedNetworks !== null) {
    if (given.allowedNetworks.length === 0)
      throw DomainError.invalid(
        'policy.allowedNetworks',
        'policy.allowedNetworks: list at least one network, or leave it out',
        'EMPTY_NETWORKS',
      );
    allowedNetworks = given.allowedNetworks.map((text, i) => {
      const network = parseCidr(String(text));
      if (!network)
        throw DomainError.invalid(
          `policy.allowedNetworks[${i}]`,
          `policy.allowedNetworks[${i}]: ${JSON.stringify(text)} is not a CIDR block`,
          'INVALID_NETWORK',
        );
      return `${network.address.toLowerCase()}/${network.prefix}`;
    });
  }
  return {
    rules: restricted ? rules : null,
    mayCreateZones: restricted ? given.mayCreateZones === true : true,
    mayDeleteZones: restricted ? given.mayDeleteZones === true : true,
    mayManageKeys: restricted ? given.mayManageKeys === true : true,
    expiresAt,
    idleDays,
    allowedNetworks,
    preset,
  };
}

/** is every address of `inner` inside one of `outer`'s networks? */
function networkWithin(inner: string, outer: readonly string[]): boolean {
  const network = parseCidr(inner)!;
  return outer.some((text) => {
    const o = parseCidr(text)!;
    return o.family === network.family && o.prefix <= network.prefix && inNetworks([text], network.address);
  });
}

/**
 * "A key can never get more than the key that made it": the reason the new key's policy exceeds its creator's,
 * or undefined when every permission the new key could have, the creator has too. Checked conservatively:
 * each rule of the new key is checked over its whole region (a more specific rule of the new key that narrows
 * part of it is not counted), so a refusal can be one a closer analysis would allow, never the other way.
 */
export function exceedsCreator(child: KeyPolicy, parent: KeyPolicy | undefined): string | undefined {
  if (!parent) return undefined;
  if (parent.expiresAt && (!child.expiresAt || child.expiresAt > parent.expiresAt))
    return `the new key must expire no later than this key (${parent.expiresAt.toISOString()})`;
  if (parent.idleDays !== null && (child.idleDays === null || child.idleDays > parent.idleDays))
    return `the new key needs idleDays of at most ${parent.idleDays}, as this key`;
  if (parent.allowedNetworks !== null) {
    const outside =
      child.allowedNetworks === null ? 'anywhere' : child.allowedNetworks.find((n) => !networkWithin(n, parent.allowedNetworks!));
    if (outside) return `the new key may not be used from ${outside}: this key is limited to ${parent.allowedNetworks.join(', ')}`;
  }
  if (!isRestricted(parent)) return undefined;
  if (child.rules === null) return 'a restricted key can only make restricted keys (give rules or a preset)';
  for (const flag of ['mayCreateZones', 'mayDeleteZones', 'mayManageKeys'] as const) {
    if (child[flag] && !parent[flag]) return `the new key may not get ${flag}: this key does not have it`;
  }
  for (const rule of child.rules) {
    if (!coversRegion(parent.rules, rule, rule.access)) {
      const owner = rule.owner ?? 'any owner';
      const types = rule.types?.join(', ') ?? 'every type';
      return `the new key's rule (${rule.access} ${types} at ${owner} in ${rule.zone ?? 'every zone'}) is more than this key may do`;
    }
  }
  return undefined;
}

/** the policy as stored (api_keys/tsig_keys columns) */
export interface StoredPolicy {
  rules: PolicyRule[] | null;
  may_create_zones: boolean;
  may_delete_zones: boolean;
  may_manage_keys: boolean;
  expires_at: Date | string | null;
  idle_days: number | null;
  allowed_networks: string[] | null;
  preset: string | null;
}

export function policyFromRow(row: StoredPolicy): KeyPolicy {
  return {
    rules: row.rules ?? null,
    mayCreateZones: row.rules === null ? true : row.may_create_zones,
    mayDeleteZones: row.rules === null ? true : row.may_delete_zones,
    mayManageKeys: row.rules === null ? true : row.may_manage_keys,
    expiresAt: row.expires_at === null ? null : new Date(row.expires_at),
    idleDays: row.idle_days === null ? null : Number(row.idle_days),
    allowedNetworks: row.allowed_networks ?? null,
    preset: (row.preset as Preset | null) ?? null,
  };
}

/** what decides what a key may read (every rule grants read): its rules, or undefined for an unrestricted key */
export type ReadRules = readonly Pick<PolicyRule, 'zone' | 'owner' | 'types'>[];
export function readRulesOf(policy: KeyPolicy | undefined): ReadRules | undefined {
  return isRestricted(policy) ? policy.rules : undefined;
}

/**
 * Is the key confined to ACME challenges: may it write nothing but TXT records at `_acme-challenge` names (RFC 8555
 * §8.4), as the ACME preset makes it? Such a key keeps writing in a zone under review (docs/changes.md, «Review»):
 * certbot and lego renew over DNS UPDATE or the PowerDNS API, which cannot wait for an approval, and what the key
 * may write is nothing a resolver follows.
 */
export function confinedToAcmeChallenges(policy: KeyPolicy | undefined): boolean {
  if (!isRestricted(policy)) return false;
  const writes = policy.rules.filter((rule) => rule.access === 'write');
  return (
    writes.length > 0 &&
    writes.every(
      (rule) =>
        rule.owner !== null &&
        (rule.owner === '_acme-challenge' || rule.owner.startsWith('_acme-challenge.')) &&
        rule.types !== null &&
        rule.types.length > 0 &&
        rule.types.every((type) => type === 'TXT'),
    )
  );
}
