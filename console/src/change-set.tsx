import { useEffect, useRef, useState } from 'react';
import { useClient, useMutation } from 'urql';
import { changeIndex, describeError, errorCode, errorDetails } from './errors';
import { ApplyZoneChangesDocument, ChangedRecordFieldsFragment, ZoneChangeInput, ZoneDiffDocument } from './generated/graphql';
import { sentForReview } from './review';

export interface StagedChange {
  change: ZoneChangeInput;
  /** the change in words, for the list */
  summary: string;
}

interface Conflict {
  from: number;
  to: number;
  added: ChangedRecordFieldsFragment[];
  removed: ChangedRecordFieldsFragment[];
}

const MARK: Record<string, string> = { ADD: '+', REMOVE: '−', REPLACE: '~', REPLACE_RRSET: '~' };

export function RecordLines({ records, sign }: { records: ChangedRecordFieldsFragment[]; sign: '+' | '−' }) {
  return (
    <>
      {records.map((r, i) => (
        <li key={`${sign}${i}`} className={sign === '+' ? 'added' : 'removed'}>
          <span aria-hidden="true">{sign} </span>
          <span className="sr-only">{sign === '+' ? 'added: ' : 'removed: '}</span>
          <span className="mono">
            {r.owner} {r.ttl} {r.type} {r.rdata}
          </span>
          {r.toggled && <span className="toggled"> ({sign === '+' ? 'enabled' : 'disabled'})</span>}
        </li>
      ))}
    </>
  );
}

/**
 * The staged edits, applied as one applyZoneChanges with the serial they were staged against (expectSerial).
 * When the zone moved meanwhile (SERIAL_MISMATCH), the records changed since that serial are shown (the zone's
 * diff from it) and the person decides: apply on top of the new serial, or discard.
 */
export function ChangeSet(props: {
  zone: string;
  staged: StagedChange[];
  baseSerial: number | null;
  currentSerial: number | undefined;
  onChange: (staged: StagedChange[], baseSerial: number | null) => void;
  onApplied: () => void;
}) {
  const { zone, staged, baseSerial } = props;
  const client = useClient();
  const [, apply] = useMutation(ApplyZoneChangesDocument);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<Map<number, string[]>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [applied, setApplied] = useState<{
    serial: number;
    added: ChangedRecordFieldsFragment[];
    removed: ChangedRecordFieldsFragment[];
    /** a zone that requires approvals: the set became this change request, nothing written */
    review?: string;
  } | null>(null);
  const conflictHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (conflict) conflictHeading.current?.focus();
  }, [conflict]);

  const run = async (expectSerial: number | null) => {
    setBusy(true);
    setError(null);
    setProblems(new Map());
    const result = await apply({ zone, expectSerial, changes: staged.map((s) => s.change) });
    setBusy(false);
    if (result.error) {
      if (errorCode(result.error) === 'SERIAL_MISMATCH' && expectSerial !== null) {
        const diff = await client
          .query(ZoneDiffDocument, { name: zone, fromSerial: expectSerial }, { requestPolicy: 'network-only' })
          .toPromise();
        if (diff.data) {
          const d = diff.data.domain.diff;
          setConflict({ from: d.fromSerial, to: d.toSerial, added: d.added, removed: d.removed });
        } else {
          setError(diff.error ? describeError(diff.error) : describeError(result.error));
        }
        return;
      }
      const byChange = new Map<number, string[]>();
      const general: string[] = [];
      for (const detail of errorDetails(result.error)) {
        const index = changeIndex(detail.field);
        if (index === undefined) general.push(detail.message);
        else byChange.set(index, [...(byChange.get(index) ?? []), detail.message]);
      }
      setProblems(byChange);
      setError(
        general.length
          ? general.join(' ')
          : byChange.size
            ? 'The change set was refused; nothing was applied. See the marked changes.'
            : describeError(result.error),
      );
      return;
    }
    const done = result.data!.applyZoneChanges;
    setApplied({
      serial: done.serial,
      added: done.added,
      removed: done.removed,
      review: done.changeRequest ? sentForReview(done.changeRequest) : undefined,
    });
    setConflict(null);
    props.onChange([], null);
    props.onApplied();
  };

  if (staged.length === 0) {
    return (
      <section aria-labelledby="changes-title">
        <h2 id="changes-title">Change set</h2>
        {applied?.review ? (
          <p role="status" className="ok-box">
            {applied.review}
          </p>
        ) : applied ? (
          <div role="status" className="ok-box">
            <p>Applied: the zone is now at serial {applied.serial}.</p>
            <ul className="diff">
              <RecordLines records={applied.removed} sign="−" />
              <RecordLines records={applied.added} sign="+" />
            </ul>
          </div>
        ) : (
          <p className="empty">
            Nothing staged. On the Records tab, use “Add to change set” on a record form to collect several edits and apply them as one
            serial step.
          </p>
        )}
      </section>
    );
  }
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">Change set</h2>
      <p>
        {staged.length} staged change{staged.length === 1 ? '' : 's'}, based on serial <strong>{baseSerial}</strong>. They are applied all
        or nothing, as one new serial.
      </p>
      <ol className="staged">
        {staged.map((s, index) => (
          <li key={index} className={problems.has(index) ? 'has-error' : undefined}>
            <span className="mark" aria-hidden="true">
              {MARK[s.change.kind]}
            </span>
            <span className="mono">{s.summary}</span>
            <button
              type="button"
              className="small secondary"
              aria-label={`Unstage: ${s.summary}`}
              onClick={() =>
                props.onChange(
                  staged.filter((_, i) => i !== index),
                  baseSerial,
                )
              }
            >
              Unstage
            </button>
            {problems.get(index)?.map((message, i) => (
              <p key={i} className="field-error">
                {message}
              </p>
            ))}
          </li>
        ))}
      </ol>
      {error && (
        <div role="alert" className="error-box">
          {error}
        </div>
      )}
      {conflict ? (
        <div className="conflict" role="alert">
          <h3 ref={conflictHeading} tabIndex={-1}>
            Someone changed the zone meanwhile (serial {conflict.from} → {conflict.to})
          </h3>
          <p>Your changes were not applied. This is what changed since you staged them:</p>
          <ul className="diff" aria-label="Changed meanwhile">
            <RecordLines records={conflict.removed} sign="−" />
            <RecordLines records={conflict.added} sign="+" />
          </ul>
          <div className="actions">
            <button type="button" disabled={busy} onClick={() => (props.onChange(staged, conflict.to), run(conflict.to))}>
              Apply mine on top of serial {conflict.to}
            </button>
            <button
              type="button"
              className="secondary"
              onClick={() => {
                setConflict(null);
                props.onChange([], null);
              }}
            >
              Discard my changes
            </button>
          </div>
        </div>
      ) : (
        <div className="actions">
          <button type="button" disabled={busy} onClick={() => run(baseSerial)}>
            Apply {staged.length} change{staged.length === 1 ? '' : 's'} (expects serial {baseSerial})
          </button>
          <button type="button" className="secondary" onClick={() => props.onChange([], null)}>
            Discard all
          </button>
        </div>
      )}
    </section>
  );
}
