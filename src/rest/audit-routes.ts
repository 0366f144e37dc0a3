import { ListAuditEventsDocument } from './generated/audit';
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

/** the OpenAPI schema of an audit event (a component of the document: openapi.ts assembles them) */
export const AUDIT_SCHEMAS = {
  AuditEvent: {
    type: 'object',
    description: 'One event of the audit log (docs/audit-log.md)',
    properties: {
      id: { type: 'integer' },
      at: { type: 'string', format: 'date-time', description: 'for failed authentications: the start of their minute' },
      kind: { type: 'string' },
      actor_key_type: {
        enum: ['api', 'tsig', 'session', null],
        description: 'what acted: an API key, a TSIG key, a person signed in (session); null when none did',
      },
      actor_key_id: {
        type: ['integer', 'null'],
        description:
          "the key's id, or the person's session's; null for a person acting before their session begins (joining by an invitation link)",
      },
      actor_key_name: { type: ['string', 'null'], description: "the key's name, or the person's e-mail address" },
      actor_user_id: {
        type: ['integer', 'null'],
        description: "the acting key's user, or the account a person acts in; null for an admin key, and a person in no account yet",
      },
      actor_admin: { type: 'boolean' },
      subject: { type: ['string', 'null'], description: 'api-key:12, tsig-key:3, user:5, zone:example.com' },
      detail: { type: 'object' },
      source_address: { type: ['string', 'null'] },
      count: { type: 'integer', description: 'attempts a failed-authentication event stands for; 1 otherwise' },
    },
    required: [
      'id',
      'at',
      'kind',
      'actor_key_type',
      'actor_key_id',
      'actor_key_name',
      'actor_user_id',
      'actor_admin',
      'subject',
      'detail',
      'source_address',
      'count',
    ],
  },
};
