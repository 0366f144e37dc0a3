import { FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import { sentForReview } from './review';
import type { StagedChange } from './change-set';
import { describeError, errorDetails, leafField } from './errors';
import {
  CreateRecordOrProposeDocument,
  ServerSettingsDocument,
  UpdateRecordOrProposeDocument,
  ZoneRecordsQuery,
} from './generated/graphql';
import { fieldsFromRdata, rdataFromFields, RecordTypeInfo } from './rdata';

/** the record the form edits: the fields it shows and sends (a row of the records list, records.tsx, is one) */
export type EditedRecord = Pick<ZoneRecordsQuery['records']['nodes'][number], 'id' | 'owner' | 'type' | 'ttl' | 'rdata' | 'comment'>;

const DEFAULT_TTL = 3600;
/** the TTLs offered within a range of the TTL policy (or when any TTL is allowed): the usual steps, 1 min to 2 days */
const USUAL_TTLS = [60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800];

/** The TTLs to choose from: the server's single values, and the usual steps (and the ends) of its ranges. */
function ttlChoices(ranges: readonly { min: number; max: number }[], current: number | undefined): number[] {
  const choices = new Set<number>();
  for (const { min, max } of ranges.length ? ranges : [{ min: 0, max: Infinity }]) {
    if (min === max) choices.add(min);
    else {
      if (min > 0) choices.add(min);
      if (Number.isFinite(max)) choices.add(max);
      for (const ttl of USUAL_TTLS) if (ttl >= min && ttl <= max) choices.add(ttl);
    }
  }
  // a record stored before the policy changed keeps its TTL on offer, so an edit does not change it unasked
  if (current !== undefined) choices.add(current);
  return [...choices].sort((a, b) => a - b);
}

/** 3600 → "3600 s (1 hour)" */
function describeTtl(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${seconds} s (${n} ${unit}${n === 1 ? '' : 's'})`;
    }
  }
  return `${seconds} s`;
}

/** A field name as a label: `preference` → Preference, `keyTag` → Key tag, `cert-usage` → Cert usage. */
function humanLabel(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[-_]+/g, ' ')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * A record's form, built from `recordTypes`: owner, type, TTL, then one input per RDATA field of the chosen type
 * (its description as the hint). The fields become presentation-form RDATA; the service's problems come back with
 * the field they concern (extensions.details[].field: owner, type, ttl, rdata) and are shown at that field.
 */
export function RecordForm(props: {
  zone: string;
  types: RecordTypeInfo[];
  record?: EditedRecord;
  /** savedId: the record edited (its row takes the focus back); absent for a new record */
  onSaved: (note: string, savedId?: string) => void;
  onStage: (change: StagedChange) => void;
  onCancel: () => void;
}) {
  const { zone, types, record } = props;
  const [owner, setOwner] = useState(record?.owner ?? '');
  const [typeName, setTypeName] = useState(record?.type ?? 'A');
  const [ttl, setTtl] = useState(String(record?.ttl ?? DEFAULT_TTL));
  const type = types.find((t) => t.type === typeName);
  const initialFields = record && type ? fieldsFromRdata(type, record.rdata) : {};
  const [fields, setFields] = useState<Record<string, string>>(initialFields ?? {});
  // RDATA typed as text: for types without typed fields here, or when the person prefers it
  const [asText, setAsText] = useState(record ? initialFields === null : false);
  const [rdataText, setRdataText] = useState(record?.rdata ?? '');
  // the comment of the record's RRset (docs/changes.md, «Comments»): sent only when changed ('' removes it)
  const initialComment = record?.comment ?? '';
  const [comment, setComment] = useState(initialComment);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [, createRecord] = useMutation(CreateRecordOrProposeDocument);
  const [, updateRecord] = useMutation(UpdateRecordOrProposeDocument);
  const [settings] = useQuery({ query: ServerSettingsDocument });
  const allowedTtls = settings.data ? ttlChoices(settings.data.serverSettings.allowedTtls, record?.ttl) : null;
  useEffect(() => {
    // a new record starts at an hour, or at the allowed TTL nearest to it
    if (!allowedTtls || allowedTtls.includes(Number(ttl))) return;
    setTtl(String(allowedTtls.reduce((best, t) => (Math.abs(t - DEFAULT_TTL) < Math.abs(best - DEFAULT_TTL) ? t : best))));
  }, [allowedTtls, ttl]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);

  const rdata = () => (asText || !type ? rdataText.trim() : rdataFromFields(type, fields));
  const ttlNumber = Number(ttl);
  const maxComment = settings.data?.serverSettings.maxCommentLength;
  /** the comment the form sends: none when unchanged, so that the RRset's comment stays as it is */
  const commentChange = () => (comment.trim() === initialComment ? {} : { comment: comment.trim() });

  const localCheck = (): boolean => {
    const found: Record<string, string> = {};
    if (!owner.trim()) found.owner = "Enter an owner name ('@' for the zone's apex).";
    if (!/^\d+$/.test(ttl.trim())) found.ttl = 'The TTL is a whole number of seconds.';
    if (!rdata()) found.rdata = 'Enter the record data.';
    if (maxComment !== undefined && comment.trim().length > maxComment)
      found.comment = `A comment holds at most ${maxComment} characters; this one has ${comment.trim().length}.`;
    setProblems(found);
    setFormError(null);
    return Object.keys(found).length === 0;
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!localCheck()) return;
    setBusy(true);
    const input = { zone, owner: owner.trim(), type: typeName, ttl: ttlNumber, rdata: rdata(), ...commentChange() };
    const result = record ? await updateRecord({ id: record.id, input }) : await createRecord({ input });
    setBusy(false);
    if (result.error) {
      const found: Record<string, string> = {};
      for (const detail of errorDetails(result.error)) {
        const field = leafField(detail.field);
        const key = ['owner', 'type', 'ttl', 'rdata', 'comment'].includes(field) ? field : 'form';
        found[key] = found[key] ? `${found[key]} ${detail.message}` : detail.message;
      }
      setProblems(found);
      setFormError(found.form ?? (Object.keys(found).length ? null : describeError(result.error)));
      return;
    }
    const outcome =
      result.data && ('updateRecordOrPropose' in result.data ? result.data.updateRecordOrPropose : result.data.createRecordOrPropose);
    // a zone that requires approvals: the change became a change request, and the console says so (not an error)
    if (outcome?.changeRequest) {
      props.onSaved(sentForReview(outcome.changeRequest), record?.id);
      return;
    }
    props.onSaved(`${record ? 'Saved' : 'Added'} ${input.owner} ${input.type} ${input.rdata}.`, record ? outcome?.record?.id : undefined);
  };

  const stage = () => {
    if (!localCheck()) return;
    const values = { owner: owner.trim(), type: typeName, ttl: ttlNumber, rdata: rdata(), ...commentChange() };
    const commented = 'comment' in values ? ` (comment: ${values.comment ? JSON.stringify(values.comment) : 'removed'})` : '';
    props.onStage(
      record
        ? {
            change: { kind: 'REPLACE', id: record.id, ...values },
            summary: `replace ${record.owner} ${record.type} ${record.rdata} → ${values.owner} ${values.ttl} ${values.type} ${values.rdata}${commented}`,
          }
        : { change: { kind: 'ADD', ...values }, summary: `add ${values.owner} ${values.ttl} ${values.type} ${values.rdata}${commented}` },
    );
  };

  const describedBy = (name: string, hint?: string) =>
    [hint, problems[name] ? `${name}-error` : undefined].filter(Boolean).join(' ') || undefined;
  const errorOf = (name: string) =>
    problems[name] ? (
      <p id={`${name}-error`} className="field-error">
        {problems[name]}
      </p>
    ) : null;

  return (
    <section className="panel" aria-labelledby="record-form-title">
      <h2 id="record-form-title" ref={heading} tabIndex={-1}>
        {record ? `Edit ${record.owner} ${record.type}` : 'Add a record'}
      </h2>
      <form onSubmit={save} noValidate>
        {formError && (
          <p role="alert" className="error-box">
            {formError}
          </p>
        )}
        <div className="form-grid">
          <div className="field">
            <label htmlFor="record-owner">Name</label>
            <input
              id="record-owner"
              value={owner}
              placeholder="www, or @ for the apex"
              aria-invalid={!!problems.owner || undefined}
              aria-describedby={describedBy('owner', 'record-owner-hint')}
              onChange={(e) => setOwner(e.target.value)}
            />
            <p id="record-owner-hint" className="hint">
              The record's owner name, relative to {zone} (<code>owner</code>).
            </p>
            {errorOf('owner')}
          </div>
          <div className="field">
            <label htmlFor="record-type">Type</label>
            <select
              id="record-type"
              value={typeName}
              aria-invalid={!!problems.type || undefined}
              aria-describedby={describedBy('type', 'record-type-hint')}
              onChange={(e) => {
                setTypeName(e.target.value);
                setFields({});
              }}
            >
              {types.map((t) => (
                <option key={t.type} value={t.type}>
                  {t.type}
                </option>
              ))}
            </select>
            <p id="record-type-hint" className="hint">
              The record type (<code>type</code>).
            </p>
            {errorOf('type')}
          </div>
          <div className="field">
            <label htmlFor="record-ttl">TTL</label>
            <select
              id="record-ttl"
              value={ttl}
              disabled={!allowedTtls}
              aria-invalid={!!problems.ttl || undefined}
              aria-describedby={describedBy('ttl', 'record-ttl-hint')}
              onChange={(e) => setTtl(e.target.value)}
            >
              {(allowedTtls ?? [Number(ttl)]).map((value) => (
                <option key={value} value={String(value)}>
                  {describeTtl(value)}
                </option>
              ))}
            </select>
            <p id="record-ttl-hint" className="hint">
              Seconds resolvers may keep the record: the values this service allows (<code>ttl</code>).
            </p>
            {errorOf('ttl')}
          </div>
        </div>
        <fieldset
          className="rdata"
          aria-invalid={!!problems.rdata || undefined}
          aria-describedby={problems.rdata ? 'rdata-error' : undefined}
        >
          <legend>
            {typeName} value{type && type.rfcs.length ? <span className="hint"> ({type.rfcs.join(', ')})</span> : null}
          </legend>
          <label className="inline">
            <input type="checkbox" checked={asText || !type} disabled={!type} onChange={(e) => setAsText(e.target.checked)} /> Edit as text
            (presentation form)
          </label>
          {asText || !type ? (
            <div className="field">
              <label htmlFor="record-rdata">Value</label>
              <input
                id="record-rdata"
                className="mono"
                value={rdataText}
                aria-invalid={!!problems.rdata || undefined}
                aria-describedby={describedBy('rdata', 'record-rdata-hint')}
                onChange={(e) => setRdataText(e.target.value)}
              />
              <p id="record-rdata-hint" className="hint">
                The record's data in presentation form, as in a zone file (<code>rdata</code>).
              </p>
            </div>
          ) : (
            <div className="form-grid">
              {type.fields.map((field) => {
                const id = `rdata-${field.name}`;
                return (
                  <div className="field" key={field.name}>
                    <label htmlFor={id}>{humanLabel(field.name)}</label>
                    <input
                      id={id}
                      value={fields[field.name] ?? ''}
                      aria-invalid={!!problems.rdata || undefined}
                      aria-describedby={describedBy('rdata', `${id}-hint`)}
                      onChange={(e) => setFields({ ...fields, [field.name]: e.target.value })}
                    />
                    <p id={`${id}-hint`} className="hint">
                      {field.description} (<code>{field.name}</code> of <code>rdata</code>)
                    </p>
                  </div>
                );
              })}
            </div>
          )}
          {errorOf('rdata')}
        </fieldset>
        <div className="field">
          <label htmlFor="record-comment">Comment</label>
          <textarea
            id="record-comment"
            rows={2}
            value={comment}
            aria-invalid={!!problems.comment || undefined}
            aria-describedby={describedBy('comment', 'record-comment-hint')}
            onChange={(e) => setComment(e.target.value)}
          />
          <p id="record-comment-hint" className="hint">
            A note on the {owner.trim() || 'name'} {typeName} RRset, shared by its records: free text, no DNS data, kept in the zone's
            history
            {maxComment !== undefined ? `; at most ${maxComment} characters` : ''}. Empty it to remove it (<code>comment</code>).
          </p>
          {errorOf('comment')}
        </div>
        <div className="actions">
          <button type="submit" disabled={busy}>
            {record ? 'Save now' : 'Add now'}
          </button>
          <button type="button" onClick={stage} disabled={busy}>
            Add to change set
          </button>
          <button type="button" className="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
