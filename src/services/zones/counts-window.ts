import { DomainError } from '../../errors/catalogue';

/**
 * A window of query counts as asked (`until`: now when absent), checked: `since` before `until`. The records'
 * counts read with the records (ZoneReadsService) and the counts read alone (QueryAnalyticsService) check it alike.
 */
export function countsWindow(input: { since: Date; until?: Date | null }): { since: Date; until: Date } {
  const until = input.until ?? new Date();
  if (!(input.since < until)) {
    const message = 'since must be before until';
    throw new DomainError('INVALID_INPUT', message, [{ field: 'since', code: 'INVALID_INPUT', message }]);
  }
  return { since: input.since, until };
}
