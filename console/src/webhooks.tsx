import { FormEvent, RefObject, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { ListState } from './list-state';
import { describeError, errorDetails, leafField } from './errors';
import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  RedeliverWebhookDocument,
  RotateWebhookSecretDocument,
  ViewerDocument,
  WebhookDeliveriesDocument,
  type WebhookFieldsFragment,
  WebhooksDocument,
} from './generated/graphql';
import { useIdentity, when } from './identity';
import { SecretOnce } from './secret-once';
import { zoneList } from './names';

/** the event types a subscription may name (docs/events.md, «Event types»); none picked: every type */
const EVENT_TYPES = [
  'zone.created',
  'zone.changed',
  'zone.deleted',
  'zone.moved',
  'zone.propagated',
  'zone.transfer_failed',
  'zone.expired',
  'dnssec.ds_required',
  'dnssec.ds_removable',
  'dnssec.key_rolled',
  'dnssec.key_step',
  'health.changed',
  'steering.changed',
  'steering.panic',
  'webhook.disabled',
] as const;

/** how often an open list of deliveries is read again: they move on their own (the worker's attempts) */
const DELIVERIES_POLL_MS = 5000;

/**
 * The account's webhook subscriptions (docs/events.md): listed with their URL, event types and state; one added
 * (its signing secret shown once), its secret rotated (the new one shown once; each previous one signs too for a
 * while), one deleted after a confirmation, and each one's recent deliveries, each redelivered on demand. Every
 * member of an account, and every key, sees the webhooks of its account (the API answers only those, and only the
 * events the caller may read); a sign-in that acts in no account has none. Adding, rotating, deleting and
 * redelivering are offered as `viewer { can { manageWebhooks } }` says: a viewer changes nothing, so keeps none.
 */
export function Webhooks() {
  const identity = useIdentity();
  if (!identity.accountId && !identity.admin)
    return <p className="empty">This sign-in acts in no account: there are no webhooks to show.</p>;
  return <WebhookScreen />;
}

function WebhookScreen() {
  const [list, refetch] = useQuery({ query: WebhooksDocument, requestPolicy: 'cache-and-network' });
  // what the API allows this caller (the shell asked it already: the cache answers)
  const [viewer] = useQuery({ query: ViewerDocument });
  const manages = viewer.data?.viewer.can.manageWebhooks === true;
  const [secret, setSecret] = useState<{ label: string; secret: string } | null>(null);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [shown, setShown] = useState<string | null>(null);
  const urlField = useRef<HTMLInputElement>(null);
  const webhooks = list.data?.webhooks ?? [];
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const selected = webhooks.find((w) => w.id === shown);

  return (
    <>
      <h1>Webhooks</h1>
      <p className="hint">
        Zonekeeper posts each event of your zones to these URLs, signed with the subscription’s secret (Standard Webhooks), and retries what
        fails.
      </p>
      <section aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Subscriptions</h2>
        <ListState
          error={list.error}
          loaded={!!list.data}
          what="webhooks"
          empty={webhooks.length === 0 && 'No webhook yet.'}
          labelledBy="webhooks-title"
        >
          <table className="webhooks">
            <thead>
              <tr>
                <th scope="col">URL</th>
                <th scope="col">Events</th>
                <th scope="col">Zones</th>
                <th scope="col">State</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <WebhookRow
                  key={w.id}
                  webhook={w}
                  manages={manages}
                  deliveriesShown={shown === w.id}
                  onToggleDeliveries={() => setShown(shown === w.id ? null : w.id)}
                  onSecret={(s) => setSecret({ label: `The new signing secret of ${w.url}`, secret: s })}
                  onNote={setNote}
                  onDeleted={() => {
                    if (shown === w.id) setShown(null);
                    reload();
                    urlField.current?.focus();
                  }}
                />
              ))}
            </tbody>
          </table>
        </ListState>
        {note && (
          <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
            {note.text}
          </p>
        )}
      </section>
      {selected && <Deliveries webhook={selected} manages={manages} onNote={setNote} onRedelivered={reload} />}
      {!manages ? (
        viewer.data && <p className="hint">Your role in this account lets you see its webhooks, not add or change them.</p>
      ) : secret ? (
        <SecretOnce
          label={secret.label}
          secret={secret.secret}
          onDone={() => {
            setSecret(null);
            // the form comes back: its first field takes the focus (the button that had it is gone)
            setTimeout(() => urlField.current?.focus());
          }}
        />
      ) : (
        <NewWebhook
          urlField={urlField}
          onCreated={(created, s) => {
            setNote(null);
            setSecret({ label: `The signing secret of ${created.url}`, secret: s });
            reload();
          }}
        />
      )}
    </>
  );
}

function WebhookRow({
  webhook,
  manages,
  deliveriesShown,
  onToggleDeliveries,
  onSecret,
  onNote,
  onDeleted,
}: {
  webhook: WebhookFieldsFragment;
  manages: boolean;
  deliveriesShown: boolean;
  onToggleDeliveries: () => void;
  onSecret: (secret: string) => void;
  onNote: (note: { ok: boolean; text: string }) => void;
  onDeleted: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [{ fetching: rotating }, rotate] = useMutation(RotateWebhookSecretDocument);
  const [{ fetching: deleting }, remove] = useMutation(DeleteWebhookDocument);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirm.current?.focus();
  }, [confirming]);
  const w = webhook;
  return (
    <tr>
      <td className="mono">{w.url}</td>
      <td>{w.eventTypes?.length ? w.eventTypes.join(', ') : 'Every event'}</td>
      <td>{w.zones?.length ? w.zones.join(', ') : 'Every zone'}</td>
      <td>
        {w.enabled ? 'Enabled' : `Disabled${w.disabledReason ? `: ${w.disabledReason}` : ''}`}
        {w.previousSecrets.length === 1 && (
          <span className="hint"> · the previous secret signs too until {when(w.previousSecrets[0].until)}</span>
        )}
        {w.previousSecrets.length > 1 && (
          <span className="hint">
            {' '}
            · {w.previousSecrets.length} previous secrets sign too, until {w.previousSecrets.map((p) => when(p.until)).join(', ')}
          </span>
        )}
      </td>
      <td className="col-actions">
        <button type="button" className="small secondary" aria-expanded={deliveriesShown} onClick={onToggleDeliveries}>
          {deliveriesShown ? 'Hide deliveries' : 'Deliveries'}
          <span className="sr-only"> of {w.url}</span>
        </button>{' '}
        {manages && (
          <>
            <button
              type="button"
              className="small secondary"
              disabled={rotating}
              onClick={async () => {
                const outcome = await rotate({ id: w.id });
                if (outcome.error) return onNote({ ok: false, text: describeError(outcome.error) });
                onSecret(outcome.data!.rotateWebhookSecret.secret);
              }}
            >
              Rotate secret<span className="sr-only"> of {w.url}</span>
            </button>{' '}
            {confirming ? (
              <>
                <button
                  ref={confirm}
                  type="button"
                  className="small danger"
                  disabled={deleting}
                  aria-label={`Confirm deleting ${w.url}`}
                  onClick={async () => {
                    const outcome = await remove({ id: w.id });
                    setConfirming(false);
                    if (outcome.error) return onNote({ ok: false, text: describeError(outcome.error) });
                    onNote({ ok: true, text: `Deleted the webhook ${w.url} and its deliveries.` });
                    onDeleted();
                  }}
                >
                  Confirm deleting
                </button>{' '}
                <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </>
            ) : (
              <button type="button" className="small" onClick={() => setConfirming(true)}>
                Delete<span className="sr-only"> {w.url}</span>
              </button>
            )}
          </>
        )}
      </td>
    </tr>
  );
}

const STATUS_WORDS: Record<string, string> = { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' };

/** a subscription's recent deliveries, newest first, read again while shown; each one redelivered on demand */
function Deliveries({
  webhook,
  manages,
  onNote,
  onRedelivered,
}: {
  webhook: WebhookFieldsFragment;
  manages: boolean;
  onNote: (note: { ok: boolean; text: string }) => void;
  onRedelivered: () => void;
}) {
  const [result, refetch] = useQuery({
    query: WebhookDeliveriesDocument,
    variables: { id: webhook.id, first: 50 },
    requestPolicy: 'cache-and-network',
  });
  const [{ fetching: redelivering }, redeliver] = useMutation(RedeliverWebhookDocument);
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), DELIVERIES_POLL_MS);
    return () => clearInterval(timer);
  }, [refetch]);
  const deliveries = result.data?.webhookDeliveries ?? [];
  const again = async (events: string[] | null, what: string) => {
    const outcome = await redeliver({ id: webhook.id, events });
    if (outcome.error) return onNote({ ok: false, text: describeError(outcome.error) });
    const n = outcome.data!.redeliverWebhook;
    onNote({ ok: true, text: n ? `Redelivering ${what} (${n} deliver${n === 1 ? 'y' : 'ies'}).` : `Nothing to redeliver: ${what}.` });
    refetch({ requestPolicy: 'network-only' });
    // a disabled subscription is enabled again by a redelivery
    onRedelivered();
  };
  return (
    <section aria-labelledby="deliveries-title" className="panel">
      <h2 id="deliveries-title">Deliveries to {webhook.url}</h2>
      <div className="actions">
        <button type="button" className="small secondary" onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Refresh deliveries
        </button>
        {manages && (
          <button
            type="button"
            className="small secondary"
            disabled={redelivering || !deliveries.some((d) => d.status === 'failed')}
            onClick={() => again(null, 'every failed delivery')}
          >
            Redeliver every failed one
          </button>
        )}
      </div>
      <ListState
        error={result.error}
        loaded={!!result.data}
        what="deliveries"
        empty={deliveries.length === 0 && 'No delivery yet: one comes with the next event of a zone it receives.'}
        labelledBy="deliveries-title"
      >
        <table className="deliveries">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Zone</th>
              <th scope="col">Attempts</th>
              <th scope="col">Status</th>
              <th scope="col">Last HTTP status</th>
              <th scope="col">Time</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td className="mono">{d.type}</td>
                <td>{d.zone ?? '—'}</td>
                <td className="num">{d.attempts}</td>
                <td>
                  {STATUS_WORDS[d.status] ?? d.status}
                  {d.lastError && <span className="hint"> · {d.lastError}</span>}
                  {d.status === 'pending' && d.nextAttemptAt && <span className="hint"> · next attempt {when(d.nextAttemptAt)}</span>}
                </td>
                <td className="num">{d.responseCode ?? '—'}</td>
                <td>{when(d.deliveredAt ?? d.createdAt)}</td>
                <td>
                  {manages && (
                    <button
                      type="button"
                      className="small secondary"
                      disabled={redelivering}
                      aria-label={`Redeliver ${d.type} event ${d.eventId}`}
                      onClick={() => again([d.eventId], `the ${d.type} event ${d.eventId}`)}
                    >
                      Redeliver
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
    </section>
  );
}

function NewWebhook({
  urlField,
  onCreated,
}: {
  urlField: RefObject<HTMLInputElement>;
  onCreated: (webhook: WebhookFieldsFragment, secret: string) => void;
}) {
  const [{ fetching }, create] = useMutation(CreateWebhookDocument);
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>([]);
  const [zones, setZones] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const outcome = await create({ url: url.trim(), events: types.length ? types : null, zones: zoneList(zones) });
    if (outcome.error) {
      const found: Record<string, string> = {};
      for (const d of errorDetails(outcome.error)) {
        const field = leafField(d.field);
        found[field === 'url' ? 'url' : field === 'events' ? 'events' : /^zones/.test(d.field) ? 'zones' : 'form'] = d.message;
      }
      setProblems(Object.keys(found).length ? found : { form: describeError(outcome.error) });
      return;
    }
    setProblems({});
    setUrl('');
    setTypes([]);
    setZones('');
    onCreated(outcome.data!.createWebhook.webhook, outcome.data!.createWebhook.secret);
  };

  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-webhook-title">
      <h2 id="new-webhook-title">New webhook</h2>
      {problems.form && (
        <p role="alert" className="error-box">
          {problems.form}
        </p>
      )}
      <div className="form-grid">
        <div className="field">
          <label htmlFor="webhook-url">URL</label>
          <input
            id="webhook-url"
            ref={urlField}
            type="url"
            value={url}
            placeholder="https://hooks.example.com/zonekeeper"
            autoComplete="off"
            aria-invalid={!!problems.url || undefined}
            aria-describedby={problems.url ? 'webhook-url-error' : undefined}
            onChange={(e) => setUrl(e.target.value)}
          />
          {problems.url && (
            <p id="webhook-url-error" className="field-error">
              {problems.url}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor="webhook-zones">Zones</label>
          <input
            id="webhook-zones"
            value={zones}
            placeholder="every zone"
            autoComplete="off"
            aria-invalid={!!problems.zones || undefined}
            aria-describedby={problems.zones ? 'webhook-zones-error' : 'webhook-zones-hint'}
            onChange={(e) => setZones(e.target.value)}
          />
          <p id="webhook-zones-hint" className="hint">
            Names separated by commas; empty: every zone you may read.
          </p>
          {problems.zones && (
            <p id="webhook-zones-error" className="field-error">
              {problems.zones}
            </p>
          )}
        </div>
      </div>
      <fieldset className="rules" aria-describedby={problems.events ? 'webhook-events-error' : undefined}>
        <legend>Events (none picked: every event)</legend>
        <div className="checks">
          {EVENT_TYPES.map((t) => (
            <label key={t} className="inline">
              <input
                type="checkbox"
                checked={types.includes(t)}
                onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
              />{' '}
              <span className="mono">{t}</span>
            </label>
          ))}
        </div>
        {problems.events && (
          <p id="webhook-events-error" className="field-error">
            {problems.events}
          </p>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" disabled={fetching}>
          Add webhook
        </button>
      </div>
    </form>
  );
}
