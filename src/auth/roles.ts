import { DomainError } from '../errors/catalogue';
import { buildPolicy, KeyPolicy, UNRESTRICTED } from './policy';

/**
 * A person's role in an account (docs/people.md), as rules of the one policy engine (src/auth/policy.ts), so
 * that REST, GraphQL and DNS decide for a person exactly as for a key with those rules:
 * - owner: everything of the account; also its owners, zone transfers, the account itself;
 * - admin: members (not owners), keys, every zone (create, delete, records);
 * - editor: the records of every zone, or of the named zones only (`zones`); no zone created or deleted, no keys;
 * - viewer: reads every zone, changes nothing: no webhook either (managesWebhooks).
 */
export const ROLES = ['owner', 'admin', 'editor', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** the order of the roles: a role manages only members whose role ranks below its own (an owner: every one) */
const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 3 };

export function parseRole(text: string, field = 'role'): Role {
  const role = String(text).trim().toLowerCase();
  if (!(ROLES as readonly string[]).includes(role))
    throw DomainError.invalid(field, `${field}: ${JSON.stringify(text)} is not one of ${ROLES.join(', ')}`, 'UNKNOWN_ROLE');
  return role as Role;
}

/** does `actor` manage members (invite, change, remove) of role `target`? owners all, admins up to admins */
export function managesRole(actor: Role | null, target: Role): boolean {
  if (actor === 'owner') return true;
  return actor === 'admin' && RANK[target] < RANK.owner;
}

/**
 * does a person of `role` keep (add, remove, rotate, redeliver) the account's webhooks? A webhook carries the
 * account's events out to an address of the maker's choosing, so it is a change: a viewer, who changes nothing,
 * keeps none (reading the list and the deliveries stays open to every member, as the feed does)
 */
export function managesWebhooks(role: Role | null): boolean {
  return role !== null && role !== 'viewer';
}

/** the named zones of an editor, canonical (the policy engine's zone names); null: every zone */
export function roleZones(role: Role, zones: readonly string[] | null | undefined): string[] | null {
  if (zones === null || zones === undefined || zones.length === 0) return null;
  if (role !== 'editor') throw DomainError.invalid('zones', 'zones: only an editor is limited to named zones', 'ZONES_WITHOUT_EDITOR');
  const policy = buildPolicy({ policy: { rules: zones.map((zone) => ({ zone, access: 'write' })) } });
  return [...new Set(policy.rules!.map((rule) => rule.zone!))].sort();
}

/** the policy a role gives in its account */
export function rolePolicy(role: Role | null, zones: readonly string[] | null): KeyPolicy {
  switch (role) {
    case 'owner':
      return UNRESTRICTED;
    case 'admin':
      // every zone and every flag, but as a rule, not unrestricted: a key an admin makes is then restricted too
      // (exceedsCreator), so it acts as an admin (PeopleService.roleIn), never as the account's owner
      return { ...UNRESTRICTED, rules: [{ zone: null, owner: null, types: null, access: 'write' }] };
    case 'editor':
      return {
        ...UNRESTRICTED,
        rules:
          zones === null
            ? [{ zone: null, owner: null, types: null, access: 'write' }]
            : zones.map((zone) => ({ zone, owner: null, types: null, access: 'write' })),
        mayCreateZones: false,
        mayDeleteZones: false,
        mayManageKeys: false,
      };
    case 'viewer':
      return {
        ...UNRESTRICTED,
        rules: [{ zone: null, owner: null, types: null, access: 'read' }],
        mayCreateZones: false,
        mayDeleteZones: false,
        mayManageKeys: false,
      };
    default:
      // no account: no rule, so nothing of any zone
      return { ...UNRESTRICTED, rules: [], mayCreateZones: false, mayDeleteZones: false, mayManageKeys: false };
  }
}

/** OIDC_OPERATOR_CLAIM and OIDC_OPERATOR_VALUES (docs/people.md, «The operator») */
export interface OperatorClaim {
  claim: string;
  values: readonly string[];
}

/**
 * Does an OpenID Connect sign-in make the person an operator? When the ID token's claim (a string, or an array
 * of them: `groups`, `roles`) holds one of the values, exactly (case and all: a provider's group names are its
 * own); anything else (no such claim, a number, an object) does not.
 */
export function claimGrantsOperator(claims: Record<string, unknown> | undefined, mapping: OperatorClaim): boolean {
  const value = claims?.[mapping.claim];
  const given = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  return given.some((v) => mapping.values.includes(v));
}
