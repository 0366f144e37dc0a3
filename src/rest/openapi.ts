import type { FieldSpec, RouteSpec } from './routes';

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Malformed request',
  '401': 'Missing or wrong API key (Access denied)',
  '403': 'Forbidden (e.g. deleting the SOA, or an admin-only operation)',
  '404': 'Unknown or not visible user, zone or record',
  '409': 'Conflict (duplicate, CNAME, TTL of the RRset, SOA serial not raised)',
  '413': 'Body too large',
  '422': 'Invalid input; every problem listed in details',
};

const schemaOf = (spec: FieldSpec) => ({ type: spec.kind === 'int' ? 'integer' : 'string', description: spec.description, ...(spec.max !== undefined ? { maximum: spec.max } : {}) });

/** OpenAPI 3.1 document of the REST layer, generated from the route table so that the two cannot differ. */
export function buildOpenApi(routes: RouteSpec[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = `/api${route.path.replace(/:(\w+)/g, '{$1}')}`;
    const parameters = [
      ...Object.entries(route.params ?? {}).map(([name, spec]) => ({ name, in: 'path', required: true, schema: schemaOf(spec) })),
      ...Object.entries(route.query ?? {}).map(([name, spec]) => ({ name, in: 'query', required: false, schema: schemaOf(spec) })),
    ];
    const bodySchema = route.body && {
      type: 'object',
      additionalProperties: false,
      properties: Object.fromEntries(Object.entries(route.body).map(([name, spec]) => [name, schemaOf(spec)])),
      required: Object.entries(route.body).filter(([, spec]) => spec.required).map(([name]) => name),
    };
    const responses: Record<string, unknown> = {
      [String(route.status)]: route.status === 204
        ? { description: 'Done; no body' }
        : { description: 'Success', content: { 'application/json': { schema: route.response ?? {} } } },
    };
    for (const [status, description] of Object.entries(ERROR_STATUSES)) {
      responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    paths[path] ??= {};
    paths[path][route.method] = {
      summary: route.summary,
      tags: [route.tag],
      security: [{ apiKey: [] }],
      ...(parameters.length ? { parameters } : {}),
      ...(bodySchema
        ? {
            requestBody: {
              required: true,
              content: {
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
      description: 'The documented /api paths of the zone-management interface, served on the same operations as /graphql. Paths also answer with a trailing slash.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      schemas: {
        Record: {
          type: 'object',
          properties: {
            id: { type: 'integer' }, owner: { type: 'string' }, rdata: { type: 'string' }, zone: { type: 'string' },
            type: { type: 'string' }, ttl: { type: 'string', pattern: '^[0-9]+$' },
          },
          required: ['id', 'owner', 'rdata', 'zone', 'type', 'ttl'],
        },
        User: {
          type: 'object',
          properties: { id: { type: 'string', pattern: '^[0-9]+$' }, email: { type: 'string' }, created_at: { type: 'string' } },
          required: ['id', 'email', 'created_at'],
        },
        Domain: {
          type: 'object',
          properties: {
            zone_id: { type: 'integer' },
            zone: { type: 'string' },
            user: { type: 'object', properties: { id: { type: 'integer' }, email: { type: 'string' } } },
            records: {
              type: 'array',
              items: { type: 'object', properties: { id: { type: 'integer' }, owner: { type: 'string' }, rdata: { type: 'string' }, type: { type: 'string' }, ttl: { type: 'string' } } },
            },
          },
          required: ['zone_id', 'zone', 'user', 'records'],
        },
        ZoneStatus: {
          type: 'object',
          properties: {
            zone_id: { type: 'integer' },
            zone: { type: 'string' },
            serial: { type: 'integer' },
            state: { enum: ['pending', 'in_sync', 'error'] },
            servers: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  server: { type: 'string' }, served_serial: { type: ['integer', 'null'] }, state: { type: 'string' },
                  error: { type: ['string', 'null'] }, updated_at: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
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
