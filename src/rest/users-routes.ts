import {
  CreateUserDocument,
  DeleteUserDocument,
  GetUserDocument,
  GetUserLimitsDocument,
  ListUsersDocument,
  SetApiKeyRateDocument,
  SetUserLimitsDocument,
  UpdateUserDocument,
} from './generated/users';
import { presentCreatedUser, presentUser, presentUserLimits } from './presenters';
import { arrayOf, FieldSpec, ID_PARAM, Inputs, mapPages, PAGE, ref, RouteResult, RouteSpec, Runner } from './route-spec';

/** The users' REST routes: /user/…, with their limits and an API key's own rate (/apikey/rate/:id). */
const USER_QUERY: Record<string, FieldSpec> = {
  id: { kind: 'int', description: 'user id' },
  email: { kind: 'string', description: 'user e-mail' },
};

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

async function getUser(inputs: Inputs, runner: Runner): Promise<RouteResult> {
  const data = await runner.run(GetUserDocument, {
    id: inputs.id === undefined ? undefined : String(inputs.id),
    email: inputs.email,
  });
  return { body: presentUser(data.user) };
}

export const USER_ROUTES: RouteSpec[] = [
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
      return { itemPages: mapPages(runner.pages(ListUsersDocument, 'users', { first: PAGE }), presentUser) };
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
      const data = await runner.run(CreateUserDocument, { input: { email: inputs.email } });
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
      const data = await runner.run(UpdateUserDocument, { id: String(inputs.id), input: { email: inputs.email } });
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
      await runner.run(DeleteUserDocument, { id: String(inputs.id) });
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
      const data = await runner.run(GetUserLimitsDocument, { id: String(inputs.id) });
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
      const data = await runner.run(SetUserLimitsDocument, { id: String(inputs.id), input });
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
      const data = await runner.run(SetApiKeyRateDocument, {
        id: String(inputs.id),
        input,
      });
      return { body: { rate_per_second: data.setApiKeyRate.ratePerSecond, rate_burst: data.setApiKeyRate.rateBurst } };
    },
  },
];

/** a limit as the answers show it: null, the default of the settings */
const limitSchemaFields = {
  rate_per_second: { type: ['integer', 'null'] },
  rate_burst: { type: ['integer', 'null'] },
  max_zones: { type: ['integer', 'null'] },
  max_records_per_zone: { type: ['integer', 'null'] },
};

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

/** the OpenAPI schemas of a user and their limits (components of the document: openapi.ts assembles them) */
export const USER_SCHEMAS = {
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
};
