import { FormEvent, useEffect, useState } from 'react';
import { useQuery } from 'urql';
import { SearchRecordsDocument } from './generated/graphql';
import { ListState } from './list-state';
import { unicodeName } from './names';

const PAGE_SIZE = 50;

/** the address of the search's results: #/search?q=<text> */
export const searchHash = (text: string) => `#/search?q=${encodeURIComponent(text)}`;

/**
 * The top bar's search box (PowerDNS-Admin's search): what is typed is looked for in every record's name and
 * content, across the zones the caller may read; the results screen opens on submit.
 */
export function SearchBox({ current }: { current: string }) {
  const [text, setText] = useState(current);
  useEffect(() => setText(current), [current]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (text.trim()) location.hash = searchHash(text.trim());
  };
  return (
    <form className="top-search" role="search" aria-label="Records" onSubmit={submit}>
      <label htmlFor="top-search" className="sr-only">
        Search records by name or content
      </label>
      <input id="top-search" type="search" value={text} placeholder="Search names and contents" onChange={(e) => setText(e.target.value)} />
      <button type="submit" className="secondary">
        Search
      </button>
    </form>
  );
}

/**
 * The records whose name or content holds the text (searchRecords, paged by the server), each linking to its
 * zone's records filtered to its owner.
 */
export function SearchResults({ query }: { query: string }) {
  const [cursors, setCursors] = useState<(string | null)[]>([]);
  useEffect(() => setCursors([]), [query]);
  const after = cursors.length ? cursors[cursors.length - 1] : null;
  const [result] = useQuery({
    query: SearchRecordsDocument,
    variables: { query, first: PAGE_SIZE, after },
    pause: !query.trim(),
    requestPolicy: 'cache-and-network',
  });
  const found = result.data?.searchRecords;
  return (
    <section aria-labelledby="search-title">
      <h1 id="search-title">Records matching “{query}”</h1>
      {found && (
        <p role="status">
          {found.totalCount.toLocaleString('en')} record{found.totalCount === 1 ? '' : 's'} found
        </p>
      )}
      <ListState
        error={result.error}
        loaded={!!found}
        what="the records found"
        empty={found?.nodes.length === 0 && `No record’s name or content holds “${query}”.`}
        labelledBy="search-title"
      >
        <table className="search-results">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Zone</th>
              <th scope="col">Type</th>
              <th scope="col">TTL</th>
              <th scope="col">Content</th>
            </tr>
          </thead>
          <tbody>
            {found?.nodes.map((r) => (
              <tr key={r.id}>
                <td className="mono">
                  <a href={`#/zone/${encodeURIComponent(r.zone)}/records?owner=${encodeURIComponent(r.owner)}`}>
                    {r.owner === '@' ? unicodeName(r.zone) : `${r.owner}.${unicodeName(r.zone)}`}
                  </a>
                </td>
                <td>
                  <a href={`#/zone/${encodeURIComponent(r.zone)}`}>{unicodeName(r.zone)}</a>
                </td>
                <td>{r.type}</td>
                <td className="num">{r.ttl}</td>
                <td className="mono">{r.rdata}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </ListState>
      {found && (found.pageInfo.hasNextPage || cursors.length > 0) && (
        <nav className="pager" aria-label="Result pages">
          <button type="button" disabled={cursors.length === 0} onClick={() => setCursors(cursors.slice(0, -1))}>
            Previous
          </button>
          <button type="button" disabled={!found.pageInfo.hasNextPage} onClick={() => setCursors([...cursors, found.pageInfo.endCursor])}>
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
