import type { FieldSpec, RouteSpec } from './route-spec';
import { AUDIT_SCHEMAS } from './audit-routes';
import { CHANGE_REQUEST_SCHEMAS } from './change-requests-routes';
import { DNSSEC_EVENT_SCHEMAS, DNSSEC_SCHEMAS } from './dnssec-routes';
import { DOMAIN_SCHEMAS, ZONE_CHANGE_SCHEMAS, ZONE_HISTORY_SCHEMAS } from './domains-routes';
import { RECORD_SCHEMAS } from './records-routes';
import { STEERING_SCHEMAS } from './steering-routes';
import { CREATED_TSIG_KEY_SCHEMAS, TSIG_KEY_SCHEMAS } from './tsigkeys-routes';
import { USER_SCHEMAS } from './users-routes';
import { VIEW_SCHEMAS } from './views-routes';
import { MAX_HEADER_WARNINGS, WARNINGS_HEADER } from './warnings-header';

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed request',
  '401': 'Missing or wrong API key (Access denied)',
  '403':
    'Forbidden (e.g. deleting the SOA, an admin-only operation, FORBIDDEN_BY_POLICY: the key’s policy, docs/least-privilege.md, or QUOTA_EXCEEDED: a quota of the user)',
  '404': 'Unknown or not visible user, zone or record',
  '409':
    'Conflict (duplicate, CNAME, TTL of the RRset, SOA serial not raised; ZONE_UNDER_REVIEW: the zone requires approvals, and the message says how to propose the change)',
  '413': 'Body too large',
  '422': 'Invalid input; every problem listed in details',
  '429': 'RATE_LIMITED: over the rate limit of the key, its user or the zone; Retry-After says when to come back',
};

/**
 * The Prefer header of a documented path's write (RFC 7240): the only way such a path answers anything but its
 * documented success, so a client generated from this document never meets an answer it was not told of
 */
const PREFER_RESPOND_ASYNC = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description:
    'respond-async (RFC 7240 §4.1): on a zone that requires approvals, the write is proposed as a change request and answered 202 with it (the schema ChangeRequestAccepted; Preference-Applied: respond-async), nothing written. Without it such a write is refused, 409 ZONE_UNDER_REVIEW (docs/changes.md, «Review»)',
  schema: { type: 'string' },
};

const schemaOf = (spec: FieldSpec) =>
  spec.kind === 'list'
    ? spec.commaText
      ? { description: spec.description, oneOf: [{ type: 'array', items: spec.items ?? {} }, { type: 'string' }] }
      : { type: 'array', description: spec.description, items: spec.items ?? {} }
    : spec.kind === 'object'
      ? { description: spec.description, ...(spec.items ?? { type: 'object' }) }
      : {
          type: spec.nullable ? [spec.kind === 'int' ? 'integer' : 'string', 'null'] : spec.kind === 'int' ? 'integer' : 'string',
          description: spec.description,
          ...(spec.max !== undefined ? { maximum: spec.max } : {}),
          ...(spec.choices ? { enum: [...spec.choices] } : {}),
        };

/** docs/decisions.md §1: with REST_ENVELOPE=restknot a success body is wrapped, count being the array's length (1 for an object) */
const enveloped = (data: object) => ({
  type: 'object',
  properties: {
    code: { type: 'integer' },
    count: { type: 'integer', minimum: 0 },
    data,
    status: { const: 'success' },
    message: { const: 'OK' },
  },
  required: ['code', 'count', 'data', 'status', 'message'],
});

export interface OpenApiOptions {
  /** REST_ENVELOPE: the document describes the bodies the service answers with */
  envelope: 'none' | 'restknot';
}

/**
 * OpenAPI 3.1 document of the REST layer, generated from the route table so that the two cannot differ: every
 * operation with its operationId and tag, its parameters, its body (optional when no field of it is required:
 * `DELETE /domain/delete` takes the zone from the query as well), its success body (JSON, wrapped when the
 * RESTKnot envelope is on; the zone file as `text/dns`) and the error bodies.
 */
export function buildOpenApi(routes: RouteSpec[], options: OpenApiOptions = { envelope: 'none' }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/api${route.path.replace(/:(\w+)/g, '{$1}')}`;
    const parameters = [
      ...Object.entries(route.params ?? {}).map(([name, spec]) => ({ name, in: 'path', required: true, schema: schemaOf(spec) })),
      ...Object.entries(route.query ?? {}).map(([name, spec]) => ({ name, in: 'query', required: false, schema: schemaOf(spec) })),
      ...(route.proposes === 'when-preferred' ? [PREFER_RESPOND_ASYNC] : []),
    ];
    const required = Object.entries(route.body ?? {})
      .filter(([, spec]) => spec.required)
      .map(([name]) => name);
    const bodySchema = route.body && {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(Object.entries(route.body).map(([name, spec]) => [name, schemaOf(spec)])),
      required,
    };
    const success =
      route.status === 204
        ? { description: 'Done; no body' }
        : route.responseType
          ? { description: 'Success', content: { [route.responseType]: { schema: { type: 'string' } } } }
          : {
              description: 'Success',
              content: {
                'application/json': { schema: options.envelope === 'restknot' ? enveloped(route.response ?? {}) : (route.response ?? {}) },
              },
            };
    // a write's warnings (TARGET_MISSING, …) ride in a header: the documented bodies keep their shape
    const withWarnings =
      route.method === 'get' ? success : { ...success, headers: { [WARNINGS_HEADER]: { $ref: '#/components/headers/Warnings' } } };
    const responses: Record<string, unknown> = { [String(route.status)]: withWarnings };
    // a zone that requires approvals: the write is a change request, nothing written (docs/changes.md, «Review»);
    // a documented path keeps its one success answer, the 202 being only for a client that asks (its Prefer)
    if (route.proposes === 'always') {
      const schema = { $ref: '#/components/schemas/ChangeRequestAccepted' };
      responses['202'] = {
        description: 'The zone requires approvals: the write became a change request, nothing written',
        content: { 'application/json': { schema: options.envelope === 'restknot' ? enveloped(schema) : schema } },
      };
    }
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    paths[path] ??= {};
    paths[path][route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      tags: [route.tag],
      security: [{ apiKey: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(bodySchema
        ? {
            requestBody: {
              required: required.length > 0,
              // a list (a change set) comes only as JSON
              content: Object.values(route.body ?? {}).some((spec) => spec.kind === 'list' || spec.kind === 'object')
                ? { 'application/json': { schema: bodySchema } }
                : {
                    'application/x-www-form-urlencoded': { schema: bodySchema },
                    'multipart/form-data': { schema: bodySchema },
                    'application/json': { schema: bodySchema },
                  },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Zonekeeper REST compatibility API',
      version: '1.0.0',
      description: `The documented /api paths of the zone-management interface, served on the same operations as /graphql. Paths also answer with a trailing slash. Success bodies are ${options.envelope === 'restknot' ? 'wrapped in the RESTKnot envelope (REST_ENVELOPE=restknot)' : 'bare (REST_ENVELOPE=none)'}.`,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Zonekeeper' },
    },
    // the paths below start with /api: the server is the service itself, wherever it is reached
    servers: [{ url: '/', description: 'this Zonekeeper service' }],
    tags: [
      { name: 'records', description: 'Records of a zone' },
      { name: 'users', description: 'Users, who own zones' },
      { name: 'domains', description: 'Zones (domains), their zone files and their propagation' },
      { name: 'tsigkeys', description: 'TSIG keys for DNS UPDATE (RFC 2136) on the primary' },
      { name: 'dnssec', description: 'Signing zones (DNSSEC, RFC 4033–4035): keys, DS for the parent' },
      { name: 'steering', description: 'Health-checked failover (docs/steering.md): steered RRsets, their pools and members’ live state' },
      {
        name: 'views',
        description: 'Split horizon (docs/views.md): a zone’s overlays per view, and the zone as each view serves it (admin key only)',
      },
      { name: 'audit', description: 'The audit log (admin key only)' },
      { name: 'events', description: 'Events out: the event feed and webhook subscriptions (docs/events.md)' },
    ],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      headers: {
        Warnings: {
          description: `What the write took but is worth a look (the warnings GraphQL answers as extensions.warnings): a JSON array of {field, code, message}, non-ASCII characters escaped (\\uXXXX), the first ${MAX_HEADER_WARNINGS}; absent when there is none`,
          schema: { type: 'string' },
        },
      },
      schemas: {
        // each resource's schemas beside its routes, in the order the document has always listed them (a client
        // generated from it, and its diff, stay still)
        ...RECORD_SCHEMAS,
        ...TSIG_KEY_SCHEMAS,
        ...AUDIT_SCHEMAS,
        ...CREATED_TSIG_KEY_SCHEMAS,
        ...USER_SCHEMAS,
        ...DOMAIN_SCHEMAS,
        ...DNSSEC_SCHEMAS,
        ...ZONE_CHANGE_SCHEMAS,
        ...STEERING_SCHEMAS,
        ...VIEW_SCHEMAS,
        ...CHANGE_REQUEST_SCHEMAS,
        ...DNSSEC_EVENT_SCHEMAS,
        ...ZONE_HISTORY_SCHEMAS,
        Error: {
          type: 'object',
          properties: {
            code: { type: 'integer' },
            status: { const: 'error' },
            error: { type: 'string', description: 'stable error code, the same as GraphQL extensions.code' },
            message: { type: 'string' },
            details: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } },
            },
          },
          required: ['code', 'status', 'error', 'message', 'details'],
        },
      },
    },
    paths,
  };
}
