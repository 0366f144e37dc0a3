import type { Sql } from '../../db/pool';
import type { ChangeKind, JournalRecord } from '../../entities/change.entity';
import { writeJournalRow } from '../../repositories/zone-writes';

/** Writes the journal row of a whole zone appearing or disappearing, in the caller's transaction. */
export async function journalWholeZone(
  sql: Sql,
  kind: Extract<ChangeKind, 'zone-created' | 'zone-deleted'>,
  domain: { id: number; name: string; serial: number },
  records: JournalRecord[],
): Promise<void> {
  await writeJournalRow(sql, {
    domainId: domain.id,
    zone: domain.name,
    kind,
    serialBefore: kind === 'zone-deleted' ? domain.serial : null,
    serialAfter: domain.serial,
    removed: kind === 'zone-deleted' ? records : [],
    added: kind === 'zone-created' ? records : [],
  });
}
