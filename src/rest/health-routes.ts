/**
 * Zone health over REST (docs/health.md): the health of a zone and a check asked for now, each the GraphQL
 * operation of the same (`Domain.health`, `checkHealth`), in the REST layer's snake_case.
 */
import { FINDING_CODES } from '../services/operations/health-checks';
import { CheckHealthDocument, DomainHealthDocument, type RestZoneHealthFragment } from './generated/health';
import type { FieldSpec, Inputs, RouteResult, RouteSpec, Runner } from './route-spec';

const ZONE_PARAM: Record<string, FieldSpec> = { zone: { kind: 'string', required: true, description: 'zone name' } };

const ZONE_HEALTH_SCHEMA = {
  type: 'object',
  properties: {
    zone: { type: 'string' },
    checked_at: { type: ['string', 'null'], description: 'when the last check ended; null: never checked' },
    state: { enum: ['ok', 'warning', 'critical', 'unknown'] },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          code: { enum: Object.keys(FINDING_CODES) },
          severity: { enum: ['critical', 'warning', 'info'] },
          server: { type: ['string', 'null'] },
          message: { type: 'string' },
          since: { type: 'string' },
        },
        required: ['code', 'severity', 'server', 'message', 'since'],
      },
    },
  },
  required: ['zone', 'checked_at', 'state', 'findings'],
};

function presentHealth(health: RestZoneHealthFragment): RouteResult {
  return {
    body: {
      zone: health.zone,
      checked_at: health.checkedAt,
      state: health.state,
      findings: health.findings.map((f) => ({ code: f.code, severity: f.severity, server: f.server, message: f.message, since: f.since })),
    },
  };
}

export const HEALTH_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/health/:zone',
    operationId: 'getDomainHealth',
    tag: 'domains',
    summary: "A zone as resolvers meet it: the last health check's state and findings (docs/health.md)",
    status: 200,
    uncached: true,
    params: ZONE_PARAM,
    response: ZONE_HEALTH_SCHEMA,
    async handle(inputs: Inputs, runner: Runner) {
      const data = await runner.run(DomainHealthDocument, { name: String(inputs.zone) });
      return presentHealth(data.domain.health);
    },
  },
  {
    method: 'post',
    path: '/domain/health/:zone',
    operationId: 'checkDomainHealth',
    tag: 'domains',
    summary: 'Checks a zone now (its parent and nameservers asked from the root down) and answers its health',
    status: 200,
    names: 'zone',
    params: ZONE_PARAM,
    response: ZONE_HEALTH_SCHEMA,
    async handle(inputs: Inputs, runner: Runner) {
      const data = await runner.run(CheckHealthDocument, { zone: String(inputs.zone) });
      return presentHealth(data.checkHealth);
    },
  },
];
