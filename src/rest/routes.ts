import { parseId } from '../graphql/inputs/ids';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { DomainError } from '../errors/catalogue';
import { OPERATIONS } from './operations';
import {
  GqlDomain,
  GqlRecord,
  GqlUser,
  presentDomain,
  GqlTsigKey,
  presentRecord,
  presentTsigKey,
  presentCreatedUser,
  presentUser,
  GqlDnssec,
  presentDnssec,
  presentDnssecKeyEvent,
  GqlDnssecKeyEvent,
  GqlAuditEvent,
  presentAuditEvent,
  GqlUserLimits,
  presentUserLimits,
} from './presenters';
import { HEALTH_ROUTES } from './health-routes';

/**
 * The REST compatibility layer as a table (docs/decisions.md §1): each documented
 * path names its inputs and the GraphQL operation it runs, or for a bulk answer (every record, a zone file)
 * the service read behind the same GraphQL field. The router reads and type-checks the inputs, the OpenAPI
 * document is generated from this table, and every rule stays in the services, which both edges call.
 */
export type FieldKind = 'string' | 'int' | 'list' | 'object';
/**
 * `max`: the largest whole number the field takes (the TTL is a GraphQL Int: signed 32-bit). A `list` comes
 * only in a JSON body, is handed to the GraphQL operation as it is (its variables' types check each item), and
 * is documented by `items` (a JSON Schema).
 */
export interface FieldSpec {
  kind: FieldKind;
  required?: boolean;
  description: string;
  max?: number;
  items?: object;
  /** the field may be sent as JSON null (a limit returned to its default) */
  nullable?: boolean;
  /**
   * a text field taking one of these values only, exactly as written (a GraphQL enum's values, a flag's
   * `true`/`false`): anything else is a 422 INVALID_CHOICE naming the field, never a silent default
   */
  choices?: readonly string[];
}
export type Inputs = Record<string, string | number | unknown[] | null | undefined>;

interface GqlImportResult {
  zone: string;
  added: number;
  removed: number;
  serial: number;
  dryRun: boolean;
  dropped: { type: string; count: number }[];
  warnings: { line: number | null; field: string; code: string; message: string }[];
  addedRecords: string[] | null;
  removedRecords: string[] | null;
}

export interface Runner {
  /** runs one GraphQL operation as the caller; a GraphQL error becomes the REST error */
  run<T = any>(operation: keyof typeof OPERATIONS, variables: Record<string, unknown>): Promise<T>;
  /**
   * every node of a paged GraphQL list, page by page (memory stays bounded however long the list). Pages, not
   * nodes, are what is awaited: an await per node of a 100,000-record list cost ~0.2 s (docs/performance.md,
   * «Reading zones»)
   */
  pages<T = any>(operation: keyof typeof OPERATIONS, field: string, variables: Record<string, unknown>): AsyncIterable<readonly T[]>;
  /**
   * What a service reads as a stream, called as the caller: the bulk answers (every record of a list, a zone
   * file of a million records) that no GraphQL execution shapes, where resolving and completing each field of
   * 100,000 rows through graphql-js would cost seconds (docs/performance.md, «Reading zones»). The service
   * decides what the caller may read, exactly as for the GraphQL field that reads the same; the stream is read
   * as it is written, so memory stays that of a page. An error before the first item is the REST error.
   */
  stream<T>(read: (services: Services, context: RequestContext) => AsyncIterable<T> | Promise<AsyncIterable<T>>): Promise<AsyncIterable<T>>;
}

export type RouteResult =
  | { body: unknown }
  /** a JSON array written as its pages of items come (a list of 100,000 records) */
  | { itemPages: AsyncIterable<readonly unknown[]> }
  | { empty: true }
  | { text: string; contentType: string }
  /** a text answer written as it is produced (a zone file of a million records) */
  | { chunks: AsyncIterable<string>; contentType: string };

export interface RouteSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  /** the OpenAPI operationId: what generated clients name the call */
  operationId: string;
  /** a success body that is not JSON (the zone file: text/dns) */
  responseType?: 'text/dns';
  summary: string;
  tag: 'records' | 'users' | 'domains' | 'tsigkeys' | 'dnssec' | 'audit';
  params?: Record<string, FieldSpec>;
  query?: Record<string, FieldSpec>;
  body?: Record<string, FieldSpec>;
  status: 200 | 201 | 204;
  /** the answer shows propagation state (which changes without a new zone serial): its ETag follows it too */
  readsPropagation?: true;
  /**
   * the path names an object (its parameter): one the caller cannot see is 404 before anything about the
   * request's body is said, so a 422 never tells that another user's zone exists
   */
  names?: 'zone' | 'record' | 'user';
  /** a GET that shows only the zone this path parameter names: its ETag follows that zone alone */
  readsZone?: string;
  /** a GET whose answer changes apart from the zones' data (zone health): no ETag, every GET answered whole */
  unversioned?: true;
  /** the body is a zone file: bounded by IMPORT_BODY_LIMIT instead of BODY_LIMIT (src/http/body-limits.ts) */
  zoneFileBody?: true;
  /** OpenAPI schema of the success body */
  response?: object;
  handle(inputs: Inputs, runner: Runner): Promise<RouteResult>;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const arrayOf = (name: string) => ({ type: 'array', items: ref(name) });

const RECORD_BODY: Record<string, FieldSpec> = {
  zone: { kind: 'string', required: true, description: 'zone name' },
  owner: { kind: 'string', required: true, description: "owner of the record ('@' = apex)" },
  rtype: { kind: 'string', required: true, description: 'record type' },
  rdata: { kind: 'string', required: true, description: 'record RDATA' },
  ttl: { kind: 'int', required: true, description: 'one of the allowed TTL values', max: 2_147_483_647 },
};
const ID_PARAM: Record<string, FieldSpec> = { id: { kind: 'int', required: true, description: 'identifier' } };
const USER_QUERY: Record<string, FieldSpec> = {
  id: { kind: 'int', description: 'user id' },
  email: { kind: 'string', description: 'user e-mail' },
};
const ZONE_QUERY: Record<string, FieldSpec> = {
  id: { kind: 'int', description: 'zone id' },
  name: { kind: 'string', description: 'zone name' },
};

/** a REST policy object (snake_case, as the API's other fields) as the GraphQL KeyPolicyInput */
function policyInputOf(policy: Record<string, unknown>): Record<string, unknown> {
  const rename: Record<string, string> = {
    rules: 'rules',
    may_create_zones: 'mayCreateZones',
    may_delete_zones: 'mayDeleteZones',
    may_manage_keys: 'mayManageKeys',
    expires_at: 'expiresAt',
    idle_days: 'idleDays',
    allowed_networks: 'allowedNetworks',
  };
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(policy)) input[rename[name] ?? name] = value;
  if (Array.isArray(input.rules))
    input.rules = input.rules.map((rule: unknown) =>
      rule && typeof rule === 'object' && typeof (rule as { access?: unknown }).access === 'string'
        ? { ...rule, access: String((rule as { access: string }).access).toUpperCase() }
        : rule,
    );
  return input;
}

const limitField = (description: string): FieldSpec => ({ kind: 'int', nullable: true, description, max: 1_000_000_000 });
const LIMIT_FIELDS: Record<string, FieldSpec> = {
  rate_per_second: limitField('requests per second the rate bucket refills (0: no limit; null: the default)'),
  rate_burst: limitField('requests the rate bucket holds, at least 1 (null: the default)'),
  max_zones: limitField('zones the user may have (0: no quota; null: the default)'),
  max_records_per_zone: limitField('records one zone of the user may hold (0: no quota; null: the default)'),
};
/** the REST limit fields sent (snake_case) as the GraphQL input (camelCase); a field left out is left out */
function limitInput(inputs: Inputs, fields: string[]): Record<string, number | null> {
  const input: Record<string, number | null> = {};
  for (const field of fields) {
    const value = inputs[field];
    if (value !== undefined) input[field.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())] = value as number | null;
  }
  return input;
}

const recordInput = (inputs: Inputs) => ({
  zone: inputs.zone,
  owner: inputs.owner,
  type: inputs.rtype,
  rdata: inputs.rdata,
  ttl: inputs.ttl,
});

/**
 * The operator's word about the parent's DS (docs/dnssec.md): POST /domain/dnssec/:zone/<what> runs the
 * GraphQL mutation of the same name as the operation and answers the zone's DNSSEC state.
 */
function dnssecConfirmation(what: string, operationId: 'confirmDnssecDsPublished' | 'confirmDnssecDsRemoved', summary: string): RouteSpec {
  return {
    method: 'post',
    path: `/domain/dnssec/:zone/${what}`,
    operationId,
    tag: 'dnssec',
    status: 200,
    summary,
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run<Record<string, GqlDnssec>>(operationId, { zone: inputs.zone });
      return { body: presentDnssec(data[operationId]) };
    },
  };
}

const PAGE = 2000;

export const ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/record/list',
    operationId: 'listRecords',
    tag: 'records',
    summary: 'List all records',
    status: 200,
    response: arrayOf('Record'),
    async handle(_inputs, runner) {
      // the records GraphQL's `records` lists, by the same service method's scope and rules, in pages of 10,000
      const rows = await runner.stream((services, context) => services.records.pages(context, {}, PAGE * 5));
      return { itemPages: mapPages(rows, presentRecord) };
    },
  },
  {
    method: 'get',
    path: '/record/list/:id',
    operationId: 'getRecord',
    tag: 'records',
    summary: 'Get one record',
    status: 200,
    params: ID_PARAM,
    response: ref('Record'),
    async handle(inputs, runner) {
      const data = await runner.run<{ record: GqlRecord }>('getRecord', { id: String(inputs.id) });
      return { body: presentRecord(data.record) };
    },
  },
  {
    method: 'post',
    path: '/record/add',
    operationId: 'addRecord',
    tag: 'records',
    summary: 'Create a record',
    status: 201,
    body: RECORD_BODY,
    response: ref('Record'),
    async handle(inputs, runner) {
      const data = await runner.run<{ createRecord: GqlRecord }>('createRecord', { input: recordInput(inputs) });
      return { body: presentRecord(data.createRecord) };
    },
  },
  {
    method: 'put',
    path: '/record/edit/:id',
    operationId: 'editRecord',
    tag: 'records',
    summary: 'Edit a record (an SOA edit must raise the serial)',
    names: 'record',
    status: 200,
    params: ID_PARAM,
    body: RECORD_BODY,
    response: ref('Record'),
    async handle(inputs, runner) {
      const data = await runner.run<{ updateRecord: GqlRecord }>('updateRecord', { id: String(inputs.id), input: recordInput(inputs) });
      return { body: presentRecord(data.updateRecord) };
    },
  },
  {
    method: 'delete',
    path: '/record/delete/:id',
    operationId: 'deleteRecord',
    tag: 'records',
    summary: 'Delete a record',
    status: 204,
    params: ID_PARAM,
    async handle(inputs, runner) {
      await runner.run('deleteRecord', { id: String(inputs.id) });
      return { empty: true };
    },
  },
  {
    method: 'get',
    path: '/user/list',
    operationId: 'listUsers',
    tag: 'users',
    summary: 'List all users, or one user with ?id= or ?email=',
    status: 200,
    query: USER_QUERY,
    response: { oneOf: [arrayOf('User'), ref('User')] },
    async handle(inputs, runner) {
      if (inputs.id !== undefined || inputs.email !== undefined) return getUser(inputs, runner);
      return { itemPages: mapPages(runner.pages<GqlUser>('listUsers', 'users', { first: PAGE }), presentUser) };
    },
  },
  {
    method: 'get',
    path: '/user/list/:id',
    operationId: 'getUser',
    tag: 'users',
    summary: 'Get one user',
    status: 200,
    params: ID_PARAM,
    query: USER_QUERY,
    response: ref('User'),
    handle: getUser,
  },
  {
    method: 'post',
    path: '/user/add',
    operationId: 'addUser',
    tag: 'users',
    summary: 'Create a user',
    status: 201,
    body: { email: { kind: 'string', required: true, description: 'e-mail address' } },
    response: ref('CreatedUser'),
    async handle(inputs, runner) {
      const data = await runner.run<{ createUser: GqlUser }>('createUser', { input: { email: inputs.email } });
      return { body: presentCreatedUser(data.createUser) };
    },
  },
  {
    method: 'put',
    path: '/user/edit/:id',
    operationId: 'editUser',
    tag: 'users',
    summary: "Change a user's e-mail",
    names: 'user',
    status: 200,
    params: ID_PARAM,
    body: { email: { kind: 'string', required: true, description: 'e-mail address' } },
    response: { type: 'object', properties: { email: { type: 'string' } }, required: ['email'] },
    async handle(inputs, runner) {
      const data = await runner.run<{ updateUser: GqlUser }>('updateUser', { id: String(inputs.id), input: { email: inputs.email } });
      return { body: { email: data.updateUser.email } };
    },
  },
  {
    method: 'delete',
    path: '/user/delete/:id',
    operationId: 'deleteUser',
    tag: 'users',
    summary: 'Delete a user with its zones and records',
    status: 204,
    params: ID_PARAM,
    async handle(inputs, runner) {
      await runner.run('deleteUser', { id: String(inputs.id) });
      return { empty: true };
    },
  },
  {
    method: 'get',
    path: '/user/limits/:id',
    operationId: 'getUserLimits',
    tag: 'users',
    summary: "A user's rate limit and quotas (null: the default), the values in force and the zone count",
    names: 'user',
    status: 200,
    params: ID_PARAM,
    response: ref('UserLimits'),
    async handle(inputs, runner) {
      const data = await runner.run<{ user: { limits: GqlUserLimits } }>('getUserLimits', { id: String(inputs.id) });
      return { body: presentUserLimits(data.user.limits) };
    },
  },
  {
    method: 'put',
    path: '/user/limits/:id',
    operationId: 'setUserLimits',
    tag: 'users',
    summary: "Set a user's rate limit and quotas (admin key only): a field left out stays, null returns it to the default, 0 is no limit",
    names: 'user',
    status: 200,
    params: ID_PARAM,
    body: LIMIT_FIELDS,
    response: ref('UserLimits'),
    async handle(inputs, runner) {
      const input = limitInput(inputs, ['rate_per_second', 'rate_burst', 'max_zones', 'max_records_per_zone']);
      const data = await runner.run<{ setUserLimits: GqlUserLimits }>('setUserLimits', { id: String(inputs.id), input });
      return { body: presentUserLimits(data.setUserLimits) };
    },
  },
  {
    method: 'put',
    path: '/apikey/rate/:id',
    operationId: 'setApiKeyRate',
    tag: 'users',
    summary: "Set an API key's own rate limit, besides its user's (admin key only): null returns a field to the default, 0 is no limit",
    status: 200,
    params: ID_PARAM,
    body: { rate_per_second: LIMIT_FIELDS.rate_per_second, rate_burst: LIMIT_FIELDS.rate_burst },
    response: ref('ApiKeyRate'),
    async handle(inputs, runner) {
      const input = limitInput(inputs, ['rate_per_second', 'rate_burst']);
      const data = await runner.run<{ setApiKeyRate: { ratePerSecond: number | null; rateBurst: number | null } }>('setApiKeyRate', {
        id: String(inputs.id),
        input,
      });
      return { body: { rate_per_second: data.setApiKeyRate.ratePerSecond, rate_burst: data.setApiKeyRate.rateBurst } };
    },
  },
  {
    method: 'get',
    path: '/tsigkey/list',
    operationId: 'listTsigKeys',
    tag: 'tsigkeys',
    summary: 'TSIG keys for DNS UPDATE (a user key: its own user’s)',
    status: 200,
    query: { user_id: { kind: 'int', description: 'only this user’s keys (admin key)' } },
    response: arrayOf('TsigKey'),
    async handle(inputs, runner) {
      const data = await runner.run<{ tsigKeys: GqlTsigKey[] }>('listTsigKeys', {
        userId: inputs.user_id === undefined ? undefined : String(inputs.user_id),
      });
      return { body: data.tsigKeys.map(presentTsigKey) };
    },
  },
  {
    method: 'post',
    path: '/tsigkey/add',
    operationId: 'addTsigKey',
    tag: 'tsigkeys',
    summary: 'Create a TSIG key for DNS UPDATE; the base64 secret is in this answer only',
    status: 201,
    body: {
      name: { kind: 'string', required: true, description: 'key name (a domain name)' },
      user_id: { kind: 'int', description: 'the user whose zones it updates; omitted: an admin key (admin API key only)' },
      algorithm: { kind: 'string', description: 'hmac-sha256 (default), hmac-sha384 or hmac-sha512' },
      policy: {
        kind: 'object',
        description:
          'least-privilege policy (docs/least-privilege.md): rules [{zone, owner, types, access}], may_create_zones, may_delete_zones, may_manage_keys, expires_at, idle_days, allowed_networks',
        items: { $ref: '#/components/schemas/KeyPolicyInput' },
      },
      preset: { kind: 'string', description: 'READ_ONLY, ONE_ZONE or ACME (docs/least-privilege.md)' },
      zone: { kind: 'string', description: 'the zone of the preset (ONE_ZONE: required)' },
    },
    response: ref('CreatedTsigKey'),
    async handle(inputs, runner) {
      const input = {
        name: inputs.name,
        userId: inputs.user_id === undefined ? undefined : String(inputs.user_id),
        algorithm: inputs.algorithm,
        policy: inputs.policy === undefined ? undefined : policyInputOf(inputs.policy as unknown as Record<string, unknown>),
        preset: typeof inputs.preset === 'string' ? inputs.preset.toUpperCase().replace(/-/g, '_') : undefined,
        zone: inputs.zone,
      };
      const data = await runner.run<{ createTsigKey: { tsigKey: GqlTsigKey; secret: string } }>('createTsigKey', { input });
      return { body: { ...presentTsigKey(data.createTsigKey.tsigKey), secret: data.createTsigKey.secret } };
    },
  },
  {
    method: 'put',
    path: '/tsigkey/edit/:id',
    operationId: 'editTsigKey',
    tag: 'tsigkeys',
    summary: "Change a TSIG key's policy: the policy or preset given replaces the whole one (recorded in the audit log)",
    status: 200,
    params: ID_PARAM,
    body: {
      policy: {
        kind: 'object',
        description:
          'least-privilege policy (docs/least-privilege.md): rules [{zone, owner, types, access}], may_create_zones, may_delete_zones, may_manage_keys, expires_at, idle_days, allowed_networks',
        items: { $ref: '#/components/schemas/KeyPolicyInput' },
      },
      preset: { kind: 'string', description: 'READ_ONLY, ONE_ZONE or ACME (docs/least-privilege.md)' },
      zone: { kind: 'string', description: 'the zone of the preset (ONE_ZONE: required)' },
    },
    response: ref('TsigKey'),
    async handle(inputs, runner) {
      const input = {
        policy: inputs.policy === undefined ? undefined : policyInputOf(inputs.policy as unknown as Record<string, unknown>),
        preset: typeof inputs.preset === 'string' ? inputs.preset.toUpperCase().replace(/-/g, '_') : undefined,
        zone: inputs.zone,
      };
      const data = await runner.run<{ updateTsigKey: GqlTsigKey }>('updateTsigKey', { id: String(inputs.id), input });
      return { body: presentTsigKey(data.updateTsigKey) };
    },
  },
  {
    method: 'post',
    path: '/tsigkey/revoke/:id',
    operationId: 'revokeTsigKey',
    tag: 'tsigkeys',
    summary: 'Revoke a TSIG key: UPDATEs signed with it are refused from now on',
    status: 200,
    params: ID_PARAM,
    response: ref('TsigKey'),
    async handle(inputs, runner) {
      const data = await runner.run<{ revokeTsigKey: GqlTsigKey }>('revokeTsigKey', { id: String(inputs.id) });
      return { body: presentTsigKey(data.revokeTsigKey) };
    },
  },
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
      const pages = runner.pages<GqlAuditEvent>('listAuditEvents', 'auditEvents', { first: PAGE, kind: inputs.kind, since: inputs.since });
      return { itemPages: mapPages(pages, presentAuditEvent) };
    },
  },
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
      const pages = runner.pages<GqlDomain>('listDomains', 'domains', { first: 200, nameStartsWith: inputs.name_prefix });
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
      await runner.run('getUserForDomains', { id: String(inputs.userid) }); // 404 for an unknown user
      const pages = runner.pages<GqlDomain>('listDomains', 'domains', { first: 200, userId: String(inputs.userid) });
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
      const data = await runner.run<{ createDomain: { id: string; name: string } }>('createDomain', {
        input: { userId: String(inputs.user_id), zone: inputs.zone, template: inputs.template },
      });
      return { body: { id: Number(data.createDomain.id), zone: data.createDomain.name } };
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
      await runner.run('deleteDomain', { zone: inputs.zone });
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
    summary: 'Apply a change set to a zone, all or nothing, one serial step (JSON body; expectSerial for optimistic concurrency)',
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      changes: { kind: 'list', required: true, description: 'the changes, applied together', items: ref('ZoneChange') },
      expectSerial: {
        kind: 'int',
        description: 'apply only if the zone is still at this serial (else 409 SERIAL_MISMATCH)',
        max: 4_294_967_295,
      },
    },
    response: ref('ZoneChangesResult'),
    async handle(inputs, runner) {
      const data = await runner.run<{ applyZoneChanges: unknown }>('applyZoneChanges', {
        zone: inputs.zone,
        changes: inputs.changes,
        expectSerial: inputs.expectSerial,
      });
      return { body: data.applyZoneChanges };
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
      const data = await runner.run<{ domain: { changes: { nodes: unknown[] } } }>('zoneChanges', {
        zone: inputs.zone,
        first: inputs.first ?? 100,
        after: inputs.after,
      });
      return { body: data.domain.changes.nodes };
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
    summary: 'Import an RFC 1035 master file into a zone, all or nothing (warnings and dropped DNSSEC records in the answer)',
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
    async handle(inputs, runner) {
      // form fields are text: they become the GraphQL enums and boolean here, a wrong one is a 422 naming it
      const pick = (name: string, value: unknown, allowed: string[]) => {
        const text = String(value).toUpperCase();
        if (!allowed.includes(text))
          throw DomainError.invalid(
            name,
            `${name} must be one of ${allowed.join(', ')} (got ${JSON.stringify(String(value).slice(0, 40))})`,
            'INVALID_CHOICE',
          );
        return text;
      };
      const data = await runner.run<{ importZone: GqlImportResult }>('importZone', {
        zone: inputs.zone,
        text: inputs.text,
        mode: pick('mode', inputs.mode ?? 'REPLACE', ['REPLACE', 'MERGE']),
        dryRun: ['TRUE', '1'].includes(pick('dry_run', inputs.dry_run ?? 'false', ['TRUE', 'FALSE', '1', '0'])),
        ttlPolicy: pick('ttl_policy', inputs.ttl_policy ?? 'REFUSE', ['REFUSE', 'CLAMP']),
      });
      const r = data.importZone;
      const body: Record<string, unknown> = {
        zone: r.zone,
        added: r.added,
        removed: r.removed,
        serial: r.serial,
        dry_run: r.dryRun,
        dropped: r.dropped,
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
      const data = await runner.run<{ checkZone: { zone: string; serial: number; warnings: unknown[] } }>('checkZone', {
        zone: inputs.zone,
      });
      return { body: data.checkZone };
    },
  },
  {
    method: 'get',
    path: '/domain/dnssec/:zone',
    operationId: 'getDnssec',
    tag: 'dnssec',
    readsZone: 'zone',
    status: 200,
    summary: "A zone's DNSSEC: signed or not, its keys with their states, the DS records to give the parent",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run<{ domain: { dnssec: GqlDnssec } }>('getDnssec', { name: inputs.zone });
      return { body: presentDnssec(data.domain.dnssec) };
    },
  },
  {
    method: 'get',
    path: '/domain/dnssec/:zone/events',
    operationId: 'listDnssecEvents',
    tag: 'dnssec',
    // every key event comes with a serial step of the zone (its signer's journal row): the zone's ETag follows them
    readsZone: 'zone',
    status: 200,
    summary:
      "A zone's DNSSEC key events, newest first: each step of each key (made, published, active, retired, removed) and why; needs read access to the zone's DNSKEY",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      first: { kind: 'int', description: 'at most this many events (default 100)', max: 1000 },
      after: { kind: 'string', description: 'the id of the last event of the previous page' },
    },
    response: arrayOf('DnssecKeyEvent'),
    async handle(inputs, runner) {
      const data = await runner.run<{ domain: { dnssecEvents: { nodes: GqlDnssecKeyEvent[] } } }>('dnssecEvents', {
        zone: inputs.zone,
        first: inputs.first ?? 100,
        after: inputs.after,
      });
      return { body: data.domain.dnssecEvents.nodes.map(presentDnssecKeyEvent) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone',
    operationId: 'enableDnssec',
    tag: 'dnssec',
    status: 200,
    summary: 'Sign the zone: its keys are made and every RRset signed in one serial step; give the parent one of the DS records answered',
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      algorithm: { kind: 'string', description: 'ECDSAP256SHA256 (default), ED25519 or RSASHA256' },
      denial: { kind: 'string', description: 'NSEC (default) or NSEC3 (no salt, no extra iterations: RFC 9276)' },
      nsec3_opt_out: {
        kind: 'string',
        choices: ['true', 'false'],
        description: '"true": NSEC3 opt-out (RFC 5155 §6); "false" (the default): none',
      },
      key_layout: { kind: 'string', description: 'KSK_ZSK (default) or CSK' },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const input = {
        zone: inputs.zone,
        algorithm: inputs.algorithm,
        denial: inputs.denial,
        // the router took only "true" or "false": a misspelt opt-out is refused, not read as false
        nsec3OptOut: inputs.nsec3_opt_out === undefined ? undefined : inputs.nsec3_opt_out === 'true',
        keyLayout: inputs.key_layout,
      };
      const data = await runner.run<{ enableDnssec: GqlDnssec }>('enableDnssec', { input });
      return { body: presentDnssec(data.enableDnssec) };
    },
  },
  {
    method: 'delete',
    path: '/domain/dnssec/:zone',
    operationId: 'disableDnssec',
    tag: 'dnssec',
    status: 200,
    // a bad force on a zone the caller cannot see is that zone's 404, not a 422
    names: 'zone',
    summary:
      "Stop signing the zone (RFC 8078): DS-delete CDS/CDNSKEY published, state disabling until the parent's DS is gone, then unsigned and its keys destroyed; force=true: unsigned now",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      force: {
        kind: 'string',
        choices: ['true', 'false'],
        description: '"true": unsign now, without waiting for the parent to remove the DS; "false" (the default): wait for it',
      },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      // the router took only "true" or "false": a misspelt force is refused, not read as false
      const force = inputs.force === 'true';
      const data = await runner.run<{ disableDnssec: GqlDnssec }>('disableDnssec', { zone: inputs.zone, force });
      return { body: presentDnssec(data.disableDnssec) };
    },
  },
  {
    method: 'post',
    path: '/domain/dnssec/:zone/roll',
    operationId: 'rollDnssecKey',
    tag: 'dnssec',
    status: 200,
    names: 'zone',
    summary:
      "Start a roll of the zone's ZSK (pre-publication) or KSK/CSK (double-DS) now (RFC 7583); the worker runs its steps with the TTLs and DNSSEC_PROPAGATION_DELAY honoured; 409 DNSSEC_ROLL_IN_PROGRESS when a roll of that key runs already",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    body: {
      role: {
        kind: 'string',
        required: true,
        // the GraphQL enum DnssecRollRole, spelt as it is
        choices: ['ZSK', 'KSK'],
        description: 'ZSK: the zone-signing key; KSK: the key-signing key, or the combined key of a zone signed with a CSK',
      },
    },
    response: ref('Dnssec'),
    async handle(inputs, runner) {
      const data = await runner.run<{ rollDnssecKey: GqlDnssec }>('rollDnssecKey', { zone: inputs.zone, role: inputs.role });
      return { body: presentDnssec(data.rollDnssecKey) };
    },
  },
  dnssecConfirmation(
    'ds-published',
    'confirmDnssecDsPublished',
    "The operator's word that the parent (outside Zonekeeper) serves the zone's DS: after enabling, or a KSK roll's new DS (the keys swap once the DS TTL has passed, RFC 7583 §3.3.2); 409 DNSSEC_NOTHING_TO_CONFIRM when no DS is awaited",
  ),
  dnssecConfirmation(
    'ds-removed',
    'confirmDnssecDsRemoved',
    "The operator's word that the parent (outside Zonekeeper) no longer serves the DS of a zone disabling (RFC 8078 §4): it goes unsigned once the DS TTL and DNSSEC_PROPAGATION_DELAY have passed; 409 DNSSEC_NOTHING_TO_CONFIRM when the zone is not disabling",
  ),
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
      const data = await runner.run<{ domain: { id: string; name: string; propagation: GqlPropagation } }>(
        'domainStatus',
        zoneSelector(String(inputs.zone)),
      );
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
  ...HEALTH_ROUTES,
];

interface GqlPropagation {
  serial: number;
  state: string;
  message: string | null;
  servers: { server: string; servedSerial: number | null; state: string; error: string | null; updatedAt: string | null }[];
}

/** A path segment naming a zone: its id when all digits, its name otherwise. */
/** the object a route's path names, looked up as the caller sees it (ZONE_NOT_FOUND, … when it cannot) */
export async function checkNamedObject(
  kind: NonNullable<RouteSpec['names']>,
  params: Record<string, string>,
  runner: Runner,
): Promise<void> {
  if (kind === 'zone') await runner.run('zoneExists', zoneSelector(String(params.zone)));
  else if (kind === 'record') await runner.run('recordExists', { id: String(params.id) });
  else await runner.run('getUserForDomains', { id: String(params.id) });
}

function zoneSelector(segment: string): { id?: string; name?: string } {
  return /^\d+$/.test(segment) ? { id: segment } : { name: segment };
}

async function getUser(inputs: Inputs, runner: Runner): Promise<RouteResult> {
  const data = await runner.run<{ user: GqlUser }>('getUser', {
    id: inputs.id === undefined ? undefined : String(inputs.id),
    email: inputs.email,
  });
  return { body: presentUser(data.user) };
}

async function getDomain(inputs: Inputs, runner: Runner): Promise<RouteResult> {
  // the path segment is a zone id when it is all digits, a zone name otherwise
  const selector =
    inputs.zoneid !== undefined
      ? zoneSelector(String(inputs.zoneid))
      : { id: inputs.id === undefined ? undefined : String(inputs.id), name: inputs.name as string | undefined };
  const data = await runner.run<{ domain: GqlDomain }>('getDomain', selector);
  return { body: presentDomain(data.domain) };
}

async function* mapPages<T, U>(pages: AsyncIterable<readonly T[]>, map: (item: T) => U): AsyncIterable<readonly U[]> {
  for await (const page of pages) yield page.map(map);
}
