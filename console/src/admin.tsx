import { FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError } from './errors';
import {
  AdminUsersDocument,
  ApiKeysDocument,
  AuditEventsDocument,
  GrantOperatorDocument,
  MembersDocument,
  MoveZoneDocument,
  OperatorsDocument,
  RevokeApiKeyDocument,
  RevokeOperatorDocument,
} from './generated/graphql';
import { roleWords, when } from './identity';
import { RevokeButton } from './keys';
import { ListState } from './list-state';

const PAGE_SIZE = 50;

/**
 * The operator's administration (the admin key, or an operator person; docs/console.md, «Administration»): every account (user) with
 * its zones and quotas; one account opened shows its members and roles, its API keys (revoked here) and moves a
 * zone into it (moveZone, audited); and the operator persons, granted and revoked here. The API refuses all of it
 * to anyone else: the screen is not offered to them.
 */
export function Administration() {
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  const [emailText, setEmailText] = useState('');
  const [email, setEmail] = useState<string | null>(null);
  const [opened, setOpened] = useState<{ id: string; email: string } | null>(null);
  const [result] = useQuery({
    query: AdminUsersDocument,
    variables: { first: PAGE_SIZE, after, email },
    requestPolicy: 'cache-and-network',
  });
  const users = result.data?.users;
  const find = (event: FormEvent) => {
    event.preventDefault();
    setCursors([]);
    setEmail(emailText.trim() || null);
  };
  return (
    <section aria-labelledby="admin-title">
      <h1 id="admin-title">Administration</h1>
      <p className="hint">
        Every account, its zones and quotas. Open one for its members, its API keys and to move a zone into it. The audit log is on{' '}
        <a href="#/audit">its own screen</a>.
      </p>
      <form className="toolbar" role="search" aria-label="Accounts" onSubmit={find}>
        <label htmlFor="admin-user-email">Account e-mail</label>
        <input id="admin-user-email" type="search" value={emailText} onChange={(e) => setEmailText(e.target.value)} />
        <button type="submit">Find</button>
      </form>
      {users && (
        <p role="status">
          {users.totalCount.toLocaleString('en')} account{users.totalCount === 1 ? '' : 's'}
        </p>
      )}
      <ListState
        error={result.error}
        loaded={!!users}
        what="accounts"
        empty={users?.nodes.length === 0 && 'No account.'}
        labelledBy="admin-title"
      >
        <table className="admin-users">
          <thead>
            <tr>
              <th scope="col">Account</th>
              <th scope="col">Zones</th>
              <th scope="col">Zone quota</th>
              <th scope="col">Records per zone</th>
              <th scope="col">Rate</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {users?.nodes.map((u) => (
              <tr key={u.id}>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-expanded={opened?.id === u.id}
                    onClick={() => setOpened(opened?.id === u.id ? null : { id: u.id, email: u.email })}
                  >
                    {u.email}
                  </button>
                </td>
                <td className="num">{u.domainsConnection.totalCount.toLocaleString('en')}</td>
                <td className="num">
                  {u.limits.effective.maxZones.toLocaleString('en')}
                  {u.limits.maxZones === null ? ' (default)' : ''}
                </td>
                <td className="num">
                  {u.limits.effective.maxRecordsPerZone.toLocaleString('en')}
                  {u.limits.maxRecordsPerZone === null ? ' (default)' : ''}
                </td>
                <td>
                  {u.limits.effective.ratePerSecond === 0
                    ? 'unlimited'
                    : `${u.limits.effective.ratePerSecond}/s, burst ${u.limits.effective.rateBurst}`}
                </td>
                <td>{when(u.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {users && (users.pageInfo.hasNextPage || cursors.length > 0) && (
        <nav className="pager" aria-label="Account pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <button type="button" disabled={!users.pageInfo.hasNextPage} onClick={() => setCursors([...cursors, users.pageInfo.endCursor])}>
            Next
          </button>
        </nav>
      )}
      {opened && <AccountDetail key={opened.id} userId={opened.id} email={opened.email} />}
      <Operators />
    </section>
  );
}

/**
 * The operator persons (docs/people.md, «The operator»): each with how they became one (by hand, or by their
 * OpenID Connect sign-in's claim) and since when; one made an operator by e-mail address, one revoked (oneself
 * too: the admin key always remains). Counts from the person's next request.
 */
function Operators() {
  const [list, refetch] = useQuery({ query: OperatorsDocument, requestPolicy: 'cache-and-network' });
  const [{ fetching: granting }, grant] = useMutation(GrantOperatorDocument);
  const [, revoke] = useMutation(RevokeOperatorDocument);
  const [person, setPerson] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const operators = list.data?.operators ?? [];
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await grant({ person: person.trim() });
    if (result.error) {
      setProblem(describeError(result.error));
      return;
    }
    setProblem(null);
    setPerson('');
    setNote(`${result.data!.grantOperator.email} is an operator.`);
    reload();
  };
  return (
    <section className="panel" aria-labelledby="operators-title">
      <h2 id="operators-title">Operators</h2>
      <p className="hint">
        People who administer every account from the console, as the admin key does. A change counts from their next request.
      </p>
      {note && (
        <p role="status" className="ok-box">
          {note}
        </p>
      )}
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="operators"
        empty={operators.length === 0 && 'No operator person: the admin key alone.'}
        labelledBy="operators-title"
      >
        <table className="operators">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Granted</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span className="sr-only">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {operators.map((o) => (
              <tr key={o.personId}>
                <td>{o.email}</td>
                <td>{o.grant === 'OIDC' ? 'by their sign-in (OpenID Connect)' : 'by hand'}</td>
                <td>{when(o.since)}</td>
                <td>
                  <RevokeButton
                    label={o.email}
                    onRevoke={async () => {
                      const result = await revoke({ person: o.personId });
                      setNote(result.error ? describeError(result.error) : `${o.email} is no operator any more.`);
                      reload();
                    }}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      <form onSubmit={submit} noValidate aria-labelledby="operator-grant-title">
        <h3 id="operator-grant-title">Make a person an operator</h3>
        <div className="field">
          <label htmlFor="operator-grant-person">Person’s e-mail address</label>
          <input
            id="operator-grant-person"
            type="email"
            value={person}
            autoComplete="off"
            aria-invalid={!!problem || undefined}
            aria-describedby={problem ? 'operator-grant-error' : 'operator-grant-hint'}
            onChange={(e) => setPerson(e.target.value)}
          />
          <p id="operator-grant-hint" className="hint">
            Someone who has signed in once, or joined an account by an invitation.
          </p>
          {problem && (
            <p id="operator-grant-error" className="field-error">
              {problem}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="submit" disabled={granting || !person.trim()}>
            Make operator
          </button>
        </div>
      </form>
    </section>
  );
}

/** one account: its members and their roles, its API keys, and a zone moved into it */
function AccountDetail({ userId, email }: { userId: string; email: string }) {
  const [members] = useQuery({ query: MembersDocument, variables: { userId }, requestPolicy: 'cache-and-network' });
  const [keys, refetchKeys] = useQuery({ query: ApiKeysDocument, variables: { userId }, requestPolicy: 'cache-and-network' });
  const [, revoke] = useMutation(RevokeApiKeyDocument);
  const [{ fetching: moving }, move] = useMutation(MoveZoneDocument);
  const [zone, setZone] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const memberList = members.data?.members ?? [];
  const keyList = keys.data?.apiKeys ?? [];
  const submitMove = async (event: FormEvent) => {
    event.preventDefault();
    const name = zone.trim();
    const result = await move({ zone: name, toUserId: userId });
    if (result.error) {
      setProblem(describeError(result.error));
      return;
    }
    setProblem(null);
    setZone('');
    setNote(`Moved the zone ${name} to ${email}.`);
  };
  return (
    <section className="panel" aria-labelledby="account-detail-title">
      <h2 id="account-detail-title">{email}</h2>
      {note && (
        <p role="status" className="ok-box">
          {note}
        </p>
      )}
      <h3 id="account-members-title">Members</h3>
      <ListState
        error={members.error}
        loaded={!!members.data}
        what="members"
        empty={memberList.length === 0 && 'No member: the account is used by its keys only.'}
        labelledBy="account-members-title"
      >
        <table className="members">
          <thead>
            <tr>
              <th scope="col">Person</th>
              <th scope="col">Role</th>
              <th scope="col">Zones</th>
            </tr>
          </thead>
          <tbody>
            {memberList.map((m) => (
              <tr key={m.personId}>
                <td>{m.email}</td>
                <td>{roleWords(m.role)}</td>
                <td>{m.zones ? m.zones.join(', ') : 'every zone'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      <h3 id="account-keys-title">API keys</h3>
      <ListState
        error={keys.error}
        loaded={!!keys.data}
        what="keys"
        empty={keyList.length === 0 && 'No API key.'}
        labelledBy="account-keys-title"
      >
        <table className="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keyList.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{k.lastUsedAt ? when(k.lastUsedAt) : 'Never'}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${when(k.revokedAt)}`
                  ) : (
                    <RevokeButton
                      label={k.name}
                      onRevoke={async () => {
                        const result = await revoke({ id: k.id });
                        setNote(result.error ? describeError(result.error) : `Revoked the API key ${k.name}.`);
                        refetchKeys({ requestPolicy: 'network-only' });
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      <form onSubmit={submitMove} noValidate aria-labelledby="account-move-title">
        <h3 id="account-move-title">Move a zone into this account</h3>
        <div className="field">
          <label htmlFor="account-move-zone">Zone name</label>
          <input
            id="account-move-zone"
            value={zone}
            autoComplete="off"
            aria-invalid={!!problem || undefined}
            aria-describedby={problem ? 'account-move-error' : undefined}
            onChange={(e) => setZone(e.target.value)}
          />
          {problem && (
            <p id="account-move-error" className="field-error">
              {problem}
            </p>
          )}
        </div>
        <div className="actions">
          <button type="submit" disabled={moving || !zone.trim()}>
            Move the zone
          </button>
        </div>
      </form>
    </section>
  );
}

/** a date-time field's value (local time) as ISO, or null when empty */
const isoOf = (local: string): string | null => (local ? new Date(local).toISOString() : null);

/**
 * The audit log (auditEvents, newest first, paged by the server), filtered by zone, actor (a person's e-mail or a
 * key's name), action (the event's kind) and a time range; the admin key's alone.
 */
export function AuditLog() {
  const [draft, setDraft] = useState({ zone: '', actor: '', kind: '', since: '', until: '' });
  const [filter, setFilter] = useState(draft);
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  const [result] = useQuery({
    query: AuditEventsDocument,
    variables: {
      first: PAGE_SIZE,
      after,
      zone: filter.zone.trim() || null,
      actor: filter.actor.trim() || null,
      kind: filter.kind.trim() || null,
      since: isoOf(filter.since),
      until: isoOf(filter.until),
    },
    requestPolicy: 'cache-and-network',
  });
  const events = result.data?.auditEvents;
  const field = (name: keyof typeof draft, label: string, type = 'text') => (
    <div className="field">
      <label htmlFor={`audit-${name}`}>{label}</label>
      <input id={`audit-${name}`} type={type} value={draft[name]} onChange={(e) => setDraft({ ...draft, [name]: e.target.value })} />
    </div>
  );
  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <form
        className="panel"
        aria-label="Filters"
        onSubmit={(event) => {
          event.preventDefault();
          setCursors([]);
          setFilter(draft);
        }}
      >
        <div className="form-grid">
          {field('zone', 'Zone')}
          {field('actor', 'Actor (e-mail, or an API or TSIG key’s name)')}
          {field('kind', 'Action (e.g. api-key-revoked)')}
          {field('since', 'From', 'datetime-local')}
          {field('until', 'Until', 'datetime-local')}
        </div>
        <div className="actions">
          <button type="submit">Filter</button>
        </div>
      </form>
      {events && (
        <p role="status">
          {events.totalCount.toLocaleString('en')} event{events.totalCount === 1 ? '' : 's'}
        </p>
      )}
      <ListState
        error={result.error}
        loaded={!!events}
        what="the audit log"
        empty={events?.nodes.length === 0 && 'No event matches.'}
        labelledBy="audit-title"
      >
        <table className="audit-events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Action</th>
              <th scope="col">Subject</th>
              <th scope="col">Actor</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {events?.nodes.map((e) => (
              <tr key={e.id}>
                <td>{when(e.at)}</td>
                <td>
                  {e.kind}
                  {e.count > 1 ? ` ×${e.count}` : ''}
                </td>
                <td className="mono">{e.subject ?? ''}</td>
                <td>{e.actorEmail ?? e.actorKeyName ?? (e.actorAdmin ? 'admin' : '')}</td>
                <td className="mono">{e.sourceAddress ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {events && (events.pageInfo.hasNextPage || cursors.length > 0) && (
        <nav className="pager" aria-label="Audit log pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <button type="button" disabled={!events.pageInfo.hasNextPage} onClick={() => setCursors([...cursors, events.pageInfo.endCursor])}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
