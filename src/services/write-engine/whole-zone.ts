import type { EntityManager } from '@mikro-orm/postgresql';
import { Change, Domain } from '../../entities';
import type { ChangeKind, JournalRecord } from '../../entities/change.entity';

/** Writes the journal row of a whole zone appearing or disappearing, in the caller's transaction. */
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
