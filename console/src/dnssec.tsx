import { FormEvent, useEffect, useRef, useState } from 'react';
import type { CombinedError } from 'urql';
import { useMutation, useQuery } from 'urql';
import { describeError, errorCode } from './errors';
import {
  AddForeignDnskeysDocument,
  ConfirmDnssecDsPublishedDocument,
  ConfirmDnssecDsRemovedDocument,
  DisableDnssecDocument,
  DnssecAlgorithm,
  DnssecDenial,
  DnssecFieldsFragment,
  DnssecKeyLayout,
  EnableDnssecDocument,
  RemoveForeignDnskeyDocument,
  RestoreDnssecDsDocument,
  WithdrawDnssecDsDocument,
  RollDnssecAlgorithmDocument,
  RollDnssecKeyDocument,
  ZoneDnssecDocument,
} from './generated/graphql';
import { LoadFailure } from './load-failure';

type Note = { ok: boolean; text: string } | null;

/** The service's message with its stable code (src/errors/catalogue.ts), so a person can look it up or report it. */
function problem(error: CombinedError): string {
  const code = errorCode(error);
  const text = describeError(error);
  return code && !text.includes(code) ? `${text} (${code})` : text;
}

function when(value: string | null | undefined): string {
  return value ? new Date(value).toLocaleString('en') : '—';
}

/** The roll step a key waits for, in words (src/services/dnssec/key-rollover.ts names them). */
const EVENTS: Record<string, string> = {
  'await-ds': 'waits for its DS at the parent',
  activate: 'starts signing',
  swap: 'takes over from the old key',
  'withdraw-ds': 'its DS can leave the parent',
  remove: 'is removed',
  publish: 'its DNSKEY is published',
  'submit-ds': 'its DS goes to the parent',
};

/** An algorithm roll's step, in words (src/services/dnssec/algorithm-rollover.ts; RFC 6781 §4.1.4) */
const ROLL_STEPS: Record<string, string> = {
  NEW_SIGNATURES: 'the new keys sign beside the old ones, their DNSKEYs not yet published',
  NEW_DNSKEYS: 'the new DNSKEYs are published beside the old ones',
  NEW_DS: "the parent's DS moves to the new KSK",
  OLD_DNSKEYS_REMOVED: 'the old DNSKEYs are gone; their signatures stay until no resolver holds them',
};

const ALGORITHMS: DnssecAlgorithm[] = ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'];

function describeEvent(event: string): string {
  return EVENTS[event] ?? event;
}

/** "2371 13 2 …": key tag and digest type, for the copy buttons' names (RFC 4509 / RFC 6605 digest types) */
function dsLabel(ds: string): string {
  const [tag, , digestType] = ds.replace(/^.*\bDS\s+/, '').split(/\s+/);
  const digest = digestType === '2' ? 'SHA-256' : digestType === '4' ? 'SHA-384' : `digest type ${digestType}`;
  return `key tag ${tag}, ${digest}`;
}

/** How the zone is signed, in one line: denial of existence and the algorithms of its keys in use. */
function describeSigning(d: DnssecFieldsFragment): string {
  const algorithms = [...new Set(d.keys.filter((k) => k.state !== 'removed').map((k) => k.algorithm))].join(', ');
  const denial =
    d.denial === 'NSEC3'
      ? `NSEC3 (RFC 5155), ${d.nsec3Iterations ?? 0} extra iterations, no salt${d.nsec3OptOut ? ', opt-out' : ''}`
      : 'NSEC (RFC 4034)';
  return `${denial} · ${algorithms || 'no key'}`;
}

/**
 * A zone's DNSSEC through the public API (`domain.dnssec`, enableDnssec, rollDnssecKey, confirmDnssecDsPublished,
 * disableDnssec): whether and how it is signed, its keys with their RFC 7583 steps, and the DS records for the
 * parent, each with a copy button.
 */
export function DnssecPanel({
  zone,
  generation,
  manage,
  onChanged,
}: {
  zone: string;
  generation: number;
  /** Domain.permissions.manageDnssec: without it the state, keys and DS are shown, and no control */
  manage: boolean;
  onChanged: () => void;
}) {
  const [result, refetch] = useQuery({ query: ZoneDnssecDocument, variables: { name: zone }, requestPolicy: 'cache-and-network' });
  // a change of the zone (a roll step of the worker is one) asks again
  useEffect(() => {
    if (generation > 0) refetch({ requestPolicy: 'network-only' });
  }, [generation, refetch]);
  const [note, setNote] = useState<Note>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const dnssec = result.data?.domain.dnssec;

  const done = (text: string) => {
    setNote({ ok: true, text });
    onChanged();
    refetch({ requestPolicy: 'network-only' });
  };
  const failed = (error: CombinedError) => {
    setNote({ ok: false, text: problem(error) });
    refetch({ requestPolicy: 'network-only' });
  };

  return (
    <section aria-labelledby="dnssec-title" className="dnssec">
      <h2 id="dnssec-title" ref={heading} tabIndex={-1}>
        DNSSEC
      </h2>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'} data-testid="dnssec-note">
          {note.text}
        </p>
      )}
      {result.error ? (
        <LoadFailure message={problem(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !dnssec ? (
        <p aria-live="polite">Loading DNSSEC…</p>
      ) : !dnssec.enabled && dnssec.state === 'unsigned' ? (
        <>
          <p data-testid="dnssec-state">
            <strong>Not signed.</strong> Resolvers that validate treat the zone as insecure: its answers carry no signature.
          </p>
          {manage ? (
            <EnableForm zone={zone} onDone={done} onError={failed} />
          ) : (
            <p className="hint">Signing the zone takes write access to its apex DNSKEY, which you do not have here.</p>
          )}
        </>
      ) : (
        <Signed zone={zone} dnssec={dnssec} manage={manage} onDone={done} onError={failed} />
      )}
    </section>
  );
}

function EnableForm({ zone, onDone, onError }: { zone: string; onDone: (text: string) => void; onError: (e: CombinedError) => void }) {
  const [{ fetching }, enable] = useMutation(EnableDnssecDocument);
  const [algorithm, setAlgorithm] = useState<DnssecAlgorithm>('ECDSAP256SHA256');
  const [denial, setDenial] = useState<DnssecDenial>('NSEC');
  const [optOut, setOptOut] = useState(false);
  const [layout, setLayout] = useState<DnssecKeyLayout>('KSK_ZSK');

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const outcome = await enable({
      input: { zone, algorithm, denial, keyLayout: layout, nsec3OptOut: denial === 'NSEC3' ? optOut : undefined },
    });
    if (outcome.error) onError(outcome.error);
    else onDone(`Signed ${zone}: give the parent one of the DS records below.`);
  };

  return (
    <form className="panel" onSubmit={submit} aria-labelledby="dnssec-enable-title">
      <h3 id="dnssec-enable-title">Sign the zone</h3>
      <div className="form-grid">
        <div className="field">
          <label htmlFor="dnssec-algorithm">Algorithm</label>
          <select id="dnssec-algorithm" value={algorithm} onChange={(e) => setAlgorithm(e.target.value as DnssecAlgorithm)}>
            <option value={'ECDSAP256SHA256'}>ECDSAP256SHA256 (13, recommended)</option>
            <option value={'ED25519'}>ED25519 (15)</option>
            <option value={'RSASHA256'}>RSASHA256 (8)</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="dnssec-layout">Signing keys</label>
          <select id="dnssec-layout" value={layout} onChange={(e) => setLayout(e.target.value as DnssecKeyLayout)}>
            <option value={'KSK_ZSK'}>A KSK and a ZSK</option>
            <option value={'CSK'}>One combined key (CSK)</option>
          </select>
        </div>
        <fieldset className="choice">
          <legend>Denial of existence</legend>
          <label className="inline">
            <input type="radio" name="dnssec-denial" checked={denial === 'NSEC'} onChange={() => setDenial('NSEC')} />
            NSEC
          </label>
          <label className="inline">
            <input type="radio" name="dnssec-denial" checked={denial === 'NSEC3'} onChange={() => setDenial('NSEC3')} />
            NSEC3 (hashed names, RFC 5155)
          </label>
          {denial === 'NSEC3' && (
            <label className="inline">
              <input type="checkbox" checked={optOut} onChange={(e) => setOptOut(e.target.checked)} />
              Opt-out: leave insecure delegations out of the chain
            </label>
          )}
        </fieldset>
      </div>
      <div className="actions">
        <button type="submit" disabled={fetching}>
          {fetching ? 'Signing…' : 'Enable DNSSEC'}
        </button>
      </div>
    </form>
  );
}

function Signed({
  zone,
  dnssec,
  manage,
  onDone,
  onError,
}: {
  zone: string;
  dnssec: DnssecFieldsFragment;
  manage: boolean;
  onDone: (text: string) => void;
  onError: (e: CombinedError) => void;
}) {
  const [, roll] = useMutation(RollDnssecKeyDocument);
  const [, rollAlgorithm] = useMutation(RollDnssecAlgorithmDocument);
  const current = dnssec.keys.find((k) => k.state === 'active')?.algorithm;
  const [picked, setTarget] = useState<DnssecAlgorithm | null>(null);
  // the zone's own algorithm is no target (after a roll, the one picked before may be it)
  const target = picked && picked !== current ? picked : (ALGORITHMS.find((a) => a !== current) ?? 'ED25519');
  const [, confirmDs] = useMutation(ConfirmDnssecDsPublishedDocument);
  const [, disable] = useMutation(DisableDnssecDocument);
  const [, confirmRemoved] = useMutation(ConfirmDnssecDsRemovedDocument);
  const [confirmingDisable, setConfirmingDisable] = useState(false);
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const confirmHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (confirmingDisable) confirmHeading.current?.focus();
  }, [confirmingDisable]);
  const hasCsk = dnssec.keys.some((k) => k.role === 'CSK' && k.state !== 'removed');
  const awaitingDs = dnssec.keys.some((k) => k.nextEvent === 'await-ds');
  const parent = dnssec.parentDs;
  const lastCheck = parent?.lastCheck;

  const act = async (run: () => Promise<{ error?: CombinedError }>, text: string) => {
    setBusy(true);
    const outcome = await run();
    setBusy(false);
    if (outcome.error) onError(outcome.error);
    else onDone(text);
  };

  const copy = async (ds: string) => {
    try {
      await navigator.clipboard.writeText(ds);
      setCopied(`Copied the DS record (${dsLabel(ds)}).`);
    } catch {
      // no clipboard permission: the record is in a selectable field beside the button
      setCopied('The browser refused the clipboard: select the record and copy it.');
    }
  };

  return (
    <>
      <p data-testid="dnssec-state">
        <strong>{dnssec.state === 'disabling' ? 'Being unsigned.' : 'Signed.'}</strong> {describeSigning(dnssec)}
      </p>

      {parent && parent.waitingFor !== 'NOTHING' && (
        <div className="panel" role="group" aria-labelledby="dnssec-parent-title">
          <h3 id="dnssec-parent-title">
            {parent.waitingFor === 'DS_REMOVAL' ? 'Waiting for the parent to remove the DS' : 'Waiting for the parent to publish the DS'}
          </h3>
          <p className="hint" data-testid="dnssec-parent">
            {parent.waitingFor === 'DS_REMOVAL'
              ? 'The zone publishes the DS-delete CDS/CDNSKEY (RFC 8078) and stays signed until the parent no longer serves its DS.'
              : 'Give the parent one of the DS records below.'}{' '}
            {lastCheck
              ? `Last checked ${when(lastCheck.at)}: ${lastCheck.servers
                  .map(
                    (a) => `${a.server} ${a.ok ? (a.ds.length ? `serves ${a.ds.length} DS` : 'serves no DS') : (a.error ?? 'no answer')}`,
                  )
                  .join('; ')}.`
              : 'No parent servers are configured to check (DNSSEC_PARENT_DS_SERVERS): confirm it here once done.'}
          </p>
          {manage && (
            <div className="actions">
              {parent.waitingFor === 'DS_REMOVAL' ? (
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    act(
                      () => confirmRemoved({ zone }),
                      'Noted: the parent no longer serves the DS; the zone goes unsigned once its TTL has passed.',
                    )
                  }
                >
                  The parent no longer serves the DS
                </button>
              ) : (
                !awaitingDs && (
                  <button type="button" disabled={busy} onClick={() => act(() => confirmDs({ zone }), 'Noted: the parent serves the DS.')}>
                    The parent serves the DS
                  </button>
                )
              )}
            </div>
          )}
        </div>
      )}
      {dnssec.algorithmRoll && (
        <p data-testid="dnssec-algorithm-roll">
          <strong>
            Algorithm roll {dnssec.algorithmRoll.from} → {dnssec.algorithmRoll.to}:
          </strong>{' '}
          {ROLL_STEPS[dnssec.algorithmRoll.step] ?? dnssec.algorithmRoll.step}
          {dnssec.algorithmRoll.nextStepAt ? `; next step ${when(dnssec.algorithmRoll.nextStepAt)}.` : '.'}
        </p>
      )}
      {dnssec.disableAt && <p data-testid="dnssec-disable-at">The zone goes unsigned at {when(dnssec.disableAt)}.</p>}
      {manage && dnssec.state === 'disabling' && (
        <div className="actions">
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() => act(() => disable({ zone, force: true }), `DNSSEC disabled for ${zone}: the zone is no longer signed.`)}
          >
            The parent has no DS: unsign now
          </button>
        </div>
      )}

      <h3 id="dnssec-ds-title">DS records for the parent</h3>
      <p className="hint">
        Give the parent zone (your registrar) one of these, not both. Until it serves one, the zone validates as insecure.
      </p>
      {dnssec.ds.length === 0 ? (
        <p className="empty">No DS: no key signs the DNSKEY set yet.</p>
      ) : (
        <ul className="ds-list" aria-labelledby="dnssec-ds-title">
          {dnssec.ds.map((ds) => (
            <li key={ds}>
              <code className="mono ds" data-testid="ds-record">
                {ds}
              </code>
              <button type="button" className="small secondary" aria-label={`Copy the DS record, ${dsLabel(ds)}`} onClick={() => copy(ds)}>
                Copy
              </button>
            </li>
          ))}
        </ul>
      )}
      {copied && <p role="status">{copied}</p>}
      <details className="dnskeys">
        <summary>DNSKEY records (for a parent that takes DNSKEY instead of DS)</summary>
        <ul className="ds-list">
          {dnssec.dnskeys.map((key) => (
            <li key={key}>
              <code className="mono ds">{key}</code>
            </li>
          ))}
        </ul>
      </details>

      <h3 id="dnssec-keys-title">DNSSEC signing keys</h3>
      {/* the box scrolls sideways at 390 px: focusable, so a keyboard can scroll it too */}
      <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="dnssec-keys-title">
        <table className="dnssec-keys" aria-labelledby="dnssec-keys-title">
          <thead>
            <tr>
              <th scope="col">Tag</th>
              <th scope="col">Role</th>
              <th scope="col">Algorithm</th>
              <th scope="col">State</th>
              <th scope="col">Active since</th>
              <th scope="col">Next event</th>
            </tr>
          </thead>
          <tbody>
            {dnssec.keys.map((k) => (
              <tr key={k.id} data-testid="dnssec-key">
                <td className="num">{k.keyTag}</td>
                <td>{k.role}</td>
                <td>{k.algorithm}</td>
                <td>{k.state}</td>
                <td>{when(k.activeAt)}</td>
                <td>
                  {k.nextEvent ? `${describeEvent(k.nextEvent)}${k.nextEvent === 'await-ds' ? '' : `, ${when(k.nextEventAt)}`}` : '—'}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <MultiSigner zone={zone} dnssec={dnssec} manage={manage} onDone={onDone} onError={onError} />

      {manage && dnssec.state === 'signed' && (
        <div className="panel" aria-labelledby="dnssec-actions-title">
          <h3 id="dnssec-actions-title">Key rolls (RFC 7583)</h3>
          <p className="hint">
            A ZSK roll pre-publishes the new key; a KSK roll publishes a new DS to give the parent, then waits for you to confirm the parent
            serves it. The worker runs each step after the TTLs have passed.
          </p>
          <div className="actions">
            {!hasCsk && (
              <button
                type="button"
                disabled={busy}
                onClick={() => act(() => roll({ zone, role: 'ZSK' }), 'Started a ZSK roll: the new key is being published.')}
              >
                Start a ZSK roll
              </button>
            )}
            <button
              type="button"
              disabled={busy}
              onClick={() =>
                act(
                  () => roll({ zone, role: 'KSK' }),
                  `Started a ${hasCsk ? 'CSK' : 'KSK'} roll: give the parent the new DS when it appears above.`,
                )
              }
            >
              Start a {hasCsk ? 'CSK' : 'KSK'} roll
            </button>
            {!dnssec.algorithmRoll && (
              <>
                <label>
                  Algorithm{' '}
                  <select value={target} onChange={(e) => setTarget(e.target.value as DnssecAlgorithm)} disabled={busy}>
                    {ALGORITHMS.filter((a) => a !== current).map((a) => (
                      <option key={a} value={a}>
                        {a}
                      </option>
                    ))}
                  </select>
                </label>
                <button
                  type="button"
                  disabled={busy}
                  onClick={() =>
                    act(
                      () => rollAlgorithm({ zone, algorithm: target }),
                      `Started a roll to ${target}: the new keys sign first; each step follows when its TTL has passed.`,
                    )
                  }
                >
                  Roll to {target}
                </button>
              </>
            )}
            {awaitingDs && (
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  act(() => confirmDs({ zone }), 'Noted: the parent serves the new DS; the old key goes once its TTL has passed.')
                }
              >
                The parent serves the new DS
              </button>
            )}
          </div>
        </div>
      )}

      {manage &&
        dnssec.state === 'signed' &&
        (confirmingDisable ? (
          <div className="panel danger-zone" role="group" aria-labelledby="dnssec-disable-title">
            <h3 id="dnssec-disable-title" ref={confirmHeading} tabIndex={-1}>
              Disable DNSSEC for {zone}?
            </h3>
            <p>
              The zone first publishes the DS-delete CDS/CDNSKEY (RFC 8078) and stays signed until the parent no longer serves its DS
              {dnssec.parentDs?.inZonekeeper ? ' (the parent is here: its DS is removed at once)' : ''}; then it goes unsigned and its keys
              are destroyed. <strong>Disabling at once</strong> is only safe when the parent has no DS: while it still serves one,
              validating resolvers treat the unsigned zone as bogus and refuse its answers (RFC 4035 §5).
            </p>
            <div className="actions">
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  act(() => disable({ zone, force: false }), `Unsigning ${zone}: it stays signed until the parent no longer serves its DS.`)
                }
              >
                Unsign once the parent’s DS is gone
              </button>
              <button
                type="button"
                className="danger"
                disabled={busy}
                onClick={() => act(() => disable({ zone, force: true }), `DNSSEC disabled for ${zone}: the zone is no longer signed.`)}
              >
                The parent has no DS: disable DNSSEC
              </button>
              <button type="button" className="secondary" onClick={() => setConfirmingDisable(false)}>
                Cancel
              </button>
            </div>
          </div>
        ) : (
          <div className="actions">
            <button type="button" className="secondary" onClick={() => setConfirmingDisable(true)}>
              Disable DNSSEC…
            </button>
          </div>
        ))}
    </>
  );
}

/**
 * Multi-signer (RFC 8901 model 2), to move a signed zone in or out without an insecure moment
 * (docs/dnssec.md): our DNSKEYs to give the other signer, and the other signer's, published here beside ours.
 */
function MultiSigner({
  zone,
  dnssec,
  manage,
  onDone,
  onError,
}: {
  zone: string;
  dnssec: DnssecFieldsFragment;
  manage: boolean;
  onDone: (text: string) => void;
  onError: (e: CombinedError) => void;
}) {
  const [, add] = useMutation(AddForeignDnskeysDocument);
  const [, remove] = useMutation(RemoveForeignDnskeyDocument);
  const [, withdraw] = useMutation(WithdrawDnssecDsDocument);
  const [, restore] = useMutation(RestoreDnssecDsDocument);
  const [keysText, setKeysText] = useState('');
  const [server, setServer] = useState('');
  const [busy, setBusy] = useState(false);
  const [copied, setCopied] = useState<string | null>(null);
  const theirs = dnssec.foreignKeys;

  const act = async (run: () => Promise<{ error?: CombinedError }>, text: string) => {
    setBusy(true);
    const outcome = await run();
    setBusy(false);
    if (outcome.error) onError(outcome.error);
    else onDone(text);
    return !outcome.error;
  };
  const copyOurs = async () => {
    const text = dnssec.dnskeys.map((key) => `${zone}. IN DNSKEY ${key}`).join('\n');
    try {
      await navigator.clipboard.writeText(text);
      setCopied('Copied our DNSKEY records.');
    } catch {
      setCopied('The browser refused the clipboard: select the records and copy them.');
    }
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const dnskeys = keysText
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith(';'));
    const input = server.trim() ? { zone, fetchFrom: server.trim() } : { zone, dnskeys };
    const ok = await act(() => add({ input }), 'The other signer’s keys are published in the DNSKEY set; the CDS names both KSKs.');
    if (ok) {
      setKeysText('');
      setServer('');
    }
  };

  return (
    <div className="panel" role="group" aria-labelledby="dnssec-multi-signer-title">
      <h3 id="dnssec-multi-signer-title">Multi-signer</h3>
      <p className="hint">
        To move a signed zone to or from another provider without an insecure moment (RFC 8901): each provider signs with its own keys and
        publishes the other’s; the parent holds the DS of both KSKs for the move.
      </p>
      <h4 id="dnssec-ours-title">Ours, for the other signer to publish</h4>
      <ul className="ds-list" aria-labelledby="dnssec-ours-title">
        {dnssec.dnskeys.map((key) => (
          <li key={key}>
            <code className="mono ds" data-testid="our-dnskey">
              {key}
            </code>
          </li>
        ))}
      </ul>
      <div className="actions">
        <button type="button" className="small secondary" onClick={copyOurs}>
          Copy our DNSKEY records
        </button>
      </div>
      {copied && <p role="status">{copied}</p>}
      <h4 id="dnssec-theirs-title">Theirs, published here</h4>
      {theirs.length === 0 ? (
        <p className="empty">None: only this zone’s own keys are in its DNSKEY set.</p>
      ) : (
        <div className="table-scroll" tabIndex={0} role="region" aria-labelledby="dnssec-theirs-title">
          <table className="dnssec-keys" aria-labelledby="dnssec-theirs-title">
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Role</th>
                <th scope="col">Algorithm</th>
                <th scope="col">From</th>
                <th scope="col">DS for the parent</th>
                {manage && <th scope="col">Remove</th>}
              </tr>
            </thead>
            <tbody>
              {theirs.map((k) => (
                <tr key={k.id} data-testid="foreign-key">
                  <td className="num">{k.keyTag}</td>
                  <td>{k.role}</td>
                  <td>{k.algorithm}</td>
                  <td>{k.fetchedFrom ?? 'given'}</td>
                  <td>
                    <code className="mono">{k.ds.join(' ') || '—'}</code>
                  </td>
                  {manage && (
                    <td>
                      <button
                        type="button"
                        className="small secondary"
                        disabled={busy}
                        aria-label={`Remove the other signer’s ${k.role} ${k.keyTag}`}
                        onClick={() =>
                          act(() => remove({ zone, id: k.id }), `Removed the other signer’s ${k.role} ${k.keyTag} from the DNSKEY set.`)
                        }
                      >
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {dnssec.dsWithdrawnAt && (
        <p role="note" data-testid="ds-withdrawn">
          Our DS is withdrawn from the parent (since {when(dnssec.dsWithdrawnAt)}): the CDS names the other signer’s KSK alone, and a parent
          held here holds their DS alone. Our keys still sign.
        </p>
      )}
      {manage && dnssec.state === 'signed' && theirs.some((k) => k.role === 'KSK') && (
        <div className="actions">
          {dnssec.dsWithdrawnAt ? (
            <button
              type="button"
              className="small secondary"
              disabled={busy}
              onClick={() => act(() => restore({ zone }), 'Our DS is wanted at the parent again, beside theirs.')}
            >
              Restore our DS at the parent
            </button>
          ) : (
            <button
              type="button"
              className="small secondary"
              disabled={busy}
              onClick={() =>
                act(() => withdraw({ zone }), 'Our DS leaves the parent; the zone stays signed, proven through the other signer’s DS.')
              }
            >
              Withdraw our DS from the parent (moving out)
            </button>
          )}
        </div>
      )}
      {manage && dnssec.state === 'signed' && (
        <form onSubmit={submit} aria-labelledby="dnssec-multi-signer-title">
          <label>
            Their DNSKEY records, one a line
            <textarea
              className="mono"
              rows={3}
              value={keysText}
              onChange={(e) => setKeysText(e.target.value)}
              placeholder={`${zone}. 3600 IN DNSKEY 257 3 13 …`}
              disabled={busy || !!server.trim()}
            />
          </label>
          <label>
            or ask their server (IP address)
            <input value={server} onChange={(e) => setServer(e.target.value)} placeholder="192.0.2.53" disabled={busy} />
          </label>
          <div className="actions">
            <button type="submit" disabled={busy || (!keysText.trim() && !server.trim())}>
              Publish their keys
            </button>
          </div>
        </form>
      )}
    </div>
  );
}
