/**
 * Steering's answers served as data (docs/steering.md), the way ALIAS flattening publishes its addresses
 * (alias-flattening.ts): a steered RRset's served records are ordinary records at its owner and type, written
 * through the write engine as a change of the service's own, so a health transition is a change like any other:
 * a serial step with its journal row (the history's author `steering`), a `zone.changed` and a `steering.changed`
 * event, the changed RRset re-signed in a signed zone, NOTIFY and IXFR through the journal's outbox. The set is
 * written only when it differs from what is served. Every steered RRset of the zone is decided in the one change,
 * so the transitions of a zone that the prober gathered go out as one serial.
 */
import { servicePrincipal } from '../../auth/principal';
import type { Settings } from '../../config/settings';
import type { Database, Sql } from '../../db/pool';
import type { JournalRecord } from '../../entities/change.entity';
import { appendEvents } from '../../repositories/events';
import { CheckStatus, RrsetRow, rowsAt, rrsetsOfZone, setServed, statusesOfZone } from '../../repositories/steering';
import { steeringChanges } from '../../metrics';
import type { WriteEngine, ZoneChange } from '../write-engine';
import { servedValues } from './decision';
import { writeRuleOverlays } from './rules';

/** the author the history names for steering's changes */
export const STEERING_AUTHOR = 'steering';
const SERVICE = servicePrincipal(STEERING_AUTHOR);

/** one steered RRset whose served records a change moved */
export interface ServedChange {
  rrsetId: number;
  owner: string;
  type: string;
  before: string[];
  after: string[];
  source: number | 'backup' | 'empty';
}

/**
 * Decides every steered RRset of the zone again and writes those whose served records differ, in one change;
 * answers whether it wrote one. Run by the prober after a zone's checks changed status, and at its start.
 */
export async function publishSteeredZone(engine: WriteEngine, db: Database, settings: Settings, domainId: number): Promise<boolean> {
  const published = await engine.changeZone(
    db,
    settings,
    SERVICE,
    { zone: { id: domainId }, owner: '@', writer: { kind: 'service', note: STEERING_AUTHOR } },
    async (change) => {
      // several statements (the rows, what is served, the events): a transaction holding the zone row's lock
      change.requireLock();
      return commitSteered(change);
    },
  );
  if (published) steeringChanges.inc();
  return published;
}

/**
 * Decides the zone's steered RRsets (those of `only`, or all) again, in `change`: the served records that differ
 * are written as one change of the zone (with their `steering.changed` events), then the views' answers of their
 * rules by network and country (rules.ts), each overlay that moved stepping its view's serial. Answers whether
 * anything served moved.
 */
export async function commitSteered(change: ZoneChange, options: { only?: number[]; removed?: RrsetRow[] } = {}): Promise<boolean> {
  const moved = await stageSteered(change, options);
  if (moved.length) {
    await change.commit();
    await noteServed(change.connection, change.zone.id, moved);
  }
  return (await writeRuleOverlays(change)) > 0 || moved.length > 0;
}

/**
 * Stages, in `change`, the served records of the zone's steered RRsets (those of `only`, or all) where they differ
 * from what the zone holds at their owner and type; answers what moved. `removed`: RRsets whose records go
 * (a steered RRset deleted).
 */
export async function stageSteered(change: ZoneChange, options: { only?: number[]; removed?: RrsetRow[] } = {}): Promise<ServedChange[]> {
  const sql = change.connection;
  const statuses = await statusesOfZone(sql, change.zone.id);
  const statusOf = (checkId: number): CheckStatus | undefined => statuses.get(checkId);
  const moved: ServedChange[] = [];
  const rrsets = (await rrsetsOfZone(sql, change.zone.id)).filter((r) => !options.only || options.only.includes(r.id));
  for (const rrset of rrsets) {
    const answer = servedValues(rrset, rrset.type, statusOf);
    const wanted: JournalRecord[] = answer.values.map((rdata) => ({ owner: rrset.owner, type: rrset.type, rdata, ttl: rrset.ttl }));
    const { before, staged } = await stageRrset(change, rrset, wanted);
    if (staged)
      moved.push({ rrsetId: rrset.id, owner: rrset.owner, type: rrset.type, before, after: answer.values, source: answer.source });
  }
  for (const rrset of options.removed ?? []) {
    const { before, staged } = await stageRrset(change, rrset, []);
    if (staged) moved.push({ rrsetId: rrset.id, owner: rrset.owner, type: rrset.type, before, after: [], source: 'empty' });
  }
  return moved;
}

/** stages the RRset's records to be `wanted` (the TTL counts); answers what was there and whether anything moved */
async function stageRrset(change: ZoneChange, rrset: RrsetRow, wanted: JournalRecord[]): Promise<{ before: string[]; staged: boolean }> {
  const current = await rowsAt(change.connection, change.zone.id, rrset.owner, rrset.type);
  const key = (r: JournalRecord) => `${r.rdata} ${r.ttl}`;
  const want = new Set(wanted.map(key));
  const have = new Set(current.map(key));
  const stale = current.filter((r) => !want.has(key(r)));
  const fresh = wanted.filter((r) => !have.has(key(r)));
  for (const row of stale) change.remove(row);
  for (const record of fresh) change.insert(record);
  return { before: current.map((r) => r.rdata), staged: stale.length > 0 || fresh.length > 0 };
}

/**
 * After the change's commit statement, in its transaction: what each RRset now serves, and one `steering.changed`
 * event per RRset naming what it served before and now, and why (the pool, the backup, or nothing).
 */
export async function noteServed(sql: Sql, domainId: number, changes: ServedChange[]): Promise<void> {
  for (const moved of changes) await setServed(sql, moved.rrsetId, moved.after);
  await appendEvents(
    sql,
    changes.map((moved) => ({
      type: 'steering.changed' as const,
      domainId,
      data: {
        steeredRrsetId: moved.rrsetId,
        owner: moved.owner,
        type: moved.type,
        served: moved.after,
        previous: moved.before,
        source: typeof moved.source === 'number' ? `pool ${moved.source + 1}` : moved.source,
      },
    })),
  );
}
