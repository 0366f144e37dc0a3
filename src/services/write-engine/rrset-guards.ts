import { DomainError, type ErrorDetail } from '../../errors/catalogue';

/** why a write may not change an RRset: it is locked (RRSET_PROTECTED), or steering decides its records (RRSET_STEERED) */
export type GuardedCode = 'RRSET_PROTECTED' | 'RRSET_STEERED';

const GUARD_REASONS: Record<GuardedCode, string> = {
  RRSET_PROTECTED: 'is protected; unlock it first (unlockRrset)',
  RRSET_STEERED:
    'is steered: its records are what steering serves; change it through steering (updateSteeredRrset, setSteeringMemberAdmin), or remove its steering definition first (deleteSteeredRrset)',
};

/**
 * `code` for the guarded RRsets among `records` (each once, with the field that names it: `changes[3]` where the
 * caller knows the change, else `owner`), or nothing when none is guarded
 */
export function guardedProblems(
  code: GuardedCode,
  zone: string,
  guarded: ReadonlySet<string>,
  records: readonly { owner: string; type: string; field?: string }[],
): ErrorDetail[] {
  const found = new Map<string, ErrorDetail>();
  for (const { owner, type, field = 'owner' } of records) {
    const key = `${owner} ${type}`;
    if (!guarded.has(key) || found.has(key)) continue;
    found.set(key, { field, code, message: `${field}: the RRset ${owner} ${type} of ${zone} ${GUARD_REASONS[code]}`, owner, type });
  }
  return [...found.values()];
}

/** throws `code` (409) when `records` touch a guarded RRset */
export function refuseGuarded(
  code: GuardedCode,
  zone: string,
  guarded: ReadonlySet<string>,
  records: readonly { owner: string; type: string }[],
): void {
  const problems = guardedProblems(code, zone, guarded, records);
  if (problems.length) throw new DomainError(code, problems[0].message, problems);
}
