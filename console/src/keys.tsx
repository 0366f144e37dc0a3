import { FormEvent, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError, errorDetails, leafField } from './errors';
import {
  ApiKeysDocument,
  CreateApiKeyDocument,
  CreateTsigKeyDocument,
  RevokeApiKeyDocument,
  RevokeTsigKeyDocument,
  TsigKeysDocument,
} from './generated/graphql';

/** A secret the service returns once (it keeps only a hash): shown here once, with a field to copy it from. */
function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <div className="panel" role="status">
      <h3>{label}</h3>
      <p>Copy it now: the service keeps no copy, and it cannot be shown again.</p>
      <label htmlFor="new-secret">Secret</label>
      <input id="new-secret" className="mono secret" readOnly value={secret} onFocus={(e) => e.target.select()} />
      <div className="actions">
        <button type="button" className="secondary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

function fieldErrors(error: Parameters<typeof errorDetails>[0]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const d of errorDetails(error)) found[leafField(d.field)] = d.message;
  return found;
}

function RevokeButton({ label, onRevoke }: { label: string; onRevoke: () => void }) {
  const [confirming, setConfirming] = useState(false);
  return confirming ? (
    <>
      <button type="button" className="small danger" aria-label={`Confirm revoking ${label}`} onClick={onRevoke}>
        Confirm revoking
      </button>{' '}
      <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
        Cancel
      </button>
    </>
  ) : (
    <button type="button" className="small" aria-label={`Revoke ${label}`} onClick={() => setConfirming(true)}>
      Revoke
    </button>
  );
}

/** API keys and TSIG keys (DNS UPDATE, RFC 2136) the signed-in key may manage: create (secret shown once), revoke. */
export function Keys() {
  return (
    <>
      <h1>Keys</h1>
      <ApiKeys />
      <TsigKeys />
    </>
  );
}

function ApiKeys() {
  const [list, refetch] = useQuery({ query: ApiKeysDocument, requestPolicy: 'cache-and-network' });
  const [, create] = useMutation(CreateApiKeyDocument);
  const [, revoke] = useMutation(RevokeApiKeyDocument);
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const keys = list.data?.apiKeys ?? [];
  const ownUser = keys.find((k) => k.userId)?.userId ?? '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ input: { name: name.trim(), userId: userId.trim() || ownUser } });
    if (result.error) {
      const found = fieldErrors(result.error);
      setProblems(Object.keys(found).length ? found : { form: describeError(result.error) });
      return;
    }
    setProblems({});
    setName('');
    setSecret(result.data!.createApiKey.secret);
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      {list.error ? (
        <p role="alert" className="error-box">
          {describeError(list.error)}
        </p>
      ) : !list.data ? (
        <p aria-live="polite">Loading keys…</p>
      ) : keys.length === 0 ? (
        <p className="empty">No API key yet.</p>
      ) : (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">User</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>{k.userId ?? 'admin'}</td>
                  <td>{new Date(k.createdAt).toLocaleString('en')}</td>
                  <td>
                    {k.revokedAt ? (
                      `revoked ${new Date(k.revokedAt).toLocaleString('en')}`
                    ) : k.userId === null ? (
                      k.origin === 'GENERATED_AT_FIRST_START' ? (
                        'active (generated at the first start)'
                      ) : (
                        'active (set by API_KEY)'
                      )
                    ) : (
                      <RevokeButton
                        label={k.name}
                        onRevoke={async () => {
                          const result = await revoke({ id: k.id });
                          setNote(result.error ? describeError(result.error) : `Revoked the API key ${k.name}.`);
                          refetch({ requestPolicy: 'network-only' });
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      {secret ? (
        <SecretOnce label="The new API key" secret={secret} onDone={() => setSecret(null)} />
      ) : (
        <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-api-key-title">
          <h3 id="new-api-key-title">New API key</h3>
          {problems.form && (
            <p role="alert" className="error-box">
              {problems.form}
            </p>
          )}
          <div className="form-grid">
            <div className="field">
              <label htmlFor="api-key-name">Name</label>
              <input
                id="api-key-name"
                value={name}
                aria-invalid={!!problems.name || undefined}
                aria-describedby={problems.name ? 'api-key-name-error' : undefined}
                onChange={(e) => setName(e.target.value)}
              />
              {problems.name && (
                <p id="api-key-name-error" className="field-error">
                  {problems.name}
                </p>
              )}
            </div>
            <div className="field">
              <label htmlFor="api-key-user">User id</label>
              <input
                id="api-key-user"
                value={userId}
                placeholder={ownUser || 'the user it acts for'}
                aria-invalid={!!problems.userId || undefined}
                aria-describedby={problems.userId ? 'api-key-user-error' : undefined}
                onChange={(e) => setUserId(e.target.value)}
              />
              {problems.userId && (
                <p id="api-key-user-error" className="field-error">
                  {problems.userId}
                </p>
              )}
            </div>
          </div>
          <div className="actions">
            <button type="submit">Create API key</button>
          </div>
        </form>
      )}
    </section>
  );
}

function TsigKeys() {
  const [list, refetch] = useQuery({ query: TsigKeysDocument, requestPolicy: 'cache-and-network' });
  const [, create] = useMutation(CreateTsigKeyDocument);
  const [, revoke] = useMutation(RevokeTsigKeyDocument);
  const [name, setName] = useState('');
  const [algorithm, setAlgorithm] = useState('hmac-sha256');
  const [userId, setUserId] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<{ secret: string; name: string; algorithm: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const keys = list.data?.tsigKeys ?? [];
  // A user key may only make TSIG keys of its own user, and the API refuses one without a userId ("needs the admin
  // key"): a user key sees only its own user's API keys, so when every key listed has that user, it is ours.
  const [apiKeys] = useQuery({ query: ApiKeysDocument, requestPolicy: 'cache-first' });
  const listed = apiKeys.data?.apiKeys ?? [];
  const ownUser = listed.length && listed.every((k) => k.userId === listed[0].userId) ? (listed[0].userId ?? null) : null;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({ input: { name: name.trim(), algorithm, userId: userId.trim() || ownUser } });
    if (result.error) {
      const found = fieldErrors(result.error);
      setProblems(Object.keys(found).length ? found : { form: describeError(result.error) });
      return;
    }
    setProblems({});
    setName('');
    const made = result.data!.createTsigKey;
    setCreated({ secret: made.secret, name: made.tsigKey.name, algorithm: made.tsigKey.algorithm });
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="tsig-keys-title">
      <h2 id="tsig-keys-title">TSIG keys (DNS UPDATE)</h2>
      {list.error ? (
        <p role="alert" className="error-box">
          {describeError(list.error)}
        </p>
      ) : !list.data ? (
        <p aria-live="polite">Loading keys…</p>
      ) : keys.length === 0 ? (
        <p className="empty">No TSIG key yet: create one to update zones with nsupdate, certbot or lego (RFC 2136).</p>
      ) : (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Algorithm</th>
                <th scope="col">User</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td className="mono">{k.name}</td>
                  <td>{k.algorithm}</td>
                  <td>{k.userId ?? 'admin (any zone)'}</td>
                  <td>
                    {k.revokedAt ? (
                      `revoked ${new Date(k.revokedAt).toLocaleString('en')}`
                    ) : (
                      <RevokeButton
                        label={k.name}
                        onRevoke={async () => {
                          const result = await revoke({ id: k.id });
                          setNote(result.error ? describeError(result.error) : `Revoked the TSIG key ${k.name}.`);
                          refetch({ requestPolicy: 'network-only' });
                        }}
                      />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {note && <p role="status">{note}</p>}
      {created ? (
        <>
          <SecretOnce label={`The secret of ${created.name}`} secret={created.secret} onDone={() => setCreated(null)} />
          <p className="hint mono">
            nsupdate -y {created.algorithm}:{created.name}:&lt;secret&gt;
          </p>
        </>
      ) : (
        <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-tsig-key-title">
          <h3 id="new-tsig-key-title">New TSIG key</h3>
          {problems.form && (
            <p role="alert" className="error-box">
              {problems.form}
            </p>
          )}
          <div className="form-grid">
            <div className="field">
              <label htmlFor="tsig-key-name">Key name (a domain name)</label>
              <input
                id="tsig-key-name"
                value={name}
                placeholder="certbot.example.com"
                aria-invalid={!!problems.name || undefined}
                aria-describedby={problems.name ? 'tsig-key-name-error' : undefined}
                onChange={(e) => setName(e.target.value)}
              />
              {problems.name && (
                <p id="tsig-key-name-error" className="field-error">
                  {problems.name}
                </p>
              )}
            </div>
            <div className="field">
              <label htmlFor="tsig-key-algorithm">Algorithm</label>
              <select id="tsig-key-algorithm" value={algorithm} onChange={(e) => setAlgorithm(e.target.value)}>
                <option>hmac-sha256</option>
                <option>hmac-sha384</option>
                <option>hmac-sha512</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor="tsig-key-user">User id (empty: an admin key, for any zone)</label>
              <input
                id="tsig-key-user"
                value={userId}
                aria-invalid={!!problems.userId || undefined}
                aria-describedby={problems.userId ? 'tsig-key-user-error' : undefined}
                onChange={(e) => setUserId(e.target.value)}
              />
              {problems.userId && (
                <p id="tsig-key-user-error" className="field-error">
                  {problems.userId}
                </p>
              )}
            </div>
          </div>
          <div className="actions">
            <button type="submit">Create TSIG key</button>
          </div>
        </form>
      )}
    </section>
  );
}
