import type { TestApp } from './test-app';
import { waitFor } from './wait-for';

/** Builders over the public API: tests set up data the way a client would. */
export async function createUser(app: TestApp, email: string, key?: string): Promise<string> {
  const res = await app.gql(`mutation($e: String!) { createUser(input: {email: $e}) { id } }`, { e: email }, key);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createUser.id;
}

export async function createZone(app: TestApp, userId: string, zone: string, key?: string): Promise<string> {
  const res = await app.gql(
    `mutation($u: ID!, $z: String!) { createDomain(input: {userId: $u, zone: $z}) { id } }`,
    { u: userId, z: zone },
    key,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createDomain.id;
}

export async function createUserKey(app: TestApp, userId: string): Promise<string> {
  const res = await app.gql(`mutation($u: ID!) { createApiKey(input: {userId: $u, name: "test"}) { secret apiKey { id } } }`, {
    u: userId,
  });
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data.createApiKey.secret;
}

export const CREATE_RECORD = `mutation($input: RecordInput!) { createRecord(input: $input) { id zone owner type rdata ttl } }`;

export function errorCode(res: { errors?: any[] }): string | undefined {
  return res.errors?.[0]?.extensions?.code;
}

/** a TSIG key for DNS UPDATE (`userId` null: the admin's), with its secret, as the clients' `-y` takes it */
export async function createTsigKey(
  app: TestApp,
  userId: string | null,
  name: string,
  algorithm = 'hmac-sha256',
  key?: string,
): Promise<{ id: string; name: string; algorithm: string; secret: string }> {
  const res = await app.gql(
    `mutation($input: CreateTsigKeyInput!) { createTsigKey(input: $input) { secret tsigKey { id } } }`,
    { input: { userId, name, algorithm } },
    key,
  );
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return { id: res.data.createTsigKey.tsigKey.id, name, algorithm, secret: res.data.createTsigKey.secret };
}

/** the mutation that makes a secondary zone taken from `$p` (each a ServerInput: address, port, tsigKeyName) */
export const CREATE_SECONDARY = `mutation($u: ID!, $z: String!, $p: [ServerInput!]) {
  createDomain(input: { userId: $u, zone: $z, kind: SECONDARY, primaries: $p }) { id kind } }`;

/** a secondary zone of the user, taken from `primaries` (the test fails on an error); its id */
export async function createSecondary(
  app: TestApp,
  userId: string,
  zone: string,
  primaries: { address: string; port?: number; tsigKeyName?: string }[],
  key?: string,
): Promise<string> {
  const created = await app.gql(CREATE_SECONDARY, { u: userId, z: zone, p: primaries }, key);
  expect(created.errors).toBeUndefined();
  return created.data.createDomain.id;
}

/** the events feed (GraphQL `events`) from `after` (its start when undefined) to its end: its events, and the cursor past them */
export async function feedFrom(
  app: TestApp,
  after?: string,
): Promise<{ events: { type: string; zone: string; data: { serial: number } }[]; next: string }> {
  const events = [];
  for (;;) {
    const page = (
      await app.gql(`query($after: String) { events(after: $after, limit: 500) { events { type zone data } next } }`, { after })
    ).data.events;
    events.push(...page.events);
    if (!page.events.length) return { events, next: page.next };
    after = page.next;
  }
}

/**
 * `zone`'s events in the feed from `after` once it shows the one at `serial` (the feed serves an event when every
 * older transaction has ended: waited for, bounded), and the cursor past them
 */
export async function zoneEventsUntil(
  app: TestApp,
  zone: string,
  serial: number,
  after?: string,
): Promise<{ events: { type: string; zone: string; data: { serial: number } }[]; next: string }> {
  return waitFor(`the event of ${zone} at serial ${serial}`, async () => {
    const feed = await feedFrom(app, after);
    const events = feed.events.filter((e) => e.zone === zone);
    return events.some((e) => e.data.serial === serial) ? { events, next: feed.next } : undefined;
  });
}
