import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

/** Nested fields are batched: the number of SQL statements of a nested query does not grow with the rows. */
let app: TestApp;
const statements: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  app.service.database.orm.em.getKnex().on('query', (query: { sql: string }) => statements.push(query.sql));
});
afterAll(async () => {
  await app?.close();
});

async function countStatements(query: string): Promise<number> {
  statements.length = 0;
  const res = await app.gql(query);
  expect(res.errors).toBeUndefined();
  return statements.filter((sql) => /^\s*select/i.test(sql) && !/api_keys/.test(sql)).length;
}

const NESTED = `{ users(first: 100) { nodes { email domains { name user { email } records { owner type rdata domain { name } } } } } }`;

test('users { domains { records } } costs the same number of statements for 2 and for 12 users', async () => {
  const seed = async (from: number, to: number) => {
    for (let u = from; u < to; u++) {
      const id = await createUser(app, `u${u}@example.org`);
      for (let z = 0; z < 3; z++) await createZone(app, id, `z${z}.u${u}.test`);
    }
  };
  await seed(0, 2);
  const small = await countStatements(NESTED);
  await seed(2, 12);
  const large = await countStatements(NESTED);
  expect(large).toBe(small);
  expect(large).toBeLessThanOrEqual(5);
});

test('nested lists take first and filters, still one statement per level', async () => {
  const count = await countStatements(`{ users(first: 100) { nodes { domains(first: 2) { name records(type: "ns", first: 1) { type } } } } }`);
  expect(count).toBeLessThanOrEqual(5);
  const res = await app.gql(`{ users(first: 100) { nodes { domains(first: 2) { name records(type: "ns", first: 1) { type } all: records { id } } } } }`);
  const users = res.data.users.nodes.filter((u: { domains: unknown[] }) => u.domains.length);
  expect(users.length).toBeGreaterThan(2);
  for (const user of users) {
    expect(user.domains.length).toBeLessThanOrEqual(2);
    for (const domain of user.domains) {
      expect(domain.records).toEqual([{ type: 'NS' }]);
      expect(domain.all.length).toBe(4);
    }
  }
});
