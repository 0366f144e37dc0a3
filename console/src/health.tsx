import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError } from './errors';
import {
  CheckHealthDocument,
  type HealthCheckerFieldsFragment,
  type HealthState,
  ZoneHealthDocument,
  type ZoneHealthFieldsFragment,
} from './generated/graphql';
import { when } from './identity';
import { ListState } from './list-state';

/** a zone's health state in the console's words (ZoneHealth.state; critical: resolvers fail the zone, or may) */
export const HEALTH_WORDS: Record<HealthState, string> = {
  ok: 'OK',
  warning: 'Warning',
  critical: 'Failing',
  unknown: 'Unknown',
};

/** the state as a badge: its words, coloured as the propagation states are (the words carry it, not the colour) */
export function HealthBadge({ state }: { state: HealthState }) {
  return <span className={`state health-${state}`}>{HEALTH_WORDS[state]}</span>;
}

/** seconds as the console says an interval: "1 hour", "15 minutes", "30 seconds" */
function interval(seconds: number): string {
  const [value, unit] =
    seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : seconds % 60 === 0 ? [seconds / 60, 'minute'] : [seconds, 'second'];
  return `${value} ${unit}${value === 1 ? '' : 's'}`;
}

/**
 * The checker's own state, once for every zone (HealthChecker): when it reaches no root server, zones are not
 * checked from the root, which is no zone's fault; shown as a banner, not as every zone's finding.
 */
export function RootBanner({ checker }: { checker: HealthCheckerFieldsFragment | undefined }) {
  if (checker?.rootReachable !== false) return null;
  return (
    <p role="status" className="notice-box" data-testid="health-root-banner">
      The health checker reaches no root server{checker.rootSince ? ` (since ${when(checker.rootSince)})` : ''}: zones are not checked from
      the root, and keep what their last check found (a zone never checked stays Unknown). Its operator’s settings (HEALTH_ROOT_HINTS) or
      this host’s network need a look; resolvers elsewhere may well reach the zones.
      {checker.rootReason ? <span className="hint"> {checker.rootReason}</span> : null}
    </p>
  );
}

/** what the schedule promises: the interval, or that there is none (HEALTH_CHECK_INTERVAL=0) */
export function scheduleWords(checker: HealthCheckerFieldsFragment | undefined): string {
  if (!checker) return '';
  return checker.intervalSeconds > 0
    ? `The worker checks each zone every ${interval(checker.intervalSeconds)}; “Check now” checks it at once.`
    : 'Scheduled checks are off (HEALTH_CHECK_INTERVAL is 0): a zone is checked only when asked, with “Check now”.';
}

const SEVERITY_WORDS: Record<string, string> = { critical: 'Critical', warning: 'Warning', info: 'Info' };

/**
 * A zone seen from where resolvers stand (docs/health.md): the last check's state and findings, and "Check now"
 * (checkHealth, a check round of its own; reading the zone is enough to ask for it), whose answer is shown at once.
 */
export function HealthPanel({ zone }: { zone: string }) {
  const [result, refetch] = useQuery({ query: ZoneHealthDocument, variables: { zone }, requestPolicy: 'cache-and-network' });
  const [{ fetching: checking }, check] = useMutation(CheckHealthDocument);
  // the answer of "Check now" until the next read: it is the newest there is
  const [checked, setChecked] = useState<ZoneHealthFieldsFragment | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const health = checked ?? result.data?.domain.health;
  const findings = health?.findings ?? [];
  return (
    <section aria-labelledby="health-title">
      <h2 id="health-title">Health</h2>
      <p className="hint">
        The zone as resolvers meet it: the parent’s delegation and DS, every nameserver asked from the root down.{' '}
        {scheduleWords(result.data?.healthChecker)}
      </p>
      <RootBanner checker={result.data?.healthChecker} />
      <div className="zone-meta">
        {health ? (
          <>
            State <span data-testid="health-state">{<HealthBadge state={health.state} />}</span>
            {' · '}
            {health.checkedAt ? `last checked ${when(health.checkedAt)}` : 'not checked yet'}
          </>
        ) : null}{' '}
        <button
          type="button"
          className="small"
          disabled={checking}
          onClick={async () => {
            const outcome = await check({ zone });
            if (outcome.error) return setProblem(describeError(outcome.error));
            setProblem(null);
            setChecked(outcome.data!.checkHealth);
            // the check may have found the root out of reach, or back: the banner follows
            refetch({ requestPolicy: 'network-only' });
          }}
        >
          {checking ? 'Checking…' : 'Check now'}
        </button>
      </div>
      <p role="status" className="sr-only">
        {checking ? 'Checking the zone…' : checked ? `Checked: ${HEALTH_WORDS[checked.state]}, ${findings.length} findings.` : ''}
      </p>
      {problem && (
        <p role="alert" className="error-box">
          {problem}
        </p>
      )}
      <h3 id="health-findings-title">Findings</h3>
      <ListState
        error={result.error}
        loaded={!!health}
        what="the zone’s health"
        empty={
          findings.length === 0 &&
          (health?.state === 'unknown' ? 'Not checked yet: “Check now” checks it.' : 'The last check found nothing to act on.')
        }
        labelledBy="health-findings-title"
      >
        <table className="health-findings">
          <thead>
            <tr>
              <th scope="col">Code</th>
              <th scope="col">Severity</th>
              <th scope="col">Server</th>
              <th scope="col">Message</th>
              <th scope="col">Since</th>
            </tr>
          </thead>
          <tbody>
            {findings.map((f) => (
              <tr key={`${f.code} ${f.server ?? ''}`}>
                <td className="mono">{f.code}</td>
                <td>
                  <span className={`state severity-${f.severity}`}>{SEVERITY_WORDS[f.severity] ?? f.severity}</span>
                </td>
                <td>{f.server ?? '—'}</td>
                <td>{f.message}</td>
                <td>{when(f.since)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      <p className="hint">
        What each finding means and what to do about it: docs/health.md. A finding clears at the first check that no longer finds it.
      </p>
    </section>
  );
}
