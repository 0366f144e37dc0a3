import { useEffect } from 'react';
import { useQuery } from 'urql';
import { SteeringCondition, ZoneSteeringDocument } from './generated/graphql';
import { when } from './identity';
import { ListState } from './list-state';

/**
 * A member's live state is read again this often: a check changes state without a change of the zone (a report
 * held by damping, a lease running down), so the zone's live updates alone would not show it
 */
const REFRESH_MS = 5_000;

/**
 * A member's condition in words: never "Up" while its check is held (the panic freeze holds a failing check up;
 * every vantage that probed it is isolated), though it is still served then
 */
const CONDITION_WORDS: Record<SteeringCondition, string> = {
  UNKNOWN: 'Not decided yet',
  UP: 'Up',
  DOWN: 'Down',
  FLAPPING: 'Down (flapping: held down until stable)',
  FROZEN: 'Failing, held up by the panic freeze',
  NO_SOUND_VANTAGE: 'Held: every vantage probing it is isolated',
  PAUSED: 'Paused',
  FORCED_UP: 'Forced up',
};

/**
 * The zone's steered RRsets (docs/steering.md): what each serves now, its pools in fallback order with each
 * member's state (its admin status, its check's status and since when, its last error and latency), and the
 * recent changes of what it serves (its steering.changed events: each says what was served before and after,
 * and why, which a list of a check's own transitions would not). Read again on each change of the zone
 * (`generation`) and every REFRESH_MS.
 */
export function SteeringPanel({ zone, generation }: { zone: string; generation: number }) {
  const [result, refetch] = useQuery({ query: ZoneSteeringDocument, variables: { zone }, requestPolicy: 'cache-and-network' });
  useEffect(() => {
    if (generation > 0) refetch({ requestPolicy: 'network-only' });
  }, [generation, refetch]);
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const rrsets = result.data?.domain.steeredRrsets ?? [];
  return (
    <section aria-labelledby="steering-title">
      <h2 id="steering-title">Steering</h2>
      <p className="hint">
        Health-checked failover, decided here and published as ordinary records: each steered RRset serves the healthy members of its first
        pool with enough of them, else the next pool, else its backup values. Every secondary serves the answer as data.
      </p>
      <ListState
        error={result.error}
        loaded={!!result.data}
        what="the zone’s steered RRsets"
        empty={rrsets.length === 0 && 'No steered RRsets.'}
        labelledBy="steering-title"
      >
        {rrsets.map((rrset) => (
          <article
            key={rrset.id}
            className="steered-rrset"
            data-testid={`steered-${rrset.owner}-${rrset.type}`}
            aria-label={`${rrset.owner} ${rrset.type}`}
          >
            <h3>
              {rrset.owner} {rrset.type}
            </h3>
            <p>
              Serves <span data-testid="served">{rrset.served.length ? rrset.served.join(', ') : 'nothing'}</span> (TTL {rrset.ttl})
              {rrset.backup.length ? ` · backup ${rrset.backup.join(', ')}` : ''} · all down: {rrset.allDown}
            </p>
            {rrset.pools.map((pool, p) => (
              <table key={p} className="steering-pool">
                <caption>
                  Pool {p + 1} (served with at least {pool.minHealthy} healthy)
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Value</th>
                    <th scope="col">Admin</th>
                    <th scope="col">Check</th>
                    <th scope="col">Status</th>
                    <th scope="col">Since</th>
                    <th scope="col">Latency</th>
                    <th scope="col">Last error</th>
                  </tr>
                </thead>
                <tbody>
                  {pool.members.map((m) => (
                    <tr key={m.value} data-testid={`member-${m.value}`}>
                      <td>
                        {m.value}
                        {rrset.served.includes(m.value) ? <span className="hint"> (served)</span> : null}
                      </td>
                      <td>{m.admin}</td>
                      <td>{m.check ? `${m.check.name}${m.check.protocol === 'external' ? ' (reported)' : ''}` : '—'}</td>
                      <td data-testid="member-status" data-condition={m.condition}>
                        <span className={`state ${m.healthy ? 'health-ok' : m.check?.heldSince ? 'health-warning' : 'health-critical'}`}>
                          {CONDITION_WORDS[m.condition]}
                        </span>
                        {m.check && m.check.votes.length > 1 ? (
                          <span className="hint">
                            {' '}
                            ·{' '}
                            {m.check.votes
                              .map(
                                (v) =>
                                  `${v.vantage}: ${v.lastOk == null ? 'not probed' : v.lastOk ? 'passes' : 'fails'}${v.isolated ? ' (isolated)' : ''}`,
                              )
                              .join(', ')}
                          </span>
                        ) : null}
                      </td>
                      <td>{m.check ? when(m.check.heldSince ?? m.check.since) : '—'}</td>
                      <td>{m.check?.latencyMs != null ? `${m.check.latencyMs} ms` : '—'}</td>
                      <td>{m.check?.lastError ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
            <h4>Recent changes</h4>
            {rrset.changes.length ? (
              <ol className="steering-changes" data-testid="steering-changes">
                {rrset.changes.map((c, i) => (
                  <li key={i}>
                    {when(c.at)}: {c.previous.join(', ') || 'nothing'} → {c.served.join(', ') || 'nothing'} ({c.source})
                  </li>
                ))}
              </ol>
            ) : (
              <p className="hint">No change of what it serves yet.</p>
            )}
          </article>
        ))}
      </ListState>
    </section>
  );
}
