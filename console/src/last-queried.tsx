import { useEffect, useState } from 'react';
import { useClient } from 'urql';
import { describeError } from './errors';
import { ZoneQueryCoverageDocument } from './generated/graphql';

/**
 * An RRset's last query in the records view (Record.lastQueried, docs/analytics.md). A null there is either "never
 * asked for" or "asked while nobody was counting": only the coverage tells them apart, so the console reads the
 * zone's coverage over the last LOOK_BACK_DAYS and says "never" only when it is whole, "unknown" otherwise, as the
 * change guard does (RRSET_USE_UNKNOWN).
 */

/** the window whose coverage decides "never" (the change guard's ANALYTICS_IN_USE_DAYS default) */
export const LOOK_BACK_DAYS = 7;
/**
 * uncovered time tolerated over the window: the minute the collector has not written yet and two of its flushes
 * (ANALYTICS_FLUSH_MS, 5 s by default), as the change guard tolerates
 */
const SLACK_MS = 70_000;

/** one bucket of the window that was not covered whole: its span and the time it lacks */
interface Shortfall {
  start: number;
  end: number;
  uncoveredMs: number;
}

export type Coverage =
  | { state: 'loading' }
  /** the coverage could not be read (a key restricted to some names reads no zone traffic: FORBIDDEN_BY_POLICY) */
  | { state: 'unreadable'; reason: string }
  | { state: 'read'; since: number; shortfalls: Shortfall[] };

/** the zone's coverage over the last LOOK_BACK_DAYS: one request for the whole table, asked again with it */
export function useQueryCoverage(zone: string, generation: number): Coverage {
  const client = useClient();
  const [coverage, setCoverage] = useState<Coverage>({ state: 'loading' });
  useEffect(() => {
    let cancelled = false;
    const since = Date.now() - LOOK_BACK_DAYS * 86_400_000;
    void client
      .query(ZoneQueryCoverageDocument, { zone, since: new Date(since).toISOString() }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        if (cancelled) return;
        if (!result.data) {
          setCoverage({ state: 'unreadable', reason: result.error ? describeError(result.error) : 'no answer' });
          return;
        }
        const { step, buckets } = result.data.domain.queries;
        const now = Date.now();
        const shortfalls: Shortfall[] = [];
        for (const bucket of buckets) {
          const start = Date.parse(bucket.start);
          // the bucket under way counts until now; the window's first bucket from the window's start
          const end = Math.min(start + step * 1000, now);
          const length = end - Math.max(start, since);
          if (length <= 0) continue;
          const uncoveredMs = bucket.total === null ? length : (1 - bucket.coverage) * length;
          if (uncoveredMs > 0) shortfalls.push({ start, end, uncoveredMs });
        }
        setCoverage({ state: 'read', since, shortfalls });
      });
    return () => {
      cancelled = true;
    };
  }, [client, zone, generation]);
  return coverage;
}

/**
 * whether the counts lack more than the slack after `from` (ms): what happened since then may not be counted. The
 * coverage is read by the hour, so a gap earlier in the hour of `from` counts too: it errs towards "may".
 */
export function gapAfter(coverage: Coverage, from: number): boolean {
  if (coverage.state !== 'read') return true;
  const lacking = coverage.shortfalls.filter((s) => s.end > from).reduce((sum, s) => sum + s.uncoveredMs, 0);
  return lacking > SLACK_MS;
}

const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
];

/** a past moment as people say it, short enough for a column: "just now", "12 minutes ago", "yesterday" */
export function ago(at: number, now: number = Date.now()): string {
  const seconds = (now - at) / 1000;
  if (seconds < 60) return 'just now';
  const [unit, length] = UNITS.find(([, size]) => seconds >= size)!;
  return RELATIVE.format(-Math.floor(seconds / length), unit);
}

/** what the Last queried cell says, and the sentence of its title */
export function lastQueriedWords(at: string | null, coverage: Coverage): { text: string; title: string; kind: string } {
  if (at) {
    const when = Date.parse(at);
    const exact = new Date(when).toLocaleString('en');
    return {
      text: ago(when),
      kind: 'seen',
      title:
        coverage.state === 'read' && !gapAfter(coverage, when)
          ? `Last answered by a secondary at ${exact}.`
          : `Last answered by a secondary at ${exact}, as far as the counts know: they have a gap in that hour or since, so it may have been asked for later.`,
    };
  }
  if (coverage.state === 'loading') return { text: '…', kind: 'loading', title: 'Reading the counts’ coverage' };
  if (coverage.state === 'unreadable')
    return { text: 'unknown', kind: 'unknown', title: `Not seen queried; whether the counts are whole is not known (${coverage.reason}).` };
  return gapAfter(coverage, coverage.since)
    ? {
        text: 'unknown',
        kind: 'unknown',
        title: `Not seen queried, but the counts of the last ${LOOK_BACK_DAYS} days have a gap (a secondary not sending, or analytics begun since): it may have been asked for then.`,
      }
    : {
        text: 'never',
        kind: 'never',
        title: `Not answered by any secondary while the counts were whole (the last ${LOOK_BACK_DAYS} days at least).`,
      };
}

/** the cell's text, with the whole sentence as its title */
export function LastQueried({ at, coverage }: { at: string | null; coverage: Coverage }) {
  const words = lastQueriedWords(at, coverage);
  return (
    <span className={`last-queried last-queried-${words.kind}`} title={words.title} data-last-queried={words.kind}>
      {words.text}
    </span>
  );
}
