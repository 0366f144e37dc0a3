import { useCallback, useEffect, useMemo, useState } from 'react';
import { Provider, useQuery } from 'urql';
import { createConsoleClient } from './client';
import { describeError } from './errors';
import { WhoAmIDocument } from './generated/graphql';
import { Keys } from './keys';
import { SignIn } from './sign-in';
import { ZonePage } from './zone';
import { ZoneList } from './zones';

/** The key is kept for this tab only (sessionStorage): closing the tab signs out. */
const KEY_STORAGE = 'zonekeeper-console-key';

/** The screen the address names: #/ (zones), #/zone/<name>[/<tab>]. Hash routes need nothing of the server. */
function parseRoute(hash: string): { screen: 'zones' } | { screen: 'keys' } | { screen: 'zone'; zone: string; tab: string } {
  if (hash === '#/keys') return { screen: 'keys' };
  const match = /^#\/zone\/([^/]+)(?:\/([a-z]+))?/.exec(hash);
  if (match) return { screen: 'zone', zone: decodeURIComponent(match[1]), tab: match[2] ?? 'records' };
  return { screen: 'zones' };
}

function useRoute() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const onChange = () => setHash(location.hash);
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return parseRoute(hash);
}

export function App() {
  const [key, setKey] = useState<string | null>(() => sessionStorage.getItem(KEY_STORAGE));
  const [notice, setNotice] = useState<string | null>(null);
  const signOut = useCallback((message: string | null) => {
    sessionStorage.removeItem(KEY_STORAGE);
    setKey(null);
    setNotice(message);
  }, []);
  const session = useMemo(
    () =>
      key
        ? createConsoleClient(key, () => signOut('The API key was refused: it is mistyped or has been revoked. Sign in with a valid key.'))
        : null,
    [key, signOut],
  );
  useEffect(() => () => session?.dispose(), [session]);

  if (!session) {
    return (
      <SignIn
        notice={notice}
        onSignIn={(newKey) => {
          sessionStorage.setItem(KEY_STORAGE, newKey);
          setNotice(null);
          setKey(newKey);
        }}
      />
    );
  }
  return (
    <Provider value={session.client}>
      <Shell onSignOut={() => signOut('Signed out. The key was forgotten by this tab.')} />
    </Provider>
  );
}

function Shell({ onSignOut }: { onSignOut: () => void }) {
  const route = useRoute();
  // the key is checked once at sign-in; a refused key signs out (client.ts), an outage is shown here
  const [check, retry] = useQuery({ query: WhoAmIDocument, requestPolicy: 'network-only' });
  // once the key was accepted, a later failure of this check (the query runs again when the cache asks) is an
  // outage each screen shows where it meets it, not a reason to hide them all
  const [accepted, setAccepted] = useState(false);
  useEffect(() => {
    if (check.data) setAccepted(true);
  }, [check.data]);
  useEffect(() => {
    const title =
      route.screen === 'zone' ? `${route.zone} · Zonekeeper` : route.screen === 'keys' ? 'Keys · Zonekeeper' : 'Zones · Zonekeeper';
    document.title = title;
  }, [route]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="#/">
          Zonekeeper
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={route.screen === 'zones' ? 'page' : undefined}>
            Zones
          </a>
          <a href="#/keys" aria-current={route.screen === 'keys' ? 'page' : undefined}>
            Keys
          </a>
          <a href="/graphql">GraphiQL</a>
        </nav>
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {check.error && !accepted ? (
          <div role="alert" className="error-box">
            <p>{describeError(check.error)}</p>
            <button type="button" onClick={() => retry({ requestPolicy: 'network-only' })}>
              Try again
            </button>
          </div>
        ) : !accepted && !check.data ? (
          // the screens wait for the key's check, so that a later failure of it is never taken for the first
          <p role="status">Checking the key…</p>
        ) : route.screen === 'keys' ? (
          <Keys />
        ) : route.screen === 'zone' ? (
          <ZonePage key={route.zone} zone={route.zone} tab={route.tab} />
        ) : (
          <ZoneList />
        )}
      </main>
    </>
  );
}
