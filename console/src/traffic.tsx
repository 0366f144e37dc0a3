import { useState } from 'react';
import { useQuery } from 'urql';
import { describeError, errorCode } from './errors';
import { type QueryStep, ZoneQueriesDocument, type ZoneQueriesQuery } from './generated/graphql';
import { LoadFailure } from './load-failure';
import { bucketLabel, countOf, type QueryBucket, QueryChart, rcodesOf } from './query-chart';

/**
 * A zone's Queries tab (docs/analytics.md): what its secondaries answered over the last hour, day or week, by
 * response code, with the gaps in the counts shown as gaps; the numbers as a table for whoever does not read the
 * chart; the most queried names and the most queried names that do not exist (NXDOMAIN: typos, stale links,
 * random-subdomain floods).
 */

const RANGES = {
  hour: { label: 'Last hour', ms: 3_600_000, step: 'MINUTE' },
  day: { label: 'Last day', ms: 86_400_000, step: 'HOUR' },
  week: { label: 'Last week', ms: 7 * 86_400_000, step: 'HOUR' },
} as const satisfies Record<string, { label: string; ms: number; step: QueryStep }>;
type Range = keyof typeof RANGES;

/** how many names each top list shows */
const TOP_NAMES = 10;

const plural = (n: number, word: string) => `${n.toLocaleString('en')} ${word}${n === 1 ? '' : 's'}`;

/** a bucket's length in words (the service may widen the step asked for: QueryStats.step) */
const unitOf = (step: number) => (step === 60 ? 'minute' : step === 3600 ? 'hour' : step === 86_400 ? 'day' : `${step} s bucket`);

/** the chart in one paragraph: totals by code, and how much of the window is a gap or covered in part */
export function trafficSummary(buckets: readonly QueryBucket[], step: number, rangeLabel: string): string {
  const unit = unitOf(step);
  const known = buckets.filter((b) => b.total !== null);
  const gaps = buckets.length - known.length;
  const partial = known.filter((b) => b.coverage < 1);
  const missing = [...new Set(partial.flatMap((b) => b.missing))].sort();
  if (known.length === 0)
    return `${rangeLabel}: no secondary sent its answers (dnstap) to the collector, so nothing is known of this zone’s queries: a gap, not zero.`;
  const total = known.reduce((sum, b) => sum + (b.total ?? 0), 0);
  const byCode = rcodesOf(known).map((rcode) => `${rcode} ${known.reduce((sum, b) => sum + countOf(b, rcode), 0).toLocaleString('en')}`);
  const sentences = [
    `${rangeLabel}, by ${unit}: ${plural(total, 'answer')}${byCode.length ? ` (${byCode.join(', ')})` : ''}.`,
    gaps
      ? `${plural(gaps, unit)} ${gaps === 1 ? 'is a gap' : 'are gaps'}: no secondary was sending then, so their counts are unknown, not zero.`
      : '',
    partial.length
      ? `${plural(partial.length, unit)} partly covered (${missing.join(', ') || 'a secondary'} not sending all of it): their counts are a floor.`
      : '',
  ];
  return sentences.filter(Boolean).join(' ');
}

/** the chart's numbers, one row a bucket: each code's count, the total and the coverage; a gap says so */
function TrafficTable(props: { buckets: readonly QueryBucket[]; withDay: boolean }) {
  const rcodes = rcodesOf(props.buckets);
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label="Answers by response code, as a table">
      <table className="traffic" data-testid="traffic-table">
        <thead>
          <tr>
            <th scope="col">From</th>
            {rcodes.map((rcode) => (
              <th scope="col" key={rcode} className="num">
                {rcode}
              </th>
            ))}
            <th scope="col" className="num">
              Total
            </th>
            <th scope="col" className="num">
              Covered
            </th>
          </tr>
        </thead>
        <tbody>
          {props.buckets.map((bucket) => (
            <tr key={bucket.start} data-start={bucket.start} className={bucket.total === null ? 'gap-row' : undefined}>
              <th scope="row">{bucketLabel(bucket.start, props.withDay)}</th>
              {bucket.total === null ? (
                <td colSpan={rcodes.length + 1} data-total="gap">
                  gap: nobody was counting
                </td>
              ) : (
                <>
                  {rcodes.map((rcode) => (
                    <td key={rcode} className="num" data-rcode={rcode}>
                      {countOf(bucket, rcode).toLocaleString('en')}
                    </td>
                  ))}
                  <td className="num" data-total={bucket.total}>
                    {bucket.coverage < 1 ? 'at least ' : ''}
                    {bucket.total.toLocaleString('en')}
                  </td>
                </>
              )}
              <td className="num" title={bucket.missing.length ? `Not sending all of it: ${bucket.missing.join(', ')}` : undefined}>
                {Math.floor(bucket.coverage * 100)} %
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** one of the top lists: each name and its count, or a sentence when there is none */
function TopNames(props: { id: string; title: string; names: readonly { owner: string; count: number }[]; none: string }) {
  return (
    <section className="top-names" aria-labelledby={props.id}>
      <h3 id={props.id}>{props.title}</h3>
      {props.names.length === 0 ? (
        <p className="empty">{props.none}</p>
      ) : (
        <table data-testid={props.id}>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                Answers
              </th>
            </tr>
          </thead>
          <tbody>
            {props.names.map((name) => (
              <tr key={name.owner}>
                <td className="mono">{name.owner}</td>
                <td className="num">{name.count.toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function TrafficPanel({ zone }: { zone: string }) {
  const [range, setRange] = useState<Range>('day');
  // the moment the window ends: set when the range is picked or "Refresh" is pressed, so that a render asks nothing
  const [askedAt, setAskedAt] = useState(() => Date.now());
  const { ms, step, label } = RANGES[range];
  const since = new Date(askedAt - ms).toISOString();
  const [result, refetch] = useQuery({
    query: ZoneQueriesDocument,
    variables: { zone, since, step, first: TOP_NAMES },
    requestPolicy: 'network-only',
  });
  const domain: ZoneQueriesQuery['domain'] | undefined = result.data?.domain;
  const withDay = range === 'week';
  const summary = domain ? trafficSummary(domain.queries.buckets, domain.queries.step, label) : '';
  return (
    <section aria-labelledby="traffic-title" className="traffic-panel">
      <h2 id="traffic-title">Queries</h2>
      <p className="hint">
        What the secondaries answered for this zone, counted from their dnstap by response code. A gap is time when no secondary was
        sending: its queries are unknown, not zero.
      </p>
      <div className="toolbar">
        <label htmlFor="traffic-range">Range</label>
        <select
          id="traffic-range"
          value={range}
          onChange={(e) => {
            setRange(e.target.value as Range);
            setAskedAt(Date.now());
          }}
        >
          {Object.entries(RANGES).map(([key, value]) => (
            <option key={key} value={key}>
              {value.label}
            </option>
          ))}
        </select>
        <button type="button" className="secondary" onClick={() => setAskedAt(Date.now())} disabled={result.fetching}>
          Refresh
        </button>
      </div>
      {result.error ? (
        <LoadFailure
          message={
            errorCode(result.error) === 'FORBIDDEN_BY_POLICY'
              ? 'This key may read only some of the zone’s names; its traffic names every name asked for, so only a key that reads the whole zone sees it.'
              : describeError(result.error)
          }
          onRetry={() => refetch({ requestPolicy: 'network-only' })}
        />
      ) : !domain ? (
        <p aria-live="polite">Loading the counts…</p>
      ) : (
        <>
          <figure className="traffic-figure">
            <QueryChart buckets={domain.queries.buckets} step={domain.queries.step} describedBy="traffic-summary" withDay={withDay} />
            <figcaption id="traffic-summary" data-testid="traffic-summary">
              {summary}
            </figcaption>
          </figure>
          <details className="traffic-details">
            <summary>The counts as a table</summary>
            <TrafficTable buckets={domain.queries.buckets} withDay={withDay} />
          </details>
          <div className="top-names-pair">
            <TopNames
              id="top-names"
              title="Most queried names"
              names={domain.topQueriedNames}
              none="No name was answered in this range (or nobody was counting)."
            />
            <TopNames
              id="top-nxdomain"
              title="Most queried names that do not exist (NXDOMAIN)"
              names={domain.topNxdomainNames}
              none="No NXDOMAIN was answered in this range (or nobody was counting)."
            />
          </div>
        </>
      )}
    </section>
  );
}
