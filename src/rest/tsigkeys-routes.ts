import { CreateTsigKeyDocument, ListTsigKeysDocument, RevokeTsigKeyDocument, UpdateTsigKeyDocument } from './generated/operations';
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
