/**
 * Steering's decisions, without I/O (docs/steering.md): how one probe moves a check's state (fall/rise, flap
 * damping), when the prober is in a panic freeze, and which values a steered RRset serves. The prober
 * (worker/steering-checks.ts) and the materialiser (services/steering/materialise.ts) apply them; the unit tests
 * read them as tables.
 */

import type { CheckState, CheckStatus, SteeredType, SteeringDefinition, SteeringMember } from '../../repositories/steering';
export type {
  AdminStatus,
  AllDown,
  CheckState,
  CheckStatus,
  SteeredType,
  SteeringDefinition,
  SteeringMember,
  SteeringPool,
} from '../../repositories/steering';
export { STEERED_TYPES } from '../../repositories/steering';

/** more than FLAP_TRANSITIONS transitions within FLAP_WINDOW_MS pin a check down... */
export const FLAP_TRANSITIONS = 3;
export const FLAP_WINDOW_MS = 5 * 60_000;
/** ...until its probes have agreed for this long */
export const STABLE_MS = 5 * 60_000;

export interface Thresholds {
  fall: number;
  rise: number;
  /** a check that changed state keeps it at least this long before it changes again (STEERING_HOLD) */
  holdSeconds: number;
}

/**
 * What one probe's result makes of a check's state. fall failures in a row take an up (or unknown) check down,
 * rise passes in a row bring a down (or unknown) one up. Flap damping: a check that changed state keeps it at
 * least `holdSeconds` (the first decision of an unknown check is no change and is not held); a change that would be the
 * (FLAP_TRANSITIONS + 1)th within FLAP_WINDOW_MS pins the check down, and a pinned check comes up only once its
 * probes have passed without a break for STABLE_MS (and rise is met). `frozen`: the panic freeze (below): the
 * counts go on, but nothing is taken down.
 */
export function nextCheckState(state: CheckState, passed: boolean, now: Date, thresholds: Thresholds, frozen = false): CheckState {
  const sameRun =
    state.stableSince !== null && (passed ? state.failures === 0 && state.passes > 0 : state.passes === 0 && state.failures > 0);
  const next: CheckState = {
    ...state,
    passes: passed ? state.passes + 1 : 0,
    failures: passed ? 0 : state.failures + 1,
    stableSince: sameRun ? state.stableSince : now,
    transitions: state.transitions.filter((at) => now.getTime() - at.getTime() < FLAP_WINDOW_MS),
  };
  // held since its last change (the first decision of a new check is none: a check found down at once goes out)
  const last = next.transitions[next.transitions.length - 1];
  const held = last !== undefined && now.getTime() - last.getTime() < thresholds.holdSeconds * 1000;
  if (state.pinned) {
    const stable = passed && next.stableSince !== null && now.getTime() - next.stableSince.getTime() >= STABLE_MS;
    if (stable && next.passes >= thresholds.rise) return changed(next, 'up', now, false);
    return next;
  }
  let wanted: CheckStatus = state.status;
  if (!passed && next.failures >= thresholds.fall && state.status !== 'down' && !frozen) wanted = 'down';
  if (passed && next.passes >= thresholds.rise && state.status !== 'up') wanted = 'up';
  if (wanted === state.status || held) return next;
  // the first decision of a new check is no flap
  if (state.status !== 'unknown' && next.transitions.length + 1 > FLAP_TRANSITIONS) {
    // flapping: down, and it stays down until stable (a down check that would come up again is held where it is)
    return state.status === 'down' ? { ...next, pinned: true } : changed(next, 'down', now, true);
  }
  return changed(next, wanted, now, false);
}

/** the first decision of a new check (from unknown) is no transition: flap damping counts changes of a known state */
function changed(state: CheckState, status: CheckStatus, now: Date, pinned: boolean): CheckState {
  const transitions = state.status === 'unknown' ? state.transitions : [...state.transitions, now];
  return { ...state, status, since: now, pinned, transitions };
}

/**
 * An external check's fall and rise: its reporter has decided already, so one report (or one lease run out)
 * is enough; hold and flap damping apply to it as to a probed check.
 */
export const externalThresholds = (holdSeconds: number): Thresholds => ({ fall: 1, rise: 1, holdSeconds });

/**
 * What the prober observes of an external check without a report: its last report while its lease holds, and a
 * failure once the lease has run out (or before any report).
 */
export function externalObservation(
  check: { lastOk: boolean | null; lastError: string | null; leaseUntil: Date | null },
  now: Date,
): { ok: boolean; error: string | null; latencyMs: null } {
  if (check.leaseUntil === null || check.leaseUntil.getTime() <= now.getTime())
    return {
      ok: false,
      error:
        check.leaseUntil === null ? 'no status reported yet' : `the reported status's lease ran out at ${check.leaseUntil.toISOString()}`,
      latencyMs: null,
    };
  return { ok: check.lastOk === true, error: check.lastOk === true ? null : check.lastError, latencyMs: null };
}

/**
 * The panic freeze: when more than half of all checks failed their last probe within one interval, the likelier
 * fault is the prober's own network, so nothing is taken out (the answers served stay; the operator is told).
 */
export function panicking(failing: number, total: number): boolean {
  return total > 0 && failing * 2 > total;
}

/** is the member healthy: its admin status first, then its check's (an unknown check serves, as Route 53's new checks do) */
export function memberHealthy(member: SteeringMember, statusOf: (checkId: number) => CheckStatus | undefined): boolean {
  if (member.admin !== 'obey') return member.admin === 'up';
  if (member.checkId === null) return true;
  return statusOf(member.checkId) !== 'down';
}

export interface ServedAnswer {
  values: string[];
  /** the pool served (its index in fallback order), or `backup`, or `empty` */
  source: number | 'backup' | 'empty';
}

/**
 * The served RRset: the healthy members of the first pool with at least its min healthy of them (at most
 * maxAnswers, in the pool's order), else the next pool, else the backup values (`backup`), or nothing (`empty`).
 * A CNAME RRset holds one record (RFC 2181 §10.1): its first healthy member.
 */
export function servedValues(
  definition: SteeringDefinition,
  type: SteeredType,
  statusOf: (checkId: number) => CheckStatus | undefined,
): ServedAnswer {
  const limit = type === 'CNAME' ? 1 : definition.maxAnswers;
  for (const [index, pool] of definition.pools.entries()) {
    const healthy = unique(pool.members.filter((m) => memberHealthy(m, statusOf)).map((m) => m.value));
    if (healthy.length && healthy.length >= Math.max(1, pool.minHealthy)) return { values: healthy.slice(0, limit), source: index };
  }
  if (definition.allDown === 'backup' && definition.backup.length)
    return { values: unique(definition.backup).slice(0, limit), source: 'backup' };
  return { values: [], source: 'empty' };
}

const unique = (values: string[]) => [...new Set(values)];
