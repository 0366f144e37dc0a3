/**
 * Steering's decisions, without I/O (docs/steering.md): how one probe moves a check's state (fall/rise, flap
 * damping), when the prober is in a panic freeze, and which values a steered RRset serves. The prober
 * (worker/steering-checks.ts) and the materialiser (services/steering/materialise.ts) apply them; the unit tests
 * read them as tables.
 */

import type { PanicRule, Quorum } from '../../config/settings';
import type { CheckState, CheckStatus, Held, SteeredType, SteeringDefinition, SteeringMember } from '../../repositories/steering';
export type { PanicRule, Quorum } from '../../config/settings';
export type {
  AdminStatus,
  AllDown,
  CheckState,
  CheckStatus,
  Held,
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
  const next = afterObservation(state, passed, now);
  let wanted: CheckStatus | null = null;
  if (!passed && next.failures >= thresholds.fall) wanted = 'down';
  if (passed && next.passes >= thresholds.rise) wanted = 'up';
  return decided(state, next, wanted, now, thresholds, frozen).state;
}

/** one vantage's last probe of a check and its runs (fall and rise count per vantage) */
export interface Vote {
  vantage: string;
  lastOk: boolean;
  passes: number;
  failures: number;
}

export function quorumReached(share: number, voters: number, quorum: Quorum): boolean {
  if (voters === 0) return false;
  return quorum === 'majority' ? share * 2 > voters : (share * 100) / voters >= quorum;
}

/**
 * What the sound vantages' votes make of a check's state (docs/steering.md, «Vantages and the quorum»). Each
 * vantage votes down when its last probe failed and fall failures in a row are its own, up when its last probe
 * passed and rise passes in a row are; the check goes down (up) when the down (up) votes reach the quorum of the
 * sound vantages with a recent probe of it. The check's own runs count one observation a vote: it failed when
 * the quorum saw its last probe fail, which is what flap damping's stability counts. With one vantage this is
 * nextCheckState of its probe, exactly. `isolatedVotes`: recent votes of isolated vantages, not counted; with no
 * sound vote, the state is held (`no-sound-vantage`). `frozen`: the panic freeze (nothing is taken down; a
 * check whose votes would take it down is held: `panic`).
 */
export function nextCheckStateByVotes(
  state: CheckState,
  votes: Vote[],
  isolatedVotes: number,
  now: Date,
  thresholds: Thresholds & { quorum: Quorum },
  frozen = false,
): { state: CheckState; held: Held | null } {
  if (!votes.length) return { state, held: isolatedVotes > 0 ? 'no-sound-vantage' : null };
  const failing = votes.filter((v) => !v.lastOk).length;
  const passed = !quorumReached(failing, votes.length, thresholds.quorum);
  const next = afterObservation(state, passed, now);
  const down = votes.filter((v) => !v.lastOk && v.failures >= thresholds.fall).length;
  const up = votes.filter((v) => v.lastOk && v.passes >= thresholds.rise).length;
  const wanted: CheckStatus | null = quorumReached(down, votes.length, thresholds.quorum)
    ? 'down'
    : quorumReached(up, votes.length, thresholds.quorum)
      ? 'up'
      : null;
  return decided(state, next, wanted, now, thresholds, frozen);
}

/** the runs of a check's state after one observation (passed or not), its flap window brought up to `now` */
function afterObservation(state: CheckState, passed: boolean, now: Date): CheckState {
  const sameRun =
    state.stableSince !== null && (passed ? state.failures === 0 && state.passes > 0 : state.passes === 0 && state.failures > 0);
  return {
    ...state,
    passes: passed ? state.passes + 1 : 0,
    failures: passed ? 0 : state.failures + 1,
    stableSince: sameRun ? state.stableSince : now,
    transitions: state.transitions.filter((at) => now.getTime() - at.getTime() < FLAP_WINDOW_MS),
  };
}

/**
 * the state a wanted status leads to, damped (held since the last change, pinned when flapping) and frozen; held
 * `panic` when the freeze alone kept a check up that its observations take down
 */
function decided(
  state: CheckState,
  next: CheckState,
  wanted: CheckStatus | null,
  now: Date,
  thresholds: Thresholds,
  frozen: boolean,
): { state: CheckState; held: Held | null } {
  // held since its last change (the first decision of a new check is none: a check found down at once goes out)
  const last = next.transitions[next.transitions.length - 1];
  const held = last !== undefined && now.getTime() - last.getTime() < thresholds.holdSeconds * 1000;
  if (state.pinned) {
    const stable = next.failures === 0 && next.stableSince !== null && now.getTime() - next.stableSince.getTime() >= STABLE_MS;
    if (stable && next.passes >= thresholds.rise) return { state: changed(next, 'up', now, false), held: null };
    return { state: next, held: null };
  }
  if (wanted === 'down' && frozen && state.status !== 'down') return { state: next, held: 'panic' };
  if (wanted === null || wanted === state.status || held) return { state: next, held: null };
  // the first decision of a new check is no flap
  if (state.status !== 'unknown' && next.transitions.length + 1 > FLAP_TRANSITIONS) {
    // flapping: down, and it stays down until stable (a down check that would come up again is held where it is)
    return { state: state.status === 'down' ? { ...next, pinned: true } : changed(next, 'down', now, true), held: null };
  }
  return { state: changed(next, wanted, now, false), held: null };
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

/** what the panic freeze weighs: one vantage's probes of every check, its failing ones and their networks */
export interface PanicMeasure {
  failing: number;
  total: number;
  /** the distinct networks (/24 of IPv4, /48 of IPv6) of the failing checks' targets */
  failingNetworks: number;
}

/** the failing checks must span at least this many networks: an outage of one site (one /24) is no panic */
export const PANIC_MIN_NETWORKS = 3;

/**
 * The panic freeze, for a vantage deciding alone (one sound vantage; with more, the quorum and isolation take
 * its place): when more than half of all checks failed their last probe within one interval, and they are at
 * least STEERING_PANIC_MIN_CHECKS, across at least PANIC_MIN_NETWORKS networks, the likelier fault is the prober's
 * own network, so nothing is taken out (the answers served stay; the operator is told). A small install (a few
 * checks, or one site's endpoints) is never frozen: its endpoints dying is what it is there to see.
 */
export function panicking(measure: PanicMeasure, rule: PanicRule): boolean {
  if (!rule.enabled || measure.total === 0) return false;
  return measure.failing * 2 > measure.total && measure.failing >= rule.minChecks && measure.failingNetworks >= PANIC_MIN_NETWORKS;
}

/**
 * Whether a vantage is isolated (its votes not counted, docs/steering.md), and why: it fails what the other sound
 * vantages pass (more than half of the checks it and they probed lately, it saw fail while most of them saw them
 * pass), or every one of its canaries (STEERING_VANTAGE_CANARIES) failed its last probe. A vantage cut off from
 * the network so takes nothing down anywhere. An isolated one counts again only once it agrees again on every
 * check (and its canaries pass): endpoints that really die meanwhile make it agree on those, and must not bring
 * its votes on the others back.
 */
export function isolationReason(
  agreement: { compared: number; contradicted: number },
  canaries: { failed: number; tried: number } | null,
  isolated: boolean,
): string | null {
  if (canaries && canaries.tried > 0 && canaries.failed === canaries.tried)
    return `its canaries fail (${canaries.failed} of ${canaries.tried}, STEERING_VANTAGE_CANARIES)`;
  const disagrees = isolated ? agreement.contradicted > 0 : agreement.contradicted * 2 > agreement.compared;
  if (agreement.compared > 0 && disagrees)
    return `it sees ${agreement.contradicted} of ${agreement.compared} checks fail that the other vantages see pass`;
  return null;
}

/**
 * What a check or a member is, in one word, as every edge shows it: never `up` while its state is held (the
 * panic freeze holding a failing check up: `frozen`; every vantage that probed it isolated: `no-sound-vantage`),
 * `flapping` while pinned down, and a member's admin status before its check's (`paused`, `forced-up`).
 */
export type SteeringCondition = CheckStatus | 'flapping' | 'frozen' | 'no-sound-vantage' | 'paused' | 'forced-up';

export function checkCondition(check: { status: CheckStatus; pinned: boolean; held: Held | null }): SteeringCondition {
  if (check.held === 'panic') return 'frozen';
  if (check.held === 'no-sound-vantage') return 'no-sound-vantage';
  if (check.pinned) return 'flapping';
  return check.status;
}

export function memberCondition(
  member: Pick<SteeringMember, 'admin'>,
  check: { status: CheckStatus; pinned: boolean; held: Held | null } | null,
): SteeringCondition {
  if (member.admin === 'down') return 'paused';
  if (member.admin === 'up') return 'forced-up';
  return check ? checkCondition(check) : 'up';
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
