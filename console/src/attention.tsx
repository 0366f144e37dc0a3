import { useQuery } from 'urql';
import { describeError } from './errors';
import { AttentionDocument, type AttentionListFieldsFragment, type AttentionQuery } from './generated/graphql';
import { RootBanner } from './health';
import { when } from './identity';
import { unicodeName } from './names';
import { LoadFailure } from './load-failure';

/** the items each list shows; its count says how many there are in all */
const ITEMS = 20;

/**
 * The kinds, in the order shown: the title, the zone's view that shows the matter (its tab), and what to do.
 */
const KINDS: readonly {
  key: keyof Omit<AttentionQuery['attention'], '__typename'>;
  title: string;
  tab: string;
  hint: string;
}[] = [
  {
    key: 'secondariesBehind',
    title: 'Secondaries behind',
    tab: 'propagation',
    hint: 'A secondary of the zone’s nameserver set fails or lags: see the zone’s Propagation.',
  },
  {
    key: 'failedTransfers',
    title: 'Failed transfers',
    tab: 'records',
    hint: 'A secondary zone’s primaries do not give it: its refresh fails, or it expired and is no longer served.',
  },
  {
    key: 'dsAtParent',
    title: 'DS to publish at the parent',
    tab: 'dnssec',
    hint: 'A signed zone waits for its DS at the parent (or for it to be removed): see the zone’s DNSSEC.',
  },
  {
    key: 'health',
    // the list is of zones (each with its findings in words), so is its count
    title: 'Zones with health findings',
    tab: 'health',
    hint: 'Seen from where resolvers stand: the parent’s delegation, its DS, a nameserver lame, behind or serving old signatures (docs/health.md).',
  },
  {
    key: 'steering',
    title: 'Failover held',
    tab: 'steering',
    hint: 'A check fails but the panic freeze holds it up, or a vantage probing it is isolated: what is served is not what the endpoints say (docs/steering.md).',
  },
];

function AttentionItems({ list, tab, titleId }: { list: AttentionListFieldsFragment; tab: string; titleId: string }) {
  return (
    <>
      <ul className="attention-items" aria-labelledby={titleId}>
        {list.items.map((item) => (
          <li key={item.zone.id}>
            <a href={`#/zone/${encodeURIComponent(item.zone.name)}${tab === 'records' ? '' : `/${tab}`}`}>{unicodeName(item.zone.name)}</a>
            <span className="hint">
              {' '}
              {item.detail}
              {item.since ? ` · since ${when(item.since)}` : ''}
            </span>
          </li>
        ))}
      </ul>
      {list.totalCount > list.items.length && <p className="hint">and {(list.totalCount - list.items.length).toLocaleString('en')} more</p>}
    </>
  );
}

/**
 * What needs attention across the zones the caller may see (the API's `attention`, one query), on the landing
 * screen above the zone list: a count per kind, and the zones, each one click from its view. Asked afresh each
 * time the screen opens (a zone fixed or deleted meanwhile must not linger).
 */
export function Attention() {
  const [result, refetch] = useQuery({ query: AttentionDocument, variables: { first: ITEMS }, requestPolicy: 'network-only' });
  const attention = result.data?.attention;
  const total = attention ? KINDS.reduce((sum, kind) => sum + attention[kind.key].totalCount, 0) : 0;
  return (
    <section className="panel attention" aria-labelledby="attention-title">
      <h2 id="attention-title">Needs attention</h2>
      <RootBanner checker={result.data?.healthChecker} />
      {result.error ? (
        <LoadFailure message={describeError(result.error)} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !attention ? (
        <p role="status">Loading…</p>
      ) : total === 0 ? (
        <p role="status">Nothing needs attention.</p>
      ) : (
        <>
          <ul className="attention-counts" aria-label="Counts">
            {KINDS.map((kind) => (
              <li key={kind.key}>
                {kind.title}: <strong>{attention[kind.key].totalCount.toLocaleString('en')}</strong>
              </li>
            ))}
          </ul>
          {KINDS.filter((kind) => attention[kind.key].totalCount > 0).map((kind) => (
            <div key={kind.key}>
              <h3 id={`attention-${kind.key}`}>
                {kind.title} ({attention[kind.key].totalCount.toLocaleString('en')})
              </h3>
              <p className="hint">{kind.hint}</p>
              <AttentionItems list={attention[kind.key]} tab={kind.tab} titleId={`attention-${kind.key}`} />
            </div>
          ))}
        </>
      )}
    </section>
  );
}
