import { FormEvent, useState } from 'react';
import { useQuery } from 'urql';
import { describeError } from './errors';
import { ZonesDocument } from './generated/graphql';

const PAGE_SIZE = 50;

/**
 * The zones the key may see, paged by the server (`domains(first, after)`): 100,000 zones are never all loaded.
 * The search finds a zone by its name (the API's `name` filter, an exact match after normalisation).
 */
export function ZoneList() {
  const [search, setSearch] = useState('');
  const [name, setName] = useState<string | undefined>(undefined);
  // the cursors of the pages before this one: Previous pops, Next pushes
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  const [result, refetch] = useQuery({
    query: ZonesDocument,
    variables: { first: PAGE_SIZE, after, name },
    // the cached page shows at once, and is asked again: zones come and go from other clients
    requestPolicy: 'cache-and-network',
  });
  const connection = result.data?.domains;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const wanted = search.trim().toLowerCase().replace(/\.$/, '');
    setCursors([]);
    setName(wanted || undefined);
  };
  const page = cursors.length + 1;
  const pages = connection ? Math.max(1, Math.ceil(connection.totalCount / PAGE_SIZE)) : 1;

  return (
    <section aria-labelledby="zones-title">
      <h1 id="zones-title">Zones</h1>
      <form className="toolbar" role="search" onSubmit={submit}>
        <label htmlFor="zone-search">Zone name</label>
        <input id="zone-search" type="search" value={search} placeholder="example.com" onChange={(e) => setSearch(e.target.value)} />
        <button type="submit">Find</button>
        {name && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setSearch('');
              setName(undefined);
              setCursors([]);
            }}
          >
            Show all
          </button>
        )}
      </form>
      {result.error ? (
        <div role="alert" className="error-box">
          <p>{describeError(result.error)}</p>
          <button type="button" onClick={() => refetch({ requestPolicy: 'network-only' })}>
            Try again
          </button>
        </div>
      ) : !connection ? (
        <p aria-live="polite">Loading zones…</p>
      ) : connection.nodes.length === 0 ? (
        <p className="empty" role="status">
          {name ? `No zone is named ${name}.` : 'No zones yet. Create one with the API (createDomain) or the CLI.'}
        </p>
      ) : (
        <>
          <p role="status">
            {connection.totalCount.toLocaleString('en')} zone{connection.totalCount === 1 ? '' : 's'} · page {page} of {pages}
          </p>
          <table className="zones">
            <thead>
              <tr>
                <th scope="col">Zone</th>
                <th scope="col">Serial</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {connection.nodes.map((zone) => (
                <tr key={zone.id}>
                  <td>
                    <a href={`#/zone/${encodeURIComponent(zone.name)}`}>{zone.name}</a>
                  </td>
                  <td className="num">{zone.serial}</td>
                  <td>{new Date(zone.createdAt).toLocaleString('en')}</td>
                </tr>
              ))}
            </tbody>
          </table>
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
