import { lazy, Suspense, useCallback, useEffect, useMemo, useState } from 'react';
import { Provider, useMutation, useQuery } from 'urql';
import { createConsoleClient, Credentials, CSRF_HEADERS, postAuth } from './client';
import { describeError } from './errors';
import {
  MeDocument,
  SwitchAccountDocument,
  WhoAmIDocument,
  ZoneOwnersDocument,
  ApiKeysDocument,
  ViewerDocument,
} from './generated/graphql';
import { Identity, IdentityContext, roleWords } from './identity';
import { SignIn } from './sign-in';
import { ZonePage } from './zone';
import { ZoneList } from './zones';
import { SearchBox, SearchResults } from './search';
import { LoadFailure } from './load-failure';

// the people's screens are fetched when first opened (chunks of the same origin: the CSP allows them), so the
// first load of the sign-in page and the zones does not carry them
const Account = lazy(() => import('./account').then((m) => ({ default: m.Account })));
const Members = lazy(() => import('./members').then((m) => ({ default: m.Members })));
const AcceptInvitation = lazy(() => import('./members').then((m) => ({ default: m.AcceptInvitation })));
const Keys = lazy(() => import('./keys').then((m) => ({ default: m.Keys })));
const Webhooks = lazy(() => import('./webhooks').then((m) => ({ default: m.Webhooks })));
const NameserverSets = lazy(() => import('./nameserver-sets').then((m) => ({ default: m.NameserverSets })));
const Administration = lazy(() => import('./admin').then((m) => ({ default: m.Administration })));
const AuditLog = lazy(() => import('./admin').then((m) => ({ default: m.AuditLog })));

/** The key is kept for this tab only (sessionStorage): closing the tab signs out. */
const KEY_STORAGE = 'zonekeeper-console-key';
/** An invitation link opened while signed out: accepted once the person has signed in (this tab only). */
const INVITATION_STORAGE = 'zonekeeper-console-invitation';

type Route =
  | { screen: 'zones' }
  | { screen: 'keys' }
  | { screen: 'webhooks' }
  | { screen: 'sets' }
  | { screen: 'members' }
  | { screen: 'account' }
  | { screen: 'search'; query: string }
  | { screen: 'admin' }
  | { screen: 'audit' }
  | { screen: 'invitation'; token: string }
  | { screen: 'recovery'; token: string }
  | { screen: 'zone'; zone: string; tab: string };

/**
 * The screen the address names: #/ (zones), #/zone/<name>[/<tab>], #/keys, #/webhooks, #/nameserver-sets, #/members,
 * #/account, #/search?q=<text>, #/admin, #/audit, #/invitation/<token>, #/recovery/<token>.
 */
function parseRoute(hash: string): Route {
  if (hash.startsWith('#/search')) return { screen: 'search', query: new URLSearchParams(hash.split('?')[1] ?? '').get('q') ?? '' };
  if (hash === '#/admin') return { screen: 'admin' };
  if (hash === '#/audit') return { screen: 'audit' };
  if (hash === '#/keys') return { screen: 'keys' };
  if (hash === '#/webhooks') return { screen: 'webhooks' };
  if (hash === '#/nameserver-sets') return { screen: 'sets' };
  if (hash === '#/members') return { screen: 'members' };
  if (hash === '#/account') return { screen: 'account' };
  const invitation = /^#\/invitation\/([^/]+)$/.exec(hash);
  if (invitation) return { screen: 'invitation', token: decodeURIComponent(invitation[1]) };
  const recovery = /^#\/recovery\/([^/]+)$/.exec(hash);
  if (recovery) return { screen: 'recovery', token: decodeURIComponent(recovery[1]) };
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

/**
 * Has this browser a session (the HttpOnly cookie cannot be read by the page: ask the API who is signed in)? An
 * OpenID Connect sign-in of a person with a passkey leaves a session that waits for it: then only the second
 * factor's options answer (docs/people.md, «Second factor»).
 */
async function probeSession(): Promise<'session' | 'second-factor' | 'none' | 'outage'> {
  try {
    const response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { ...CSRF_HEADERS, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: '{ me { personId } }' }),
    });
    const body = await response.json().catch(() => null);
    if (response.ok && body?.data?.me) return 'session';
    // the database away: whether there is a session cannot be known (not a reason to ask for a sign-in)
    if (response.status === 503) return 'outage';
    if (response.status !== 401) return 'none';
    const waiting = await postAuth('/auth/passkey/second-factor/options');
    return waiting.status === 200 ? 'second-factor' : 'none';
  } catch {
    return 'outage';
  }
}

export function App() {
  // undefined: not known yet (the session is asked for); null: signed out
  const [credentials, setCredentials] = useState<Credentials | null | undefined>(() => {
    const key = sessionStorage.getItem(KEY_STORAGE);
    return key ? { kind: 'key', key } : undefined;
  });
  const [secondFactor, setSecondFactor] = useState(false);
  const [outage, setOutage] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  // a new client (an empty cache) when the session acts in another account
  const [generation, setGeneration] = useState(0);
  const route = useRoute();
  useEffect(() => {
    if (route.screen === 'invitation' && credentials === null) sessionStorage.setItem(INVITATION_STORAGE, route.token);
  }, [route, credentials]);
  const askSession = useCallback(() => {
    probeSession().then((found) => {
      setOutage(found === 'outage');
      if (found === 'outage') return;
      setSecondFactor(found === 'second-factor');
      setCredentials(found === 'session' ? { kind: 'session' } : null);
      const invitation = sessionStorage.getItem(INVITATION_STORAGE);
      if (found === 'session' && invitation) {
        sessionStorage.removeItem(INVITATION_STORAGE);
        location.hash = `#/invitation/${encodeURIComponent(invitation)}`;
      }
    });
  }, []);
  useEffect(() => {
    if (credentials === undefined) askSession();
  }, [credentials, askSession]);
  const signOut = useCallback((message: string | null) => {
    sessionStorage.removeItem(KEY_STORAGE);
    setCredentials(null);
    setNotice(message);
  }, []);
  const session = useMemo(
    () =>
      credentials
        ? createConsoleClient(credentials, () =>
            signOut(
              credentials.kind === 'key'
                ? 'The API key was refused: it is mistyped or has been revoked. Sign in with a valid key.'
                : 'Your session has ended (signed out elsewhere, or idle too long). Sign in again.',
            ),
          )
        : null,
    // generation: a switch of account starts with an empty cache
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [credentials, signOut, generation],
  );
  useEffect(() => () => session?.dispose(), [session]);

  if (credentials === undefined && outage) {
    return (
      <main id="main" className="sign-in">
        <LoadFailure
          message="The service cannot be reached, or cannot reach its database right now. Nothing was changed; try again in a few seconds."
          onRetry={askSession}
        />
      </main>
    );
  }
  if (credentials === undefined) {
    return (
      <main id="main" className="sign-in">
        <p role="status">Checking whether you are signed in…</p>
      </main>
    );
  }
  // a recovery link is followed signed in or not: its new passkey's session replaces every other of the person
  if (!session || !credentials || route.screen === 'recovery') {
    return (
      <SignIn
        // an invitation link says why a sign-in is asked for, whatever an earlier sign-out in the tab said
        notice={route.screen === 'invitation' ? 'Sign in to accept the invitation.' : notice}
        secondFactor={secondFactor}
        invitation={route.screen === 'invitation' ? route.token : undefined}
        recovery={route.screen === 'recovery' ? route.token : undefined}
        onJoined={() => {
          // the invitation is taken: the session is the new member's, in the account invited to (the header says
          // which, and the role); the zones are the first screen
          sessionStorage.removeItem(INVITATION_STORAGE);
          location.hash = '#/';
          setNotice(null);
          setCredentials(undefined);
        }}
        onSignIn={(newKey) => {
          sessionStorage.setItem(KEY_STORAGE, newKey);
          setNotice(null);
          setCredentials({ kind: 'key', key: newKey });
        }}
        onSession={() => {
          setNotice(null);
          setCredentials(undefined);
        }}
      />
    );
  }
  const signOutSession = async (everywhere: boolean) => {
    // the cookie is HttpOnly: the service ends the session and clears it (POST /auth/sign-out)
    await postAuth('/auth/sign-out').catch(() => undefined);
    signOut(everywhere ? 'Signed out on every device.' : 'Signed out.');
  };
  return (
    <Provider value={session.client}>
      <Shell
        kind={credentials.kind}
        onSignOut={() =>
          credentials.kind === 'key' ? signOut('Signed out. The key was forgotten by this tab.') : void signOutSession(false)
        }
        onSignedOutEverywhere={() => void signOutSession(true)}
        onSwitched={() => setGeneration((g) => g + 1)}
      />
    </Provider>
  );
}

/** who the console acts as (identity.tsx): `me` for a person; for a key, its user when it sees just one */
function useIdentityOf(kind: 'key' | 'session') {
  const [me, refetchMe] = useQuery({ query: MeDocument, requestPolicy: 'network-only', pause: kind !== 'session' });
  const [users] = useQuery({ query: ZoneOwnersDocument, variables: { first: 2 }, pause: kind !== 'key' });
  // the admin key lists keys without a user (its own); a user key only its user's
  const [keys] = useQuery({ query: ApiKeysDocument, variables: {}, pause: kind !== 'key' });
  let identity: Identity;
  if (kind === 'session') {
    const m = me.data?.me;
    identity = {
      kind,
      accountId: m?.accountId ?? null,
      role: m?.role ?? null,
      email: m?.email ?? null,
      memberships: m?.memberships ?? [],
      admin: false,
      operator: false,
    };
  } else {
    const admin = !!keys.data?.apiKeys.some((k) => k.userId === null);
    const only = users.data?.users.totalCount === 1 ? users.data.users.nodes[0] : undefined;
    identity = { kind, accountId: !admin && only ? only.id : null, role: null, email: null, memberships: [], admin, operator: admin };
  }
  return { identity, refetchMe };
}

function AccountSwitcher({ identity, onSwitched }: { identity: Identity; onSwitched: (accountEmail: string) => void }) {
  const [{ fetching }, switchAccount] = useMutation(SwitchAccountDocument);
  const [problem, setProblem] = useState<string | null>(null);
  if (identity.memberships.length < 2) {
    const only = identity.memberships[0];
    return only ? (
      <span className="account-name">
        {only.accountEmail} · {roleWords(only.role)}
      </span>
    ) : null;
  }
  return (
    <span className="account-switcher">
      <label htmlFor="account-switcher">Account</label>
      <select
        id="account-switcher"
        value={identity.accountId ?? ''}
        disabled={fetching}
        onChange={async (e) => {
          const userId = e.target.value;
          const result = await switchAccount({ userId });
          if (result.error) return setProblem(describeError(result.error));
          setProblem(null);
          onSwitched(identity.memberships.find((m) => m.userId === userId)?.accountEmail ?? userId);
        }}
      >
        {identity.accountId === null && <option value="">Choose an account</option>}
        {identity.memberships.map((m) => (
          <option key={m.userId} value={m.userId}>
            {m.accountEmail} ({roleWords(m.role)})
          </option>
        ))}
      </select>
      {problem && (
        <span role="alert" className="field-error">
          {problem}
        </span>
      )}
    </span>
  );
}

function Shell({
  kind,
  onSignOut,
  onSignedOutEverywhere,
  onSwitched,
}: {
  kind: 'key' | 'session';
  onSignOut: () => void;
  onSignedOutEverywhere: () => void;
  onSwitched: () => void;
}) {
  const route = useRoute();
  const { identity: who, refetchMe } = useIdentityOf(kind);
  // what the caller may do, as the API decides it (a key without mayManageKeys is offered no Keys screen)
  const [viewer] = useQuery({ query: ViewerDocument });
  // the operator's screens, for the admin key and an operator person alike: the API's word (viewer.can.administer)
  const identity: Identity = { ...who, operator: who.admin || !!viewer.data?.viewer.can.administer };
  const [switched, setSwitched] = useState<string | null>(null);
  // the key is checked once at sign-in; a refused key signs out (client.ts), an outage is shown here
  const [check, retry] = useQuery({ query: WhoAmIDocument, requestPolicy: 'network-only' });
  // once the key was accepted, a later failure of this check (the query runs again when the cache asks) is an
  // outage each screen shows where it meets it, not a reason to hide them all
  const [accepted, setAccepted] = useState(false);
  useEffect(() => {
    if (check.data) setAccepted(true);
  }, [check.data]);
  const titles: Record<string, string> = {
    keys: 'API and TSIG keys',
    webhooks: 'Webhooks',
    sets: 'Nameserver sets',
    members: 'Members',
    account: 'Your sign-in',
    invitation: 'Invitation',
    search: 'Search',
    admin: 'Administration',
    audit: 'Audit log',
  };
  useEffect(() => {
    document.title = route.screen === 'zone' ? `${route.zone} · Zonekeeper` : `${titles[route.screen] ?? 'Zones'} · Zonekeeper`;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [route]);
  const current = (screen: Route['screen']) => (route.screen === screen ? 'page' : undefined);
  return (
    <IdentityContext.Provider value={identity}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <a className="brand" href="#/">
          Zonekeeper
        </a>
        <nav aria-label="Main">
          <a href="#/" aria-current={current('zones')}>
            Zones
          </a>
          {/* API keys and TSIG keys (a zone's DNSSEC keys are on its DNSSEC tab): for who may manage them */}
          {viewer.data?.viewer.can.manageKeys && (
            <a href="#/keys" aria-current={current('keys')}>
              API &amp; TSIG keys
            </a>
          )}
          {/* every member and key keeps its account's webhooks (docs/events.md); a sign-in in no account has none */}
          {(identity.accountId || identity.admin) && (
            <a href="#/webhooks" aria-current={current('webhooks')}>
              Webhooks
            </a>
          )}
          {identity.operator && (
            <a href="#/nameserver-sets" aria-current={current('sets')}>
              Nameserver sets
            </a>
          )}
          {/* the operator's screens: the API answers them to the operator alone (the admin key, an operator person) */}
          {identity.operator && (
            <a href="#/admin" aria-current={current('admin')}>
              Administration
            </a>
          )}
          {identity.operator && (
            <a href="#/audit" aria-current={current('audit')}>
              Audit log
            </a>
          )}
          {identity.accountId && (
            <a href="#/members" aria-current={current('members')}>
              Members
            </a>
          )}
          {kind === 'session' && (
            <a href="#/account" aria-current={current('account')}>
              Your sign-in
            </a>
          )}
          <a href="/graphql">GraphiQL</a>
        </nav>
        <SearchBox current={route.screen === 'search' ? route.query : ''} />
        {kind === 'session' && (
          <AccountSwitcher
            identity={identity}
            onSwitched={(accountEmail) => {
              setSwitched(`Now acting in the account ${accountEmail}.`);
              onSwitched();
            }}
          />
        )}
        {identity.email && <span className="person">{identity.email}</span>}
        <button type="button" className="secondary" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <p role="status" className="sr-only">
        {switched}
      </p>
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p role="status">Loading…</p>}>
          {check.error && !accepted ? (
            <LoadFailure message={describeError(check.error)} onRetry={() => retry({ requestPolicy: 'network-only' })} />
          ) : !accepted && !check.data ? (
            // the screens wait for the key's check, so that a later failure of it is never taken for the first
            <p role="status">{kind === 'key' ? 'Checking the key…' : 'Loading…'}</p>
          ) : route.screen === 'keys' ? (
            <Keys />
          ) : route.screen === 'webhooks' ? (
            <Webhooks />
          ) : route.screen === 'sets' ? (
            <NameserverSets />
          ) : route.screen === 'search' ? (
            <SearchResults query={route.query} />
          ) : route.screen === 'admin' && identity.operator ? (
            <Administration />
          ) : route.screen === 'audit' && identity.operator ? (
            <AuditLog />
          ) : route.screen === 'members' ? (
            <Members />
          ) : route.screen === 'account' ? (
            <Account onSignedOutEverywhere={onSignedOutEverywhere} />
          ) : route.screen === 'invitation' ? (
            <AcceptInvitation token={route.token} onAccepted={() => refetchMe({ requestPolicy: 'network-only' })} />
          ) : route.screen === 'zone' ? (
            <ZonePage key={route.zone} zone={route.zone} tab={route.tab} />
          ) : (
            <ZoneList />
          )}
        </Suspense>
      </main>
    </IdentityContext.Provider>
  );
}
