import { FormEvent, useEffect, useRef, useState } from 'react';
import { useMutation, useQuery } from 'urql';
import type { CombinedError } from 'urql';
import { describeError, errorDetails, leafField } from './errors';
import {
  CreateNameserverSetDocument,
  DeleteNameserverSetDocument,
  NameserverSetFieldsFragment,
  NameserverSetsDocument,
  UpdateNameserverSetDocument,
} from './generated/graphql';
import { useIdentity } from './identity';
import { ListState } from './list-state';

/** names or addresses as typed: one a line, or separated by commas or spaces */
const listOf = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * The service's problems by the form's field: `secondaries[2]` and `input.nsNames` are the field `secondaries` and
 * `nsNames` (the list is one text box); a problem naming no field of the form is shown above it.
 */
function problemsByField(error: CombinedError, fields: string[]): { byField: Record<string, string>; general: string | null } {
  const byField: Record<string, string> = {};
  for (const p of errorDetails(error)) {
    const field = leafField(p.field.replace(/\[\d+\]$/, ''));
    if (fields.includes(field) && !byField[field]) byField[field] = p.message;
  }
  return { byField, general: Object.keys(byField).length ? null : describeError(error) };
}

/** One text box of a set's form, with its hint and the service's problem with it (aria-describedby). */
function Field(props: {
  id: string;
  label: string;
  hint: string;
  value: string;
  problem?: string;
  multiline?: boolean;
  inputRef?: React.Ref<HTMLInputElement>;
  onChange: (value: string) => void;
}) {
  const described = [`${props.id}-hint`, props.problem ? `${props.id}-error` : null].filter(Boolean).join(' ');
  const common = {
    id: props.id,
    value: props.value,
    'aria-invalid': props.problem ? true : undefined,
    'aria-describedby': described,
  };
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      {props.multiline ? (
        <textarea {...common} rows={3} onChange={(e) => props.onChange(e.target.value)} />
      ) : (
        <input {...common} ref={props.inputRef} onChange={(e) => props.onChange(e.target.value)} />
      )}
      <span id={`${props.id}-hint`} className="hint">
        {props.hint}
      </span>
      {props.problem && (
        <span id={`${props.id}-error`} className="field-error">
          {props.problem}
        </span>
      )}
    </div>
  );
}

/**
 * The nameserver sets (docs/transfers.md, «Nameserver sets»): fleets of secondaries with their NS names and their
 * own catalog zone. Only the operator (the admin key, an operator person) manages them (the API answers FORBIDDEN to anyone else); `default` is the
 * settings' and shown read-only.
 */
export function NameserverSets() {
  const identity = useIdentity();
  const [list, refetch] = useQuery({ query: NameserverSetsDocument, pause: !identity.operator, requestPolicy: 'cache-and-network' });
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  if (!identity.operator) return <p className="empty">Only the operator manages nameserver sets.</p>;
  const sets = list.data?.nameserverSets ?? [];
  return (
    <>
      <h1>Nameserver sets</h1>
      <p className="hint">
        Each zone is served by one set: its secondaries are NOTIFYed and may transfer the zone, its catalog zone lists it, and a new zone
        gets its NS names. Move a zone on its own page.
      </p>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} className={note.ok ? 'ok-box' : 'error-box'}>
          {note.text}
        </p>
      )}
      <h2 id="sets-title">Sets</h2>
      <ListState error={list.error} loaded={list.data !== undefined} what="nameserver sets" labelledBy="sets-title">
        <table className="nameserver-sets">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Secondaries</th>
              <th scope="col">NS names</th>
              <th scope="col">Catalog zone</th>
              <th scope="col">Zones</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sets.map((set) => (
              <SetRow
                key={set.id}
                set={set}
                onEdit={() => setEditing(set.name)}
                onDeleted={() => {
                  setNote({ ok: true, text: `The nameserver set ${set.name} was deleted.` });
                  reload();
                }}
                onRefused={(text) => setNote({ ok: false, text })}
              />
            ))}
          </tbody>
        </table>
      </ListState>
      {editing && sets.some((s) => s.name === editing) && (
        <EditSet
          key={editing}
          set={sets.find((s) => s.name === editing)!}
          onDone={(text) => {
            setEditing(null);
            if (text) setNote({ ok: true, text });
            reload();
          }}
        />
      )}
      <CreateSet
        onCreated={(name) => {
          setNote({ ok: true, text: `The nameserver set ${name} was created.` });
          reload();
        }}
      />
    </>
  );
}

function SetRow({
  set,
  onEdit,
  onDeleted,
  onRefused,
}: {
  set: NameserverSetFieldsFragment;
  onEdit: () => void;
  onDeleted: () => void;
  onRefused: (text: string) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [{ fetching }, remove] = useMutation(DeleteNameserverSetDocument);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  const lines = (items: string[]) =>
    items.length ? (
      <ul className="plain">
        {items.map((i) => (
          <li key={i} className="mono">
            {i}
          </li>
        ))}
      </ul>
    ) : (
      'none'
    );
  return (
    <tr>
      <th scope="row">{set.name}</th>
      <td>{lines(set.secondaries)}</td>
      <td>{lines(set.nsNames)}</td>
      <td className="mono">{set.catalogZone}</td>
      <td>{set.zoneCount}</td>
      <td>
        {set.isDefault ? (
          <span className="hint">From the settings (SECONDARIES, DEFAULT_NS, CATALOG_ZONE): read-only here.</span>
        ) : confirming ? (
          <span className="actions">
            <button
              type="button"
              ref={confirmButton}
              className="small danger"
              disabled={fetching}
              onClick={async () => {
                const result = await remove({ name: set.name });
                setConfirming(false);
                if (result.error) {
                  onRefused(
                    result.error.graphQLErrors[0]?.extensions?.code === 'NAMESERVER_SET_IN_USE'
                      ? `The nameserver set ${set.name} still serves zones (${set.zoneCount}): move them to another set first. ${describeError(result.error)}`
                      : describeError(result.error),
                  );
                  // the row stays: the focus goes back to its delete button
                  setTimeout(() => deleteButton.current?.focus());
                } else onDeleted();
              }}
            >
              Delete {set.name} now
            </button>
            <button type="button" className="small secondary" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </span>
        ) : (
          <span className="actions">
            <button type="button" className="small secondary" onClick={onEdit}>
              Edit {set.name}
            </button>
            <button type="button" ref={deleteButton} className="small secondary" onClick={() => setConfirming(true)}>
              Delete {set.name}…
            </button>
          </span>
        )}
      </td>
    </tr>
  );
}

function CreateSet({ onCreated }: { onCreated: (name: string) => void }) {
  const [name, setName] = useState('');
  const [secondaries, setSecondaries] = useState('');
  const [nsNames, setNsNames] = useState('');
  const [catalogZone, setCatalogZone] = useState('');
  const [problems, setProblems] = useState<{ byField: Record<string, string>; general: string | null }>({ byField: {}, general: null });
  const [{ fetching }, create] = useMutation(CreateNameserverSetDocument);
  const nameInput = useRef<HTMLInputElement>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({
      input: { name: name.trim(), secondaries: listOf(secondaries), nsNames: listOf(nsNames), catalogZone: catalogZone.trim() },
    });
    if (result.error) {
      const found = problemsByField(result.error, ['name', 'secondaries', 'nsNames', 'catalogZone']);
      setProblems(found);
      // the first field with a problem takes the focus
      const first = ['name', 'secondaries', 'nsNames', 'catalogZone'].find((f) => found.byField[f]);
      if (first) document.getElementById(`new-set-${first}`)?.focus();
      return;
    }
    setProblems({ byField: {}, general: null });
    setName('');
    setSecondaries('');
    setNsNames('');
    setCatalogZone('');
    onCreated(result.data!.createNameserverSet.name);
    // ready for the next one
    nameInput.current?.focus();
  };
  return (
    <form className="panel" aria-labelledby="new-set-title" onSubmit={submit} noValidate>
      <h2 id="new-set-title">New nameserver set</h2>
      {problems.general && (
        <p role="alert" className="error-box">
          {problems.general}
        </p>
      )}
      <Field
        id="new-set-name"
        label="Name"
        hint="Lower-case letters, digits and inner hyphens, e.g. gold."
        value={name}
        inputRef={nameInput}
        problem={problems.byField.name}
        onChange={setName}
      />
      <Field
        id="new-set-secondaries"
        label="Secondaries"
        hint="Addresses, port 53 unless given as address:port; one a line."
        value={secondaries}
        multiline
        problem={problems.byField.secondaries}
        onChange={setSecondaries}
      />
      <Field
        id="new-set-nsNames"
        label="NS names"
        hint="Host names of the set's name servers (1 to 13): a new zone's NS records."
        value={nsNames}
        multiline
        problem={problems.byField.nsNames}
        onChange={setNsNames}
      />
      <Field
        id="new-set-catalogZone"
        label="Catalog zone"
        hint="Its own catalog (RFC 9432), fixed once created: its secondaries are configured with it."
        value={catalogZone}
        problem={problems.byField.catalogZone}
        onChange={setCatalogZone}
      />
      <div aria-live="polite" className="sr-only">
        {Object.values(problems.byField).join(' ')}
      </div>
      <button type="submit" disabled={fetching}>
        Create the set
      </button>
    </form>
  );
}

function EditSet({ set, onDone }: { set: NameserverSetFieldsFragment; onDone: (text: string | null) => void }) {
  const [secondaries, setSecondaries] = useState(set.secondaries.join('\n'));
  const [nsNames, setNsNames] = useState(set.nsNames.join('\n'));
  const [problems, setProblems] = useState<{ byField: Record<string, string>; general: string | null }>({ byField: {}, general: null });
  const [{ fetching }, update] = useMutation(UpdateNameserverSetDocument);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await update({ name: set.name, input: { secondaries: listOf(secondaries), nsNames: listOf(nsNames) } });
    if (result.error) {
      const found = problemsByField(result.error, ['secondaries', 'nsNames']);
      setProblems(found);
      const first = ['secondaries', 'nsNames'].find((f) => found.byField[f]);
      if (first) document.getElementById(`edit-set-${first}`)?.focus();
      return;
    }
    onDone(`The nameserver set ${set.name} was saved.`);
    // the row's edit button is there again: the focus goes back to it
    setTimeout(() =>
      (
        Array.from(document.querySelectorAll('button')).find((b) => b.textContent === `Edit ${set.name}`) as HTMLElement | undefined
      )?.focus(),
    );
  };
  return (
    <form className="panel" aria-labelledby="edit-set-title" onSubmit={submit} noValidate>
      <h2 id="edit-set-title" ref={heading} tabIndex={-1}>
        Edit the nameserver set {set.name}
      </h2>
      <p className="hint">Its catalog zone {set.catalogZone} stays. Zones already in the set keep their NS records.</p>
      {problems.general && (
        <p role="alert" className="error-box">
          {problems.general}
        </p>
      )}
      <Field
        id="edit-set-secondaries"
        label="Secondaries"
        hint="Addresses, port 53 unless given as address:port; one a line."
        value={secondaries}
        multiline
        problem={problems.byField.secondaries}
        onChange={setSecondaries}
      />
      <Field
        id="edit-set-nsNames"
        label="NS names"
        hint="Host names of the set's name servers (1 to 13)."
        value={nsNames}
        multiline
        problem={problems.byField.nsNames}
        onChange={setNsNames}
      />
      <div className="actions">
        <button type="submit" disabled={fetching}>
          Save {set.name}
        </button>
        <button type="button" className="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
