import { CreateTsigKeyDocument, ListTsigKeysDocument, RevokeTsigKeyDocument, UpdateTsigKeyDocument } from './generated/tsig-keys';
import { presentTsigKey } from './presenters';
import { arrayOf, ID_PARAM, ref, RouteSpec } from './route-spec';

/** The TSIG keys' REST routes (keys for DNS UPDATE): /tsigkey/… */
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

export const TSIG_KEY_ROUTES: RouteSpec[] = [
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
      const data = await runner.run(ListTsigKeysDocument, {
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
      const data = await runner.run(CreateTsigKeyDocument, { input });
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
      const data = await runner.run(UpdateTsigKeyDocument, { id: String(inputs.id), input });
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
      const data = await runner.run(RevokeTsigKeyDocument, { id: String(inputs.id) });
      return { body: presentTsigKey(data.revokeTsigKey) };
    },
  },
];

/** the OpenAPI schemas of a TSIG key and its policy (components of the document: openapi.ts assembles them) */
export const TSIG_KEY_SCHEMAS = {
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
};

/** a created key's answer, with its secret: listed apart, after the audit log's, where the document has always had it */
export const CREATED_TSIG_KEY_SCHEMAS = {
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
};
