/**
 * The sign-in routes need no credential and each start writes a row (a WebAuthn challenge, an OIDC flow): they
 * are limited per client address (src/services/rate-limits.ts, SIGN_IN_LIMIT: a burst of 30, then one a second),
 * on the default settings. Past the burst: 429 RATE_LIMITED with Retry-After, and nothing written.
 */
import 'reflect-metadata';
import { Client } from 'pg';
import { SIGN_IN_LIMIT } from '../../src/services/rate-limits';
import { startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let db: Client;

beforeAll(async () => {
  app = await startTestApp();
  db = new Client({ connectionString: app.settings.databaseUrl! });
  await db.connect();
}, 60_000);

afterAll(async () => {
  await db?.end();
  await app?.close();
});

const challenges = async () => Number((await db.query(`select count(*) from webauthn_challenges`)).rows[0].count);
const start = () =>
  app.http
    .post('/auth/passkey/sign-in/options')
    .set({ 'x-requested-with': 'zonekeeper-console', 'content-type': 'application/json' })
    .send({});

it('takes a burst of sign-in starts from one address, then answers 429 with Retry-After and writes nothing', async () => {
  const before = await challenges();
  const began = Date.now();
  const statuses: number[] = [];
  for (let i = 0; i < SIGN_IN_LIMIT.burst; i++) statuses.push((await start()).status);
  expect(statuses).toEqual(Array(SIGN_IN_LIMIT.burst).fill(200));
  // the bucket refills one a second while the burst is sent: on a busy machine the burst takes more than a
  // second, and as many more starts as whole seconds went by are taken before the refusal
  let refused = await start();
  let refilled = 0;
  while (refused.status === 200 && refilled < 10) {
    refilled++;
    refused = await start();
  }
  const seconds = (Date.now() - began) / 1000;
  expect(refilled).toBeLessThanOrEqual(Math.floor(seconds * SIGN_IN_LIMIT.perSecond));
  expect(refused.status).toBe(429);
  const written = await challenges();
  expect(written - before).toBe(SIGN_IN_LIMIT.burst + refilled);
  expect(refused.body).toMatchObject({ error: 'RATE_LIMITED', details: [{ field: 'address', code: 'RATE_LIMITED' }] });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  // the OIDC start and the invitation's routes share the address's bucket
  expect(
    (await app.http.post('/auth/passkey/invitation/options').set({ 'x-requested-with': 'zonekeeper-console' }).send({ token: 'x' })).status,
  ).toBe(429);
  expect(await challenges()).toBe(written);
  // a second later, one more is taken
  await new Promise((resolve) => setTimeout(resolve, 1100));
  expect((await start()).status).toBe(200);
});
