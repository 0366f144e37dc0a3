/**
 * Zone health (docs/health.md): what the health checker found of each zone, read by every edge (REST, GraphQL,
 * the CLI through them, the metrics), and the check itself, which the worker runs on its schedule
 * (worker/health.ts) and a caller asks for at once (`checkNow`). The findings are rows; a key sees the health of
 * the zones it may read, and nothing else.
 */
import type { Settings } from '../../config/settings';
import type { Database, Sql } from '../../db/pool';
import { logger } from '../../logger';
import { IterativeResolver } from '../../dns-client/iterative-resolver';
import {
  healthCounts,
  healthOfZones,
  noteRootReach,
  postponeChecks,
  recordChecks,
  rootReach,
  type DueZone,
  type HealthState,
  type NewFinding,
  type StoredFinding,
} from '../../repositories/health';
import { appendEvents } from '../../repositories/events';
import { healthChanged, type HealthEvent } from '../write-engine/health-changes';
import { checkZone, mayAskAddress, stateOf } from './health-checks';
import type { RequestContext } from '../context';
import type { DomainsService } from '../zones/domains.service';

export type { HealthState, Severity } from '../../repositories/health';
export { FINDING_CODES, type FindingCode } from './health-checks';

/** a zone's health as the API shows it */
export interface ZoneHealth {
  zone: string;
  /** when the last check ended; null: never checked (state unknown) */
  checkedAt: Date | null;
  state: HealthState;
  /** the last check's findings, the most severe first */
  findings: StoredFinding[];
}

/** a resolver for one check round, with the operator's root hints and rule for addresses (HEALTH_*) */
export function healthResolver(health: Settings['health']): IterativeResolver {
  return new IterativeResolver({
    rootHints: health.rootHints,
    timeoutMs: health.queryTimeoutMs,
    mayAsk: mayAskAddress(health),
    ipv6: health.ipv6,
  });
}

/**
 * Checks one zone with the round's resolver and stores what it found, in one transaction; answers the state.
 * The next check comes HEALTH_CHECK_INTERVAL after this one (an hour when the duty is off: only asked checks run).
 */
export async function checkAndRecord(
  rootNotes: RootReachNotes,
  db: Database,
  health: Settings['health'],
  resolver: IterativeResolver,
  zone: DueZone,
): Promise<HealthState | undefined> {
  const { findings, parentNs } = await checkZone(db, resolver, health, zone);
  // the process stops: what the check met since is not the zone's doing (its lease brings it back)
  if (resolver.stopped) return undefined;
  await rootNotes.note(db, resolver);
  return (await recordChecked(db, health, [{ zone, findings, parentNs, blind: resolver.rootReachable === false }])).get(zone.id);
}

/** a zone checked, and what its check found */
export interface CheckedZone {
  zone: DueZone;
  findings: NewFinding[];
  /** the NS set the parent lists, as the check read it; null: it read no delegation */
  parentNs?: string[] | null;
  /** the root hints did not answer: the check could not see the zone, and is not stored as its check */
  blind?: boolean;
}

const ROOT_NOTE_MS = 60_000;

/**
 * Notes what a round found of the root (the checker's state, shared by the processes: repositories/health.ts
 * `noteRootReach`), at most once a minute unless it changed; the process that notes a change logs it, once (not
 * once per zone). Never fails a check: a failure to note is logged. One per process, made with the services
 * (services/index.ts) and shared by the asked checks and the worker's.
 */
export class RootReachNotes {
  /** what this process last noted of the root's reach, and when: noted again when it changes, or a minute on */
  private noted: { reachable: boolean; at: number } | undefined;

  async note(db: Database, resolver: IterativeResolver): Promise<void> {
    const reachable = resolver.rootReachable;
    if (reachable === undefined) return;
    if (this.noted && this.noted.reachable === reachable && Date.now() - this.noted.at < ROOT_NOTE_MS) return;
    this.noted = { reachable, at: Date.now() };
    try {
      const changed = await noteRootReach(db, reachable, reachable ? null : (resolver.rootReason ?? null));
      if (!changed) return;
      if (reachable) logger.info('health: the root servers (HEALTH_ROOT_HINTS) answer: zones are checked from the root again');
      else
        logger.warn(
          { reason: resolver.rootReason },
          'health: no root server (HEALTH_ROOT_HINTS) answers: zone health cannot be checked from the root; zones keep their last findings until it answers again',
        );
    } catch (error) {
      this.noted = undefined;
      logger.warn({ err: error }, 'health: noting whether the root servers answer failed');
    }
  }
}

/**
 * Stores the checks of several zones in one transaction of a few statements whatever their number (the worker
 * stores its checks in batches); answers each zone's state (none for a zone deleted meanwhile). The next check of
 * a zone the worker claimed counts from when it was due (`recordChecks`).
 */
export async function recordChecked(
  db: Database,
  health: Settings['health'],
  checked: readonly CheckedZone[],
): Promise<Map<number, HealthState>> {
  const seen = checked.filter((c) => !c.blind);
  const blind = checked.filter((c) => c.blind);
  return db.transaction(async (sql) => {
    await postponeChecks(
      sql,
      blind.map(({ zone }) => ({ domainId: zone.id, dueAt: zone.dueAt })),
      health.interval || 3600,
    );
    const outcomes = await recordChecks(
      sql,
      seen.map(({ zone, findings, parentNs }) => ({ domainId: zone.id, findings, state: stateOf(findings), dueAt: zone.dueAt, parentNs })),
      health.interval || 3600,
    );
    const events: HealthEvent[] = [];
    for (const { zone, findings } of seen) {
      const outcome = outcomes.get(zone.id);
      if (outcome && (outcome.before !== outcome.after || outcome.raised.length || outcome.cleared.length))
        events.push(healthChanged(zone, outcome, findings));
    }
    await appendEvents(sql, events);
    return new Map([...outcomes].map(([id, outcome]) => [id, outcome.after]));
  });
}

export interface HealthChecker {
  rootReachable: boolean | null;
  rootReason: string | null;
  rootSince: Date | null;
  rootNotedAt: Date | null;
  /** HEALTH_CHECK_INTERVAL: 0, no scheduled checks (only those asked for) */
  intervalSeconds: number;
}

export class HealthService {
  /** the root's reach as this process last noted it (the worker's checks note it through the same) */
  readonly rootNotes = new RootReachNotes();

  constructor(
    private readonly settings: Settings,
    private readonly domains: DomainsService,
  ) {}

  /** the health of a zone the caller has already read */
  async ofZone(db: Sql, zone: { id: number; name: string }): Promise<ZoneHealth> {
    return (await this.ofZones(db, [zone]))[0];
  }

  /**
   * the health of zones the caller has already read (GraphQL `Domain.health` of a list: one statement for them
   * all, so each zone's state and findings are of one check); without `findings`, their states alone
   */
  async ofZones(db: Sql, zones: readonly { id: number; name: string }[], findings = true): Promise<ZoneHealth[]> {
    const stored = await healthOfZones(
      db,
      zones.map((zone) => zone.id),
      findings,
    );
    return zones.map((zone) => {
      const health = stored.get(zone.id)!;
      return { zone: zone.name, checkedAt: health.checkedAt, state: health.state, findings: health.findings };
    });
  }

  /** the health of a zone by name, as the caller may read it (ZONE_NOT_FOUND for a zone it may not) */
  async get(ctx: RequestContext, zone: string): Promise<ZoneHealth> {
    const domain = await this.domains.get(ctx, { name: zone });
    return this.ofZone(ctx.db, domain);
  }

  /**
   * Checks a zone the caller may read now, with a round of its own, and answers its health as stored. The check
   * asks only DNS servers (queries, no change anywhere), so reading the zone is enough to ask for one.
   */
  async checkNow(ctx: RequestContext, zone: string): Promise<ZoneHealth> {
    const domain = await this.domains.get(ctx, { name: zone });
    await checkAndRecord(this.rootNotes, ctx.db, this.settings.health, healthResolver(this.settings.health), {
      id: domain.id,
      name: domain.name,
      serial: Number(domain.serial),
    });
    return this.ofZone(ctx.db, domain);
  }

  /** zones by state and findings by code and severity, over every zone, and the root's reach (the metrics) */
  async counts(db: Database) {
    const [counts, root] = await Promise.all([healthCounts(db), rootReach(db)]);
    return { ...counts, rootReachable: root?.reachable };
  }

  /**
   * The checker itself (GraphQL `healthChecker`, the console's banner): whether the root hints answer (null: no
   * round asked them yet), why not, since when; and whether zones are checked on a schedule (HEALTH_CHECK_INTERVAL).
   */
  async checker(db: Sql): Promise<HealthChecker> {
    const root = await rootReach(db);
    return {
      rootReachable: root?.reachable ?? null,
      rootReason: root?.reason ?? null,
      rootSince: root?.since ?? null,
      rootNotedAt: root?.notedAt ?? null,
      intervalSeconds: this.settings.health.interval,
    };
  }
}
