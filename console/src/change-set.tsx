import { Ref, useEffect, useRef, useState } from 'react';
import { type CombinedError, useClient, useMutation } from 'urql';
import { changeIndex, describeError, errorCode, errorDetails, FieldProblem } from './errors';
import {
  ApplyZoneChangesDocument,
  ChangedRecordFieldsFragment,
  PreviewZoneChangesDocument,
  PreviewZoneChangesMutation,
  ZoneChangeInput,
  ZoneDiffDocument,
} from './generated/graphql';
import { sentForReview } from './review';
import { RecordLines } from './record-lines';

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

/** a dry run's answer (docs/changes.md, «Dry run»): each RRset before and after, the serial it would make, the findings */
type Plan = PreviewZoneChangesMutation['applyZoneChanges'];

/** a zone check's finding or a reading's warning, as a plan, a refusal or a write's `extensions.warnings` carry it */
interface Finding {
  code: string;
  message: string;
  severity?: string | null;
  owner?: string | null;
  type?: string | null;
  rfc?: string | null;
}

/** a finding's weight in words: a zone check's error refuses the set; anything else (a reading's warning too) is a warning */
const severityOf = (finding: Finding) => (finding.severity === 'error' ? 'error' : 'warning');

/** one finding: its code, error or warning in words (the colour repeats it), the RRset it is about, the message, the RFC */
function FindingLine({ finding, change }: { finding: Finding; change?: string }) {
  const severity = severityOf(finding);
  return (
    <li className="finding">
      {change && <span className="change-ref">{change}: </span>}
      <strong className="mono">{finding.code}</strong> <span className={`severity-${severity}`}>({severity})</span>
      {finding.owner && (
        <>
          {' '}
          at{' '}
          <span className="mono">
            {finding.owner} {finding.type}
          </span>
        </>
      )}
      : {finding.message}
      {finding.rfc && <span className="hint"> ({finding.rfc})</span>}
    </li>
  );
}

/** the findings of a plan or a write, the errors apart from the warnings */
function Findings({ findings }: { findings: Finding[] }) {
  const errors = findings.filter((f) => severityOf(f) === 'error');
  const warnings = findings.filter((f) => severityOf(f) === 'warning');
  return (
    <>
      {errors.length > 0 && (
        <>
          <h4>Errors</h4>
          <ul aria-label="Errors" className="findings">
            {errors.map((f, i) => (
              <FindingLine key={i} finding={f} />
            ))}
          </ul>
        </>
      )}
      {warnings.length > 0 && (
        <>
          <h4>Warnings</h4>
          <ul aria-label="Warnings" className="findings">
            {warnings.map((f, i) => (
              <FindingLine key={i} finding={f} />
            ))}
          </ul>
        </>
      )}
    </>
  );
}

/** the console's words for the refusals a change set's plan answers, naming what to do; nothing is ever written */
const REFUSED_BECAUSE: Record<string, string> = {
  ZONE_RULE_VIOLATION: 'The change set breaks a zone rule',
  RRSET_PROTECTED: 'The change set changes a protected RRset: it is locked against every write until it is unlocked',
  RRSET_STEERED: 'The change set changes a steered RRset: its records are what steering decides, so change it through steering',
  CNAME_CONFLICT: 'The change set puts a CNAME beside other data at one name',
};

/** a refusal of the set, each problem with the change it is about (`changes[i]`) where the service named one */
interface Refusal {
  headline: string;
  problems: { change?: number; problem: FieldProblem }[];
}

/**
 * The safety threshold's reasons in plain words (docs/changes.md, «The safety threshold»): a share of the zone
 * deleted or replaced, or its apex NS changed.
 */
function forceReasons(zone: string, details: FieldProblem[]): string[] {
  return details
    .filter((d) => d.code === 'CHANGE_NEEDS_FORCE')
    .map((d) =>
      d.type === 'NS'
        ? `It changes the NS records at the apex of ${zone}: the name servers the zone is delegated to. The parent zone lists them too; servers that do not serve the zone, or a set the parent does not match, can make the whole zone stop answering.`
        : d.current !== undefined && d.limit !== undefined
          ? `It deletes or replaces ${d.current} records, more than 30 % of the zone (${d.limit} at most go without a confirmation).`
          : d.message,
    );
}

/** an RRset's records before or after a plan, or "none" where it has none (it is new, or it goes) */
function PlanSide({ label, records }: { label: string; records: ChangedRecordFieldsFragment[] }) {
  return (
    <div className="plan-side">
      <p className="plan-label">{label}</p>
      {records.length ? (
        <ul aria-label={label}>
          {records.map((r, i) => (
            <li key={i} className="mono">
              {r.owner} {r.ttl} {r.type} {r.rdata}
            </li>
          ))}
        </ul>
      ) : (
        <p className="hint">(none)</p>
      )}
    </div>
  );
}

/** a dry run's plan: the serial it would make, each RRset before and after, what it keeps disabled, the findings */
function PlanView({ plan, headingRef }: { plan: Plan; headingRef: Ref<HTMLHeadingElement> }) {
  const changes = plan.serial !== plan.serialBefore;
  const disabled = [...(plan.disabledRemoved ?? []), ...(plan.disabledAdded ?? [])];
  return (
    <div className="panel plan" role="region" aria-labelledby="plan-title" data-testid="change-set-plan">
      <h3 id="plan-title" ref={headingRef} tabIndex={-1}>
        {changes
          ? `Preview: the zone would go from serial ${plan.serialBefore} to ${plan.serial}`
          : `Preview: the change set changes nothing (the zone stays at serial ${plan.serial})`}
      </h3>
      <p className="hint">A dry run: nothing was written. Apply the change set to write it.</p>
      {(plan.rrsets ?? []).length > 0 && (
        <ul className="plan-rrsets" aria-label="RRsets the change set would change">
          {plan.rrsets!.map((rrset) => (
            <li key={`${rrset.owner} ${rrset.type}`} className="rrset" data-testid="plan-rrset">
              <h4 className="mono">
                {rrset.owner} {rrset.type}
                <span className="rrset-fate">
                  {rrset.before.length === 0 ? ' (new)' : rrset.after.length === 0 ? ' (deleted)' : ' (changed)'}
                </span>
              </h4>
              <div className="before-after">
                <PlanSide label="Before" records={rrset.before} />
                <PlanSide label="After" records={rrset.after} />
              </div>
            </li>
          ))}
        </ul>
      )}
      {disabled.length > 0 && (
        <>
          <h4>Disabled records (kept, not served)</h4>
          <ul className="diff" aria-label="Disabled records the change set would change">
            <RecordLines records={plan.disabledRemoved ?? []} sign="−" />
            <RecordLines records={plan.disabledAdded ?? []} sign="+" />
          </ul>
        </>
      )}
      {(plan.warnings ?? []).length > 0 ? <Findings findings={plan.warnings!} /> : <p>No findings: the zone checks pass.</p>}
    </div>
  );
}

/**
 * The staged edits, applied as one applyZoneChanges with the serial they were staged against (expectSerial).
 * "Preview" asks the same call as a dry run (the plan, nothing written); a set the safety threshold holds back
 * (CHANGE_NEEDS_FORCE) is explained and offered again with force; a refusal names the changes it is about.
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
  const [, preview] = useMutation(PreviewZoneChangesDocument);
  const [busy, setBusy] = useState(false);
  const [problems, setProblems] = useState<Map<number, string[]>>(new Map());
  const [refusal, setRefusal] = useState<Refusal | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [plan, setPlan] = useState<Plan | null>(null);
  /** the safety threshold held the set back: why, and whether it was a preview that asked */
  const [needsForce, setNeedsForce] = useState<{ reasons: string[]; previewed: boolean } | null>(null);
  const [applied, setApplied] = useState<{
    serial: number;
    added: ChangedRecordFieldsFragment[];
    removed: ChangedRecordFieldsFragment[];
    /** the warnings the write answered (`extensions.warnings`) */
    warnings: Finding[];
    /** a zone that requires approvals: the set became this change request, nothing written */
    review?: string;
  } | null>(null);
  const conflictHeading = useRef<HTMLHeadingElement>(null);
  const forceHeading = useRef<HTMLHeadingElement>(null);
  const planHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (conflict) conflictHeading.current?.focus();
  }, [conflict]);
  useEffect(() => {
    if (needsForce) forceHeading.current?.focus();
  }, [needsForce]);
  useEffect(() => {
    if (plan) planHeading.current?.focus();
  }, [plan]);
  // a plan or a held-back set is of the changes it was asked for: another change staged or unstaged makes it stale
  useEffect(() => {
    setPlan(null);
    setNeedsForce(null);
  }, [staged]);

  /** a refused request: each problem at its change in the list, and in the alert with the change it is about */
  const refused = (failure: CombinedError, dryRun: boolean) => {
    const details = errorDetails(failure);
    const byChange = new Map<number, string[]>();
    const listed: Refusal['problems'] = [];
    for (const detail of details) {
      const index = changeIndex(detail.field);
      if (index !== undefined) byChange.set(index, [...(byChange.get(index) ?? []), `${detail.code}: ${detail.message}`]);
      listed.push({ change: index, problem: detail });
    }
    setProblems(byChange);
    const code = errorCode(failure);
    const because = code ? REFUSED_BECAUSE[code] : undefined;
    if (!listed.length || (!because && !byChange.size)) {
      setError(describeError(failure));
      return;
    }
    setRefusal({
      headline: `${because ?? describeError(failure).replace(/\.$/, '')}. ${
        dryRun ? 'Nothing was written' : 'Nothing was applied (a change set is all or nothing)'
      }: fix or unstage the changes named below.`,
      problems: listed,
    });
  };

  /** a failed preview or apply: a conflict, the safety threshold or a refusal, each said in its own way */
  const failed = async (failure: CombinedError, expectSerial: number | null, dryRun: boolean) => {
    setPlan(null);
    const code = errorCode(failure);
    if (code === 'SERIAL_MISMATCH' && expectSerial !== null) {
      setNeedsForce(null);
      const diff = await client
        .query(ZoneDiffDocument, { name: zone, fromSerial: expectSerial }, { requestPolicy: 'network-only' })
        .toPromise();
      if (diff.data) {
        const d = diff.data.domain.diff;
        setConflict({ from: d.fromSerial, to: d.toSerial, added: d.added, removed: d.removed });
      } else {
        setError(describeError(diff.error ?? failure));
      }
    } else if (code === 'CHANGE_NEEDS_FORCE') {
      setNeedsForce({ reasons: forceReasons(zone, errorDetails(failure)), previewed: false });
    } else {
      refused(failure, dryRun);
    }
  };

  /** the plan of the staged set, nothing written (a dry run), forced when the person said so */
  const runPreview = async (expectSerial: number | null, force = false) => {
    setBusy(true);
    setError(null);
    setRefusal(null);
    setProblems(new Map());
    const result = await preview({ zone, expectSerial, changes: staged.map((s) => s.change), force });
    setBusy(false);
    if (result.error) return failed(result.error, expectSerial, true);
    setPlan(result.data!.applyZoneChanges);
    // a forced preview keeps the reasons (and "Apply anyway") in view beside its plan
    setNeedsForce((held) => (held && force ? { ...held, previewed: true } : null));
  };

  const run = async (expectSerial: number | null, force = false) => {
    setBusy(true);
    setError(null);
    setRefusal(null);
    setProblems(new Map());
    const result = await apply({ zone, expectSerial, changes: staged.map((s) => s.change), force });
    setBusy(false);
    if (result.error) return failed(result.error, expectSerial, false);
    const done = result.data!.applyZoneChanges;
    setApplied({
      serial: done.serial,
      added: done.added,
      removed: done.removed,
      warnings: (result.extensions?.warnings as Finding[] | undefined) ?? [],
      review: done.changeRequest ? sentForReview(done.changeRequest) : undefined,
    });
    setPlan(null);
    setConflict(null);
    setNeedsForce(null);
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
            {applied.warnings.length > 0 && <Findings findings={applied.warnings} />}
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
  const count = `${staged.length} change${staged.length === 1 ? '' : 's'}`;
  /** a change of the list by its index, as the refusal names it */
  const changeName = (index: number | undefined) =>
    index !== undefined && staged[index] ? `Change ${index + 1} (${staged[index].summary})` : undefined;
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
      {refusal && (
        <div role="alert" className="error-box" data-testid="change-set-refusal">
          <p>{refusal.headline}</p>
          <ul className="findings">
            {refusal.problems.map(({ change, problem }, i) => (
              <FindingLine
                key={i}
                change={changeName(change) ?? 'The change set'}
                finding={{ ...problem, severity: problem.severity ?? 'error' }}
              />
            ))}
          </ul>
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
        <>
          {needsForce && (
            <div className="conflict" role="alert" data-testid="change-set-needs-force">
              <h3 ref={forceHeading} tabIndex={-1}>
                This change set needs your confirmation
              </h3>
              <p>
                Nothing was written. The service holds back a change set that deletes or replaces much of a zone, or changes its apex NS,
                until it is confirmed:
              </p>
              <ul>
                {needsForce.reasons.map((reason, i) => (
                  <li key={i}>{reason}</li>
                ))}
              </ul>
              <div className="actions">
                <button type="button" disabled={busy} onClick={() => run(baseSerial, true)}>
                  Apply anyway
                </button>
                {!needsForce.previewed && (
                  <button type="button" className="secondary" disabled={busy} onClick={() => runPreview(baseSerial, true)}>
                    Preview anyway
                  </button>
                )}
                <button type="button" className="secondary" onClick={() => setNeedsForce(null)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
          {plan && <PlanView plan={plan} headingRef={planHeading} />}
          <div className="actions">
            <button type="button" className="secondary" disabled={busy} onClick={() => runPreview(baseSerial)}>
              Preview (dry run)
            </button>
            <button type="button" disabled={busy} onClick={() => run(baseSerial)}>
              Apply {count} (expects serial {baseSerial})
            </button>
            <button type="button" className="secondary" onClick={() => props.onChange([], null)}>
              Discard all
            </button>
          </div>
        </>
      )}
    </section>
  );
}
