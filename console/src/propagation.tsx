import { useQuery, useSubscription } from 'urql';
import { describeError } from './errors';
import { PropagationChangedDocument, PropagationFieldsFragment, ZonePropagationDocument } from './generated/graphql';
import { LoadFailure } from './load-failure';

const STATE_WORDS: Record<string, string> = {
  in_sync: 'in sync',
  pending: 'pending',
  error: 'error',
  no_secondaries: 'no secondaries',
};

/** How many serials behind `served` is, in RFC 1982 serial arithmetic (modulo 2^32). */
function serialsBehind(current: number, served: number | null): number | null {
  if (served === null) return null;
  return (current - served + 2 ** 32) % 2 ** 32;
}

/**
 * Which secondary serves which serial, live: the propagation query once, then every propagationChanged event of
 * the subscription (graphql-ws) replaces it.
 */
export function PropagationView({ zone }: { zone: string }) {
  const [initial, refetch] = useQuery({ query: ZonePropagationDocument, variables: { name: zone }, requestPolicy: 'network-only' });
  const [live] = useSubscription({ query: PropagationChangedDocument, variables: { zone } });
  const propagation: PropagationFieldsFragment | undefined = live.data?.propagationChanged.propagation ?? initial.data?.domain.propagation;

  return (
    <section aria-labelledby="propagation-title">
      <h2 id="propagation-title">Propagation</h2>
      {initial.error ? (
        <LoadFailure message={describeError(initial.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !propagation ? (
        <p aria-live="polite">Loading propagation…</p>
      ) : (
        <>
          <p role="status" aria-live="polite">
            Serial <strong>{propagation.serial}</strong>:{' '}
            <span className={`state state-${propagation.state}`}>{STATE_WORDS[propagation.state]}</span>
            {propagation.message ? ` — ${propagation.message}` : ''}
            <span className="hint">
              {live.data ? ' · live' : live.error ? ' · live updates unavailable' : ' · waiting for live updates'}
            </span>
          </p>
          {propagation.servers.length === 0 ? (
            <p className="empty">No secondary name server is configured (SECONDARIES), so there is nothing to propagate to.</p>
          ) : (
            <ul className="servers">
              {propagation.servers.map((server) => {
                const behind = serialsBehind(propagation.serial, server.servedSerial);
                return (
                  <li key={server.server} className={`server server-${server.state}`} data-testid="server">
                    <div className="server-head">
                      <strong className="mono">{server.server}</strong>
                      <span className={`state state-${server.state}`}>{STATE_WORDS[server.state]}</span>
                    </div>
                    <div className="lane" aria-hidden="true">
                      <span className="box">
                        <span className="hint">primary</span>
                        {propagation.serial}
                      </span>
                      <span className={`arrow ${behind === 0 ? 'done' : ''}`} />
                      <span className="box">
                        <span className="hint">secondary</span>
                        {server.servedSerial ?? '—'}
                      </span>
                    </div>
                    <p>
                      Serves serial {server.servedSerial ?? '— (never answered)'}
                      {behind === null ? '' : behind === 0 ? ', the current one.' : `, ${behind} serial${behind === 1 ? '' : 's'} behind.`}
                      {server.error ? ` Last problem: ${server.error}` : ''}
                    </p>
                    {server.updatedAt && <p className="hint">Checked {new Date(server.updatedAt).toLocaleString('en')}</p>}
                  </li>
                );
              })}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
