import { decide, isRestricted, writesSomewhere } from '../../auth/policy';
import { isOperator, scopeUserId } from '../../auth/principal';
import { keepsWebhooks } from '../../auth/principal';
import { managesRole, ROLES, type Role } from '../../auth/roles';
import { DomainError } from '../../errors/catalogue';
import { UNDELETABLE_TYPES } from '../../dns/zone-rules';
import type { DomainRow } from '../../repositories/read-model';
import type { RequestContext } from '../context';
import type { PeopleService } from './people.service';
import { reviewRefusal } from '../zones/change-requests.service';

/** what the caller may do beyond one zone (docs/console.md, «What a screen offers») */
export interface ViewerPermissions {
  createZone: boolean;
  deleteZones: boolean;
  manageKeys: boolean;
  manageUnrestrictedKeys: boolean;
  manageNameserverSets: boolean;
  manageWebhooks: boolean;
  administer: boolean;
}

/** what the caller may do with one zone */
export interface ZonePermissions {
  editRecords: boolean;
  editSoa: boolean;
  deleteZone: boolean;
  manageDnssec: boolean;
  promote: boolean;
  manageExtraSecondaries: boolean;
  moveZone: boolean;
  undeletableTypes: string[];
  reviewChanges: boolean;
}

/** what the caller may do with one record */
export interface RecordPermissions {
  edit: boolean;
  delete: boolean;
}

const READ_ONLY: RecordPermissions = Object.freeze({ edit: false, delete: false });
const EDIT_ONLY: RecordPermissions = Object.freeze({ edit: true, delete: false });
const EDIT_AND_DELETE: RecordPermissions = Object.freeze({ edit: true, delete: true });

/**
 * What the caller may do, asked before a screen offers it (so that an editor is never shown a "New zone" the API
 * refuses it): each answer is the question the deciding service asks, put to the one policy engine
 * (src/auth/policy.ts) with the same arguments, and the rules the write engine holds (a secondary zone is
 * written only by its transfers; the SOA is never deleted on its own). Nothing here decides a request: the
 * services still refuse what they refuse.
 */
export class PermissionsService {
  /** the role per account, asked once per request (a zone list asks it for each zone of one account) */
  private readonly roles = new WeakMap<RequestContext, Map<number, Promise<Role | null>>>();

  constructor(private readonly people: PeopleService) {}

  viewer(ctx: RequestContext): ViewerPermissions {
    const policy = ctx.principal.policy;
    // requireFlag's question (DomainsService.create and .delete, ApiKeysService, TsigKeysService); a person
    // without an account has a role's policy without any flag (src/auth/roles.ts)
    const flag = (name: 'mayCreateZones' | 'mayDeleteZones' | 'mayManageKeys') => !isRestricted(policy) || policy[name];
    return {
      createZone: flag('mayCreateZones'),
      deleteZones: flag('mayDeleteZones'),
      manageKeys: flag('mayManageKeys'),
      // newKeyPolicy and requireWithin (exceedsCreator): a restricted caller (an admin, a key with rules) makes and revokes restricted keys only
      manageUnrestrictedKeys: flag('mayManageKeys') && !isRestricted(policy),
      // NameserverSetsService: the operator's (requireAdmin)
      manageNameserverSets: isOperator(ctx.principal),
      // EventsService (requireWebhookManager): a person by role, a viewer none; every key keeps its own
      manageWebhooks: keepsWebhooks(ctx.principal),
      // UsersService, AuditLogService, ZoneTransfersService.move, OperatorsService (requireAdmin): the operator
      administer: isOperator(ctx.principal),
    };
  }

  /**
   * The roles whose members the caller manages in the account it acts in (invites to, changes to and from,
   * removes; PeopleService.requireManages): an owner every one, an admin all but owners, anyone else none. The
   * admin key and an operator person count as an owner of every account.
   */
  async memberRoles(ctx: RequestContext): Promise<Role[]> {
    const role = await this.roleIn(ctx, scopeUserId(ctx.principal) ?? 0);
    return ROLES.filter((target) => managesRole(role, target));
  }

  async zone(ctx: RequestContext, zone: DomainRow): Promise<ZonePermissions> {
    const policy = ctx.principal.policy;
    const primary = zone.kind === 'primary';
    const writesApex = (type: string) => decide(policy, { zone: zone.name, owner: '@', type, access: 'write' }).allowed;
    // SecondaryZonesService.promote and ZoneSecondariesService.set: write access to the whole zone
    const writesAll = decide(policy, { zone: zone.name, access: 'write' }).allowed;
    return {
      // the write engine refuses every write of a secondary zone but its transfers (ZONE_IS_SECONDARY)
      editRecords: primary && writesSomewhere(policy, zone.name),
      editSoa: primary && writesApex('SOA'),
      deleteZone: this.viewer(ctx).deleteZones,
      // DnssecService: write access to the apex DNSKEY; a secondary zone is signed by its primary
      manageDnssec: primary && writesApex('DNSKEY'),
      promote: !primary && writesAll,
      manageExtraSecondaries: writesAll,
      // ZoneTransfersService.offer: the owner of the zone's account
      moveZone: (await this.roleIn(ctx, zone.userId)) === 'owner',
      undeletableTypes: [...UNDELETABLE_TYPES],
      // ChangeRequestsService.review: a person whose role writes the zone, or an operator
      reviewChanges: reviewRefusal(ctx.principal, zone) === undefined,
    };
  }

  record(ctx: RequestContext, zone: DomainRow, record: { owner: string; type: string }): RecordPermissions {
    const edit =
      zone.kind === 'primary' &&
      decide(ctx.principal.policy, { zone: zone.name, owner: record.owner, type: record.type, access: 'write' }).allowed;
    // one of three answers, shared: a zone page asks it of every record of the page (10,000 at most)
    return !edit ? READ_ONLY : UNDELETABLE_TYPES.includes(record.type) ? EDIT_ONLY : EDIT_AND_DELETE;
  }

  private roleIn(ctx: RequestContext, userId: number): Promise<Role | null> {
    let known = this.roles.get(ctx);
    if (!known) this.roles.set(ctx, (known = new Map<number, Promise<Role | null>>()));
    let role = known.get(userId);
    if (!role) {
      // a restricted key without mayManageKeys is refused there (FORBIDDEN_BY_POLICY): no role, so no move
      role = this.people.roleIn(ctx.db, ctx.principal, userId).catch((error: unknown) => {
        if (error instanceof DomainError) return null;
        throw error;
      });
      known.set(userId, role);
    }
    return role;
  }
}
