import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Settings } from '../config/settings';
import { catalogApexRecords, catalogMemberRecord } from '../dns/catalog-zone';
import { nextSerial } from '../dns/serial';
import { soaSerial, withSerial } from '../dns/zone-rules';
import { CatalogState, Change, Domain, Record } from '../entities';
import type { ChangeKind, JournalRecord } from '../entities/change.entity';
import { DomainError } from '../errors/catalogue';
import type { Principal } from '../auth/principal';

export const journalRecord = (record: Pick<Record, 'owner' | 'type' | 'ttl' | 'rdata'>): JournalRecord => ({
  owner: record.owner,
  type: record.type,
  ttl: record.ttl,
  rdata: record.rdata,
});

/**
 * One change of one zone, inside the caller's transaction. It locks the zone row first, so that the changes
 * of a zone are serialised (the zone rules are checked against a stable zone) and the serial rises exactly
 * once per committed change (contract-decisions §3). `finish()` raises the serial, rewrites the SOA and writes
 * the journal/outbox row that the propagation worker and IXFR read.
 */
export class ZoneChange {
  readonly removed: JournalRecord[] = [];
  readonly added: JournalRecord[] = [];

  private constructor(
    readonly em: EntityManager,
    readonly domain: Domain,
    private readonly settings: Settings,
  ) {}

  static async lock(em: EntityManager, settings: Settings, principal: Principal, where: { id?: number; name?: string }): Promise<ZoneChange> {
    const filter: { id?: number; name?: string; user?: number } = { ...where };
    if (principal.kind === 'user') filter.user = principal.userId;
    const domain = await em.findOne(Domain, filter, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!domain) throw DomainError.notFound('ZONE_NOT_FOUND', where.id !== undefined ? 'id' : 'zone');
    return new ZoneChange(em, domain, settings);
  }

  /** All records of the zone at one owner (the zone rules look at no more than that). */
  recordsAt(owner: string): Promise<Record[]> {
    return this.em.find(Record, { domain: this.domain.id, owner }, { orderBy: { id: 'asc' } });
  }

  soaRecord(): Promise<Record | null> {
    return this.em.findOne(Record, { domain: this.domain.id, owner: '@', type: 'SOA' });
  }

  /**
   * Raises the serial (unless the caller set a higher one through an SOA edit), updates the SOA record and
   * writes the journal row.
   */
  async finish(soa?: Record, serialSetByCaller?: number): Promise<void> {
    const record = soa ?? (await this.soaRecord());
    if (!record) throw new Error(`zone ${this.domain.name} has no SOA record`);
    const before = this.domain.serial;
    const after = serialSetByCaller ?? nextSerial(before, this.settings.serialPolicy, new Date());
    if (serialSetByCaller === undefined) {
      this.removed.push(journalRecord(record));
      record.rdata = withSerial(record.rdata, after);
      this.added.push(journalRecord(record));
    }
    this.domain.serial = after;
    this.em.persist(
      this.em.create(Change, {
        domainId: this.domain.id,
        zone: this.domain.name,
        kind: 'zone-changed',
        serialBefore: before,
        serialAfter: after,
        removed: this.removed,
        added: this.added,
      }),
    );
    await this.em.flush();
  }
}

/** Writes the journal row of a whole zone appearing or disappearing. */
export function journalWholeZone(em: EntityManager, kind: Extract<ChangeKind, 'zone-created' | 'zone-deleted'>, domain: Domain, records: JournalRecord[]): void {
  em.persist(
    em.create(Change, {
      domainId: domain.id,
      zone: domain.name,
      kind,
      serialBefore: kind === 'zone-deleted' ? domain.serial : null,
      serialAfter: domain.serial,
      removed: kind === 'zone-deleted' ? records : [],
      added: kind === 'zone-created' ? records : [],
    }),
  );
}

/**
 * Adds or removes members of the catalog zone (RFC 9432) in the caller's transaction: the catalog's serial
 * rises once, and its journal row lets secondaries follow by IXFR.
 */
export async function changeCatalog(
  em: EntityManager,
  settings: Settings,
  change: { added?: { id: number; name: string }[]; removed?: { id: number; name: string }[] },
): Promise<void> {
  const name = settings.catalogZone;
  // create the row once, then lock it: concurrent zone creates queue here for the catalog serial only
  await em.getConnection().execute(
    `insert into catalog_state (name, serial) values (?, ?) on conflict (name) do nothing`,
    [name, 0],
  );
  const state = await em.findOneOrFail(CatalogState, { name }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  const before = state.serial;
  const after = nextSerial(before, settings.serialPolicy, new Date());
  state.serial = after;
  const [oldSoa] = catalogApexRecords(before);
  const [newSoa] = catalogApexRecords(after);
  em.persist(
    em.create(Change, {
      domainId: 0,
      zone: name,
      kind: 'zone-changed',
      serialBefore: before,
      serialAfter: after,
      removed: [oldSoa, ...(change.removed ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
      added: [newSoa, ...(change.added ?? []).map((d) => catalogMemberRecord(d.id, d.name))],
    }),
  );
}

export { soaSerial };
