import { FormEvent, useState } from 'react';

/** The key is checked by the first query after sign-in; a refused one comes back here with a notice. */
export function SignIn({ notice, onSignIn }: { notice: string | null; onSignIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [empty, setEmpty] = useState(false);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!key.trim()) return setEmpty(true);
    onSignIn(key.trim());
  };
  return (
    <main id="main" className="sign-in">
      <h1>Zonekeeper console</h1>
      <form onSubmit={submit} noValidate>
        <p>Sign in with an API key (an admin key or a user's). It is kept by this browser tab only, until you sign out or close it.</p>
        {notice && (
          <p role="alert" className="error-box" id="sign-in-notice">
            {notice}
          </p>
        )}
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
