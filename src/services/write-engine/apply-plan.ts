import type { Settings } from '../../config/settings';
import type { Principal } from '../../auth/principal';
import { nextSerial, serialAdd } from '../../dns/serial';
import { countDisabled, writeDisabledRecords } from '../../repositories/disabled-records';
import { quotaExceeded } from './quotas';
import type { ChangePlan } from './plan';
import type { ZoneChange } from './staging';
import type { ErrorDetail } from '../../errors/catalogue';
import type { JournalCommentChange, JournalFinding } from '../../entities/change.entity';

/**
 * A change set's plan (change-plan.ts) applied to the zone it was planned on: its removals and insertions
 * staged, what is kept disabled written beside them in the transaction holding the zone row's lock (and held
 * to the record quota), then one serial step, or none for a plan that changes nothing served (the engine's one
 * rule: ZoneChange.changesNothing). The side effects of a change set happen here, not while planning it: a
 * zone that moved meanwhile is planned again, and its plan applied then.
 */
export async function applyChangePlan(
  change: ZoneChange,
  plan: ChangePlan,
  by: { settings: Settings; principal: Principal; comments?: readonly JournalCommentChange[] },
): Promise<{ changed: boolean; insertedIds: number[] }> {
  stage(change, plan);
  const { disabled } = plan;
  if (disabled.removed.length || disabled.added.length) {
    change.requireLock();
    await writeDisabledRecords(change.connection, change.zone.id, disabled);
    // a user's disabled records are held to MAX_RECORDS_PER_ZONE apart from the served ones (0: no limit), so
    // that what is kept and not served cannot grow without bound either; the transaction undoes the write
    const limit = by.settings.quotas.maxRecordsPerZone;
    if (by.principal.kind === 'user' && limit > 0 && disabled.added.length) {
      const held = await countDisabled(change.connection, change.zone.id);
      if (held > limit) throw quotaExceeded('maxRecordsPerZone', { limit, current: held }, `disabled records in zone ${change.zone.name}`);
    }
  }
  // a plan that changes nothing served writes nothing (no serial step, journal row, event or NOTIFY), whichever
  // edge sent it; one that changes only what is kept disabled serves nothing new either, and says it changed something
  if (change.changesNothing(plan.soa)) return { changed: disabled.removed.length + disabled.added.length > 0, insertedIds: [] };
  // the warnings the plan answered go into the change's journal row: the history says what it was warned of
  // and so do the RRsets' comments the set changes beside its records (docs/changes.md, «Comments»)
  // the ids of the rows inserted, in the order staged (a record's create answers its id)
  const insertedIds = await change.commit({ ...plan.soa, findings: journalFindings(plan.warnings), comments: by.comments });
  return { changed: true, insertedIds };
}

/** a plan's warnings as its journal row keeps them: the zone checks' findings (those with a severity and an RRset) */
export function journalFindings(warnings: readonly ErrorDetail[]): JournalFinding[] {
  const kept: JournalFinding[] = [];
  for (const w of warnings)
    if (w.severity && w.owner !== undefined && w.type !== undefined)
      kept.push({ code: w.code, severity: w.severity, owner: w.owner, type: w.type, ...(w.rfc ? { rfc: w.rfc } : {}), message: w.message });
  return kept;
}

/**
 * A plan as it would be applied, without writing: staged, and refused where its commit would refuse it (the
 * policy's last word, an ALIAS nothing could flatten, the record quota, the signer: ZoneChange.check), answering
 * the serial it would make (the zone's own where it changes nothing).
 */
export async function dryRunChangePlan(
  change: ZoneChange,
  plan: ChangePlan,
  settings: Settings,
): Promise<{ serial: number; changesNothing: boolean }> {
  stage(change, plan);
  const before = change.zone.serial;
  if (change.changesNothing(plan.soa)) return { serial: before, changesNothing: true };
  await change.check(plan.soa);
  // the step `commit` would take (staging.ts): the caller's serial, else the zone's policy
  const serial =
    plan.soa.serialSetByCaller ??
    (change.zone.kind === 'secondary' ? serialAdd(before, 1) : nextSerial(before, settings.serialPolicy, new Date()));
  return { serial, changesNothing: false };
}

function stage(change: ZoneChange, plan: ChangePlan): void {
  const inPlace = plan.inPlace;
  for (const { row, toggled } of plan.removals) if (row !== inPlace?.row) change.remove(row, toggled);
  for (const { record, toggled } of plan.insertions) if (record !== inPlace?.record) change.insert(record, toggled ? TOGGLED : undefined);
  if (inPlace) change.replace(inPlace.row, inPlace.record);
}

/** an insert that serves again a record kept disabled, which the journal says (one object for every such insert) */
const TOGGLED = { toggled: true } as const;
