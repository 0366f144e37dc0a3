import type { FieldSpec, RouteSpec } from './route-spec';
import { STEERING_SCHEMAS } from './steering-routes';
import { VIEW_SCHEMAS } from './views-routes';
import { CHANGE_REQUEST_SCHEMAS } from './change-requests-routes';
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

const limitSchemaFields = {
  rate_per_second: { type: ['integer', 'null'] },
  rate_burst: { type: ['integer', 'null'] },
  max_zones: { type: ['integer', 'null'] },
  max_records_per_zone: { type: ['integer', 'null'] },
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
/** a user as the answers show it; `created_at` with `separator` between date and time (listings 'T', the create answer ' ') */
function userSchema(separator: 'T' | ' ', description: string) {
  return {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^[0-9]+$' },
      email: { type: 'string' },
      created_at: { type: 'string', pattern: `^\\d{4}-\\d{2}-\\d{2}${separator}\\d{2}:\\d{2}:\\d{2}\\.\\d{6}$`, description },
    },
    required: ['id', 'email', 'created_at'],
  };
}

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
        Record: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            owner: { type: 'string' },
            rdata: { type: 'string' },
            zone: { type: 'string' },
            type: { type: 'string' },
            ttl: { type: 'string', pattern: '^[0-9]+$' },
            comment: {
              type: 'string',
              description:
                "the comment of the record's RRset, where it has one (docs/changes.md, «Comments»); a record's add answers the comment it gave",
            },
          },
          required: ['id', 'owner', 'rdata', 'zone', 'type', 'ttl'],
        },
        TsigKey: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            user_id: { type: ['string', 'null'], pattern: '^[0-9]+$', description: 'null: an admin key (any zone)' },
            name: { type: 'string' },
            algorithm: { enum: ['hmac-sha256', 'hmac-sha384', 'hmac-sha512'] },
            created_at: { type: 'string' },
            revoked_at: { type: ['string', 'null'] },
            last_used_at: { type: ['string', 'null'], description: 'written at most once a minute; null: never used' },
            policy: { $ref: '#/components/schemas/KeyPolicy' },
          },
          required: ['id', 'user_id', 'name', 'algorithm', 'created_at', 'revoked_at', 'policy'],
        },
        PolicyRule: {
          type: 'object',
          description: 'zone null: every zone of the key’s user; owner null: any (`www`, `@`, `_acme-challenge.*`); types null: every type',
          properties: {
            zone: { type: ['string', 'null'] },
            owner: { type: ['string', 'null'] },
            types: { type: ['array', 'null'], items: { type: 'string' } },
            access: { enum: ['read', 'write'] },
          },
          required: ['access'],
        },
        KeyPolicyInput: {
          type: 'object',
          description: 'docs/least-privilege.md: rules given (even empty) make the key restricted',
          properties: {
            rules: { type: 'array', items: { $ref: '#/components/schemas/PolicyRule' } },
            may_create_zones: { type: 'boolean' },
            may_delete_zones: { type: 'boolean' },
            may_manage_keys: { type: 'boolean' },
            expires_at: { type: 'string', format: 'date-time' },
            idle_days: { type: 'integer', minimum: 1 },
            allowed_networks: { type: 'array', items: { type: 'string' } },
          },
        },
        KeyPolicy: {
          type: 'object',
          properties: {
            restricted: { type: 'boolean' },
            preset: { enum: ['READ_ONLY', 'ONE_ZONE', 'ACME', null] },
            rules: { type: ['array', 'null'], items: { $ref: '#/components/schemas/PolicyRule' } },
            may_create_zones: { type: 'boolean' },
            may_delete_zones: { type: 'boolean' },
            may_manage_keys: { type: 'boolean' },
            expires_at: { type: ['string', 'null'] },
            idle_days: { type: ['integer', 'null'] },
            allowed_networks: { type: ['array', 'null'], items: { type: 'string' } },
          },
          required: ['restricted', 'rules'],
        },
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
        CreatedTsigKey: {
          allOf: [
            { $ref: '#/components/schemas/TsigKey' },
            {
              type: 'object',
              properties: { secret: { type: 'string', description: 'base64; shown only in this answer' } },
              required: ['secret'],
            },
          ],
        },
        UserLimits: {
          type: 'object',
          description: 'null: the default of the settings; 0: no limit',
          properties: {
            ...limitSchemaFields,
            zone_count: { type: 'integer' },
            effective: { type: 'object', properties: limitSchemaFields },
          },
          required: ['rate_per_second', 'rate_burst', 'max_zones', 'max_records_per_zone', 'zone_count', 'effective'],
        },
        ApiKeyRate: {
          type: 'object',
          properties: { rate_per_second: limitSchemaFields.rate_per_second, rate_burst: limitSchemaFields.rate_burst },
          required: ['rate_per_second', 'rate_burst'],
        },
        User: userSchema('T', 'UTC, ISO 8601 without zone, microseconds'),
        CreatedUser: {
          ...userSchema(' ', 'UTC, date and time separated by a space, microseconds'),
          description: 'The create-user answer: created_at with a space between date and time, as the documented interface shows it',
        },
        Domain: {
          type: 'object',
          properties: {
            zone_id: { type: 'integer' },
            zone: { type: 'string' },
            user: { type: 'object', properties: { id: { type: 'integer' }, email: { type: 'string' } } },
            records: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'integer' },
                  owner: { type: 'string' },
                  rdata: { type: 'string' },
                  type: { type: 'string' },
                  ttl: { type: 'string' },
                },
              },
            },
          },
          required: ['zone_id', 'zone', 'user', 'records'],
        },
        Dnssec: {
          type: 'object',
          properties: {
            zone: { type: 'string' },
            enabled: { type: 'boolean' },
            state: { enum: ['unsigned', 'signed', 'disabling'] },
            denial: { type: ['string', 'null'], enum: ['NSEC', 'NSEC3', null] },
            nsec3_iterations: { type: ['integer', 'null'] },
            nsec3_opt_out: { type: ['boolean', 'null'] },
            ds: {
              type: 'array',
              items: { type: 'string' },
              description:
                "the DS records of the zone's own KSK for the parent: key tag, algorithm, digest type, digest; empty while withdrawn. A multi-signer zone's parent needs these and each foreign_keys[].ds beside them",
            },
            dnskeys: {
              type: 'array',
              items: { type: 'string' },
              description: "the zone's own published DNSKEYs (for the other signer of a multi-signer zone, RFC 8901, to publish)",
            },
            foreign_keys: {
              type: 'array',
              description: "the other signer's DNSKEYs (multi-signer, RFC 8901 model 2): published in the DNSKEY RRset, named by the CDS",
              items: {
                type: 'object',
                properties: {
                  foreign_key_id: { type: 'integer' },
                  role: { enum: ['KSK', 'ZSK'] },
                  key_tag: { type: 'integer' },
                  algorithm: { type: 'string' },
                  dnskey: { type: 'string' },
                  ds: { type: 'array', items: { type: 'string' }, description: "a KSK's DS (SHA-256) for the parent; empty for a ZSK" },
                  source: { enum: ['value', 'fetched'] },
                  fetched_from: { type: ['string', 'null'] },
                  created_at: { type: 'string', format: 'date-time' },
                },
                required: ['foreign_key_id', 'role', 'key_tag', 'algorithm', 'dnskey', 'ds', 'source', 'created_at'],
              },
            },
            keys: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  key_id: { type: 'integer' },
                  key_tag: { type: 'integer' },
                  role: { enum: ['KSK', 'ZSK', 'CSK'] },
                  algorithm: { type: 'string' },
                  state: { enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn'] },
                  dnskey: { type: 'string' },
                  created_at: { type: 'string', format: 'date-time' },
                  published_at: { type: ['string', 'null'], format: 'date-time' },
                  ready_at: { type: ['string', 'null'], format: 'date-time' },
                  active_at: { type: ['string', 'null'], format: 'date-time' },
                  retired_at: { type: ['string', 'null'], format: 'date-time' },
                  removed_at: { type: ['string', 'null'], format: 'date-time' },
                  next_event: { type: ['string', 'null'] },
                  next_event_at: { type: ['string', 'null'], format: 'date-time' },
                },
                required: ['key_id', 'key_tag', 'role', 'algorithm', 'state', 'dnskey', 'created_at'],
              },
            },
            ds_withdrawn_at: {
              type: ['string', 'null'],
              format: 'date-time',
              description:
                "multi-signer, moving out: when the zone withdrew its own DS (POST …/ds-withdrawn); null: it wants it at the parent. While set, the CDS/CDNSKEY name the other signer's KSKs alone and ds is empty",
            },
            disable_at: {
              type: ['string', 'null'],
              format: 'date-time',
              description: 'disabling: when the zone goes unsigned (null while the parent still serves its DS)',
            },
            parent_ds: {
              type: ['object', 'null'],
              description: "what the zone waits for of its parent's DS, and the last check at DNSSEC_PARENT_DS_SERVERS",
              properties: {
                in_zonekeeper: { type: 'boolean' },
                waiting_for: { enum: ['NOTHING', 'DS_PUBLICATION', 'DS_REMOVAL'] },
                seen_at: { type: ['string', 'null'], format: 'date-time' },
                checked_at: { type: ['string', 'null'], format: 'date-time' },
                next_check_at: { type: ['string', 'null'], format: 'date-time' },
                last_check: {
                  type: ['object', 'null'],
                  properties: {
                    at: { type: 'string', format: 'date-time' },
                    want: { enum: ['present', 'absent'] },
                    expected: { type: 'array', items: { type: 'string' } },
                    confirmed: { type: 'boolean' },
                    servers: {
                      type: 'array',
                      items: {
                        type: 'object',
                        properties: {
                          server: { type: 'string' },
                          ok: { type: 'boolean' },
                          ds: { type: 'array', items: { type: 'string' } },
                          ttl: { type: ['integer', 'null'] },
                          transport: { type: ['string', 'null'] },
                          error: { type: ['string', 'null'] },
                        },
                        required: ['server', 'ok', 'ds'],
                      },
                    },
                  },
                  required: ['at', 'want', 'expected', 'confirmed', 'servers'],
                },
              },
              required: ['in_zonekeeper', 'waiting_for'],
            },
            algorithm_roll: {
              type: ['object', 'null'],
              description: 'the algorithm roll under way (RFC 6781 §4.1.4; null: none) and its step',
              properties: {
                from: { enum: ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'] },
                to: { enum: ['ECDSAP256SHA256', 'ED25519', 'RSASHA256'] },
                step: { enum: ['NEW_SIGNATURES', 'NEW_DNSKEYS', 'NEW_DS', 'OLD_DNSKEYS_REMOVED'] },
                next_step_at: {
                  type: ['string', 'null'],
                  format: 'date-time',
                  description: "when the next step is due; null: it waits for the parent's DS",
                },
              },
              required: ['from', 'to', 'step', 'next_step_at'],
            },
          },
          required: ['zone', 'enabled', 'state', 'ds', 'dnskeys', 'keys'],
        },
        ZoneCheck: {
          type: 'object',
          properties: {
            zone: { type: 'string' },
            serial: { type: 'integer' },
            warnings: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  owner: { type: 'string' },
                  type: { type: 'string' },
                  code: {
                    enum: [
                      'TARGET_IS_CNAME',
                      'TARGET_MISSING',
                      'TARGET_NO_ADDRESS',
                      'GLUE_MISSING',
                      'OCCLUDED_DATA',
                      'CAA_UNKNOWN_TAG',
                      'SPF_MULTIPLE_RECORDS',
                    ],
                  },
                  message: { type: 'string' },
                },
                required: ['owner', 'type', 'code', 'message'],
              },
            },
          },
          required: ['zone', 'serial', 'warnings'],
        },
        ZoneStatus: {
          type: 'object',
          properties: {
            zone_id: { type: 'integer' },
            zone: { type: 'string' },
            serial: { type: 'integer' },
            state: { enum: ['pending', 'in_sync', 'error', 'no_secondaries'] },
            message: {
              type: ['string', 'null'],
              description: 'why the zone is in its state, where the servers do not tell ("no secondaries configured")',
            },
            servers: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  server: { type: 'string' },
                  served_serial: { type: ['integer', 'null'] },
                  state: { type: 'string' },
                  error: { type: ['string', 'null'] },
                  updated_at: { type: ['string', 'null'] },
                },
              },
            },
          },
        },
        ZoneChange: {
          type: 'object',
          description:
            "One change of a set: ADD (owner, type, rdata, ttl), REMOVE (id, or owner + type + rdata), REPLACE (id, owner, type, rdata, ttl), REPLACE_RRSET (owner, type, ttl, rdatas; an empty list removes the RRset), EXTEND_RRSET and PRUNE_RRSET (owner, type, ttl, rdatas: those the RRset lacks are added, those it holds removed), COMMENT (owner, type, comment: the RRset's comment alone); `comment` on a change that names owner and type sets that RRset's comment",
          properties: {
            kind: { enum: ['ADD', 'REMOVE', 'REPLACE', 'REPLACE_RRSET', 'EXTEND_RRSET', 'PRUNE_RRSET', 'COMMENT'] },
            id: { type: ['string', 'integer'], pattern: '^[0-9]+$' },
            owner: { type: 'string' },
            type: { type: 'string' },
            rdata: { type: 'string' },
            ttl: { type: 'integer' },
            rdatas: { type: 'array', items: { type: 'string' } },
            comment: {
              type: 'string',
              description:
                "the comment of the RRset of owner and type becomes this ('' removes it), at most MAX_COMMENT_LENGTH characters; COMMENT (owner, type, comment): the comment alone, no serial step",
            },
          },
          required: ['kind'],
          additionalProperties: false,
        },
        ZoneChangesResult: {
          type: 'object',
          properties: {
            zone: { type: 'string' },
            serialBefore: { type: 'integer' },
            serial: { type: 'integer' },
            added: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            removed: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            // a dry run's (`?dry_run=true`) alone: the plan, nothing written
            dryRun: { type: 'boolean', description: 'a dry run: nothing was written; serial is the one the set would make' },
            rrsets: {
              type: 'array',
              description: 'a dry run: each RRset the set changes, its served records before and after',
              items: {
                type: 'object',
                properties: {
                  owner: { type: 'string' },
                  type: { type: 'string' },
                  before: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
                  after: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
                },
                required: ['owner', 'type', 'before', 'after'],
              },
            },
            disabledAdded: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            disabledRemoved: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            warnings: {
              type: 'array',
              items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } },
            },
            comments: {
              type: 'array',
              description: "the RRsets' comments the set changed (a dry run: would change); absent when none",
              items: { $ref: '#/components/schemas/RrsetCommentChange' },
            },
          },
          required: ['zone', 'serialBefore', 'serial', 'added', 'removed'],
        },
        ...STEERING_SCHEMAS,
        ...VIEW_SCHEMAS,
        ...CHANGE_REQUEST_SCHEMAS,
        DnssecKeyEvent: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            key_id: { type: 'integer' },
            key_tag: { type: 'integer' },
            role: { enum: ['KSK', 'ZSK', 'CSK'] },
            algorithm: { type: 'string' },
            from_state: {
              type: ['string', 'null'],
              enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn', null],
              description: 'null: the step made the key',
            },
            to_state: { enum: ['generated', 'published', 'ready', 'active', 'retired', 'removed', 'signing', 'withdrawn'] },
            reason: {
              enum: ['enabled', 'rolled-by-hand', 'lifetime', 'scheduled', 'ds-seen', 'ds-confirmed', 'disabled', 'algorithm-roll'],
            },
            at: { type: 'string', format: 'date-time' },
          },
          required: ['id', 'key_id', 'key_tag', 'role', 'algorithm', 'from_state', 'to_state', 'reason', 'at'],
        },
        ZoneChangeEntry: {
          type: 'object',
          properties: {
            id: { type: 'string', pattern: '^[0-9]+$' },
            kind: {
              enum: ['zone-created', 'zone-changed', 'zone-deleted', 'comment-changed'],
              description: "comment-changed: only RRsets' comments changed (comments), no serial step",
            },
            serialBefore: { type: ['integer', 'null'] },
            serialAfter: { type: 'integer' },
            createdAt: { type: 'string' },
            author: {
              type: ['object', 'null'],
              properties: {
                keyId: { type: ['string', 'null'] },
                tsigKeyId: { type: ['string', 'null'] },
                keyName: { type: ['string', 'null'] },
                userId: { type: ['string', 'null'] },
                admin: { type: 'boolean' },
              },
            },
            added: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            removed: { type: 'array', items: { $ref: '#/components/schemas/ChangedRecord' } },
            findings: {
              type: 'array',
              description: "the warnings the change's plan answered, kept with it (docs/changes.md, «Checks on every plan»)",
              items: {
                type: 'object',
                properties: {
                  code: { type: 'string' },
                  severity: { enum: ['error', 'warning'] },
                  owner: { type: 'string' },
                  type: { type: 'string' },
                  rfc: { type: ['string', 'null'] },
                  message: { type: 'string' },
                },
                required: ['code', 'severity', 'owner', 'type', 'rfc', 'message'],
              },
            },
            comments: {
              type: 'array',
              description: "the RRsets' comments the change changed (docs/changes.md, «Comments»); absent when none",
              items: { $ref: '#/components/schemas/RrsetCommentChange' },
            },
          },
          required: ['id', 'kind', 'serialAfter', 'createdAt', 'added', 'removed', 'findings'],
        },
        RrsetCommentChange: {
          type: 'object',
          description: "an RRset's comment a change changed, its text before and after (null: none)",
          properties: {
            owner: { type: 'string' },
            type: { type: 'string' },
            before: { type: ['string', 'null'] },
            after: { type: ['string', 'null'] },
          },
          required: ['owner', 'type', 'before', 'after'],
        },
        ChangedRecord: {
          type: 'object',
          properties: { owner: { type: 'string' }, type: { type: 'string' }, rdata: { type: 'string' }, ttl: { type: 'integer' } },
          required: ['owner', 'type', 'rdata', 'ttl'],
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
