import { useEffect, useId, useRef, useState } from 'react';
import type { ZoneQueriesQuery } from './generated/graphql';

/**
 * A zone's answers over time as stacked bars, one a bucket, one colour a response code (docs/analytics.md), drawn
 * as plain SVG: a bucket no secondary covered (total null) is a gap, drawn as a hatched band with no bar, never as
 * a zero; a bucket covered in part is paler (its counts are a floor). The SVG is one image to assistive technology,
 * described by the summary in words under it; the numbers themselves are the table beside it (traffic.tsx).
 */

export type QueryBucket = ZoneQueriesQuery['domain']['queries']['buckets'][number];

/** the usual codes first, in the order people read them; any other after them, by name */
const RCODE_ORDER = ['NOERROR', 'NXDOMAIN', 'SERVFAIL', 'REFUSED', 'FORMERR', 'NOTIMP'];
/**
 * each code's colour: the Okabe–Ito hues darkened to at least 3:1 against white (WCAG 1.4.11), told apart by
 * lightness too; the legend and the table carry the codes in words
 */
const RCODE_COLOURS: Record<string, string> = {
  NOERROR: '#0b5fa5',
  NXDOMAIN: '#b35900',
  SERVFAIL: '#b3261e',
  REFUSED: '#7b3294',
  FORMERR: '#00735a',
  NOTIMP: '#6b5b00',
};
const OTHER_COLOUR = '#505a66';
export const rcodeColour = (rcode: string) => RCODE_COLOURS[rcode] ?? OTHER_COLOUR;

/** the response codes met in the buckets, in reading order */
export function rcodesOf(buckets: readonly QueryBucket[]): string[] {
  const met = new Set(buckets.flatMap((b) => b.counts.map((c) => c.rcode ?? 'unknown')));
  const known = RCODE_ORDER.filter((code) => met.has(code));
  return [...known, ...[...met].filter((code) => !RCODE_ORDER.includes(code)).sort()];
}

/** a bucket's count of one code (0 when the bucket is covered and the code was not answered) */
export const countOf = (bucket: QueryBucket, rcode: string) =>
  bucket.counts.filter((c) => (c.rcode ?? 'unknown') === rcode).reduce((sum, c) => sum + c.count, 0);

/** a bucket's time as the axis and the table say it: the hour and minute, with the day for windows over a day */
export function bucketLabel(startIso: string, withDay: boolean): string {
  const options: Intl.DateTimeFormatOptions = withDay
    ? { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' }
    : { hour: '2-digit', minute: '2-digit' };
  return new Date(startIso).toLocaleString('en-GB', options);
}

/** the axis' top: 1, 2 or 5 times a power of ten, at least the tallest bar */
function niceCeiling(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((nice) => nice >= value)!;
}

/** the runs of consecutive gap buckets, as [first index, last index] */
function gapRuns(buckets: readonly QueryBucket[]): [number, number][] {
  const runs: [number, number][] = [];
  buckets.forEach((bucket, i) => {
    if (bucket.total !== null) return;
    const last = runs[runs.length - 1];
    if (last && last[1] === i - 1) last[1] = i;
    else runs.push([i, i]);
  });
  return runs;
}

const HEIGHT = 240;
const MARGIN = { top: 12, right: 12, bottom: 30, left: 52 };
/** the least room an axis label takes, in pixels */
const LABEL_ROOM = 96;

/** the width the chart is given: its box's, followed as the window resizes */
function useWidth(fallback: number) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(fallback);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => setWidth(Math.max(240, Math.floor(entry.contentRect.width))));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return { box, width };
}

/** the chart; `describedBy` names the element that says it in words (the figure's caption) */
export function QueryChart(props: { buckets: readonly QueryBucket[]; step: number; describedBy: string; withDay: boolean }) {
  const { buckets, step, withDay } = props;
  const id = useId();
  const { box, width } = useWidth(720);
  const rcodes = rcodesOf(buckets);
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const top = niceCeiling(Math.max(0, ...buckets.map((b) => b.total ?? 0)));
  const slot = plotWidth / Math.max(1, buckets.length);
  const barWidth = slot >= 4 ? slot * 0.8 : slot;
  const x = (i: number) => MARGIN.left + i * slot;
  const y = (value: number) => MARGIN.top + plotHeight - (value / top) * plotHeight;
  const every = Math.max(1, Math.ceil(LABEL_ROOM / slot));
  const endOf = (i: number) => new Date(Date.parse(buckets[i].start) + step * 1000).toISOString();
  return (
    <div className="query-chart" ref={box}>
      <svg
        width={width}
        height={HEIGHT}
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={props.describedBy}
        data-testid="query-chart"
      >
        <title id={`${id}-title`}>Answers over time by response code</title>
        <defs>
          <pattern id={`${id}-hatch`} width="8" height="8" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="8" height="8" className="gap-fill" />
            <line x1="0" y1="0" x2="0" y2="8" className="gap-hatch" />
          </pattern>
        </defs>
        {[0, top / 2, top].map((value) => (
          <g key={value} className="axis">
            <line x1={MARGIN.left} x2={width - MARGIN.right} y1={y(value)} y2={y(value)} className="grid-line" />
            <text x={MARGIN.left - 6} y={y(value)} dy="0.32em" textAnchor="end">
              {value.toLocaleString('en')}
            </text>
          </g>
        ))}
        {gapRuns(buckets).map(([first, last]) => (
          <g key={first} data-testid="chart-gap" data-from={buckets[first].start} data-until={endOf(last)}>
            <rect
              x={x(first)}
              y={MARGIN.top}
              width={(last - first + 1) * slot}
              height={plotHeight}
              fill={`url(#${id}-hatch)`}
              className="gap-band"
            />
            {(last - first + 1) * slot >= 40 && (
              <text x={x(first) + ((last - first + 1) * slot) / 2} y={MARGIN.top + 16} textAnchor="middle" className="gap-label">
                gap
              </text>
            )}
          </g>
        ))}
        {buckets.map((bucket, i) => {
          if (bucket.total === null) return null;
          let stacked = 0;
          return (
            <g
              key={bucket.start}
              data-testid="chart-bucket"
              data-start={bucket.start}
              data-total={bucket.total}
              className={bucket.coverage < 1 ? 'partial' : undefined}
            >
              {rcodes.map((rcode) => {
                const count = countOf(bucket, rcode);
                if (count === 0) return null;
                const from = stacked;
                stacked += count;
                return (
                  <rect
                    key={rcode}
                    data-rcode={rcode}
                    data-count={count}
                    x={x(i) + (slot - barWidth) / 2}
                    y={y(stacked)}
                    width={barWidth}
                    height={Math.max(0, y(from) - y(stacked))}
                    fill={rcodeColour(rcode)}
                  />
                );
              })}
            </g>
          );
        })}
        <line x1={MARGIN.left} x2={width - MARGIN.right} y1={MARGIN.top + plotHeight} y2={MARGIN.top + plotHeight} className="base-line" />
        {buckets.map((bucket, i) =>
          i % every === 0 ? (
            <text
              key={bucket.start}
              x={x(i)}
              y={HEIGHT - 8}
              className="axis"
              // the first label starts at the axis, one near the right edge ends there: none is cut
              textAnchor={i === 0 ? 'start' : x(i) + LABEL_ROOM / 2 > width ? 'end' : 'middle'}
            >
              {bucketLabel(bucket.start, withDay)}
            </text>
          ) : null,
        )}
      </svg>
      <ul className="chart-legend" aria-label="Legend">
        {rcodes.map((rcode) => (
          <li key={rcode}>
            <span className="swatch" style={{ background: rcodeColour(rcode) }} aria-hidden="true" /> {rcode}
          </li>
        ))}
        <li>
          <span className="swatch swatch-gap" aria-hidden="true" /> gap: nobody was counting (unknown, not zero)
        </li>
        <li>
          <span className="swatch swatch-partial" aria-hidden="true" /> paler: partly covered (the counts are a floor)
        </li>
      </ul>
    </div>
  );
}
