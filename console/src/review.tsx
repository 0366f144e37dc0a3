import { useEffect, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { RecordLines } from './record-lines';
import { describeError } from './errors';
import {
  ApproveChangeRequestDocument,
  ChangeRequestFieldsFragment,
  RejectChangeRequestDocument,
  ZoneChangeRequestsDocument,
} from './generated/graphql';
import { LoadFailure } from './load-failure';

/** what a write to a zone that requires approvals became (docs/changes.md, «Review») */
export interface Proposed {
  id: string;
  requiredApprovals: number;
}

/** the console's words for a write sent for review: nothing served until it is approved */
export function sentForReview(request: Proposed): string {
  const approvals = `${request.requiredApprovals} approval${request.requiredApprovals === 1 ? '' : 's'}`;
  return `Sent for review: change request ${request.id} needs ${approvals} before it is served (the Review tab).`;
}

/** one request: who, where it stands, each RRset before and after, the findings, the reviews so far */
function RequestCard({
  request,
  canReview,
  onReviewed,
}: {
  request: ChangeRequestFieldsFragment;
  canReview: boolean;
  /** `ended`: the request is over (applied, refused or rejected), not to be listed again */
  onReviewed: (note: string, ended: boolean) => void;
}) {
  const [comment, setComment] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [, approve] = useMutation(ApproveChangeRequestDocument);
  const [, reject] = useMutation(RejectChangeRequestDocument);
  const review = async (verdict: 'approve' | 'reject') => {
    setBusy(true);
    setError(null);
    const variables = { id: request.id, comment: comment.trim() || null };
    const outcome = verdict === 'approve' ? await approve(variables) : await reject(variables);
    setBusy(false);
    if (outcome.error) {
      setError(describeError(outcome.error));
      return;
    }
    const after =
      outcome.data && ('approveChangeRequest' in outcome.data ? outcome.data.approveChangeRequest : outcome.data.rejectChangeRequest);
    const status = after?.status;
    onReviewed(
      status === 'APPLIED'
        ? `Approved change request ${request.id}: applied, the zone is now at serial ${after!.appliedSerial}.`
        : status === 'REFUSED'
          ? `Approved change request ${request.id}, but it could not be applied: ${after!.reason}`
          : status === 'REJECTED'
            ? `Rejected change request ${request.id}.`
            : `Approved change request ${request.id}: ${after!.approvals} of ${after!.requiredApprovals} approvals.`,
      status === 'APPLIED' || status === 'REFUSED' || status === 'REJECTED',
    );
  };
  const titleId = `request-${request.id}-title`;
  return (
    <li className="panel change-request" aria-labelledby={titleId} data-testid={`change-request-${request.id}`}>
      <h3 id={titleId}>
        Change request {request.id} by {request.author}
      </h3>
      <p className="meta">
        {request.status === 'APPROVED' ? 'Approved, waiting for its time' : 'Waiting for approval'} · {request.approvals} of{' '}
        {request.requiredApprovals} approvals · planned on serial {request.plannedSerial} ·{' '}
        {new Date(request.createdAt).toLocaleString('en')}
      </p>
      <ul className="diff" aria-label={`What change request ${request.id} changes`}>
        {(request.plan.rrsets ?? []).map((rrset) => (
          <li key={`${rrset.owner} ${rrset.type}`} className="rrset">
            <span className="mono">
              {rrset.owner} {rrset.type}
            </span>
            <ul>
              <RecordLines records={rrset.before} sign="−" />
              <RecordLines records={rrset.after} sign="+" />
            </ul>
          </li>
        ))}
      </ul>
      {(request.plan.warnings ?? []).length > 0 && (
        <ul aria-label="Findings" className="findings">
          {request.plan.warnings!.map((w, i) => (
            <li key={i}>
              <strong>{w.code}</strong> ({w.severity ?? 'warning'}): {w.message}
            </li>
          ))}
        </ul>
      )}
      {request.reviews.length > 0 && (
        <ul aria-label="Reviews">
          {request.reviews.map((r, i) => (
            <li key={i}>
              {r.verdict === 'APPROVE' ? 'Approved' : 'Rejected'} by {r.reviewer}
              {r.comment ? `: ${r.comment}` : ''}
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p role="alert" className="error-box">
          {error}
        </p>
      )}
      {canReview && request.status === 'PENDING' && (
        <div className="review-form">
          <div className="field">
            <label htmlFor={`comment-${request.id}`}>Comment</label>
            <textarea id={`comment-${request.id}`} rows={2} value={comment} onChange={(e) => setComment(e.target.value)} />
          </div>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => review('approve')}>
              Approve change request {request.id}
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={() => review('reject')}>
              Reject change request {request.id}
            </button>
          </div>
        </div>
      )}
    </li>
  );
}

/**
 * The zone's queue of change requests (docs/changes.md, «Review»): the pending ones (and those approved that wait
 * for their time), each with its plan and findings; a person who may review (ZonePermissions.reviewChanges)
 * approves or rejects with a comment. The service refuses what it refuses (the author's own: CHANGE_SELF_APPROVAL).
 */
export function ReviewQueue({
  zone,
  requiredApprovals,
  canReview,
  generation,
  onChanged,
}: {
  zone: string;
  requiredApprovals: number;
  canReview: boolean;
  generation: number;
  onChanged: () => void;
}) {
  const [result, refetch] = useQuery({ query: ZoneChangeRequestsDocument, variables: { zone }, requestPolicy: 'cache-and-network' });
  const [note, setNote] = useState<string | null>(null);
  // the requests this page saw reviewed to their end: an answer to a read sent before the review (a live change's
  // refetch still on its way, which a refetch after the review is folded into) must not list them again
  const [ended, setEnded] = useState<ReadonlySet<string>>(new Set());
  // a change of the zone (ours, or one seen live: an approval elsewhere applies a request) asks again
  useEffect(() => {
    if (generation > 0) refetch({ requestPolicy: 'network-only' });
  }, [generation, refetch]);
  const requests = result.data?.changeRequests.filter((request) => !ended.has(request.id));
  return (
    <section aria-labelledby="review-title">
      <h2 id="review-title">Review</h2>
      <p>
        {requiredApprovals > 0
          ? `Each change of this zone needs ${requiredApprovals} approval${requiredApprovals === 1 ? '' : 's'} by another person before it is served.`
          : 'This zone requires no approvals: only changes scheduled for a time wait here.'}
      </p>
      {note && (
        <p role="status" className="ok-box">
          {note}
        </p>
      )}
      {result.error ? (
        <LoadFailure message={describeError(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !requests ? (
        <p aria-live="polite">Loading the change requests…</p>
      ) : requests.length === 0 ? (
        <p className="empty">No change request is waiting.</p>
      ) : (
        <ol className="change-requests">
          {requests.map((request) => (
            <RequestCard
              key={request.id}
              request={request}
              canReview={canReview}
              onReviewed={(text, over) => {
                setNote(text);
                if (over) setEnded((before) => new Set([...before, request.id]));
                refetch({ requestPolicy: 'network-only' });
                onChanged();
              }}
            />
          ))}
        </ol>
      )}
    </section>
  );
}
