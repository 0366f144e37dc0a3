import { DomainError } from '../errors/catalogue';
import type { Inputs, RouteSpec } from './route-spec';
import { ID_PARAM, zoneSelector } from './route-spec';
import { DomainQueriesDocument, DomainTopNamesDocument, UserQueriesDocument } from './generated/query-analytics';

/**
 * A zone's traffic as counted from its secondaries' dnstap (docs/analytics.md): GraphQL `Domain.queries` and
 * `Domain.topQueriedNames` as REST answers them, and an account's totals (`User.queries`). No ETag: the counts
 * change without the zone's serial.
 */
const ZONE = { zone: { kind: 'string' as const, required: true, description: 'zone id (digits) or zone name' } };
const WINDOW = {
  since: { kind: 'string' as const, required: true, description: 'the window’s start (ISO 8601)' },
  until: { kind: 'string' as const, description: 'the window’s end (ISO 8601; default now)' },
};

/** a time parameter read here, so that a bad one is refused naming it (not the GraphQL variable behind it) */
function timeOf(inputs: Inputs, name: 'since' | 'until'): string | undefined {
  const value = inputs[name];
  if (value === undefined || value === null) return undefined;
  const at = new Date(String(value));
  if (!/^\d{4}-\d{2}-\d{2}/.test(String(value)) || Number.isNaN(at.getTime()))
    throw DomainError.invalid(
      name,
      `${name} must be an ISO 8601 time, 2026-11-29T00:00:00Z (got ${JSON.stringify(String(value).slice(0, 40))})`,
    );
  return at.toISOString();
}

const DIMENSIONS = ['RCODE', 'TYPE', 'OWNER', 'SECONDARY'];
/** an account's: no OWNER (across all its zones the owners are unbounded), ZONE instead */
const ACCOUNT_DIMENSIONS = ['RCODE', 'TYPE', 'SECONDARY', 'ZONE'];

/** `by`: comma-separated dimensions, each one of `allowed` (any case) */
function dimensionsOf(value: Inputs[string], allowed = DIMENSIONS): string[] {
  if (value === undefined || value === null) return ['RCODE'];
  const by = String(value)
    .split(',')
    .map((d) => d.trim().toUpperCase());
  const unknown = by.find((d) => !allowed.includes(d));
  if (unknown !== undefined)
    throw DomainError.invalid(
      'by',
      unknown === 'OWNER'
        ? "by: an account's answers are not split by OWNER (its owners are every zone's, unbounded): split a zone's (/domain/queries/{zone})"
        : `by must list some of ${allowed.join(', ')} (got ${JSON.stringify(unknown.slice(0, 40))})`,
      'INVALID_CHOICE',
    );
  return by;
}

const COUNT = {
  type: 'object',
  properties: {
    rcode: { type: ['string', 'null'] },
    type: { type: ['string', 'null'] },
    owner: { type: ['string', 'null'], description: "relative to the zone; '' the owners beyond ANALYTICS_NAMES_PER_MINUTE" },
    secondary: { type: ['string', 'null'] },
    count: { type: 'integer' },
  },
  required: ['count'],
};
const ACCOUNT_COUNT = {
  type: 'object',
  properties: {
    rcode: { type: ['string', 'null'] },
    type: { type: ['string', 'null'] },
    secondary: { type: ['string', 'null'] },
    zone: { type: ['string', 'null'], description: 'the zone (split by ZONE)' },
    count: { type: 'integer' },
  },
  required: ['count'],
};

/** a window's answer, its buckets' counts of `count`'s shape */
const stats = (count: object) => ({
  since: { type: 'string', format: 'date-time' },
  until: { type: 'string', format: 'date-time' },
  step: { type: 'integer', description: 'seconds per bucket (longer than asked where the window reaches past the minutes kept)' },
  buckets: {
    type: 'array',
    items: {
      type: 'object',
      properties: {
        start: { type: 'string', format: 'date-time' },
        total: { type: ['integer', 'null'] },
        coverage: { type: 'number' },
        missing: { type: 'array', items: { type: 'string' } },
        droppedFrames: { type: 'integer' },
        counts: { type: 'array', items: count },
      },
      required: ['start', 'total', 'coverage', 'missing', 'droppedFrames', 'counts'],
    },
  },
});
const STEP = { kind: 'string' as const, description: 'MINUTE, HOUR (default) or DAY', choices: ['MINUTE', 'HOUR', 'DAY'] };

export const QUERY_ANALYTICS_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/queries/:zone',
    operationId: 'getDomainQueries',
    tag: 'domains',
    uncached: true,
    status: 200,
    summary:
      "A zone's answers over a window in buckets (MINUTE, HOUR or DAY), split by RCODE, type, owner or secondary, each bucket with its coverage: a bucket no secondary covered has total null (a gap, never a zero)",
    params: ZONE,
    query: {
      ...WINDOW,
      step: STEP,
      by: {
        kind: 'string',
        description: 'comma-separated: RCODE (default), TYPE, OWNER, SECONDARY',
      },
    },
    response: {
      type: 'object',
      properties: { zone: { type: 'string' }, ...stats(COUNT) },
      required: ['zone', 'since', 'until', 'step', 'buckets'],
    },
    async handle(inputs, runner) {
      const data = await runner.run(DomainQueriesDocument, {
        ...zoneSelector(String(inputs.zone)),
        since: timeOf(inputs, 'since'),
        until: timeOf(inputs, 'until'),
        step: inputs.step ?? 'HOUR',
        by: dimensionsOf(inputs.by),
      });
      return { body: { zone: data.domain.name, ...data.domain.queries } };
    },
  },
  {
    method: 'get',
    path: '/domain/top-names/:zone',
    operationId: 'getDomainTopNames',
    tag: 'domains',
    uncached: true,
    status: 200,
    summary:
      "A zone's most queried owners over a window, most first; with rcode (NXDOMAIN: names that do not exist) those answered with it",
    params: ZONE,
    query: {
      ...WINDOW,
      rcode: { kind: 'string', description: 'NOERROR, NXDOMAIN, … or RCODEn: the answers with this code alone' },
      first: { kind: 'int', description: 'at most this many names, 1 to 1000 (default 10)', max: 1000 },
    },
    response: {
      type: 'array',
      items: {
        type: 'object',
        properties: { owner: { type: 'string' }, count: { type: 'integer' } },
        required: ['owner', 'count'],
      },
    },
    async handle(inputs, runner) {
      const data = await runner.run(DomainTopNamesDocument, {
        ...zoneSelector(String(inputs.zone)),
        since: timeOf(inputs, 'since'),
        until: timeOf(inputs, 'until'),
        rcode: inputs.rcode,
        first: inputs.first ?? 10,
      });
      return { body: data.domain.topQueriedNames };
    },
  },
  {
    method: 'get',
    path: '/user/queries/:id',
    operationId: 'getUserQueries',
    tag: 'users',
    uncached: true,
    status: 200,
    summary:
      "An account's answers (all its zones') over a window in buckets (MINUTE, HOUR or DAY), split by RCODE, type, secondary or zone (never owner), each bucket with its coverage: a bucket no secondary covered has total null",
    params: ID_PARAM,
    query: {
      ...WINDOW,
      step: STEP,
      by: { kind: 'string', description: 'comma-separated: RCODE (default), TYPE, SECONDARY, ZONE (OWNER is refused: unbounded)' },
    },
    response: {
      type: 'object',
      properties: { user: { type: 'integer' }, ...stats(ACCOUNT_COUNT) },
      required: ['user', 'since', 'until', 'step', 'buckets'],
    },
    async handle(inputs, runner) {
      const data = await runner.run(UserQueriesDocument, {
        id: String(inputs.id),
        since: timeOf(inputs, 'since'),
        until: timeOf(inputs, 'until'),
        step: inputs.step ?? 'HOUR',
        by: dimensionsOf(inputs.by, ACCOUNT_DIMENSIONS),
      });
      return { body: { user: Number(data.user.id), ...data.user.queries } };
    },
  },
];
