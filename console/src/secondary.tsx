import { useEffect, useRef, useState } from 'react';
import { useMutation } from 'urql';
import { describeError } from './errors';
import { PromoteZoneDocument, SecondaryStatusFieldsFragment } from './generated/graphql';
import { when } from './identity';

/** the console's words for a secondary zone's state (SecondaryState) */
const STATE_WORDS: Record<string, string> = {
  PENDING: 'Pending: not transferred yet, not served',
  IN_SYNC: 'In sync with its primary',
  RETRYING: 'Retrying: the last refresh failed; served until it expires',
  EXPIRED: 'Expired: no primary answered in time; not served',
};

/**
 * A secondary zone (docs/transfers.md): its data comes from its primaries by transfer, so the console offers
 * no edit here; it shows where the zone comes from and how its transfers go, and Promote (the way off another
 * provider) when the caller may (Domain.permissions.promote).
 */
export function SecondaryPanel({
  zone,
  status,
  canPromote,
  onPromoted,
}: {
  zone: string;
  status: SecondaryStatusFieldsFragment | null | undefined;
  canPromote: boolean;
  onPromoted: () => void;
}) {
  const [{ fetching }, promote] = useMutation(PromoteZoneDocument);
  const [confirming, setConfirming] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (confirming) heading.current?.focus();
  }, [confirming]);
  return (
    <section className="panel secondary-zone" aria-labelledby="secondary-title">
      <h2 id="secondary-title">Secondary zone</h2>
      <p className="hint">
        Its records are transferred from its primaries (AXFR/IXFR) and are read-only here: change them at the primary, or promote the zone
        to write it here.
      </p>
      {status ? (
        <dl className="facts" data-testid="secondary-status">
          <dt>Transfer state</dt>
          <dd data-testid="secondary-state">{STATE_WORDS[status.state] ?? status.state}</dd>
          <dt>Primaries</dt>
          <dd>
            <ul className="plain">
              {status.primaries.map((p) => (
                <li key={`${p.address} ${p.port}`} className="mono">
                  {p.address.includes(':') ? `[${p.address}]` : p.address}:{p.port}
                  {p.tsigKeyName ? ` (TSIG ${p.tsigKeyName})` : ''}
                </li>
              ))}
            </ul>
          </dd>
          <dt>Primary’s serial</dt>
          <dd>{status.primarySerial ?? 'none yet'}</dd>
          <dt>Last refresh</dt>
          <dd>{status.lastSuccessAt ? when(status.lastSuccessAt) : 'never'}</dd>
          <dt>Next refresh</dt>
          <dd>{when(status.nextRefreshAt)}</dd>
          <dt>Expires</dt>
          <dd>{status.expiresAt ? when(status.expiresAt) : '—'}</dd>
          <dt>Transfers</dt>
          <dd>{status.transfers}</dd>
          {status.lastError && (
            <>
              <dt>Last error</dt>
              <dd className="field-error">{status.lastError}</dd>
            </>
          )}
        </dl>
      ) : (
        <p>No transfer state yet.</p>
      )}
      {status?.warnings.map((w) => (
        <p key={w} className="hint">
          {w}
        </p>
      ))}
      {problem && (
        <p role="alert" className="error-box">
          {problem}
        </p>
      )}
      {canPromote &&
        (confirming ? (
          <div role="group" aria-labelledby="promote-title">
            <h3 id="promote-title" ref={heading} tabIndex={-1}>
              Promote {zone} to a primary zone?
            </h3>
            <p>Its records stay; its primaries and transfers stop, and the zone is written here from now on.</p>
            <div className="actions">
              <button
                type="button"
                disabled={fetching}
                onClick={async () => {
                  const outcome = await promote({ zone });
                  if (outcome.error) setProblem(describeError(outcome.error));
                  else {
                    setConfirming(false);
                    onPromoted();
                  }
                }}
              >
                Promote now
              </button>
              <button type="button" className="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <div className="actions">
            <button type="button" onClick={() => setConfirming(true)}>
              Promote to primary…
            </button>
          </div>
        ))}
    </section>
  );
}
