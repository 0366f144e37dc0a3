import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import { requireAdmin } from '../../auth/principal';
import { seesZone } from '../../auth/policy';
import { DomainError, ErrorCode } from '../../errors/catalogue';
import type { Sql } from '../../db/pool';
import {
  deleteZoneTransfer,
  deleteZoneTransfersOf,
  insertZoneTransfer,
  lockQuotasOf,
  lockZoneToMove,
  lockZoneTransfer,
  moveZoneToUser,
  pendingZoneTransfers,
  userIdByEmail,
  ZoneToMove,
  ZoneTransferRow,
} from '../../repositories/zone-transfers';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import { recordAuditEvent } from '../audit-log';
import { DomainsService } from '../zones/domains.service';
import { normaliseZoneName } from '../../dns/zone-name';
import { PeopleService } from './people.service';
import { quotaExceeded } from '../write-engine/quotas';

export type { ZoneTransferRow } from '../../repositories/zone-transfers';

/** how long an offer waits for the receiving owner: a week, as an invitation does by default */
export const ZONE_TRANSFER_OFFER_SECONDS = 7 * 86400;

function refused(code: ErrorCode, field: string, message: string): DomainError {
  return new DomainError(code, message, [{ field, code, message }]);
}
const transferNotFound = () => refused('ZONE_TRANSFER_NOT_FOUND', 'id', 'id: no pending zone transfer with that id');
const zoneNotFound = () => DomainError.notFound('ZONE_NOT_FOUND', 'zone');
const receiverNotFound = (field: string) => () => DomainError.notFound('USER_NOT_FOUND', field);

/**
 * A zone moves from one account to another (docs/people.md, «Moving a zone to another account»): the admin key
 * moves it at once; otherwise the owning account's owner offers it to another account and that account's owner
 * accepts (either side may cancel). The move keeps the zone as DNS serves it (same records, same serial); the
 * receiving account's quotas and the rule that users' zones do not nest (DomainsService) hold as for a new zone.
 * The old account's keys lose the zone with nothing rewritten: a key's rules reach only its own user's zones
 * (src/auth/policy.ts, a rule names a zone of `the key's user`; the services scope every lookup by user).
 */
export class ZoneTransfersService {
  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
    private readonly people: PeopleService,
  ) {}

  /** the pending offers from or to the account acted in (its owners), or every one (the admin key) */
  async list(ctx: RequestContext): Promise<ZoneTransferRow[]> {
    const { principal } = ctx;
    if (principal.kind === 'admin') return pendingZoneTransfers(ctx.db, undefined);
    await this.people.requireOwner(ctx.db, principal, principal.userId, receiverNotFound('userId'));
    return pendingZoneTransfers(ctx.db, principal.userId);
  }

  /** the owner of the zone's account offers it to another account (by id or by its e-mail address) */
  async offer(ctx: RequestContext, input: { zone: string; toUserId?: number; toEmail?: string }): Promise<ZoneTransferRow> {
    const name = normaliseZoneName(input.zone);
    if ((input.toUserId === undefined) === (input.toEmail === undefined))
      throw DomainError.invalid('toUserId', 'toUserId: name the receiving account by toUserId or by toEmail, one of them');
    const toField = input.toUserId !== undefined ? 'toUserId' : 'toEmail';
    return inTransaction(ctx.db, async (sql) => {
      const zone = await this.ownedZone(sql, ctx.principal, { name });
      const toUserId = input.toUserId ?? (await userIdByEmail(sql, input.toEmail!));
      if (toUserId === undefined || !(await lockQuotasOf(sql, toUserId, this.settings.quotas))) throw receiverNotFound(toField)();
      if (toUserId === zone.userId)
        throw refused('ZONE_TRANSFER_TO_SAME_ACCOUNT', toField, `${toField}: ${name} is in that account already`);
      const offer = await insertZoneTransfer(sql, {
        zoneId: zone.id,
        fromUserId: zone.userId,
        toUserId,
        offeredBy: actorName(ctx.principal),
        expiresAt: new Date(Date.now() + ZONE_TRANSFER_OFFER_SECONDS * 1000),
      });
      if (!offer)
        throw refused('ZONE_TRANSFER_PENDING', 'zone', `zone: ${name} is offered to an account already (cancel that offer first)`);
      await recordAuditEvent(sql, {
        kind: 'zone-transfer-offered',
        actor: ctx.principal,
        subject: `zone:${name}`,
        detail: { transfer: offer.id, fromUserId: zone.userId, toUserId },
      });
      return offer;
    });
  }

  /** the receiving account's owner takes the zone, before the offer expires */
  async accept(ctx: RequestContext, id: number): Promise<ZoneTransferRow> {
    return inTransaction(ctx.db, async (sql) => {
      const offer = await lockZoneTransfer(sql, id);
      // an outsider learns nothing of the offer
      if (!offer) throw transferNotFound();
      await this.people.requireOwner(sql, ctx.principal, offer.toUserId, transferNotFound);
      if (offer.expiresAt.getTime() <= Date.now())
        throw refused('ZONE_TRANSFER_EXPIRED', 'id', `id: the offer expired at ${offer.expiresAt.toISOString()}`);
      const zone = await lockZoneToMove(sql, { id: offer.zoneId });
      if (!zone || zone.userId !== offer.fromUserId) throw transferNotFound();
      await this.move(sql, ctx.principal, zone, offer.toUserId, { quotas: true });
      await deleteZoneTransfer(sql, offer.id);
      await recordAuditEvent(sql, {
        kind: 'zone-transfer-accepted',
        actor: ctx.principal,
        subject: `zone:${zone.name}`,
        detail: { transfer: offer.id, fromUserId: offer.fromUserId, toUserId: offer.toUserId },
      });
      return offer;
    });
  }

  /** either side's owner withdraws the offer (an expired one too) */
  async cancel(ctx: RequestContext, id: number): Promise<ZoneTransferRow> {
    return inTransaction(ctx.db, async (sql) => {
      const offer = await lockZoneTransfer(sql, id);
      if (!offer) throw transferNotFound();
      const side = (await this.people.roleIn(sql, ctx.principal, offer.fromUserId)) !== null ? offer.fromUserId : offer.toUserId;
      await this.people.requireOwner(sql, ctx.principal, side, transferNotFound);
      await deleteZoneTransfer(sql, offer.id);
      await recordAuditEvent(sql, {
        kind: 'zone-transfer-cancelled',
        actor: ctx.principal,
        subject: `zone:${offer.zone}`,
        detail: { transfer: offer.id, fromUserId: offer.fromUserId, toUserId: offer.toUserId },
      });
      return offer;
    });
  }

  /** the admin key moves a zone at once (as the admin creates zones for anyone, the quotas do not bind it) */
  async moveByAdmin(ctx: RequestContext, input: { zone: string; toUserId: number }): Promise<{ id: number; name: string }> {
    requireAdmin(ctx.principal);
    const name = normaliseZoneName(input.zone);
    return inTransaction(ctx.db, async (sql) => {
      const zone = await lockZoneToMove(sql, { name });
      if (!zone) throw zoneNotFound();
      if (!(await lockQuotasOf(sql, input.toUserId, this.settings.quotas))) throw receiverNotFound('toUserId')();
      if (zone.userId === input.toUserId)
        throw refused('ZONE_TRANSFER_TO_SAME_ACCOUNT', 'toUserId', `toUserId: ${name} is in that account already`);
      await this.move(sql, ctx.principal, zone, input.toUserId, { quotas: false });
      // an offer of the zone is moot now
      await deleteZoneTransfersOf(sql, zone.id);
      await recordAuditEvent(sql, {
        kind: 'zone-moved-by-admin',
        actor: ctx.principal,
        subject: `zone:${name}`,
        detail: { zoneId: zone.id, fromUserId: zone.userId, toUserId: input.toUserId },
      });
      return { id: zone.id, name: zone.name };
    });
  }

  /** the zone of the name, locked, if the principal is an owner of its account (else not there, or refused) */
  private async ownedZone(sql: Sql, principal: Principal, by: { name: string }): Promise<ZoneToMove> {
    const zone = await lockZoneToMove(sql, by);
    if (!zone) throw zoneNotFound();
    // a key (or a session) of the zone's account that does not see the zone does not learn of it
    if (principal.kind === 'user' && principal.userId === zone.userId && !seesZone(principal.policy, zone.name)) throw zoneNotFound();
    await this.people.requireOwner(sql, principal, zone.userId, zoneNotFound);
    return zone;
  }

  /** the move itself, in the caller's transaction: nesting, quotas (unless the admin's), the owner, the journal */
  private async move(sql: Sql, principal: Principal, zone: ZoneToMove, toUserId: number, options: { quotas: boolean }): Promise<void> {
    await this.domains.refuseNestingWithOthers(sql, zone.name, toUserId);
    const quotas = (await lockQuotasOf(sql, toUserId, this.settings.quotas))!;
    if (options.quotas) {
      // 0: no quota (README "Rate limits and quotas")
      if (quotas.maxZones !== 0 && quotas.zoneCount + 1 > quotas.maxZones)
        throw quotaExceeded('maxZones', { limit: quotas.maxZones, current: quotas.zoneCount }, 'zones');
      if (quotas.maxRecordsPerZone !== 0 && zone.recordCount > quotas.maxRecordsPerZone)
        throw quotaExceeded(
          'maxRecordsPerZone',
          { limit: quotas.maxRecordsPerZone, current: zone.recordCount },
          `records in zone ${zone.name}`,
        );
    }
    await moveZoneToUser(sql, zone, toUserId, authorOf(principal));
  }
}

/** who the journal names (as the write engine does: a person by e-mail, a key by id and name) */
function authorOf(principal: Principal): { keyId?: number; keyName?: string; userId?: number; email?: string } {
  return {
    ...(principal.via === 'session' || principal.via === 'tsig' ? {} : { keyId: principal.keyId }),
    keyName: principal.keyName,
    userId: principal.kind === 'user' ? principal.userId : undefined,
    email: principal.via === 'session' ? principal.person?.email : undefined,
  };
}

/** the offer's author as the list shows it: a person's e-mail, else the key's name */
function actorName(principal: Principal): string | null {
  if (principal.via === 'session' && principal.person) return principal.person.email;
  return principal.keyName ?? (principal.kind === 'admin' ? 'admin' : `key ${principal.keyId}`);
}
