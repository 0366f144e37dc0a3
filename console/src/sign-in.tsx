import { startAuthentication } from '@simplewebauthn/browser';
import { FormEvent, useEffect, useState } from 'react';
import { postAuth } from './client';

/** what GET /auth/methods says this service offers (src/http/sign-in.ts) */
interface Methods {
  oidc: boolean;
  /** the provider's name (OIDC_PROVIDER_NAME), for "Sign in with …"; null: none set */
  oidcProvider?: string | null;
  passkey: boolean;
}

/** a WebAuthn ceremony's failure in words: the person cancelled, or the browser or the service refused */
function passkeyProblem(error: unknown): string {
  const name = (error as { name?: string } | null)?.name;
  if (name === 'NotAllowedError') return 'The passkey was not used (cancelled, or no passkey for this site on this device).';
  return `The passkey could not be used: ${(error as Error)?.message ?? String(error)}`;
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
    return passkeyProblem(error);
  }
  const answer = await postAuth(path, { response });
  if (answer.status !== 200) return answer.body?.message ?? `The passkey was refused (HTTP ${answer.status}).`;
  return null;
}

/**
 * Sign-in: with OpenID Connect when the service has a provider, with a passkey, or with an API key (for
 * automation; kept by this tab only). A person's sign-in ends in the session cookie, which the console then uses.
 */
export function SignIn({
  notice,
  secondFactor,
  onSignIn,
  onSession,
}: {
  notice: string | null;
  /** an OpenID Connect sign-in waits for the person's passkey */
  secondFactor: boolean;
  onSignIn: (key: string) => void;
  onSession: () => void;
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
