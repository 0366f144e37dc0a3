/**
 * The operator's two DNSSEC confirmations over REST (docs/dnssec.md): a zone signed under a parent outside
 * Zonekeeper waits for its DS until `POST /api/domain/dnssec/:zone/ds-published`; disabled without force, it
 * waits for the DS's removal until `POST /api/domain/dnssec/:zone/ds-removed`. Each answers the zone's DNSSEC
 * (as GET does), and a confirmation of nothing awaited is 409 DNSSEC_NOTHING_TO_CONFIRM.
 */
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { createUser, createZone } from '../../support/fixtures';

const ZONE = 'confirm.zk-nowhere.test';
let app: TestApp;

const post = (path: string) => app.http.post(`/api/domain/dnssec/${ZONE}${path}`).set('X-API-Key', ADMIN_KEY).send({});

beforeAll(async () => {
  app = await startTestApp();
  await createZone(app, await createUser(app, 'confirm@example.org'), ZONE);
}, 60_000);
afterAll(async () => app?.close());

it('confirms the DS published, then (the zone disabling) removed', async () => {
  // unsigned: nothing of the parent to confirm
  const unsigned = await post('/ds-published');
  expect(unsigned.status).toBeGreaterThanOrEqual(400);
  expect(unsigned.status).toBeLessThan(500);

  expect((await post('')).body).toMatchObject({ state: 'signed', parent_ds: { waiting_for: 'DS_PUBLICATION', in_zonekeeper: false } });
  const early = await post('/ds-removed');
  expect(early.status).toBe(409);
  expect(JSON.stringify(early.body)).toContain('DNSSEC_NOTHING_TO_CONFIRM');

  const published = await post('/ds-published');
  expect(published.status).toBe(200);
  expect(published.body).toMatchObject({
    zone: ZONE,
    state: 'signed',
    parent_ds: { waiting_for: 'NOTHING', seen_at: expect.any(String), next_check_at: null },
  });
  const again = await post('/ds-published');
  expect(again.status).toBe(409);
  expect(JSON.stringify(again.body)).toContain('DNSSEC_NOTHING_TO_CONFIRM');

  const disabling = await app.http.delete(`/api/domain/dnssec/${ZONE}`).set('X-API-Key', ADMIN_KEY);
  expect(disabling.body).toMatchObject({ state: 'disabling', disable_at: null, parent_ds: { waiting_for: 'DS_REMOVAL' } });
  const removed = await post('/ds-removed');
  expect(removed.status).toBe(200);
  expect(removed.body).toMatchObject({ zone: ZONE, state: 'disabling', disable_at: expect.any(String) });
  expect(Date.parse(removed.body.disable_at)).toBeGreaterThan(Date.now());
  expect((await post('/ds-removed')).status).toBe(409);

  // a zone nobody may see: 404, as the other DNSSEC routes
  const missing = await app.http.post('/api/domain/dnssec/missing.zk-nowhere.test/ds-published').set('X-API-Key', ADMIN_KEY);
  expect(missing.status).toBe(404);
}, 60_000);
