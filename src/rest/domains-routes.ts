import {
  CheckZoneDocument,
  CreateDomainDocument,
  CreateDomainsDocument,
  DeleteDomainDocument,
  DomainStatusDocument,
  GetDomainDocument,
  GetUserForDomainsDocument,
  ListDomainsDocument,
} from './generated/domains';
import { ApplyZoneChangesDocument, ImportZoneDocument, PlanZoneChangesDocument, ZoneChangesDocument } from './generated/zone-changes';
import { parseId } from '../graphql/inputs/ids';
import { DomainError } from '../errors/catalogue';
import { presentDomain, withoutNoComments } from './presenters';
import { arrayOf, FieldSpec, Inputs, mapPages, ref, RouteResult, RouteSpec, Runner, zoneSelector } from './route-spec';
import { accepted } from './change-requests-routes';

/** The domains' (zones') REST routes: /domain/… but DNSSEC's (dnssec-routes.ts). */
const ZONE_QUERY: Record<string, FieldSpec> = {
  id: { kind: 'int', description: 'zone id' },
  name: { kind: 'string', description: 'zone name' },
};

async function getDomain(inputs: Inputs, runner: Runner): Promise<RouteResult> {
  // the path segment is a zone id when it is all digits, a zone name otherwise
  const selector =
    inputs.zoneid !== undefined
      ? zoneSelector(String(inputs.zoneid))
      : { id: inputs.id === undefined ? undefined : String(inputs.id), name: inputs.name as string | undefined };
  const data = await runner.run(GetDomainDocument, selector);
  return { body: presentDomain(data.domain) };
}

/** a text input that must be one of `allowed` (any case), upper-cased; a wrong one is a 422 naming it */
function pick(name: string, value: unknown, allowed: string[]): string {
  const text = String(value).toUpperCase();
  if (!allowed.includes(text))
    throw DomainError.invalid(
      name,
      `${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(String(value).slice(0, 40))})`,
      'INVALID_CHOICE',
    );
  return text;
}

/** `dry_run` as a form field or a query parameter: true or 1, false or 0 (default false) */
const dryRunOf = (value: unknown): boolean => ['TRUE', '1'].includes(pick('dry_run', value ?? 'false', ['TRUE', 'FALSE', '1', '0']));
/** `force` as a query parameter, read as `dry_run` is */
const forceOf = (value: unknown): boolean => ['TRUE', '1'].includes(pick('force', value ?? 'false', ['TRUE', 'FALSE', '1', '0']));

export const DOMAIN_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/list',
    operationId: 'listDomains',
    tag: 'domains',
    summary: 'List all domains with their records',
    status: 200,
    query: {
      name_prefix: {
        kind: 'string',
        description: 'only the domains whose name starts with this (lower case, no final dot, IDN as A-labels; GraphQL nameStartsWith)',
      },
    },
    response: arrayOf('Domain'),
    async handle(inputs, runner) {
      const pages = runner.pages(ListDomainsDocument, 'domains', { first: 200, nameStartsWith: inputs.name_prefix });
      return { itemPages: mapPages(pages, presentDomain) };
    },
  },
  {
    method: 'get',
    path: '/domain/list/zone/:zoneid',
    operationId: 'getDomainByZoneId',
    tag: 'domains',
    summary: 'Get one domain by zone id (or name)',
    readsZone: 'zoneid',
    status: 200,
    params: { zoneid: { kind: 'string', required: true, description: 'zone id (digits) or zone name' } },
    query: ZONE_QUERY,
    response: ref('Domain'),
    handle: getDomain,
  },
  {
    method: 'get',
    path: '/domain/list/zone',
    operationId: 'getDomain',
    tag: 'domains',
    summary: 'Get one domain by ?id= or ?name=',
    status: 200,
    query: ZONE_QUERY,
    response: ref('Domain'),
    handle: getDomain,
  },
  {
    method: 'get',
    path: '/domain/list/user/:userid',
    operationId: 'listUserDomains',
    tag: 'domains',
    summary: "List one user's domains",
    status: 200,
    params: { userid: { kind: 'int', required: true, description: 'user id' } },
    response: arrayOf('Domain'),
    async handle(inputs, runner) {
      await runner.run(GetUserForDomainsDocument, { id: String(inputs.userid) }); // 404 for an unknown user
      const pages = runner.pages(ListDomainsDocument, 'domains', { first: 200, userId: String(inputs.userid) });
      return { itemPages: mapPages(pages, presentDomain) };
    },
  },
  {
    method: 'post',
    path: '/domain/add',
    operationId: 'addDomain',
    tag: 'domains',
    summary: 'Create a domain with its default records',
    status: 201,
    body: {
      user_id: { kind: 'int', required: true, description: 'id of the owning user' },
      zone: { kind: 'string', required: true, description: 'zone name' },
      template: { kind: 'string', description: 'the record template the zone starts with (docs/templates-and-alias.md); omitted: default' },
    },
    response: { type: 'object', properties: { id: { type: 'integer' }, zone: { type: 'string' } }, required: ['id', 'zone'] },
    async handle(inputs, runner) {
      const data = await runner.run(CreateDomainDocument, {
        input: { userId: String(inputs.user_id), zone: inputs.zone, template: inputs.template },
      });
      return { body: { id: Number(data.createDomain.id), zone: data.createDomain.name } };
    },
  },
  {
    method: 'post',
    path: '/domain/add-many',
    operationId: 'addDomains',
    tag: 'domains',
    summary:
      'Create many domains of one user in one call, all or none (docs/scale.md): when any is refused none is created, and 400 ZONES_NOT_CREATED names each refused zone in its details (input[i].zone, i its place in zones)',
    status: 201,
    body: {
      user_id: { kind: 'int', required: true, description: 'id of the owning user' },
      zones: {
        kind: 'list',
        required: true,
        description: 'the zone names, created in this order; at most 5,000',
        items: { type: 'string' },
      },
      template: {
        kind: 'string',
        description: 'the record template every zone starts with (docs/templates-and-alias.md); omitted: default',
      },
    },
    response: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'integer' }, zone: { type: 'string' } }, required: ['id', 'zone'] },
    },
    async handle(inputs, runner) {
      const userId = String(inputs.user_id);
      const zones = inputs.zones as unknown[];
      const data = await runner.run(CreateDomainsDocument, {
        input: zones.map((zone) => ({ userId, zone, template: inputs.template })),
      });
      return { body: data.createDomains.map((zone) => ({ id: Number(zone.id), zone: zone.name })) };
    },
  },
  {
    method: 'delete',
    path: '/domain/delete',
    operationId: 'deleteDomain',
    tag: 'domains',
    summary: 'Delete a domain (zone in the body or query) and all its records',
    status: 204,
    body: { zone: { kind: 'string', description: 'zone name' } },
    query: { zone: { kind: 'string', description: 'zone name' } },
    async handle(inputs, runner) {
      await runner.run(DeleteDomainDocument, { zone: inputs.zone });
      return { empty: true };
    },
  },
  {
    method: 'post',
    path: '/domain/changes/:zone',
    operationId: 'applyZoneChanges',
    tag: 'domains',
    names: 'zone',
    status: 200,
    summary:
      'Apply a change set to a zone, all or nothing, one serial step (none for a set that changes nothing) (JSON body; expectSerial for optimistic concurrency)',
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      dry_run: {
        kind: 'string',
        description:
          'true: plan the set and answer the plan (dryRun, rrsets before and after, the serial it would make, warnings) without writing (default false)',
      },
      force: {
        kind: 'string',
        description:
          'true: apply a set that deletes or replaces more than 30 % of a zone of 10 records or more, or changes its apex NS (else 409 CHANGE_NEEDS_FORCE; default false)',
      },
    },
    body: {
      changes: { kind: 'list', required: true, description: 'the changes, applied together', items: ref('ZoneChange') },
      expectSerial: {
        kind: 'int',
        description: 'apply only if the zone is still at this serial (else 409 SERIAL_MISMATCH)',
        max: 4_294_967_295,
      },
    },
    response: ref('ZoneChangesResult'),
    proposes: 'always',
    async handle(inputs, runner) {
      // a dry run is its own operation, so that the set's answer without it stays what it was
      if (dryRunOf(inputs.dry_run)) {
        const plan = await runner.run(PlanZoneChangesDocument, {
          zone: inputs.zone,
          changes: inputs.changes,
          expectSerial: inputs.expectSerial,
          force: forceOf(inputs.force),
        });
        return { body: withoutNoComments(plan.applyZoneChanges as { comments?: unknown[] | null }) };
      }
      const data = await runner.run(ApplyZoneChangesDocument, {
        zone: inputs.zone,
        changes: inputs.changes,
        expectSerial: inputs.expectSerial,
        force: forceOf(inputs.force),
      });
      const { changeRequest, ...applied } = data.applyZoneChanges;
      // a zone that requires approvals: accepted, not written; the answer is the change request (docs/changes.md)
      if (changeRequest) return accepted(applied.zone, changeRequest);
      return { body: withoutNoComments(applied) };
    },
  },
  {
    method: 'get',
    path: '/domain/changes/:zone',
    operationId: 'listZoneChanges',
    tag: 'domains',
    readsZone: 'zone',
    status: 200,
    summary: "A zone's committed changes, newest first: serials, time, author, records added and removed",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      first: { kind: 'int', description: 'at most this many changes (default 100)', max: 1000 },
      after: { kind: 'string', description: 'the id of the last change of the previous page' },
    },
    response: arrayOf('ZoneChangeEntry'),
    async handle(inputs, runner) {
      const data = await runner.run(ZoneChangesDocument, {
        zone: inputs.zone,
        first: inputs.first ?? 100,
        after: inputs.after,
      });
      return { body: data.domain.changes.nodes.map(withoutNoComments) };
    },
  },
  {
    method: 'get',
    path: '/domain/export/:zone',
    operationId: 'exportDomain',
    tag: 'domains',
    summary: 'A zone as an RFC 1035 master file (zone id or name)',
    readsZone: 'zone',
    status: 200,
    params: { zone: { kind: 'string', required: true, description: 'zone id (digits) or zone name' } },
    responseType: 'text/dns',
    async handle(inputs, runner) {
      const selector = zoneSelector(String(inputs.zone));
      // the same check of an id as every GraphQL argument's (an id past 2^53 never reaches the database)
      const by = selector.id !== undefined ? { id: parseId(selector.id, 'zone') } : { name: selector.name };
      // the service behind GraphQL's `Domain.zoneFile`, in the chunks it is made of
      const chunks = await runner.stream((services, context) => services.zoneFiles.exportChunks(context, by));
      return { chunks, contentType: 'text/dns; charset=utf-8' };
    },
  },
  {
    method: 'post',
    path: '/domain/import/:zone',
    operationId: 'importDomain',
    zoneFileBody: true,
    tag: 'domains',
    summary:
      'Import an RFC 1035 master file into a zone, all or nothing (warnings and dropped DNSSEC records in the answer); a file that changes nothing writes nothing (added 0, removed 0, the same serial)',
    names: 'zone',
    status: 200,
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      text: { kind: 'string', required: true, description: 'the master file' },
      mode: { kind: 'string', description: 'REPLACE (default: the zone becomes the file) or MERGE' },
      dry_run: { kind: 'string', description: 'true: answer the diff and write nothing (default false)' },
      ttl_policy: { kind: 'string', description: 'REFUSE (default) or CLAMP a TTL outside ALLOWED_TTLS' },
    },
    response: {
      type: 'object',
      properties: {
        zone: { type: 'string' },
        added: { type: 'integer' },
        removed: { type: 'integer' },
        serial: { type: 'integer' },
        dry_run: { type: 'boolean' },
        dropped: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, count: { type: 'integer' } } } },
        comments_kept: {
          type: 'integer',
          description:
            "the record lines whose comment ('; …' ending a record written on one line, Cloudflare's cf_tags=… with it) became their RRset's comment",
        },
        warnings: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              // the file's own warnings name their line; the zone checks' (over the zone as the import leaves it) have none
              line: { type: ['integer', 'null'], description: 'the line of the file; null for a warning about the zone as a whole' },
              field: { type: 'string' },
              code: { type: 'string' },
              message: { type: 'string' },
            },
          },
        },
        added_records: { type: 'array', items: { type: 'string' } },
        removed_records: { type: 'array', items: { type: 'string' } },
      },
      required: ['zone', 'added', 'removed', 'serial', 'dry_run', 'dropped', 'warnings'],
    },
    proposes: 'always',
    async handle(inputs, runner) {
      // form fields are text: they become the GraphQL enums and boolean here, a wrong one is a 422 naming it
      const data = await runner.run(ImportZoneDocument, {
        zone: inputs.zone,
        text: inputs.text,
        mode: pick('mode', inputs.mode ?? 'REPLACE', ['REPLACE', 'MERGE']),
        dryRun: dryRunOf(inputs.dry_run),
        ttlPolicy: pick('ttl_policy', inputs.ttl_policy ?? 'REFUSE', ['REFUSE', 'CLAMP']),
      });
      const r = data.importZone;
      // a zone that requires approvals: the RRsets the file changes proposed as a change request (docs/changes.md)
      if (r.changeRequest) return accepted(r.zone, r.changeRequest);
      const body: Record<string, unknown> = {
        zone: r.zone,
        added: r.added,
        removed: r.removed,
        serial: r.serial,
        dry_run: r.dryRun,
        dropped: r.dropped,
        comments_kept: r.commentsKept,
        warnings: r.warnings,
      };
      if (r.addedRecords) body.added_records = r.addedRecords;
      if (r.removedRecords) body.removed_records = r.removedRecords;
      return { body };
    },
  },
  {
    method: 'get',
    path: '/domain/check/:zone',
    operationId: 'checkDomain',
    tag: 'domains',
    readsZone: 'zone',
    status: 200,
    summary:
      "The zone checks over a whole zone (as named-checkzone's): aliases and missing addresses behind MX, NS and SRV, missing glue, data hidden by a delegation; warnings, not refusals",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('ZoneCheck'),
    async handle(inputs, runner) {
      const data = await runner.run(CheckZoneDocument, {
        zone: inputs.zone,
      });
      return { body: data.checkZone };
    },
  },
  {
    method: 'get',
    path: '/domain/status/:zone',
    operationId: 'getDomainStatus',
    tag: 'domains',
    summary: 'Propagation of a zone: serial, and what each secondary serves',
    readsZone: 'zone',
    status: 200,
    readsPropagation: true,
    params: { zone: { kind: 'string', required: true, description: 'zone id (digits) or zone name' } },
    response: ref('ZoneStatus'),
    async handle(inputs, runner) {
      const data = await runner.run(DomainStatusDocument, zoneSelector(String(inputs.zone)));
      const { propagation } = data.domain;
      return {
        body: {
          zone_id: Number(data.domain.id),
          zone: data.domain.name,
          serial: propagation.serial,
          state: propagation.state,
          message: propagation.message,
          servers: propagation.servers.map((s) => ({
            server: s.server,
            served_serial: s.servedSerial,
            state: s.state,
            error: s.error,
            updated_at: s.updatedAt,
          })),
        },
      };
    },
  },
];

/** the OpenAPI schema of a zone with its records (a component of the document: openapi.ts assembles them) */
export const DOMAIN_SCHEMAS = {
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
};

/** a zone's check, its propagation status, a change set and its result */
export const ZONE_CHANGE_SCHEMAS = {
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
};

/** a zone's history: one change as the journal keeps it, and a record as a change names it */
export const ZONE_HISTORY_SCHEMAS = {
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
};
