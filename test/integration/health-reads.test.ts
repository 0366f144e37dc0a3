/**
 * A zone's health as read is the outcome of one check: its state and its findings together, never the state
 * before a check beside the findings after it. The worker stores a check's state and findings in one
 * transaction (`recordChecks`, src/repositories/health.ts); here checks that raise and clear a critical finding
 * are stored back to back while the API reads the zone's health beside them, and every answer must agree with
 * itself: `critical` exactly when it holds the critical finding.
 */
import { recordChecks } from '../../src/repositories/health';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

let app: TestApp;
let domainId: number;
const ZONE = 'reads.health.test';

beforeAll(async () => {
  app = await startTestApp();
  const user = await app.http.post('/api/user/add').set('x-api-key', ADMIN_KEY).send({ email: 'health-reads@example.com' }).expect(201);
  await app.http.post('/api/domain/add').set('x-api-key', ADMIN_KEY).send({ user_id: user.body.id, zone: ZONE }).expect(201);
  const [row] = await app.service.database.db.rows(`select id from domains where name = $1`, [ZONE]);
  domainId = Number(row.id);
}, 60_000);

afterAll(async () => {
  await app?.close();
});

const MISMATCH = { code: 'DS_MISMATCH', severity: 'critical' as const, server: null, message: 'the DS set matches no key' };

test('each read of a zone health pairs its state with the findings of the same check, while checks are stored beside it', async () => {
  let storing = true;
  let stored = 0;
  const storeCheck = async () => {
    const raised = stored % 2 === 0;
    await app.service.database.db.transaction((sql) =>
      recordChecks(sql, [{ domainId, findings: raised ? [MISMATCH] : [], state: raised ? 'critical' : 'ok' }], 3600),
    );
    stored++;
  };
  // the zone checked once before the first read (a zone never checked reads `unknown`)
  await storeCheck();
  const writer = (async () => {
    while (storing) await storeCheck();
  })();
  const torn: string[] = [];
  const seen = new Set<string>();
  try {
    for (let read = 0; read < 400; read++) {
      const res = await app.http.get(`/api/domain/health/${ZONE}`).set('X-API-Key', ADMIN_KEY);
      expect(res.status).toBe(200);
      const holdsMismatch = res.body.findings.some((f: { code: string }) => f.code === 'DS_MISMATCH');
      seen.add(res.body.state);
      if ((res.body.state === 'critical') !== holdsMismatch) torn.push(`${res.body.state} with ${JSON.stringify(res.body.findings)}`);
    }
  } finally {
    storing = false;
    await writer;
  }
  // the reads saw both outcomes, so they did run beside the checks
  expect([...seen].sort()).toEqual(['critical', 'ok']);
  expect(stored).toBeGreaterThan(100);
  expect(torn).toEqual([]);
}, 120_000);
