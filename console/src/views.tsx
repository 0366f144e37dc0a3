import { useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError } from './errors';
import { ClearViewOverlayDocument, ViewOfZoneDocument, ViewsDocument, type ViewRecordOverlay } from './generated/graphql';
import { authorOf } from './history';
import { useIdentity } from './identity';
import { LoadFailure } from './load-failure';

/** how a record of a view's zone is marked: the base's, the view's own in place of the base's, or hidden in the view */
const MARK: Record<ViewRecordOverlay, string> = { BASE: 'Base', REPLACE: 'Replaced by the view', HIDE: 'Hidden in the view' };
const ACTION: Record<string, string> = { REPLACE: 'replaced', HIDE: 'hidden', CLEAR: 'cleared (the base’s again)' };

/**
 * The view switch of a zone's page (docs/views.md, «The console»): views are the operator's, so a session that may
 * not read them is shown nothing, and the switch is not even asked for. `Base zone` is the zone as every other
 * client is served it.
 */
export function ViewSwitch({ view, onChoose }: { view: string; onChoose: (view: string) => void }) {
  const identity = useIdentity();
  const [views] = useQuery({ query: ViewsDocument, pause: !identity.operator, requestPolicy: 'cache-and-network' });
  const list = views.data?.views ?? [];
  if (!identity.operator || list.length === 0) return null;
  return (
    <p className="view-switch">
      <label>
        Served as in view{' '}
        <select data-testid="view-switch" value={view} onChange={(e) => onChoose(e.target.value)}>
          <option value="">Base zone</option>
          {list.map((v) => (
            <option key={v.id} value={v.name}>
              {v.name}
            </option>
          ))}
        </select>
      </label>
    </p>
  );
}

/**
 * A zone as one view serves it: every record marked (the base's, replaced by the view, hidden in it), the view's
 * serial, the diff against the base (only the RRsets the view replaces or hides) and the view's history (its
 * overlay changes, from their events). Overlays are set through the API and the CLI; one may be cleared here.
 */
export function ViewPanel({ zone, view }: { zone: string; view: string }) {
  const [result, refetch] = useQuery({ query: ViewOfZoneDocument, variables: { zone, view }, requestPolicy: 'network-only' });
  const [{ fetching }, clear] = useMutation(ClearViewOverlayDocument);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  if (result.error) return <LoadFailure message={describeError(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />;
  const data = result.data;
  if (!data) return <p aria-live="polite">Loading the view…</p>;
  const { viewZone, viewHistory } = data;
  const doClear = async (owner: string, type: string) => {
    const outcome = await clear({ zone, view, owner, type });
    if (outcome.error) setNote({ ok: false, text: describeError(outcome.error) });
    else {
      setNote({ ok: true, text: `${owner} ${type} is the base’s again in ${view}: serial ${outcome.data!.clearViewOverlay}.` });
      refetch({ requestPolicy: 'network-only' });
    }
  };
  return (
    <section aria-labelledby="view-title" data-testid="view-panel">
      <h2 id="view-title">
        View {view}: serial <span data-testid="view-serial">{viewZone.serial}</span>
      </h2>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      <table className="records" data-testid="view-records">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">TTL</th>
            <th scope="col">Type</th>
            <th scope="col">Data</th>
            <th scope="col">In this view</th>
          </tr>
        </thead>
        <tbody>
          {viewZone.records.map((r, i) => (
            <tr key={i} className={`overlay-${r.overlay.toLowerCase()}`} data-testid={`view-record-${r.owner}-${r.type}`}>
              <td className="mono">{r.owner}</td>
              <td>{r.ttl}</td>
              <td>{r.type}</td>
              <td className="mono">{r.rdata}</td>
              <td data-testid="view-mark">{MARK[r.overlay]}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h3 id="view-diff-title">Diff against the base</h3>
      {viewZone.diff.length === 0 ? (
        <p className="empty">The view serves the base zone as it is.</p>
      ) : (
        <ol className="timeline" aria-labelledby="view-diff-title" data-testid="view-diff">
          {viewZone.diff.map((d) => (
            <li key={`${d.owner} ${d.type}`} data-testid={`view-diff-${d.owner}-${d.type}`}>
              <h4>
                {d.owner} {d.type}: {d.action === 'REPLACE' ? 'replaced' : 'hidden'}
              </h4>
              <ul className="diff">
                {d.base.map((r, i) => (
                  <li key={`b${i}`} className="removed">
                    <span aria-hidden="true">− </span>
                    <span className="sr-only">base: </span>
                    <span className="mono">
                      {d.owner} {r.ttl} {d.type} {r.rdata}
                    </span>
                  </li>
                ))}
                {d.view.map((r, i) => (
                  <li key={`v${i}`} className="added">
                    <span aria-hidden="true">+ </span>
                    <span className="sr-only">in the view: </span>
                    <span className="mono">
                      {d.owner} {r.ttl} {d.type} {r.rdata}
                    </span>
                  </li>
                ))}
              </ul>
              <div className="actions">
                <button type="button" className="small secondary" disabled={fetching} onClick={() => doClear(d.owner, d.type)}>
                  Clear: serve the base’s {d.owner} {d.type}
                </button>
              </div>
            </li>
          ))}
        </ol>
      )}

      <h3 id="view-history-title">History of the view</h3>
      {viewHistory.length === 0 ? (
        <p className="empty">No overlay change of this view is kept for this zone.</p>
      ) : (
        <ol className="timeline" aria-labelledby="view-history-title" data-testid="view-history">
          {viewHistory.map((h) => (
            <li key={h.id}>
              <p className="meta">
                Serial {h.serial} · {new Date(h.createdAt).toLocaleString('en')} · by {authorOf(h)}
              </p>
              <p data-testid="view-history-entry">
                <span className="mono">
                  {h.owner} {h.type}
                </span>{' '}
                {ACTION[h.action]}
                {h.records.length > 0 && (
                  <>
                    {' '}
                    with <span className="mono">{h.records.map((r) => `${r.ttl} ${r.rdata}`).join(', ')}</span>
                  </>
                )}
              </p>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
