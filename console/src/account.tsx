import { startRegistration } from '@simplewebauthn/browser';
import { passkeyProblem } from './passkey-words';
import { useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { postAuth } from './client';
import { ListState } from './list-state';
import { describeError } from './errors';
import { EndSessionsDocument, MyPasskeysDocument, MySessionsDocument, RemovePasskeyDocument } from './generated/graphql';
import { useIdentity, when } from './identity';

/** The person's own sign-in (docs/people.md): their sessions (end one, or all: sign-out everywhere) and passkeys. */
export function Account({ onSignedOutEverywhere }: { onSignedOutEverywhere: () => void }) {
  const identity = useIdentity();
  return (
    <>
      <h1>Your sign-in</h1>
      {identity.email && <p>Signed in as {identity.email}.</p>}
      <Sessions onSignedOutEverywhere={onSignedOutEverywhere} />
      <Passkeys />
    </>
  );
}

/** a browser's user agent in a few words (the whole string stays in the cell's title) */
function browserOf(userAgent: string | null): string {
  if (!userAgent) return 'Unknown';
  const found = /(Firefox|Edg|OPR|Chrome|Chromium|Safari)\/[\d.]+/.exec(userAgent);
  const system = /(Windows|Mac OS X|Android|iPhone|Linux)/.exec(userAgent);
  return [found?.[0].replace('Edg/', 'Edge/'), system?.[1]].filter(Boolean).join(' on ') || userAgent;
}

function Sessions({ onSignedOutEverywhere }: { onSignedOutEverywhere: () => void }) {
  const [list, refetch] = useQuery({ query: MySessionsDocument, requestPolicy: 'network-only' });
  const [, end] = useMutation(EndSessionsDocument);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const everywhereButton = useRef<HTMLButtonElement>(null);
  const sessions = list.data?.mySessions ?? [];
  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      <ListState error={list.error} loaded={!!list.data} what="sessions" labelledBy="sessions-title">
        <table className="sessions">
          <thead>
            <tr>
              <th scope="col">Browser</th>
              <th scope="col">From</th>
              <th scope="col">Signed in</th>
              <th scope="col">Last active</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.id}>
                <td title={s.userAgent ?? undefined}>
                  {browserOf(s.userAgent)}
                  {s.current && <strong> (this browser)</strong>}
                </td>
                <td>{s.sourceAddress ?? 'Unknown'}</td>
                <td>{when(s.createdAt)}</td>
                <td>{when(s.lastSeenAt)}</td>
                <td>
                  {!s.current && (
                    <button
                      type="button"
                      className="small"
                      aria-label={`End the session of ${browserOf(s.userAgent)} from ${s.sourceAddress ?? 'an unknown address'}, signed in ${when(s.createdAt)}`}
                      onClick={async () => {
                        const result = await end({ id: s.id });
                        setNote(
                          result.error ? { ok: false, text: describeError(result.error) } : { ok: true, text: 'That session was ended.' },
                        );
                        refetch({ requestPolicy: 'network-only' });
                        everywhereButton.current?.focus();
                      }}
                    >
                      End
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      <div className="actions">
        <button
          type="button"
          ref={everywhereButton}
          className="secondary"
          onClick={async () => {
            const result = await end({ id: null });
            if (result.error) return setNote({ ok: false, text: describeError(result.error) });
            onSignedOutEverywhere();
          }}
        >
          Sign out everywhere
        </button>
      </div>
    </section>
  );
}

function Passkeys() {
  const [list, refetch] = useQuery({ query: MyPasskeysDocument, requestPolicy: 'network-only' });
  const [, remove] = useMutation(RemovePasskeyDocument);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const addButton = useRef<HTMLButtonElement>(null);
  // after a ceremony the focus goes back to "Add a passkey", once it is enabled again
  const [refocus, setRefocus] = useState(0);
  useEffect(() => {
    if (refocus) addButton.current?.focus();
  }, [refocus]);
  const passkeys = list.data?.myPasskeys ?? [];

  /** registration (POST /auth/passkey/register/options, the browser's ceremony, POST /auth/passkey/register) */
  const register = async () => {
    setBusy(true);
    try {
      const options = await postAuth('/auth/passkey/register/options');
      if (options.status !== 200) return setNote({ ok: false, text: options.body?.message ?? `Refused (HTTP ${options.status}).` });
      let response;
      try {
        response = await startRegistration({ optionsJSON: options.body });
      } catch (error) {
        return setNote({ ok: false, text: passkeyProblem(error, true) });
      }
      const saved = await postAuth('/auth/passkey/register', { response });
      if (saved.status !== 201) return setNote({ ok: false, text: saved.body?.message ?? `Refused (HTTP ${saved.status}).` });
      setNote({ ok: true, text: 'The passkey was added: you can sign in with it.' });
      refetch({ requestPolicy: 'network-only' });
    } finally {
      setBusy(false);
      setRefocus((n) => n + 1);
    }
  };

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title">Passkeys</h2>
      <p className="hint">
        A passkey signs you in without a password. Once you have one, a sign-in with your organisation’s account asks for it too.
      </p>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="passkeys"
        empty={passkeys.length === 0 && 'No passkey yet.'}
        labelledBy="passkeys-title"
      >
        <table className="passkeys">
          <thead>
            <tr>
              <th scope="col">Passkey</th>
              <th scope="col">Added</th>
              <th scope="col">Last used</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {passkeys.map((k, i) => {
              const label = `Passkey ${i + 1}${k.transports?.length ? ` (${k.transports.join(', ')})` : ''}`;
              return (
                <tr key={k.id}>
                  <td>{label}</td>
                  <td>{when(k.createdAt)}</td>
                  <td>{k.lastUsedAt ? when(k.lastUsedAt) : 'Never'}</td>
                  <td>
                    {confirming === k.id ? (
                      <>
                        <button
                          type="button"
                          className="small danger"
                          autoFocus
                          onClick={async () => {
                            const result = await remove({ id: k.id });
                            setConfirming(null);
                            setNote(
                              result.error ? { ok: false, text: describeError(result.error) } : { ok: true, text: `${label} was removed.` },
                            );
                            refetch({ requestPolicy: 'network-only' });
                            addButton.current?.focus();
                          }}
                        >
                          Confirm removing {label}
                        </button>{' '}
                        <button type="button" className="small secondary" onClick={() => setConfirming(null)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" className="small" aria-label={`Remove ${label}`} onClick={() => setConfirming(k.id)}>
                        Remove
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </ListState>
      <div className="actions">
        <button type="button" ref={addButton} disabled={busy} onClick={register}>
          Add a passkey
        </button>
      </div>
    </section>
  );
}
