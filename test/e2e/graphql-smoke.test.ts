import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(async () => {
  await app?.close();
});

test('create user, zone, record; list nested', async () => {
  const user = await app.gql(`mutation { createUser(input: {email: "A@Example.com"}) { id email createdAt } }`);
  expect(user.errors).toBeUndefined();
  const userId = user.data.createUser.id;
  const zone = await app.gql(`mutation($u: ID!) { createDomain(input: {userId: $u, zone: "Example.COM."}) { id name serial } }`, { u: userId });
  expect(zone.errors).toBeUndefined();
  expect(zone.data.createDomain.name).toBe('example.com');
  const rec = await app.gql(`mutation { createRecord(input: {zone: "example.com", owner: "mail", type: "mx", rdata: "10 Mail.Example.com.", ttl: 3600}) { id owner type rdata ttl zone } }`);
  expect(rec.errors).toBeUndefined();
  console.log(JSON.stringify(rec.data));
  const dup = await app.gql(`mutation { createRecord(input: {zone: "example.com", owner: "mail", type: "MX", rdata: "10 mail", ttl: 3600}) { id } }`);
  console.log(JSON.stringify(dup.errors));
  const nested = await app.gql(`{ users { totalCount nodes { email domains { name serial user { email } records { owner type rdata ttl } } } } }`);
  console.log(JSON.stringify(nested.body, null, 1));
  const bad = await app.gql(`{ users { totalCount } }`, {}, 'wrong');
  console.log(bad.status, JSON.stringify(bad.body));
  expect(ADMIN_KEY).toBeTruthy();
});
