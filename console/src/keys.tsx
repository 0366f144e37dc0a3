import { FormEvent, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { ListState } from './list-state';
import { describeError, errorDetails, leafField } from './errors';
import {
  ApiKeysDocument,
  CreateApiKeyDocument,
  CreateTsigKeyDocument,
  KeyPolicyFieldsFragment,
  KeyPolicyInput,
  KeyPreset,
  PolicyAccess,
  RevokeApiKeyDocument,
  RevokeTsigKeyDocument,
  TsigKeysDocument,
} from './generated/graphql';
import { useIdentity, useViewerCan, when } from './identity';
import { SecretOnce } from './secret-once';

export function RevokeButton({ label, onRevoke }: { label: string; onRevoke: () => void }) {
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

const PRESET_WORDS: Record<KeyPreset, string> = {
  READ_ONLY: 'Read only',
  ONE_ZONE: 'One zone',
  ACME: 'ACME challenges (TXT under _acme-challenge)',
};

/** a rule in words: "Write TXT, A at app.* in example.com" */
function ruleWords(rule: NonNullable<KeyPolicyFieldsFragment['rules']>[number]): string {
  const access = rule.access === 'WRITE' ? 'Write' : 'Read';
  const types = rule.types?.length ? rule.types.join(', ') : 'every type';
  const owner = rule.owner ? ` at ${rule.owner}` : '';
  const zone = rule.zone ? ` in ${rule.zone}` : ' in every zone';
  return `${access} ${types}${owner}${zone}`;
}

/** What a key may do (docs/least-privilege.md), as a list a person reads: preset, rules, flags, expiry, networks. */
export function PolicySummary({ policy }: { policy: KeyPolicyFieldsFragment }) {
  const lines: string[] = [];
  if (!policy.restricted) lines.push('Everything its account may do');
  else {
    if (policy.preset) lines.push(`Preset: ${PRESET_WORDS[policy.preset]}`);
    for (const rule of policy.rules ?? []) lines.push(ruleWords(rule));
    if (!policy.rules?.length) lines.push('No rule: it may touch no record');
    const flags = [
      policy.mayCreateZones && 'create zones',
      policy.mayDeleteZones && 'delete zones',
      policy.mayManageKeys && 'manage API and TSIG keys',
    ].filter(Boolean);
    if (flags.length) lines.push(`May ${flags.join(', ')}`);
  }
  if (policy.expiresAt) lines.push(`Expires ${when(policy.expiresAt)}`);
  if (policy.idleDays) lines.push(`Refused after ${policy.idleDays} days unused`);
  if (policy.allowedNetworks?.length) lines.push(`Only from ${policy.allowedNetworks.join(', ')}`);
  return (
    <ul className="policy">
      {lines.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
    </ul>
  );
}

interface RuleDraft {
  zone: string;
  owner: string;
  types: string;
  access: PolicyAccess;
}

interface PolicyDraft {
  /** UNRESTRICTED, a preset, or RULES (written by hand) */
  kind: 'UNRESTRICTED' | KeyPreset | 'RULES';
  zone: string;
  rules: RuleDraft[];
  mayCreateZones: boolean;
  mayDeleteZones: boolean;
  mayManageKeys: boolean;
  expiresAt: string;
  idleDays: string;
  networks: string;
}

/**
 * What the caller may give a new key, as the API answers it (`viewer.can`): a key without rules only from an
 * unrestricted caller, each flag only from one that has it (newKeyPolicy refuses more: FORBIDDEN_BY_POLICY).
 */
interface Grantable {
  unrestricted: boolean;
  mayCreateZones: boolean;
  mayDeleteZones: boolean;
  mayManageKeys: boolean;
}

/** a key that may do everything its account may: a restricted caller never revokes one (requireWithin) */
const UNRESTRICTED_NOT_YOURS = 'active (the account’s owner revokes it)';

/** a new key's form as it starts: everything the account may do where the caller may give that, else rules */
const emptyPolicy = (grantable: Grantable): PolicyDraft => ({
  ...EMPTY_POLICY,
  kind: grantable.unrestricted ? 'UNRESTRICTED' : 'RULES',
});

const EMPTY_POLICY: PolicyDraft = {
  kind: 'UNRESTRICTED',
  zone: '',
  rules: [{ zone: '', owner: '', types: '', access: 'WRITE' }],
  mayCreateZones: false,
  mayDeleteZones: false,
  mayManageKeys: false,
  expiresAt: '',
  idleDays: '',
  networks: '',
};

const words = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((w) => w.trim())
    .filter(Boolean);

/** the API's input (CreateApiKeyInput / CreateTsigKeyInput: preset, zone, policy) for what the form holds */
function policyInput(draft: PolicyDraft): { preset?: KeyPreset; zone?: string; policy?: KeyPolicyInput } {
  const policy: KeyPolicyInput = {};
  if (draft.kind === 'RULES') {
    policy.rules = draft.rules.map((r) => ({
      zone: r.zone.trim() || null,
      owner: r.owner.trim() || null,
      types: words(r.types.toUpperCase()).length ? words(r.types.toUpperCase()) : null,
      access: r.access,
    }));
    policy.mayCreateZones = draft.mayCreateZones;
    policy.mayDeleteZones = draft.mayDeleteZones;
    policy.mayManageKeys = draft.mayManageKeys;
  }
  if (draft.expiresAt) policy.expiresAt = new Date(draft.expiresAt).toISOString();
  if (draft.idleDays.trim()) policy.idleDays = Number(draft.idleDays.trim());
  if (draft.networks.trim()) policy.allowedNetworks = words(draft.networks);
  const preset = draft.kind !== 'UNRESTRICTED' && draft.kind !== 'RULES' ? draft.kind : undefined;
  return {
    ...(preset ? { preset, ...(draft.zone.trim() ? { zone: draft.zone.trim() } : {}) } : {}),
    ...(Object.keys(policy).length ? { policy } : {}),
  };
}

/**
 * The policy part of a new key's form: a preset (and its zone) or rules written by hand (zone, owner, types,
 * read or write; flags), and for any key an expiry, an idle limit and the networks it may be used from.
 */
function PolicyFields({
  idPrefix,
  draft,
  onChange,
  problems,
  grantable,
}: {
  idPrefix: string;
  draft: PolicyDraft;
  onChange: (draft: PolicyDraft) => void;
  problems: Record<string, string>;
  grantable: Grantable;
}) {
  const set = (patch: Partial<PolicyDraft>) => onChange({ ...draft, ...patch });
  const setRule = (i: number, patch: Partial<RuleDraft>) => set({ rules: draft.rules.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  const field = (name: string, label: string, input: JSX.Element, hint?: string) => (
    <div className="field">
      <label htmlFor={`${idPrefix}-${name}`}>{label}</label>
      {input}
      {hint && (
        <p id={`${idPrefix}-${name}-hint`} className="hint">
          {hint}
        </p>
      )}
      {problems[name] && (
        <p id={`${idPrefix}-${name}-error`} className="field-error">
          {problems[name]}
        </p>
      )}
    </div>
  );
  const described = (name: string, hint?: boolean) =>
    [hint ? `${idPrefix}-${name}-hint` : '', problems[name] ? `${idPrefix}-${name}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <>
      <div className="form-grid">
        {field(
          'access',
          'What it may do',
          <select id={`${idPrefix}-access`} value={draft.kind} onChange={(e) => set({ kind: e.target.value as PolicyDraft['kind'] })}>
            {grantable.unrestricted && <option value="UNRESTRICTED">Everything its account may do</option>}
            <option value="READ_ONLY">{PRESET_WORDS.READ_ONLY}</option>
            <option value="ONE_ZONE">{PRESET_WORDS.ONE_ZONE}</option>
            <option value="ACME">{PRESET_WORDS.ACME}</option>
            <option value="RULES">Rules I write</option>
          </select>,
        )}
        {(draft.kind === 'READ_ONLY' || draft.kind === 'ONE_ZONE' || draft.kind === 'ACME') &&
          field(
            'zone',
            draft.kind === 'ONE_ZONE' ? 'Zone' : 'Zone (empty: every zone)',
            <input
              id={`${idPrefix}-zone`}
              value={draft.zone}
              aria-invalid={!!problems.zone || undefined}
              aria-describedby={described('zone')}
              onChange={(e) => set({ zone: e.target.value })}
            />,
          )}
      </div>
      {draft.kind === 'RULES' && (
        <fieldset className="rules">
          <legend>Rules (a request is allowed when one rule allows it)</legend>
          {draft.rules.map((rule, i) => (
            <div className="form-grid rule" key={i} role="group" aria-label={`Rule ${i + 1}`}>
              <div className="field">
                <label htmlFor={`${idPrefix}-rule-${i}-access`}>Access</label>
                <select
                  id={`${idPrefix}-rule-${i}-access`}
                  value={rule.access}
                  onChange={(e) => setRule(i, { access: e.target.value as PolicyAccess })}
                >
                  <option value="WRITE">Read and write</option>
                  <option value="READ">Read only</option>
                </select>
              </div>
              <div className="field">
                <label htmlFor={`${idPrefix}-rule-${i}-zone`}>Zone</label>
                <input
                  id={`${idPrefix}-rule-${i}-zone`}
                  value={rule.zone}
                  placeholder="every zone"
                  onChange={(e) => setRule(i, { zone: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${idPrefix}-rule-${i}-owner`}>Names</label>
                <input
                  id={`${idPrefix}-rule-${i}-owner`}
                  value={rule.owner}
                  placeholder="any name"
                  aria-describedby={`${idPrefix}-owner-hint`}
                  onChange={(e) => setRule(i, { owner: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${idPrefix}-rule-${i}-types`}>Record types</label>
                <input
                  id={`${idPrefix}-rule-${i}-types`}
                  value={rule.types}
                  placeholder="every type"
                  onChange={(e) => setRule(i, { types: e.target.value })}
                />
              </div>
              <div className="field rule-remove">
                {draft.rules.length > 1 && (
                  <button
                    type="button"
                    className="small secondary"
                    aria-label={`Remove rule ${i + 1}`}
                    onClick={() => set({ rules: draft.rules.filter((_, j) => j !== i) })}
                  >
                    Remove
                  </button>
                )}
              </div>
            </div>
          ))}
          <p id={`${idPrefix}-owner-hint`} className="hint">
            Names are relative to the zone: <code>www</code>, <code>@</code> for the apex, <code>_acme-challenge.*</code> for that label at
            any depth. Record types separated by commas (A, AAAA, TXT).
          </p>
          {problems.rules && <p className="field-error">{problems.rules}</p>}
          <div className="actions">
            <button
              type="button"
              className="small secondary"
              onClick={() => set({ rules: [...draft.rules, { zone: '', owner: '', types: '', access: 'WRITE' }] })}
            >
              Add a rule
            </button>
          </div>
          <div className="checks">
            {grantable.mayCreateZones && (
              <label className="inline">
                <input type="checkbox" checked={draft.mayCreateZones} onChange={(e) => set({ mayCreateZones: e.target.checked })} /> May
                create zones
              </label>
            )}
            {grantable.mayDeleteZones && (
              <label className="inline">
                <input type="checkbox" checked={draft.mayDeleteZones} onChange={(e) => set({ mayDeleteZones: e.target.checked })} /> May
                delete zones
              </label>
            )}
            {grantable.mayManageKeys && (
              <label className="inline">
                <input type="checkbox" checked={draft.mayManageKeys} onChange={(e) => set({ mayManageKeys: e.target.checked })} /> May
                manage API and TSIG keys
              </label>
            )}
          </div>
        </fieldset>
      )}
      <div className="form-grid">
        {field(
          'expiresAt',
          'Expires (empty: never)',
          <input
            id={`${idPrefix}-expiresAt`}
            type="datetime-local"
            value={draft.expiresAt}
            aria-invalid={!!problems.expiresAt || undefined}
            aria-describedby={described('expiresAt')}
            onChange={(e) => set({ expiresAt: e.target.value })}
          />,
        )}
        {field(
          'idleDays',
          'Refused after this many days unused',
          <input
            id={`${idPrefix}-idleDays`}
            inputMode="numeric"
            value={draft.idleDays}
            placeholder="never"
            aria-invalid={!!problems.idleDays || undefined}
            aria-describedby={described('idleDays')}
            onChange={(e) => set({ idleDays: e.target.value })}
          />,
        )}
        {field(
          'allowedNetworks',
          'Networks it may be used from',
          <input
            id={`${idPrefix}-allowedNetworks`}
            value={draft.networks}
            placeholder="anywhere"
            aria-invalid={!!problems.allowedNetworks || undefined}
            aria-describedby={described('allowedNetworks', true)}
            onChange={(e) => set({ networks: e.target.value })}
          />,
          'Address blocks (CIDR) separated by commas, e.g. 192.0.2.0/24, 2001:db8::/32.',
        )}
      </div>
    </>
  );
}

/**
 * the service's problems by the form's field (policy.rules[2].zone → rules; policy.allowedNetworks[1] →
 * allowedNetworks, one field for the list; the rest by their leaf)
 */
function problemsOf(error: Parameters<typeof errorDetails>[0]): Record<string, string> {
  const found: Record<string, string> = {};
  for (const d of errorDetails(error)) {
    const key = /rules/.test(d.field) ? 'rules' : leafField(d.field.replace(/\[\d+\]$/, ''));
    found[key] = found[key] ? `${found[key]} ${d.message}` : d.message;
  }
  return Object.keys(found).length ? found : { form: describeError(error!) };
}

/**
 * API keys and TSIG keys (DNS UPDATE, RFC 2136) the signed-in key or person may manage: create (secret shown once),
 * revoke. Offered to who may manage them (`viewer.can.manageKeys`); anyone else who opens the address is told so,
 * and shown no form. A zone's DNSSEC keys are another thing, on its DNSSEC tab: the page says so.
 */
export function Keys() {
  const can = useViewerCan();
  const identity = useIdentity();
  if (!can) return <p role="status">Loading…</p>;
  const grantable: Grantable = {
    unrestricted: can.manageUnrestrictedKeys,
    mayCreateZones: can.createZone,
    mayDeleteZones: can.deleteZones,
    mayManageKeys: can.manageKeys,
  };
  return (
    <>
      <h1>API keys and TSIG keys</h1>
      <p className="hint">
        API keys let programs use the GraphQL, REST and PowerDNS APIs; TSIG keys sign DNS UPDATEs and zone transfers (nsupdate, certbot,
        lego). A zone’s DNSSEC signing keys are on its DNSSEC tab.
      </p>
      {can.manageKeys ? (
        <>
          <ApiKeys grantable={grantable} />
          <TsigKeys grantable={grantable} />
        </>
      ) : (
        <p className="empty">
          {identity.kind === 'session'
            ? 'Your role in this account does not let you see or make its API keys and TSIG keys: its owners and admins do.'
            : 'This API key may not see or make API keys and TSIG keys (it was made without “may manage keys”).'}
        </p>
      )}
    </>
  );
}

function ApiKeys({ grantable }: { grantable: Grantable }) {
  const identity = useIdentity();
  // a person lists the keys of the account acted in; a key, those it may manage
  const [list, refetch] = useQuery({
    query: ApiKeysDocument,
    variables: { userId: identity.kind === 'session' ? identity.accountId : null },
    requestPolicy: 'cache-and-network',
  });
  const [{ fetching }, create] = useMutation(CreateApiKeyDocument);
  const [, revoke] = useMutation(RevokeApiKeyDocument);
  const [name, setName] = useState('');
  const [userId, setUserId] = useState('');
  const [draft, setDraft] = useState<PolicyDraft>(() => emptyPolicy(grantable));
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [secret, setSecret] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const keys = list.data?.apiKeys ?? [];
  const ownUser = identity.accountId ?? keys.find((k) => k.userId)?.userId ?? '';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({
      input: { name: name.trim(), userId: (identity.admin && userId.trim()) || ownUser, ...policyInput(draft) },
    });
    if (result.error) {
      setProblems(problemsOf(result.error));
      return;
    }
    setProblems({});
    setName('');
    setDraft(emptyPolicy(grantable));
    setSecret(result.data!.createApiKey.secret);
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="keys"
        empty={keys.length === 0 && 'No API key yet.'}
        labelledBy="api-keys-title"
      >
        <table className="keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">What it may do</th>
              <th scope="col">Account</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>
                  <PolicySummary policy={k.policy} />
                </td>
                <td>
                  {k.userId === null
                    ? 'Admin'
                    : (identity.memberships.find((m) => m.userId === k.userId)?.accountEmail ?? `Account ${k.userId}`)}
                </td>
                <td>{k.lastUsedAt ? when(k.lastUsedAt) : 'Never'}</td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${when(k.revokedAt)}`
                  ) : k.userId === null ? (
                    k.origin === 'GENERATED_AT_FIRST_START' ? (
                      'active (generated at the first start)'
                    ) : (
                      'active (set by API_KEY)'
                    )
                  ) : !k.policy.restricted && !grantable.unrestricted ? (
                    UNRESTRICTED_NOT_YOURS
                  ) : (
                    <RevokeButton
                      label={k.name}
                      onRevoke={async () => {
                        const result = await revoke({ id: k.id });
                        setNote(result.error ? describeError(result.error) : `Revoked the API key ${k.name}.`);
                        refetch({ requestPolicy: 'network-only' });
                        nameField.current?.focus();
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {note && <p role="status">{note}</p>}
      {secret ? (
        <SecretOnce
          label="The new API key"
          secret={secret}
          onDone={() => {
            setSecret(null);
            // the form comes back: its first field takes the focus (the button that had it is gone)
            setTimeout(() => nameField.current?.focus());
          }}
        />
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
                ref={nameField}
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
            {identity.admin && (
              <div className="field">
                <label htmlFor="api-key-user">Account id</label>
                <input
                  id="api-key-user"
                  value={userId}
                  placeholder="the account it acts for"
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
            )}
          </div>
          <PolicyFields idPrefix="api-key" draft={draft} onChange={setDraft} problems={problems} grantable={grantable} />
          <div className="actions">
            <button type="submit" disabled={fetching}>
              Create API key
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

function TsigKeys({ grantable }: { grantable: Grantable }) {
  const identity = useIdentity();
  const [list, refetch] = useQuery({
    query: TsigKeysDocument,
    variables: { userId: identity.kind === 'session' ? identity.accountId : null },
    requestPolicy: 'cache-and-network',
  });
  const [, create] = useMutation(CreateTsigKeyDocument);
  const [, revoke] = useMutation(RevokeTsigKeyDocument);
  const [name, setName] = useState('');
  const [algorithm, setAlgorithm] = useState('hmac-sha256');
  const [userId, setUserId] = useState('');
  const [draft, setDraft] = useState<PolicyDraft>(() => emptyPolicy(grantable));
  const nameField = useRef<HTMLInputElement>(null);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [created, setCreated] = useState<{ secret: string; name: string; algorithm: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const keys = list.data?.tsigKeys ?? [];
  // Only the admin key may make a TSIG key without a user (any zone); a user's key or a person makes one of
  // their own account, and the API refuses one without that id ("needs the admin key"): the account comes from
  // who is signed in (identity.tsx), not from whatever keys happen to be listed.
  const ownUser = identity.admin ? null : identity.accountId;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const result = await create({
      input: { name: name.trim(), algorithm, userId: (identity.admin ? userId.trim() : '') || ownUser, ...policyInput(draft) },
    });
    if (result.error) {
      setProblems(problemsOf(result.error));
      return;
    }
    setProblems({});
    setName('');
    setDraft(emptyPolicy(grantable));
    const made = result.data!.createTsigKey;
    setCreated({ secret: made.secret, name: made.tsigKey.name, algorithm: made.tsigKey.algorithm });
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="tsig-keys-title">
      <h2 id="tsig-keys-title">TSIG keys (DNS UPDATE)</h2>
      <ListState
        error={list.error}
        loaded={!!list.data}
        what="keys"
        empty={keys.length === 0 && 'No TSIG key yet: create one to update zones with nsupdate, certbot or lego (RFC 2136).'}
        labelledBy="tsig-keys-title"
      >
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Algorithm</th>
              <th scope="col">What it may do</th>
              <th scope="col">Account</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.id}>
                <td className="mono">{k.name}</td>
                <td>{k.algorithm}</td>
                <td>
                  <PolicySummary policy={k.policy} />
                </td>
                <td>
                  {k.userId === null
                    ? 'Admin (any zone)'
                    : (identity.memberships.find((m) => m.userId === k.userId)?.accountEmail ?? `Account ${k.userId}`)}
                </td>
                <td>
                  {k.revokedAt ? (
                    `revoked ${new Date(k.revokedAt).toLocaleString('en')}`
                  ) : !k.policy.restricted && !grantable.unrestricted ? (
                    UNRESTRICTED_NOT_YOURS
                  ) : (
                    <RevokeButton
                      label={k.name}
                      onRevoke={async () => {
                        const result = await revoke({ id: k.id });
                        setNote(result.error ? describeError(result.error) : `Revoked the TSIG key ${k.name}.`);
                        refetch({ requestPolicy: 'network-only' });
                        nameField.current?.focus();
                      }}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {note && <p role="status">{note}</p>}
      {created ? (
        <>
          <SecretOnce
            label={`The secret of ${created.name}`}
            secret={created.secret}
            onDone={() => {
              setCreated(null);
              setTimeout(() => nameField.current?.focus());
            }}
          />
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
                ref={nameField}
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
            {identity.admin && (
              <div className="field">
                <label htmlFor="tsig-key-user">Account id (empty: an admin key, for any zone)</label>
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
            )}
          </div>
          <PolicyFields idPrefix="tsig-key" draft={draft} onChange={setDraft} problems={problems} grantable={grantable} />
          <div className="actions">
            <button type="submit">Create TSIG key</button>
          </div>
        </form>
      )}
    </section>
  );
}
