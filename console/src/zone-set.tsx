import { FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { describeError, errorCode } from './errors';
import { MoveZoneToNameserverSetDocument, NameserverSetsDocument } from './generated/graphql';
import { useIdentity } from './identity';
import { LoadFailure } from './load-failure';

/**
 * The zone's nameserver set (docs/transfers.md, «Nameserver sets»), for every reader; the admin key may move the
 * zone to another set. The API's warning NS_KEPT_ON_MOVE (the zone's own NS records were kept) and its refusal
 * ZONE_MOVE_IN_PROGRESS (the last move has not completed) are shown in words.
 */
export function ZoneNameserverSet({
  zone,
  set,
  onMoved,
}: {
  zone: string;
  set: { name: string; nsNames: string[] } | undefined;
  onMoved: () => void;
}) {
  const identity = useIdentity();
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const openButton = useRef<HTMLButtonElement>(null);
  return (
    <div className="zone-set">
      <p>
        Nameserver set <strong data-testid="zone-nameserver-set">{set?.name ?? '…'}</strong>
        {set && set.nsNames.length > 0 && <span className="hint"> (NS {set.nsNames.join(', ')})</span>}{' '}
        {identity.operator && !open && (
          <button type="button" ref={openButton} className="small secondary" onClick={() => setOpen(true)}>
            Move to another set…
          </button>
        )}
      </p>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'} data-testid="zone-set-note">
          {note.text}
        </p>
      )}
      {identity.operator && open && (
        <MoveForm
          zone={zone}
          current={set?.name}
          onClose={(outcome) => {
            setOpen(false);
            if (outcome) setNote(outcome);
            if (outcome?.ok) onMoved();
            // the form is gone: the focus goes back to the button that opened it
            setTimeout(() => openButton.current?.focus());
          }}
          onRefused={(text) => setNote({ ok: false, text })}
        />
      )}
    </div>
  );
}

function MoveForm({
  zone,
  current,
  onClose,
  onRefused,
}: {
  zone: string;
  current: string | undefined;
  onClose: (outcome: { ok: boolean; text: string } | null) => void;
  onRefused: (text: string) => void;
}) {
  const [sets, refetchSets] = useQuery({ query: NameserverSetsDocument, requestPolicy: 'cache-and-network' });
  const [{ fetching }, move] = useMutation(MoveZoneToNameserverSetDocument);
  const others = (sets.data?.nameserverSets ?? []).filter((s) => s.name !== current);
  const [target, setTarget] = useState('');
  const select = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    if (!target && others[0]) setTarget(others[0].name);
  }, [target, others]);
  useEffect(() => {
    if (sets.data) select.current?.focus();
  }, [sets.data]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!target) return;
    const result = await move({ zone, nameserverSet: target });
    if (result.error) {
      onRefused(
        errorCode(result.error) === 'ZONE_MOVE_IN_PROGRESS'
          ? `${zone} is still moving from its last set: its new secondaries do not serve it yet. Try again once they do.`
          : describeError(result.error),
      );
      select.current?.focus();
      return;
    }
    const warnings = (result.extensions?.warnings as { code: string; message: string }[] | undefined) ?? [];
    const kept = warnings.find((w) => w.code === 'NS_KEPT_ON_MOVE');
    onClose({
      ok: true,
      text:
        `${zone} moved to the nameserver set ${target}.` +
        (kept ? ` Its NS records were kept (they were not the old set's NS names): ${kept.message.replace(/^zone: /, '')}.` : ''),
    });
  };
  return (
    <form className="panel" aria-labelledby="move-set-title" onSubmit={submit}>
      <h2 id="move-set-title">Move {zone} to another nameserver set</h2>
      <p className="hint">
        The zone joins the new set&apos;s catalog now and leaves the old one&apos;s once the new secondaries serve it. Its NS records follow
        when they are the old set&apos;s NS names.
      </p>
      {sets.error ? (
        <LoadFailure message={describeError(sets.error)} onRetry={() => refetchSets({ requestPolicy: 'network-only' })} />
      ) : !sets.data ? (
        <p aria-live="polite">Loading nameserver sets…</p>
      ) : others.length === 0 ? (
        <p className="empty">There is no other nameserver set: create one on the Nameserver sets screen.</p>
      ) : (
        <div className="field">
          <label htmlFor="move-set-target">New nameserver set</label>
          <select id="move-set-target" ref={select} value={target} onChange={(e) => setTarget(e.target.value)}>
            {others.map((s) => (
              <option key={s.id} value={s.name}>
                {s.name} ({s.nsNames.join(', ')})
              </option>
            ))}
          </select>
        </div>
      )}
      <div className="actions">
        <button type="submit" disabled={fetching || others.length === 0}>
          Move {zone}
        </button>
        <button type="button" className="secondary" onClick={() => onClose(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
