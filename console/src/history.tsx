import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { RecordLines } from './record-lines';
import { describeError } from './errors';
import { sentForReview } from './review';
import { ChangeEntryFieldsFragment, RevertZoneDocument, ZoneHistoryDocument } from './generated/graphql';
import { LoadFailure } from './load-failure';

const PAGE_SIZE = 20;

/**
 * Who made a change, as people read it: the person's e-mail when a person signed in made it (docs/people.md,
 * «History and audit log»), else the key by its name (the admin's said so), or the TSIG key of a DNS UPDATE.
 */
export function authorOf(entry: { author?: ChangeEntryFieldsFragment['author'] }): string {
  const a = entry.author;
  if (!a) return 'the service';
  if (a.email) return a.email;
  if (a.tsigKeyId) return `DNS UPDATE (TSIG key ${a.tsigKeyId})`;
  const key = a.keyName ? `API key “${a.keyName}”` : 'an API key';
  return a.admin ? `the admin’s ${key}` : key;
}

/** The zone's history, newest first, each change with its author and diff; revert brings back a serial in one action. */
export function History({
  zone,
  generation,
  canRevert,
  onReverted,
}: {
  zone: string;
  generation: number;
  /** Domain.permissions.editRecords: a revert writes the zone's records */
  canRevert: boolean;
  onReverted: () => void;
}) {
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  const [result, refetch] = useQuery({
    query: ZoneHistoryDocument,
    variables: { name: zone, first: PAGE_SIZE, after },
    requestPolicy: 'cache-and-network',
  });
  // a change of the zone (ours, or one seen live) asks again
  useEffect(() => {
    if (generation > 0) refetch({ requestPolicy: 'network-only' });
  }, [generation, refetch]);
  const [, revert] = useMutation(RevertZoneDocument);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const domain = result.data?.domain;

  const doRevert = async (entry: ChangeEntryFieldsFragment) => {
    if (entry.serialBefore === null || !domain) return;
    const outcome = await revert({ zone, toSerial: entry.serialBefore, expectSerial: domain.serial });
    setConfirming(null);
    const request = outcome.data?.revertZone.changeRequest;
    if (outcome.error) setNote({ ok: false, text: describeError(outcome.error) });
    else if (request) setNote({ ok: true, text: sentForReview(request) });
    else {
      setNote({
        ok: true,
        text: `Reverted to the records of serial ${entry.serialBefore}: the zone is now at serial ${outcome.data!.revertZone.serial}.`,
      });
      onReverted();
      refetch({ requestPolicy: 'network-only' });
    }
  };

  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      {result.error ? (
        <LoadFailure message={describeError(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !domain ? (
        <p aria-live="polite">Loading history…</p>
      ) : domain.changes.nodes.length === 0 ? (
        <p className="empty">No changes are kept for this zone.</p>
      ) : (
        <>
          <ol className="timeline">
            {domain.changes.nodes.map((entry) => (
              <li key={entry.id}>
                <h3>
                  {entry.kind === 'comment-changed'
                    ? `Comments at serial ${entry.serialAfter}`
                    : `Serial ${entry.serialBefore ?? '—'} → ${entry.serialAfter}`}
                </h3>
                <p className="meta">
                  {entry.kind} · {new Date(entry.createdAt).toLocaleString('en')} · by {authorOf(entry)} · +{entry.added.length} −
                  {entry.removed.length}
                </p>
                {entry.added.length + entry.removed.length > 0 && (
                  <details>
                    <summary>Diff</summary>
                    <ul className="diff">
                      <RecordLines records={entry.removed} sign="−" />
                      <RecordLines records={entry.added} sign="+" />
                    </ul>
                  </details>
                )}
                {entry.comments.length > 0 && (
                  // comments are no DNS data: a change of them alone steps no serial (docs/changes.md, «Comments»)
                  <ul className="comment-changes">
                    {entry.comments.map((c) => (
                      <li key={`${c.owner} ${c.type}`}>
                        Comment of {c.owner} {c.type}: {c.before === null ? 'none' : `“${c.before}”`} →{' '}
                        {c.after === null ? 'removed' : `“${c.after}”`}
                      </li>
                    ))}
                  </ul>
                )}
                {canRevert && entry.serialBefore !== null && entry.kind === 'zone-changed' && (
                  <div className="actions">
                    {confirming === entry.id ? (
                      <>
                        <button type="button" className="danger" onClick={() => doRevert(entry)}>
                          Confirm: revert to serial {entry.serialBefore}
                        </button>
                        <button type="button" className="secondary" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" className="small" onClick={() => setConfirming(entry.id)}>
                        Revert to serial {entry.serialBefore}
                      </button>
                    )}
                  </div>
                )}
              </li>
            ))}
          </ol>
          <nav className="pager" aria-label="History pages">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Newer
            </button>
            <button
              type="button"
              disabled={!domain.changes.pageInfo.hasNextPage}
              onClick={() => setCursors([...cursors, domain.changes.pageInfo.endCursor])}
            >
              Older
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
