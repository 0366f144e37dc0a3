import { FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError, errorDetails } from './errors';
import {
  AcceptZoneTransferDocument,
  CancelZoneTransferDocument,
  OfferZoneTransferDocument,
  ZoneTransfersDocument,
} from './generated/graphql';
import { useIdentity, when } from './identity';
import { LoadFailure } from './load-failure';

/**
 * A zone offered to another account (docs/people.md, «Moving a zone to another account»): the owner of the
 * zone's account offers it (by the receiving account's e-mail), either side's owner cancels, the receiving
 * owner accepts (on the zone list). Only owners may: the API's refusal is shown for anyone else.
 */
export function ZoneTransferPanel({ zone }: { zone: string }) {
  const [list, refetch] = useQuery({ query: ZoneTransfersDocument, requestPolicy: 'network-only' });
  const [{ fetching }, offer] = useMutation(OfferZoneTransferDocument);
  const [, cancel] = useMutation(CancelZoneTransferDocument);
  const [email, setEmail] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const emailField = useRef<HTMLInputElement>(null);
  const cancelButton = useRef<HTMLButtonElement>(null);
  const pending = (list.data?.zoneTransfers ?? []).filter((t) => t.zone === zone);
  // after an offer the form gives way to the offer: the focus goes to its "Cancel the offer" once it is listed
  const [offered, setOffered] = useState(false);
  useEffect(() => {
    if (offered && pending.length) {
      cancelButton.current?.focus();
      setOffered(false);
    }
  }, [offered, pending.length]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await offer({ zone, toEmail: email.trim() });
    if (result.error) {
      setProblem(errorDetails(result.error)[0]?.message ?? describeError(result.error));
      return;
    }
    setProblem(null);
    setEmail('');
    setNote(
      `${zone} is offered to ${email.trim()} until ${when(result.data!.offerZoneTransfer.expiresAt)}: its owner accepts it on their zone list.`,
    );
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="transfer-title">
      <h2 id="transfer-title">Move to another account</h2>
      <p className="hint">
        The zone keeps its records and serial; the receiving account’s owner accepts it. The keys of this account lose it once it has moved.
      </p>
      {note && (
        <p role="status" className="ok-box">
          {note}
        </p>
      )}
      {list.error ? (
        <LoadFailure message={describeError(list.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : pending.length ? (
        <ul className="transfers">
          {pending.map((t) => (
            <li key={t.id}>
              Offered to account {t.toUserId} by {t.offeredBy ?? 'someone'} on {when(t.createdAt)}, until {when(t.expiresAt)}.{' '}
              <button
                type="button"
                ref={cancelButton}
                className="small secondary"
                onClick={async () => {
                  const result = await cancel({ id: t.id });
                  setNote(result.error ? describeError(result.error) : 'The offer was cancelled: the zone stays in this account.');
                  refetch({ requestPolicy: 'network-only' });
                  emailField.current?.focus();
                }}
              >
                Cancel the offer
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {!pending.length && (
        <form className="panel" onSubmit={submit} noValidate aria-labelledby="offer-title">
          <h3 id="offer-title">Offer this zone</h3>
          <div className="field">
            <label htmlFor="transfer-email">The receiving account’s e-mail address</label>
            <input
              id="transfer-email"
              ref={emailField}
              type="email"
              value={email}
              aria-invalid={!!problem || undefined}
              aria-describedby={problem ? 'transfer-email-error' : undefined}
              onChange={(e) => setEmail(e.target.value)}
            />
            {problem && (
              <p id="transfer-email-error" className="field-error">
                {problem}
              </p>
            )}
          </div>
          <div className="actions">
            <button type="submit" disabled={fetching}>
              Offer the zone
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** On the zone list: the zones other accounts offer to the account acted in, for its owner to accept or decline. */
export function IncomingTransfers({ onAccepted }: { onAccepted: (zone: string) => void }) {
  const identity = useIdentity();
  const owner = identity.kind === 'session' ? identity.role === 'OWNER' : !!identity.accountId;
  const [list, refetch] = useQuery({ query: ZoneTransfersDocument, requestPolicy: 'network-only', pause: !owner });
  const [, accept] = useMutation(AcceptZoneTransferDocument);
  const [, cancel] = useMutation(CancelZoneTransferDocument);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // accepted or declined, the offer's buttons are gone: the focus goes to the section's heading, before its note
  useEffect(() => {
    if (note) heading.current?.focus();
  }, [note]);
  const incoming = (list.data?.zoneTransfers ?? []).filter((t) => t.toUserId === identity.accountId);
  if (!owner || (!incoming.length && !note)) return null;
  return (
    <section aria-labelledby="incoming-title" className="panel">
      <h2 id="incoming-title" ref={heading} tabIndex={-1}>
        Zones offered to this account
      </h2>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      <ul className="transfers">
        {incoming.map((t) => (
          <li key={t.id}>
            <strong>{t.zone}</strong>, offered by {t.offeredBy ?? `account ${t.fromUserId}`} until {when(t.expiresAt)}.{' '}
            <button
              type="button"
              className="small"
              onClick={async () => {
                const result = await accept({ id: t.id });
                if (result.error) setNote({ ok: false, text: describeError(result.error) });
                else {
                  setNote({ ok: true, text: `${t.zone} is now a zone of this account.` });
                  onAccepted(t.zone);
                }
                refetch({ requestPolicy: 'network-only' });
              }}
            >
              Accept {t.zone}
            </button>{' '}
            <button
              type="button"
              className="small secondary"
              onClick={async () => {
                const result = await cancel({ id: t.id });
                setNote(
                  result.error
                    ? { ok: false, text: describeError(result.error) }
                    : { ok: true, text: `The offer of ${t.zone} was declined.` },
                );
                refetch({ requestPolicy: 'network-only' });
              }}
            >
              Decline {t.zone}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
