import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState } from 'react';
import { CombinedError, useClient, useMutation } from 'urql';
import { sentForReview } from './review';
import type { StagedChange } from './change-set';
import { describeError } from './errors';
import {
  ApplyZoneChangesDocument,
  ChangeEntryFieldsFragment,
  RemoveRecordOrProposeDocument,
  ZoneChangeInput,
  ZoneDisabledRecordsDocument,
  ZoneRecordsDocument,
  ZoneRecordsQuery,
} from './generated/graphql';
import { RecordForm } from './record-form';
import type { RecordTypeInfo } from './rdata';
import { LoadFailure } from './load-failure';
import { type Coverage, LastQueried, useQueryCoverage } from './last-queried';

export type RecordRow = ZoneRecordsQuery['records']['nodes'][number];
type SortKey = 'owner' | 'type' | 'ttl' | 'rdata' | 'comment' | 'lastQueried';

/** records per request: a 10,000-record zone is 10 requests, shown as they come */
const PAGE_SIZE = 1000;
/** beyond this many RRsets touched by one change, the whole zone is read again rather than RRset by RRset */
const MAX_RRSETS_PATCHED = 50;
/** a change of the zone seen live (zoneChanged), numbered so that the same change twice is applied once */
export interface LiveChange {
  seq: number;
  change: Pick<ChangeEntryFieldsFragment, 'kind' | 'added' | 'removed' | 'comments'>;
}
/** one table row's height in pixels (the virtualiser places rows by it) */
const ROW_HEIGHT = 38;

const COLUMNS: [SortKey, string][] = [
  ['owner', 'Name'],
  ['type', 'Type'],
  ['ttl', 'TTL'],
  ['rdata', 'Value'],
  ['comment', 'Comment'],
  ['lastQueried', 'Last queried'],
];

/** one collator for every comparison (10,000 rows sort in ~10^5 comparisons); numeric: h2 before h10, 10.0.0.9 before 10.0.0.10 */
const collator = new Intl.Collator('en', { numeric: true });

function compare(a: RecordRow, b: RecordRow, key: SortKey): number {
  if (key === 'ttl') return a.ttl - b.ttl;
  return collator.compare(a[key] ?? '', b[key] ?? '');
}

type Editing = { mode: 'add' } | { mode: 'edit'; record: RecordRow } | { mode: 'delete'; record: RecordRow };

/**
 * A zone's records: every page of `records(zone, first, after, type)` is loaded (the type filter is the server's),
 * then filtered by text and sorted in the browser, and only the rows in view are in the DOM (a virtualised table),
 * so 10,000 records scroll as smoothly as 10.
 */
export function Records(props: {
  zone: string;
  types: RecordTypeInfo[];
  liveChange: LiveChange | null;
  /** Domain.permissions.editRecords: some record may be added or changed (each row: its own permissions) */
  canEdit: boolean;
  onChanged: () => void;
  onStage: (change: StagedChange) => void;
}) {
  const { zone, types, liveChange, canEdit, onChanged, onStage } = props;
  const client = useClient();
  const [typeFilter, setTypeFilter] = useState('');
  // a search result links here with its owner (#/zone/<zone>/records?owner=<owner>): the list opens filtered to it
  const [text, setText] = useState(() => new URLSearchParams(location.hash.split('?')[1] ?? '').get('owner') ?? '');
  const [sort, setSort] = useState<{ key: SortKey; direction: 1 | -1 }>({ key: 'owner', direction: 1 });
  const [rows, setRows] = useState<RecordRow[] | null>(null);
  const [total, setTotal] = useState(0);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<CombinedError | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  // the records picked for a bulk change (by id), and whether the table shows records or RRsets
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [view, setView] = useState<'records' | 'rrsets'>('records');
  // what tells a never-queried RRset from one asked for while nobody counted: read once per load of the table
  const coverage = useQueryCoverage(zone, reload);
  const [, removeRecord] = useMutation(RemoveRecordOrProposeDocument);
  const [, applyChanges] = useMutation(ApplyZoneChangesDocument);
  /** DISABLE or ENABLE of one record: one change set, said in the status line like a save */
  const toggle = async (change: ZoneChangeInput, note: string) => {
    const result = await applyChanges({ zone, changes: [change] });
    const request = result.data?.applyZoneChanges.changeRequest;
    if (result.error) setMessage(describeError(result.error));
    else done(request ? sentForReview(request) : note);
  };

  const loadingNow = useRef(true);
  useEffect(() => {
    let cancelled = false;
    (async () => {
      loadingNow.current = true;
      setLoading(true);
      setError(null);
      const all: RecordRow[] = [];
      let after: string | null = null;
      do {
        const result = await client
          .query(ZoneRecordsDocument, { zone, first: PAGE_SIZE, after, type: typeFilter || undefined }, { requestPolicy: 'network-only' })
          .toPromise();
        if (cancelled) return;
        if (result.error || !result.data) {
          setError(result.error ?? null);
          setLoading(false);
          loadingNow.current = false;
          return;
        }
        const page: ZoneRecordsQuery['records'] = result.data.records;
        all.push(...page.nodes);
        setTotal(page.totalCount);
        setRows(all.slice());
        after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      } while (after);
      setLoading(false);
      loadingNow.current = false;
    })();
    return () => {
      cancelled = true;
    };
  }, [client, zone, typeFilter, reload]);

  // A change of the zone (ours or another client's, seen by zoneChanged) is applied where it happened: the RRsets it
  // touched, and the SOA (its serial rose), are read again and replace theirs in the table; the other 10,000 rows
  // stay as they are, and so does the scroll position. A change touching many RRsets reads the zone again.
  const applied = useRef(0);
  const patching = useRef<Promise<void>>(Promise.resolve());
  useEffect(() => {
    if (!liveChange || liveChange.seq <= applied.current) return;
    applied.current = liveChange.seq;
    const { change } = liveChange;
    if (change.kind === 'zone-deleted') return;
    const rrsets = new Map<string, { owner: string; type: string }>();
    // the RRsets whose comment changed too: a change of comments alone steps no serial, and changes no record
    for (const r of [...change.added, ...change.removed, ...change.comments, { owner: '@', type: 'SOA' }]) {
      if (!typeFilter || r.type === typeFilter) rrsets.set(`${r.owner}\u0000${r.type}`, { owner: r.owner, type: r.type });
    }
    if (loadingNow.current || rrsets.size > MAX_RRSETS_PATCHED) {
      setReload((n) => n + 1);
      return;
    }
    patching.current = patching.current.then(async () => {
      const fresh: RecordRow[] = [];
      for (const { owner, type } of rrsets.values()) {
        let after: string | null = null;
        do {
          const result = await client
            .query(ZoneRecordsDocument, { zone, first: PAGE_SIZE, after, type, owner }, { requestPolicy: 'network-only' })
            .toPromise();
          if (result.error || !result.data) {
            setReload((n) => n + 1);
            return;
          }
          const page: ZoneRecordsQuery['records'] = result.data.records;
          fresh.push(...page.nodes);
          after = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
        } while (after);
      }
      const touched = (r: RecordRow) => rrsets.has(`${r.owner}\u0000${r.type}`);
      setRows((current) => {
        if (!current) return current;
        const kept = current.filter((r) => !touched(r));
        setTotal(kept.length + fresh.length);
        return [...kept, ...fresh];
      });
    });
  }, [client, zone, typeFilter, liveChange]);

  const visible = useMemo(() => {
    const needle = text.trim().toLowerCase();
    const list = needle
      ? (rows ?? []).filter(
          (r) =>
            r.owner.toLowerCase().includes(needle) || r.rdata.toLowerCase().includes(needle) || !!r.comment?.toLowerCase().includes(needle),
        )
      : (rows ?? []).slice();
    return list.sort((a, b) => compare(a, b, sort.key) * sort.direction || compare(a, b, 'type') || compare(a, b, 'rdata'));
  }, [rows, text, sort]);

  // a selection holds only records still there and still deletable (a change elsewhere may take them)
  const selectedRows = useMemo(() => (rows ?? []).filter((r) => selected.has(r.id) && r.permissions.delete), [rows, selected]);
  useEffect(() => setSelected(new Set()), [zone, typeFilter]);
  const toggleSelected = (ids: string[], on: boolean) =>
    setSelected((current) => {
      const next = new Set(current);
      for (const id of ids)
        if (on) next.add(id);
        else next.delete(id);
      return next;
    });
  const selectable = visible.filter((r) => r.permissions.delete);
  const allShownSelected = selectable.length > 0 && selectable.every((r) => selected.has(r.id));
  /** a bulk change: one applyZoneChanges, so one change set (one serial, one history entry) */
  const applyBulk = async (changes: ZoneChangeInput[], note: string) => {
    const result = await applyChanges({ zone, changes });
    if (result.error) {
      setMessage(describeError(result.error));
      return false;
    }
    setSelected(new Set());
    const request = result.data!.applyZoneChanges.changeRequest;
    done(request ? sentForReview(request) : `${note} Serial ${result.data!.applyZoneChanges.serial}.`);
    return true;
  };

  const scroller = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: visible.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 10,
  });
  const items = virtualizer.getVirtualItems();
  const padTop = items.length ? items[0].start : 0;
  const padBottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1].end : 0;

  // Where the focus goes back when a form or panel closes: the row it was about (its Edit button), or "Add record"
  // (WCAG 2.4.3: the person continues from where they were, not from the top of the page).
  const addButton = useRef<HTMLButtonElement>(null);
  const [focusBack, setFocusBack] = useState<{ recordId?: string } | null>(null);
  useEffect(() => {
    if (!focusBack || editing) return;
    const row = focusBack.recordId ? scroller.current?.querySelector<HTMLButtonElement>(`button[data-edit="${focusBack.recordId}"]`) : null;
    (row ?? addButton.current)?.focus();
    setFocusBack(null);
  }, [focusBack, editing, items]);
  const close = (recordId?: string) => {
    setEditing(null);
    setFocusBack({ recordId });
  };

  const done = (note: string, recordId?: string) => {
    close(recordId);
    setMessage(note);
    onChanged();
  };

  return (
    <div className="records-view">
      <div className="toolbar">
        <label htmlFor="record-type-filter">Type</label>
        <select id="record-type-filter" value={typeFilter} onChange={(e) => setTypeFilter(e.target.value)}>
          <option value="">All types</option>
          {types.map((t) => (
            <option key={t.type} value={t.type}>
              {t.type}
            </option>
          ))}
        </select>
        <label htmlFor="record-text-filter">Filter</label>
        <input id="record-text-filter" type="search" value={text} placeholder="name or value" onChange={(e) => setText(e.target.value)} />
        <label htmlFor="record-view">Show</label>
        <select id="record-view" value={view} onChange={(e) => setView(e.target.value as 'records' | 'rrsets')}>
          <option value="records">Records</option>
          <option value="rrsets">RRsets (by name and type)</option>
        </select>
        {canEdit && (
          <button
            type="button"
            ref={addButton}
            onClick={() => {
              setMessage(null);
              setEditing({ mode: 'add' });
            }}
          >
            Add record
          </button>
        )}
      </div>
      {/* always in the page, so that screen readers announce what is written into it (a live region added with its
          text already in it is often not read) */}
      <p role="status" aria-live="polite" className={message ? 'ok-box' : 'status-idle'}>
        {message}
      </p>
      {selectedRows.length > 0 && (
        <BulkPanel rows={selectedRows} all={rows ?? []} onClear={() => setSelected(new Set())} onApply={applyBulk} />
      )}
      {editing?.mode === 'add' || editing?.mode === 'edit' ? (
        <RecordForm
          key={editing.mode === 'edit' ? editing.record.id : 'add'}
          zone={zone}
          types={types}
          record={editing.mode === 'edit' ? editing.record : undefined}
          onCancel={() => close(editing.mode === 'edit' ? editing.record.id : undefined)}
          onSaved={(note, savedId) => done(note, savedId)}
          onStage={(change) => {
            onStage(change);
            close(editing.mode === 'edit' ? editing.record.id : undefined);
            setMessage(`Staged: ${change.summary}. Apply it from the Change set tab.`);
          }}
        />
      ) : editing?.mode === 'delete' ? (
        <DeletePanel
          record={editing.record}
          onCancel={() => close(editing.record.id)}
          onDelete={async () => {
            const result = await removeRecord({ id: editing.record.id });
            // a zone that requires approvals: the removal became a change request, said so
            const request = result.data?.removeRecordOrPropose.changeRequest;
            if (result.error) setMessage(describeError(result.error));
            else if (request) done(sentForReview(request));
            else done(`Deleted ${editing.record.owner} ${editing.record.type} ${editing.record.rdata}.`);
          }}
          onStage={() => {
            const r = editing.record;
            onStage({ change: { kind: 'REMOVE', id: r.id }, summary: `remove ${r.owner} ${r.ttl} ${r.type} ${r.rdata}` });
            close(r.id);
            setMessage(`Staged the removal of ${r.owner} ${r.type}. Apply it from the Change set tab.`);
          }}
        />
      ) : null}
      {error ? (
        <LoadFailure message={describeError(error)} onRetry={() => setReload((n) => n + 1)} />
      ) : rows === null ? (
        <p aria-live="polite">Loading records…</p>
      ) : (
        <>
          <p role="status" data-testid="record-count">
            {loading
              ? `Loading records… ${rows.length.toLocaleString('en')} of ${total.toLocaleString('en')}`
              : `${visible.length.toLocaleString('en')} of ${total.toLocaleString('en')} records`}
          </p>
          {visible.length === 0 && !loading ? (
            <p className="empty">{rows.length === 0 ? 'This zone has no records of this type yet.' : 'No record matches the filter.'}</p>
          ) : view === 'rrsets' ? (
            <RrsetTable rows={visible} selected={selected} onToggle={toggleSelected} coverage={coverage} />
          ) : (
            <div className="grid-scroll" ref={scroller} tabIndex={0} role="region" aria-label="Records table">
              <table className="records" aria-rowcount={visible.length + 1}>
                <thead>
                  <tr aria-rowindex={1}>
                    <th scope="col" className="col-select">
                      {selectable.length > 0 && (
                        <input
                          type="checkbox"
                          aria-label="Select every record shown"
                          checked={allShownSelected}
                          onChange={(e) =>
                            toggleSelected(
                              selectable.map((r) => r.id),
                              e.target.checked,
                            )
                          }
                        />
                      )}
                    </th>
                    {COLUMNS.map(([key, label]) => (
                      <th
                        key={key}
                        scope="col"
                        className={`col-${key}`}
                        aria-sort={sort.key === key ? (sort.direction === 1 ? 'ascending' : 'descending') : 'none'}
                      >
                        <button
                          type="button"
                          className="sort"
                          onClick={() => setSort({ key, direction: sort.key === key ? (-sort.direction as 1 | -1) : 1 })}
                        >
                          {label}
                          <span aria-hidden="true">{sort.key === key ? (sort.direction === 1 ? ' ▲' : ' ▼') : ''}</span>
                        </button>
                      </th>
                    ))}
                    <th scope="col" className="col-actions">
                      Actions
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {padTop > 0 && (
                    <tr aria-hidden="true" style={{ height: padTop }}>
                      <td colSpan={8} />
                    </tr>
                  )}
                  {items.map((item) => {
                    const r = visible[item.index];
                    return (
                      <tr key={r.id} aria-rowindex={item.index + 2} style={{ height: ROW_HEIGHT }}>
                        <td className="col-select">
                          {r.permissions.delete && (
                            <input
                              type="checkbox"
                              aria-label={`Select ${r.owner} ${r.type} ${r.rdata}`}
                              checked={selected.has(r.id)}
                              onChange={(e) => toggleSelected([r.id], e.target.checked)}
                            />
                          )}
                        </td>
                        <td className="col-owner">{r.owner}</td>
                        <td className="col-type">{r.type}</td>
                        <td className="col-ttl num">{r.ttl}</td>
                        <td className="col-rdata" title={r.rdata}>
                          {r.rdata}
                        </td>
                        <td className="col-comment" title={r.comment ?? undefined}>
                          {r.comment}
                        </td>
                        <td className="col-lastQueried">
                          <LastQueried at={r.lastQueried ?? null} coverage={coverage} />
                        </td>
                        <td className="col-actions">
                          {r.permissions.edit && (
                            <>
                              <button
                                type="button"
                                className="small"
                                aria-label={`Edit ${r.owner} ${r.type} ${r.rdata}`}
                                data-edit={r.id}
                                onClick={() => setEditing({ mode: 'edit', record: r })}
                              >
                                Edit
                              </button>
                              <button
                                type="button"
                                className="small"
                                aria-label={`Disable ${r.owner} ${r.type} ${r.rdata}`}
                                title="Keep the record without serving it"
                                onClick={() => void toggle({ kind: 'DISABLE', id: r.id }, `Disabled ${r.owner} ${r.type} ${r.rdata}.`)}
                              >
                                Disable
                              </button>
                            </>
                          )}
                          {r.permissions.delete && (
                            <button
                              type="button"
                              className="small danger"
                              aria-label={`Delete ${r.owner} ${r.type} ${r.rdata}`}
                              onClick={() => setEditing({ mode: 'delete', record: r })}
                            >
                              Delete
                            </button>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                  {padBottom > 0 && (
                    <tr aria-hidden="true" style={{ height: padBottom }}>
                      <td colSpan={8} />
                    </tr>
                  )}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
      <DisabledRecords
        zone={zone}
        canEnable={canEdit}
        generation={`${reload} ${liveChange?.seq ?? 0} ${message ?? ''}`}
        onEnable={(r) =>
          void toggle({ kind: 'ENABLE', owner: r.owner, type: r.type, rdata: r.rdata }, `Enabled ${r.owner} ${r.type} ${r.rdata}.`)
        }
      />
    </div>
  );
}

type DisabledRow = { owner: string; type: string; ttl: number; rdata: string };

/**
 * The records the zone keeps disabled (`domain.disabledRecords`: not served, not in the table above), each with
 * "Enable"; read again whenever the zone changes (`generation`). Shown only when there are some.
 */
function DisabledRecords(props: { zone: string; generation: string; canEnable: boolean; onEnable: (record: DisabledRow) => void }) {
  const client = useClient();
  const [rows, setRows] = useState<DisabledRow[]>([]);
  useEffect(() => {
    let cancelled = false;
    void client
      .query(ZoneDisabledRecordsDocument, { zone: props.zone }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        if (!cancelled && result.data) setRows(result.data.domain.disabledRecords);
      });
    return () => {
      cancelled = true;
    };
  }, [client, props.zone, props.generation]);
  if (rows.length === 0) return null;
  return (
    <section className="panel disabled-records" aria-labelledby="disabled-title">
      <h2 id="disabled-title">Disabled records</h2>
      <p>Kept, not served: not in DNS answers, transfers or signatures.</p>
      <ul>
        {rows.map((r) => (
          <li key={`${r.owner} ${r.type} ${r.rdata}`}>
            <span className="mono">
              {r.owner} {r.ttl} {r.type} {r.rdata}
            </span>{' '}
            {props.canEnable && (
              <button
                type="button"
                className="small"
                aria-label={`Enable ${r.owner} ${r.type} ${r.rdata}`}
                onClick={() => props.onEnable(r)}
              >
                Enable
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function DeletePanel(props: { record: RecordRow; onDelete: () => void; onStage: () => void; onCancel: () => void }) {
  const { record } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="panel" aria-labelledby="delete-title">
      <h2 id="delete-title" ref={heading} tabIndex={-1}>
        Delete {record.owner} {record.type}?
      </h2>
      <p className="mono">
        {record.owner} {record.ttl} {record.type} {record.rdata}
      </p>
      <div className="actions">
        <button type="button" className="danger" onClick={props.onDelete}>
          Delete now
        </button>
        <button type="button" onClick={props.onStage}>
          Add removal to change set
        </button>
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** the RRset of a record: owner and type (RFC 2181 §5: the unit a TTL belongs to) */
const rrsetKey = (r: { owner: string; type: string }) => `${r.owner}\u0000${r.type}`;

/**
 * The records picked (each deletable: `Record.permissions.delete`) deleted, or given a TTL, in one change set
 * (applyZoneChanges: one serial, one entry in the history). A TTL is the RRset's (RFC 2181 §5.2): each picked
 * record's whole RRset takes it, its served records as loaded (REPLACE_RRSET keeps its disabled ones).
 */
function BulkPanel(props: {
  rows: RecordRow[];
  all: RecordRow[];
  onClear: () => void;
  onApply: (changes: ZoneChangeInput[], note: string) => Promise<boolean>;
}) {
  const { rows, all } = props;
  const [ttl, setTtl] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const count = `${rows.length} record${rows.length === 1 ? '' : 's'}`;
  const rrsets = [...new Set(rows.map(rrsetKey))];
  const run = async (changes: ZoneChangeInput[], note: string) => {
    setBusy(true);
    await props.onApply(changes, note);
    setBusy(false);
    setConfirming(false);
  };
  const setTtlOfSelected = () => {
    const value = Number(ttl);
    if (!/^\d+$/.test(ttl.trim()) || !Number.isSafeInteger(value)) {
      setProblem('A TTL is a whole number of seconds.');
      return;
    }
    setProblem(null);
    const changes: ZoneChangeInput[] = rrsets.map((key) => {
      const members = all.filter((r) => rrsetKey(r) === key);
      return { kind: 'REPLACE_RRSET', owner: members[0].owner, type: members[0].type, rdatas: members.map((r) => r.rdata), ttl: value };
    });
    void run(changes, `Set the TTL of ${rrsets.length} RRset${rrsets.length === 1 ? '' : 's'} to ${value} in one change set.`);
  };
  return (
    <section className="panel bulk" aria-labelledby="bulk-title">
      <h2 id="bulk-title">
        {count} selected ({rrsets.length} RRset{rrsets.length === 1 ? '' : 's'})
      </h2>
      <p className="hint">Each action below is one change set: one new serial, one entry in the history.</p>
      {confirming ? (
        <div className="actions">
          <button
            type="button"
            className="danger"
            disabled={busy}
            onClick={() =>
              void run(
                rows.map((r) => ({ kind: 'REMOVE', id: r.id })),
                `Deleted ${count} in one change set.`,
              )
            }
          >
            Delete {count} now
          </button>
          <button type="button" className="secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="actions">
          <button type="button" className="danger" disabled={busy} onClick={() => setConfirming(true)}>
            Delete selected…
          </button>
          <button type="button" className="secondary" onClick={props.onClear}>
            Clear selection
          </button>
        </div>
      )}
      <div className="toolbar">
        <label htmlFor="bulk-ttl">New TTL for their RRsets</label>
        <input
          id="bulk-ttl"
          inputMode="numeric"
          value={ttl}
          aria-invalid={!!problem || undefined}
          aria-describedby={problem ? 'bulk-ttl-error' : undefined}
          onChange={(e) => setTtl(e.target.value)}
        />
        <button type="button" disabled={busy || !ttl.trim()} onClick={setTtlOfSelected}>
          Set TTL
        </button>
      </div>
      {problem && (
        <p id="bulk-ttl-error" className="field-error">
          {problem}
        </p>
      )}
    </section>
  );
}

/** at most this many RRsets are drawn at once (the filter narrows them); the records view is virtualised */
const MAX_RRSETS_SHOWN = 500;

/** the records grouped by name and type (the RRsets the DNS serves), each with its TTL and values */
function RrsetTable(props: {
  rows: RecordRow[];
  selected: ReadonlySet<string>;
  onToggle: (ids: string[], on: boolean) => void;
  coverage: Coverage;
}) {
  const groups = useMemo(() => {
    const byKey = new Map<string, RecordRow[]>();
    for (const r of props.rows) {
      const list = byKey.get(rrsetKey(r));
      if (list) list.push(r);
      else byKey.set(rrsetKey(r), [r]);
    }
    return [...byKey.values()];
  }, [props.rows]);
  const shown = groups.slice(0, MAX_RRSETS_SHOWN);
  return (
    <>
      <p role="status" data-testid="rrset-count">
        {groups.length.toLocaleString('en')} RRset{groups.length === 1 ? '' : 's'}
        {groups.length > shown.length ? `; the first ${shown.length} are shown: filter to narrow them` : ''}
      </p>
      <div className="grid-scroll" tabIndex={0} role="region" aria-label="RRsets table">
        <table className="records rrsets">
          <thead>
            <tr>
              <th scope="col" className="col-select">
                <span className="sr-only">Select</span>
              </th>
              <th scope="col" className="col-owner">
                Name
              </th>
              <th scope="col" className="col-type">
                Type
              </th>
              <th scope="col" className="col-ttl">
                TTL
              </th>
              <th scope="col" className="col-rdata">
                Values
              </th>
              <th scope="col" className="col-comment">
                Comment
              </th>
              <th scope="col" className="col-lastQueried">
                Last queried
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((members) => {
              const [first] = members;
              const deletable = members.filter((r) => r.permissions.delete).map((r) => r.id);
              const all = deletable.length > 0 && deletable.every((id) => props.selected.has(id));
              return (
                <tr key={rrsetKey(first)} data-testid="rrset">
                  <td className="col-select">
                    {deletable.length > 0 && (
                      <input
                        type="checkbox"
                        aria-label={`Select the RRset ${first.owner} ${first.type}`}
                        checked={all}
                        onChange={(e) => props.onToggle(deletable, e.target.checked)}
                      />
                    )}
                  </td>
                  <td className="col-owner">{first.owner}</td>
                  <td className="col-type">{first.type}</td>
                  <td className="col-ttl num">{first.ttl}</td>
                  <td className="col-rdata">
                    <ul className="plain">
                      {members.map((r) => (
                        <li key={r.id} title={r.rdata}>
                          {r.rdata}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td className="col-comment" title={first.comment ?? undefined}>
                    {first.comment}
                  </td>
                  <td className="col-lastQueried">
                    <LastQueried at={first.lastQueried ?? null} coverage={props.coverage} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
