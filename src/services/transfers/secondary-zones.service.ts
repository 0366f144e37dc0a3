import type { Settings } from '../../config/settings';
import type { Database } from '../../db/pool';
import { servicePrincipal, type Principal } from '../../auth/principal';
import { requireAllowed } from '../../auth/policy';
import { recordIdentity } from '../../dns/record';
import { serialAdd, serialGreaterThan } from '../../dns/serial';
import { DomainError } from '../../errors/catalogue';
import type { DomainRow } from '../../repositories/read-model';
import {
  notedPrimarySerial,
  notePrimarySerial,
  primaryAddressesOf,
  PrimaryAddress,
  secondaryStatus,
  SecondaryStatusRow,
  transferKey,
  zonePrimaries,
  ZonePrimaryRow,
} from '../../repositories/secondary-zones';
import type { StoredRow } from '../../repositories/zone-writes';
import { axfr, inTransferTurn, IxfrStep, TransferError, TransferredRecord, TransferSource } from '../../dns-client/zone-transfer-in';
import type { RequestContext } from '../context';
import { inTransaction } from '../db-errors';
import type { DomainsService } from '../zones/domains.service';
import type { WriteEngine, ZoneChange } from '../write-engine';
import { serverEntries } from '../zones/server-entries';
import { aliasStatusOfZone } from '../../repositories/alias-refresh';
import { aliasResolversUnsetReason } from '../write-engine/alias-resolvers-unset';
import { ownerName } from '../../auth/policy';

/** `warnings`: what the zone holds that the service does not serve as its primary does (an ALIAS it cannot flatten) */
export type SecondaryStatus = SecondaryStatusRow & { primaries: ZonePrimaryRow[]; warnings: string[] };

/** a promotion the zone's state does not allow, naming the zone */
function zoneStateError(code: 'ZONE_NOT_SECONDARY' | 'ZONE_NOT_TRANSFERRED', zone: string): DomainError {
  const message = `zone ${zone}: ${new DomainError(code).message}`;
  return new DomainError(code, message, [{ field: 'zone', code, message }]);
}

/** a transfer's author in the zone's history: the service itself, naming where the zone came from */
const transferPrincipal = (from: string): Principal => servicePrincipal(`transfer from ${from}`);

export const serverName = (server: { host: string; port: number }) =>
  server.host.includes(':') ? `[${server.host}]#${server.port}` : `${server.host}#${server.port}`;

/**
 * Stages the zone's records (the SOA aside) to become `records`: what is gone removed, what is new inserted, a
 * record whose TTL changed replaced. One serial step, one journal row: the history shows the transfer or import
 * as one change, IXFR serves it as one step.
 */
function stageReplacement(change: ZoneChange, records: TransferredRecord[]): number {
  const current = new Map<string, StoredRow>();
  // the addresses flattened from an ALIAS are the service's, not the primary's data: a transfer leaves them alone
  // (the ALIAS's schedule brings them along: a removed ALIAS takes them, a changed one is refreshed)
  for (const row of change.zone.sameOwner)
    if (!(row.type === 'SOA' && row.owner === '@') && !row.derived) current.set(recordIdentity(row), row);
  let staged = 0;
  for (const record of records) {
    if (record.type === 'SOA') continue;
    const identity = recordIdentity(record);
    const existing = current.get(identity);
    current.delete(identity);
    if (!existing) {
      change.insert(record);
      staged++;
    } else if (existing.ttl !== record.ttl) {
      change.replace(existing, record);
      staged++;
    }
  }
  for (const gone of current.values()) {
    change.remove(gone);
    staged++;
  }
  return staged;
}

/**
 * A secondary zone's transfer written through the write engine (the one change a secondary zone takes): its
 * records become the primary's, its SOA the primary's (serial included: the fleet serves what the primary
 * serves). A zone promoted meanwhile is left alone.
 */
export async function applyTransfer(
  engine: WriteEngine,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
  from: string,
  transferred: { soa: TransferredRecord & { value: { serial: number } }; records: TransferredRecord[] },
): Promise<void> {
  await engine.changeZone(
    db,
    settings,
    transferPrincipal(from),
    { zone: { id: zone.id }, allRecords: true, writer: { kind: 'transfer' } },
    async (change) => {
      if (change.zone.kind !== 'secondary') throw new TransferError(`zone ${zone.name} is no longer a secondary zone`);
      // two statements (the change, then the primary's serial): a transaction holding the zone row's lock
      change.requireLock();
      stageReplacement(change, transferred.records);
      await commitTransfer(change, zone.id, transferred.soa);
    },
  );
}

/**
 * Commits a transfer at the primary's serial, noted as the serial of the primary's copy held. The zone's serial is
 * the primary's (its first transfer takes it whatever it is: nothing was served before), unless the service's
 * flattening of an ALIAS stepped ours past it (the derived addresses are a change of ours, which the fleet takes by
 * IXFR): then it steps by one from ours, and runs ahead of the primary's.
 */
async function commitTransfer(change: ZoneChange, domainId: number, soa: TransferredRecord & { value: { serial: number } }): Promise<void> {
  const serial = soa.value.serial;
  const ours = change.zone.serial;
  const first = (await notedPrimarySerial(change.connection, domainId)) === null;
  await change.commit({
    serialSetByCaller: first || serialGreaterThan(serial, ours) ? serial : serialAdd(ours, 1),
    soaRdata: soa.rdata,
    soaTtl: soa.ttl,
  });
  await notePrimarySerial(change.connection, domainId, serial);
}

/**
 * A secondary zone's incremental transfer (RFC 1995) written through the write engine: only the owners the
 * differences name are read; the differences are applied in order to our copy of them, and must fit it (a
 * deletion of a record we do not hold, or a first serial not ours, means our copy is not the primary's: a
 * TransferError, and the worker takes the zone whole instead). One serial step to the primary's serial.
 */
export async function applyIncremental(
  engine: WriteEngine,
  db: Database,
  settings: Settings,
  zone: { id: number; name: string },
  from: string,
  transfer: { soa: TransferredRecord & { value: { serial: number } }; steps: IxfrStep[] },
): Promise<void> {
  const owners = [...new Set(transfer.steps.flatMap((step) => [...step.removed, ...step.added].map((r) => r.owner)))];
  const request = { zone: { id: zone.id }, touching: { owners, recordIds: [] }, writer: { kind: 'transfer' as const } };
  await engine.changeZone(db, settings, transferPrincipal(from), request, async (change) => {
    if (change.zone.kind !== 'secondary') throw new TransferError(`zone ${zone.name} is no longer a secondary zone`);
    change.requireLock();
    // our copy of the primary's data is at the primary's serial (the zone's own may be ahead: an ALIAS flattened)
    const held = (await notedPrimarySerial(change.connection, zone.id)) ?? change.zone.serial;
    if (transfer.steps[0]?.serialBefore !== held)
      throw new TransferError(`the IXFR starts at serial ${transfer.steps[0]?.serialBefore}, our copy is at ${held}`);
    const working = new Map<string, TransferredRecord>();
    for (const row of change.zone.sameOwner)
      if (!(row.type === 'SOA' && row.owner === '@') && !row.derived)
        working.set(recordIdentity(row), { owner: row.owner, type: row.type, ttl: row.ttl, rdata: row.rdata });
    for (const step of transfer.steps) {
      for (const gone of step.removed)
        if (!working.delete(recordIdentity(gone)))
          throw new TransferError(`the IXFR deletes ${gone.owner} ${gone.type} ${gone.rdata}, which our copy does not hold`);
      for (const added of step.added) working.set(recordIdentity(added), added);
    }
    stageReplacement(change, [...working.values()]);
    await commitTransfer(change, zone.id, transfer.soa);
  });
}

/**
 * Secondary zones seen from the API (docs/transfers.md): their status, their promotion to a primary zone of
 * ours, and the one-shot import of a zone by AXFR from any server that allows it. The transfers themselves are
 * the worker's (worker/secondary-zones.ts).
 */
export class SecondaryZonesService {
  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
    /** the write engine every change of a zone goes through (services/index.ts) */
    private readonly engine: WriteEngine,
  ) {}

  /** the primaries (address, port, key name, in order) of the secondary zones among `zones`, one statement for them all */
  primariesOf(ctx: RequestContext, zones: readonly Pick<DomainRow, 'id' | 'kind'>[]): Promise<Map<number, PrimaryAddress[]>> {
    return primaryAddressesOf(
      ctx.db,
      zones.filter((zone) => zone.kind === 'secondary').map((zone) => zone.id),
    );
  }

  /** the state of a secondary zone and its primaries; null for a primary zone */
  async status(ctx: RequestContext, zone: DomainRow): Promise<SecondaryStatus | null> {
    if (zone.kind !== 'secondary') return null;
    const state = await secondaryStatus(ctx.db, zone.id);
    if (!state) return null;
    // an ALIAS taken from the primary while ALIAS_RESOLVERS is empty: the zone is served, its owner empty; said here
    const warnings = this.settings.aliasResolvers.length
      ? []
      : (await aliasStatusOfZone(ctx.db, zone.id)).map(
          (alias) => `${alias.type} at ${ownerName(zone.name, alias.owner)} → ${alias.target}: ${aliasResolversUnsetReason(alias.type)}`,
        );
    return { ...state, primaries: await zonePrimaries(ctx.db, zone.id), warnings };
  }

  /**
   * Turns a secondary zone into a primary zone of ours (the way off another provider): its records stay, its
   * primaries and timers go, and from now on it is written through the API like any zone.
   */
  async promote(ctx: RequestContext, zoneName: string): Promise<DomainRow> {
    const zone = await this.domains.get(ctx, { name: zoneName });
    requireAllowed(ctx.principal.policy, { zone: zone.name, access: 'write' }, 'zone');
    if (zone.kind !== 'secondary') throw zoneStateError('ZONE_NOT_SECONDARY', zone.name);
    const state = await secondaryStatus(ctx.db, zone.id);
    if (!state?.lastSuccessAt) throw zoneStateError('ZONE_NOT_TRANSFERRED', zone.name);
    // the update waits for the zone row's lock: a transfer under way commits first, one after sees a primary zone;
    // an expired zone is served again and rejoins its catalog in the same transaction (its lock taken first)
    await inTransaction(ctx.db, (sql) => this.engine.promoteToPrimary(sql, this.settings, zone));
    return this.domains.get(ctx, { id: zone.id });
  }

  /**
   * One AXFR (RFC 5936) from any server that allows it into a primary zone of ours: its records (the SOA aside:
   * the serial steps by our policy) replace the zone's, as one change of the caller's. The server is checked as
   * a primary is (`from.address`, `from.port`, `from.tsigKeyName` of the zone's user, optional); a failed transfer
   * writes nothing and says why (TRANSFER_FAILED naming `from`), as does one that changes nothing.
   */
  async importByTransfer(
    ctx: RequestContext,
    zoneName: string,
    from: { address: string; port?: number | null; tsigKeyName?: string | null },
  ): Promise<{ zone: DomainRow; records: number }> {
    const zone = await this.domains.get(ctx, { name: zoneName });
    requireAllowed(ctx.principal.policy, { zone: zone.name, access: 'write' }, 'zone');
    const [server] = await serverEntries(ctx.db, zone.userId, [from], 'from', {
      keyRequired: false,
      namedBy: ctx.principal,
      allow: this.settings.transferServersAllow,
      single: true,
    });
    const key = server.tsigKeyId === null ? undefined : await transferKey(ctx.db, server.tsigKeyId);
    const source: TransferSource = { host: server.address, port: server.port, key };
    // the transfer and its write in one of the process's turns, as the worker's (zone-transfer-in.ts)
    const records = await inTransferTurn(async () => {
      let transferred;
      try {
        transferred = await axfr(source, zone.name);
      } catch (error) {
        if (!(error instanceof TransferError)) throw error;
        const message = `from: ${error.message}`;
        throw new DomainError('INVALID_INPUT', message, [{ field: 'from', code: 'TRANSFER_FAILED', message }]);
      }
      const taken = transferred.records;
      await this.engine.changeZone(ctx.db, this.settings, ctx.principal, { zone: { id: zone.id }, allRecords: true }, async (change) => {
        stageReplacement(change, taken);
        // the same records again (an import run twice) write nothing, as a zone file's do
        if (!change.changesNothing()) await change.commit();
      });
      return taken.length;
    });
    return { zone: await this.domains.get(ctx, { id: zone.id }), records };
  }
}
