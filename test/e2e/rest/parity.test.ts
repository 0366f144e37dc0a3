import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';

/**
 * One scenario through REST and through GraphQL, on two fresh services: the stored state and the error codes
 * must be the same, because REST runs the GraphQL operations.
 */
interface Step {
  label: string;
  rest: (app: TestApp) => Promise<{ ok: boolean; code?: string }>;
  gql: (app: TestApp) => Promise<{ ok: boolean; code?: string }>;
}

const key = { 'X-API-Key': ADMIN_KEY };
const restResult = (res: { status: number; body: any }) => ({ ok: res.status < 300, code: res.status < 300 ? undefined : res.body.error });
const gqlResult = (res: { errors?: any[] }) => ({ ok: !res.errors, code: res.errors?.[0]?.extensions?.code });

const record = (owner: string, type: string, rdata: string, ttl = 3600) => ({ zone: 'parity.test', owner, type, rdata, ttl });
const restRecord = (r: ReturnType<typeof record>) => ({ zone: r.zone, owner: r.owner, rtype: r.type, rdata: r.rdata, ttl: String(r.ttl) });
const gqlCreate = `mutation($input: RecordInput!) { createRecord(input: $input) { id } }`;

function addRecord(label: string, r: ReturnType<typeof record>): Step {
  return {
    label,
    rest: async (app) => restResult(await app.http.post('/api/record/add').set(key).type('form').send(restRecord(r))),
    gql: async (app) => gqlResult(await app.gql(gqlCreate, { input: r })),
  };
}

const STEPS: Step[] = [
  {
    label: 'create user',
    rest: async (app) => restResult(await app.http.post('/api/user/add').set(key).type('form').send({ email: 'parity@example.org' })),
    gql: async (app) => gqlResult(await app.gql(`mutation { createUser(input: {email: "parity@example.org"}) { id } }`)),
  },
  {
    label: 'create zone',
    rest: async (app) =>
      restResult(await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: '1', zone: 'Parity.Test.' })),
    gql: async (app) => gqlResult(await app.gql(`mutation { createDomain(input: {userId: "1", zone: "Parity.Test."}) { id } }`)),
  },
  {
    label: 'duplicate zone',
    rest: async (app) =>
      restResult(await app.http.post('/api/domain/add').set(key).type('form').send({ user_id: '1', zone: 'parity.test' })),
    gql: async (app) => gqlResult(await app.gql(`mutation { createDomain(input: {userId: "1", zone: "parity.test"}) { id } }`)),
  },
  addRecord('MX', record('@', 'MX', '10 mail')),
  addRecord('identical MX', record('@', 'mx', '10 mail.parity.test.')),
  addRecord('A', record('mail', 'A', '192.0.2.25')),
  addRecord('bad A', record('mail', 'A', '192.0.2.256')),
  addRecord('CNAME beside A', record('mail', 'CNAME', 'other.example.')),
  addRecord('TTL not allowed', record('txt', 'TXT', 'hi', 7)),
  addRecord('TXT', record('txt', 'TXT', '"v=spf1 -all"')),
  addRecord('RRset TTL', record('txt', 'TXT', 'second', 300)),
  {
    label: 'delete SOA',
    rest: async (app) => restResult(await app.http.delete('/api/record/delete/1').set(key)),
    gql: async (app) => gqlResult(await app.gql(`mutation { deleteRecord(id: "1") }`)),
  },
  {
    label: 'delete unknown record',
    rest: async (app) => restResult(await app.http.delete('/api/record/delete/4242').set(key)),
    gql: async (app) => gqlResult(await app.gql(`mutation { deleteRecord(id: "4242") }`)),
  },
];

async function runScenario(via: 'rest' | 'gql') {
  // REST and GraphQL under one TTL policy: REST's contract list binds both (by default GraphQL takes any TTL,
  // ALLOWED_TTLS_BEYOND_REST), so that a TTL refused is refused on both edges alike
  const app = await startTestApp({ ALLOWED_TTLS_BEYOND_REST: '86400,43200,28800,14400,7200,3600,1800,900,300' });
  try {
    const outcomes = [];
    for (const step of STEPS) outcomes.push({ step: step.label, ...(await step[via](app)) });
    const state = await app.gql(
      `{ domains { nodes { name serial records(first: 100) { owner type rdata ttl } } } users { nodes { email } } }`,
    );
    return { outcomes, state: state.data };
  } finally {
    await app.close();
  }
}

test('REST and GraphQL give the same outcomes, the same error codes and the same stored state', async () => {
  const rest = await runScenario('rest');
  const gql = await runScenario('gql');
  expect(rest.outcomes).toEqual(gql.outcomes);
  expect(rest.state).toEqual(gql.state);
  // and the scenario exercised both successes and several distinct refusals
  expect(new Set(rest.outcomes.map((o) => o.code).filter(Boolean)).size).toBeGreaterThanOrEqual(6);
});
