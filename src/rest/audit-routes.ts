import { ListAuditEventsDocument } from './generated/operations';
import { presentAuditEvent } from './presenters';
import { arrayOf, mapPages, PAGE, RouteSpec } from './route-spec';

/** The audit log's REST route: /audit. */
export const AUDIT_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/audit',
    operationId: 'listAuditEvents',
    tag: 'audit',
    summary: 'The audit log, newest first (admin key only; docs/audit-log.md)',
    status: 200,
    query: {
      kind: { kind: 'string', description: 'only events of this kind (api-key-created, authentication-failed, …)' },
      since: { kind: 'string', description: 'only events at or after this time (ISO 8601 with a zone, e.g. 2026-11-24T09:00:00Z)' },
    },
    response: arrayOf('AuditEvent'),
    async handle(inputs, runner) {
      const pages = runner.pages(ListAuditEventsDocument, 'auditEvents', { first: PAGE, kind: inputs.kind, since: inputs.since });
      return { itemPages: mapPages(pages, presentAuditEvent) };
    },
  },
];
