import { FormEvent, useEffect, useRef, useState } from 'react';
import { useClient, useMutation, useQuery } from 'urql';
import { describeError, errorDetails, leafField, wordsForCode } from './errors';
import {
  CreateZoneDocument,
  type DomainOrder,
  type HealthState,
  type ZoneKind,
  ViewerDocument,
  ZoneOwnersDocument,
  ZonesDocument,
  ZoneTemplatesDocument,
} from './generated/graphql';
import { unicodeName } from './names';
import { IncomingTransfers } from './transfers';
import { Attention } from './attention';
import { HEALTH_WORDS, HealthBadge } from './health';
import { LoadFailure } from './load-failure';

const PAGE_SIZE = 50;
/** the zone list's sortable columns, as the API's orders (each with its _DESC but creation) */
type SortKey = 'NAME' | 'CREATED' | 'RECORDS' | 'SERIAL' | 'KIND' | 'DNSSEC';
/** Up to this many users the owner is picked from a list; beyond, by e-mail (the admin key may see 100,000 users). */
const OWNER_CHOICES = 50;

/**
 * A new zone (createDomain). The owner: `users` answers the users the key may see, so a user key finds its own
 * user (the only one) and creates for it; the admin key picks one (from a list, or by e-mail when there are many).
 */
function NewZone({ onCreated }: { onCreated: (zone: string) => void }) {
  const client = useClient();
  const [owners] = useQuery({ query: ZoneOwnersDocument, variables: { first: OWNER_CHOICES } });
  const [{ fetching }, create] = useMutation(CreateZoneDocument);
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [ownerId, setOwnerId] = useState('');
  const [ownerEmail, setOwnerEmail] = useState('');
  const [template, setTemplate] = useState('default');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (open) heading.current?.focus();
  }, [open]);
  const users = owners.data?.users;
  const single = users?.totalCount === 1 ? users.nodes[0] : undefined;
  const byEmail = !!users && users.totalCount > OWNER_CHOICES;
  // the templates the zone may start with: the default, the admin-wide ones and the chosen owner's
  // (docs/templates-and-alias.md); a name the owner has and an admin-wide one share is one choice (the owner's wins)
  const [templates] = useQuery({
    query: ZoneTemplatesDocument,
    variables: { userId: single?.id ?? (ownerId || null) },
    requestPolicy: 'cache-and-network',
    // the form is mounted closed with the zone list: asked when it opens, so a template saved meanwhile is there
    pause: !open,
  });
  const templateNames = [...new Set((templates.data?.recordTemplates ?? []).map((t) => t.name))];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    let userId = single?.id ?? ownerId;
    if (byEmail) {
      const found = await client
        .query(ZoneOwnersDocument, { first: 1, email: ownerEmail.trim() }, { requestPolicy: 'network-only' })
        .toPromise();
      userId = found.data?.users.nodes[0]?.id ?? '';
      if (!userId) {
        setProblems({ owner: found.error ? describeError(found.error) : `No user has the e-mail ${ownerEmail.trim() || '(empty)'}.` });
        return;
      }
    }
    if (!userId) {
      setProblems({ owner: 'Pick the user who will own the zone.' });
      return;
    }
    const outcome = await create({ input: { zone: name.trim(), userId, template } });
    if (outcome.error) {
      const found: Record<string, string> = {};
      const fieldOf = (field: string) => (field === 'userId' ? 'owner' : field === 'template' ? 'template' : 'zone');
      for (const d of errorDetails(outcome.error)) found[fieldOf(leafField(d.field))] = d.message;
      const words = wordsForCode(outcome.error, name.trim().toLowerCase().replace(/\.$/, ''));
      if (words) found.zone = words;
      setProblems(Object.keys(found).length ? found : { zone: describeError(outcome.error) });
      return;
    }
    setProblems({});
    setName('');
    setOpen(false);
    onCreated(outcome.data!.createDomain.name);
  };

  if (!open) {
    return (
      <div className="actions">
        <button type="button" onClick={() => setOpen(true)}>
          New zone…
        </button>
      </div>
    );
  }
  return (
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-zone-title">
      <h2 id="new-zone-title" ref={heading} tabIndex={-1}>
        New zone
      </h2>
      <p className="hint">
        The zone starts with the records of its template (the default: SOA, NS and a www CNAME); the secondaries are told at once.
      </p>
      {owners.error && (
        <p role="alert" className="error-box">
          {describeError(owners.error)}
        </p>
      )}
      <div className="form-grid">
        <div className="field">
          <label htmlFor="new-zone-name">Zone name</label>
          <input
            id="new-zone-name"
            value={name}
            placeholder="example.com"
            autoComplete="off"
            aria-invalid={!!problems.zone || undefined}
            aria-describedby={problems.zone ? 'new-zone-name-error' : undefined}
            onChange={(e) => setName(e.target.value)}
          />
          {problems.zone && (
            <p id="new-zone-name-error" className="field-error">
              {problems.zone}
            </p>
          )}
        </div>
        <div className="field">
          {!users ? (
            <p aria-live="polite">Loading users…</p>
          ) : single ? (
            <p>
              Owner: <strong data-testid="new-zone-owner">{single.email}</strong>
            </p>
          ) : byEmail ? (
            <>
              <label htmlFor="new-zone-owner">Owner’s e-mail</label>
              <input
                id="new-zone-owner"
                type="email"
                value={ownerEmail}
                aria-invalid={!!problems.owner || undefined}
                aria-describedby={problems.owner ? 'new-zone-owner-error' : undefined}
                onChange={(e) => setOwnerEmail(e.target.value)}
              />
            </>
          ) : (
            <>
              <label htmlFor="new-zone-owner">Owner</label>
              <select
                id="new-zone-owner"
                value={ownerId}
                aria-invalid={!!problems.owner || undefined}
                aria-describedby={problems.owner ? 'new-zone-owner-error' : undefined}
                onChange={(e) => setOwnerId(e.target.value)}
              >
                <option value="">Pick a user…</option>
                {users.nodes.map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.email}
                  </option>
                ))}
              </select>
            </>
          )}
          {problems.owner && (
            <p id="new-zone-owner-error" className="field-error">
              {problems.owner}
            </p>
          )}
        </div>
        <div className="field">
          <label htmlFor="new-zone-template">Template</label>
          <select
            id="new-zone-template"
            value={template}
            aria-invalid={!!problems.template || undefined}
            aria-describedby={problems.template ? 'new-zone-template-error' : undefined}
            onChange={(e) => setTemplate(e.target.value)}
          >
            {(templateNames.length ? templateNames : ['default']).map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
          {problems.template && (
            <p id="new-zone-template-error" className="field-error">
              {problems.template}
            </p>
          )}
        </div>
      </div>
      <div className="actions">
        <button type="submit" disabled={fetching || !users}>
          Create zone
        </button>
        <button type="button" className="secondary" onClick={() => setOpen(false)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The zones the key may see, paged by the server (`domains(first, after)`): 100,000 zones are never all loaded.
 * The search finds the zones whose name starts with what was typed (the API's `nameStartsWith`, normalised by the
 * server); the pages and the total count are those of the search.
 */
/** a zone's propagation state in the console's words (Propagation.state) */
const PROPAGATION_WORDS: Record<string, string> = {
  in_sync: 'In sync',
  pending: 'Pending',
  error: 'Failing',
  no_secondaries: 'No secondaries',
};

export function ZoneList() {
  const [search, setSearch] = useState('');
  // filters the server applies (pages and total follow them): the zones' kind, and their owner (the admin key)
  const [kind, setKind] = useState<ZoneKind | ''>('');
  const [health, setHealth] = useState<HealthState | ''>('');
  const [ownerFilter, setOwnerFilter] = useState('');
  const [owners] = useQuery({ query: ZoneOwnersDocument, variables: { first: OWNER_CHOICES } });
  const ownerChoices =
    owners.data && owners.data.users.totalCount > 1 && owners.data.users.totalCount <= OWNER_CHOICES ? owners.data.users.nodes : null;
  const [prefix, setPrefix] = useState<string | undefined>(undefined);
  // the cursors of the pages before this one: Previous pops, Next pushes
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  // by a column either way (creation: oldest first): the server sorts, so the order holds across pages (its names
  // are the stored A-labels: an IDN zone sorts by its xn-- form); a new order starts at the first page
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'NAME', descending: false });
  const orderBy = (sort.descending && sort.key !== 'CREATED' ? `${sort.key}_DESC` : sort.key) as DomainOrder;
  const sortBy = (key: SortKey) => {
    setSort({ key, descending: sort.key === key && !sort.descending && key !== 'CREATED' });
    setCursors([]);
  };
  const header = (key: SortKey, label: string) => (
    <th scope="col" aria-sort={sort.key === key ? (sort.descending ? 'descending' : 'ascending') : 'none'}>
      <button type="button" className="sort" onClick={() => sortBy(key)}>
        {label}
        <span aria-hidden="true">{sort.key === key ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
      </button>
    </th>
  );
  const [result, refetch] = useQuery({
    query: ZonesDocument,
    variables: {
      first: PAGE_SIZE,
      after,
      nameStartsWith: prefix,
      orderBy,
      kind: kind || null,
      userId: ownerFilter || null,
      health: health || null,
    },
    // the cached page shows at once, and is asked again: zones come and go from other clients
    requestPolicy: 'cache-and-network',
  });
  const connection = result.data?.domains;
  // what the caller may do, as the API decides it: no "New zone…" for a role or key that may not create one
  const [viewer] = useQuery({ query: ViewerDocument });
  const can = viewer.data?.viewer.can;
  const shown = connection ? connection.nodes : [];

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = search.trim().toLowerCase().replace(/\.$/, '');
    setCursors([]);
    setPrefix(wanted || undefined);
  };
  const page = cursors.length + 1;
  // a zone deleted on its own screen comes back here with its name (#/?deleted=<zone>)
  const deleted = new URLSearchParams(location.hash.split('?')[1] ?? '').get('deleted');
  const pages = connection ? Math.max(1, Math.ceil(connection.totalCount / PAGE_SIZE)) : 1;

  return (
    <section aria-labelledby="zones-title">
      <h1 id="zones-title">Zones</h1>
      {deleted && (
        <p role="status" className="ok-box">
          Deleted the zone {deleted}.
        </p>
      )}
      {/* the landing screen's first question: what needs attention (docs/console.md, «Home») */}
      <Attention />
      {can?.createZone && <NewZone onCreated={(zone) => (location.hash = `#/zone/${encodeURIComponent(zone)}`)} />}
      <IncomingTransfers onAccepted={() => refetch({ requestPolicy: 'network-only' })} />
      <form className="toolbar" role="search" onSubmit={submit}>
        <label htmlFor="zone-search">Zone name starts with</label>
        <input id="zone-search" type="search" value={search} placeholder="example" onChange={(e) => setSearch(e.target.value)} />
        <button type="submit">Find</button>
        <label htmlFor="zone-kind-filter">Kind</label>
        <select
          id="zone-kind-filter"
          value={kind}
          onChange={(e) => {
            setKind(e.target.value as ZoneKind | '');
            setCursors([]);
          }}
        >
          <option value="">Every kind</option>
          <option value="PRIMARY">Primary</option>
          <option value="SECONDARY">Secondary</option>
        </select>
        <label htmlFor="zone-health-filter">Health</label>
        <select
          id="zone-health-filter"
          value={health}
          onChange={(e) => {
            setHealth(e.target.value as HealthState | '');
            setCursors([]);
          }}
        >
          <option value="">Every state</option>
          {(['critical', 'warning', 'ok', 'unknown'] as const).map((state) => (
            <option key={state} value={state}>
              {HEALTH_WORDS[state]}
            </option>
          ))}
        </select>
        {ownerChoices && (
          <>
            <label htmlFor="zone-owner-filter">Owner</label>
            <select
              id="zone-owner-filter"
              value={ownerFilter}
              onChange={(e) => {
                setOwnerFilter(e.target.value);
                setCursors([]);
              }}
            >
              <option value="">Every owner</option>
              {ownerChoices.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.email}
                </option>
              ))}
            </select>
          </>
        )}
        {prefix && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setSearch('');
              setPrefix(undefined);
              setCursors([]);
            }}
          >
            Show all
          </button>
        )}
      </form>
      {result.error ? (
        <LoadFailure message={describeError(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !connection ? (
        <p aria-live="polite">Loading zones…</p>
      ) : connection.nodes.length === 0 ? (
        <p className="empty" role="status">
          {prefix
            ? `No zone name starts with ${prefix}.`
            : health
              ? `No zone’s health is ${HEALTH_WORDS[health]}.`
              : can?.createZone
                ? 'No zones yet: “New zone…” creates one.'
                : 'No zones yet.'}
        </p>
      ) : (
        <>
          <p role="status">
            {connection.totalCount.toLocaleString('en')} zone{connection.totalCount === 1 ? '' : 's'} · page {page} of {pages}
          </p>
          <div className="table-scroll" role="region" aria-label="Zones table" tabIndex={0}>
            <table className="zones">
              <thead>
                <tr>
                  {header('NAME', 'Zone')}
                  <th scope="col">Owner</th>
                  {header('KIND', 'Kind')}
                  {header('DNSSEC', 'DNSSEC')}
                  {header('RECORDS', 'Records')}
                  <th scope="col">Propagation</th>
                  <th scope="col">Health</th>
                  {header('SERIAL', 'Serial')}
                  {header('CREATED', 'Created')}
                </tr>
              </thead>
              <tbody>
                {shown.map((zone) => (
                  <tr key={zone.id}>
                    <td>
                      <a href={`#/zone/${encodeURIComponent(zone.name)}`}>{unicodeName(zone.name)}</a>
                      {unicodeName(zone.name) !== zone.name && <span className="a-label mono">{zone.name}</span>}
                    </td>
                    <td>{zone.user.email}</td>
                    <td>{zone.kind === 'SECONDARY' ? 'Secondary' : 'Primary'}</td>
                    <td>{zone.dnssecState === 'unsigned' ? 'Unsigned' : zone.dnssecState === 'signed' ? 'Signed' : 'Being unsigned'}</td>
                    <td className="num">{zone.recordCount.toLocaleString('en')}</td>
                    <td>{PROPAGATION_WORDS[zone.propagation.state] ?? zone.propagation.state}</td>
                    <td>
                      <HealthBadge state={zone.health.state} />
                    </td>
                    <td className="num">{zone.serial}</td>
                    <td>{new Date(zone.createdAt).toLocaleString('en')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <nav className="pager" aria-label="Zone pages">
            <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </button>
            <button
              type="button"
              disabled={!connection.pageInfo.hasNextPage}
              onClick={() => setCursors([...cursors, connection.pageInfo.endCursor])}
            >
              Next
            </button>
          </nav>
        </>
      )}
    </section>
  );
}
