import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { FormEvent, useEffect, useState } from 'react';
import { postAuth } from './client';
import { passkeyProblem } from './passkey-words';

/** what GET /auth/methods says this service offers (src/http/sign-in.ts) */
interface Methods {
  oidc: boolean;
  /** the provider's name (OIDC_PROVIDER_NAME), for "Sign in with …"; null: none set */
  oidcProvider?: string | null;
  passkey: boolean;
}

/**
 * An assertion of a passkey for the options of `optionsPath`, sent to `path`: a sign-in, or the second factor a
 * person with a passkey owes after an OpenID Connect sign-in (docs/people.md). The ceremony's challenge waits in
 * the service under a cookie of its own; the routes need the CSRF header as every cookie request.
 */
export async function passkeyCeremony(optionsPath: string, path: string): Promise<string | null> {
  const options = await postAuth(optionsPath);
  if (options.status !== 200) return options.body?.message ?? `The service refused to start (HTTP ${options.status}).`;
  let response;
  try {
    response = await startAuthentication({ optionsJSON: options.body });
  } catch (error) {
    return passkeyProblem(error, false);
  }
  const answer = await postAuth(path, { response });
  if (answer.status !== 200) return answer.body?.message ?? `The passkey was refused (HTTP ${answer.status}).`;
  return null;
}

/** what POST /auth/passkey/invitation (and /recovery) answers: the person signed in, a member of the account with this role */
export interface Joined {
  email: string;
  accountId: number;
  role: string;
}

/**
 * A passkey from a link, with no session (docs/people.md): an invitation's (a person's first; the token stands
 * for the invited address) or a recovery link's (a member who lost theirs; the token stands for the person).
 * The service's registration options, the authenticator's new passkey, and the service's verification, which
 * makes the person a member (an invitation) or ends their other sessions (a recovery link) and signs them in
 * (the session cookie). A refusal in words.
 */
export async function joinWithPasskey(
  token: string,
  link: 'invitation' | 'recovery' = 'invitation',
): Promise<{ joined: Joined } | { problem: string }> {
  const options = await postAuth(`/auth/passkey/${link}/options`, { token });
  if (options.status !== 200) return { problem: options.body?.message ?? `The service refused to start (HTTP ${options.status}).` };
  let response;
  try {
    response = await startRegistration({ optionsJSON: options.body });
  } catch (error) {
    return { problem: passkeyProblem(error, true) };
  }
  const answer = await postAuth(`/auth/passkey/${link}`, { token, response });
  if (answer.status !== 201) return { problem: answer.body?.message ?? `The passkey was refused (HTTP ${answer.status}).` };
  return { joined: answer.body as Joined };
}

/**
 * Sign-in: with OpenID Connect when the service has a provider, with a passkey, or with an API key (for
 * automation; kept by this tab only). A person's sign-in ends in the session cookie, which the console then uses.
 * Opened from an invitation link, it also offers the invited person's first passkey (joining the account); from
 * a recovery link, a member's new passkey.
 */
export function SignIn({
  notice,
  secondFactor,
  invitation,
  recovery,
  onSignIn,
  onSession,
  onJoined,
}: {
  notice: string | null;
  /** an OpenID Connect sign-in waits for the person's passkey */
  secondFactor: boolean;
  /** the token of the invitation link opened, if any */
  invitation?: string;
  /** the token of the recovery link opened, if any */
  recovery?: string;
  onSignIn: (key: string) => void;
  onSession: () => void;
  onJoined?: (joined: Joined) => void;
}) {
  const [key, setKey] = useState('');
  const [empty, setEmpty] = useState(false);
  const [methods, setMethods] = useState<Methods | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    fetch('/auth/methods')
      .then((r) => (r.ok ? (r.json() as Promise<Methods>) : null))
      .then(setMethods, () => setMethods(null));
  }, []);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!key.trim()) return setEmpty(true);
    onSignIn(key.trim());
  };
  const [joinProblem, setJoinProblem] = useState<string | null>(null);
  const join = async (token: string, link: 'invitation' | 'recovery' = 'invitation') => {
    setBusy(true);
    setJoinProblem(null);
    const outcome = await joinWithPasskey(token, link);
    setBusy(false);
    if ('problem' in outcome) setJoinProblem(outcome.problem);
    else onJoined?.(outcome.joined);
  };
  const passkey = async (optionsPath: string, path: string) => {
    setBusy(true);
    setProblem(null);
    const refused = await passkeyCeremony(optionsPath, path);
    setBusy(false);
    if (refused) setProblem(refused);
    else onSession();
  };

  if (secondFactor) {
    return (
      <main id="main" className="sign-in">
        <h1>Zonekeeper console</h1>
        <section className="panel" aria-labelledby="second-factor-title">
          <h2 id="second-factor-title">Confirm with your passkey</h2>
          <p>You have a passkey: your sign-in is complete once you use it.</p>
          {problem && (
            <p role="alert" className="error-box">
              {problem}
            </p>
          )}
          <button
            type="button"
            autoFocus
            disabled={busy}
            onClick={() => passkey('/auth/passkey/second-factor/options', '/auth/passkey/second-factor')}
          >
            Use my passkey
          </button>
        </section>
      </main>
    );
  }

  return (
    <main id="main" className="sign-in">
      <h1>Zonekeeper console</h1>
      {notice && (
        <p role="alert" className="error-box" id="sign-in-notice">
          {notice}
        </p>
      )}
      {recovery && (
        <section className="panel" aria-labelledby="recovery-title">
          <h2 id="recovery-title">Make a new passkey</h2>
          <p>
            This recovery link stands for you, in the account that made it: make a passkey on this device, and you are signed in with it.
            Your other sessions end; remove the lost passkey under Account once you are in.
          </p>
          {joinProblem && (
            <p role="alert" className="error-box">
              {joinProblem}
            </p>
          )}
          <button type="button" disabled={busy} onClick={() => join(recovery, 'recovery')}>
            Create a new passkey
          </button>
        </section>
      )}
      {invitation && (
        <section className="panel" aria-labelledby="join-title">
          <h2 id="join-title">New here? Join with a passkey</h2>
          <p>
            The invitation link stands for the address you were invited with: make a passkey on this device, and you are a member of the
            account, signed in. Signed in to Zonekeeper before? Sign in below instead: that takes the invitation.
          </p>
          {joinProblem && (
            <p role="alert" className="error-box">
              {joinProblem}
            </p>
          )}
          <button type="button" disabled={busy} onClick={() => join(invitation)}>
            Create a passkey and join
          </button>
        </section>
      )}
      <section className="panel" aria-labelledby="sign-in-person-title">
        <h2 id="sign-in-person-title">Sign in</h2>
        {problem && (
          <p role="alert" className="error-box">
            {problem}
          </p>
        )}
        <div className="actions">
          {methods?.oidc && (
            <a className="button-link primary" href="/auth/oidc/start">
              {methods.oidcProvider ? `Sign in with ${methods.oidcProvider}` : 'Sign in with your organisation’s account (OpenID Connect)'}
            </a>
          )}
          <button
            type="button"
            className={methods?.oidc ? 'secondary' : undefined}
            disabled={busy}
            onClick={() => passkey('/auth/passkey/sign-in/options', '/auth/passkey/sign-in')}
          >
            Sign in with a passkey
          </button>
        </div>
      </section>
      <form onSubmit={submit} noValidate className="panel" aria-labelledby="sign-in-key-title">
        <h2 id="sign-in-key-title">With an API key</h2>
        <p>
          For automation and the admin: an admin key or an account’s. It is kept by this browser tab only, until you sign out or close it.
        </p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          autoFocus
          value={key}
          aria-invalid={empty || undefined}
          aria-describedby={empty ? 'api-key-error' : undefined}
          onChange={(e) => {
            setKey(e.target.value);
            setEmpty(false);
          }}
        />
        {empty && (
          <p id="api-key-error" className="field-error">
            Enter an API key.
          </p>
        )}
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
