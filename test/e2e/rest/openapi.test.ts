import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';
import { ROUTES } from '../../../src/rest/routes';

/** The OpenAPI document and the routes agree: every route documented, every documented route answering. */
let app: TestApp;
let document: any;

beforeAll(async () => {
  app = await startTestApp();
  const res = await app.http.get('/api/openapi.json');
  expect(res.status).toBe(200);
  document = res.body;
});
afterAll(async () => {
  await app?.close();
});

test('is OpenAPI 3.1 with the API-key scheme', () => {
  expect(document.openapi).toBe('3.1.0');
  expect(document.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
});

test('documents every route of the table, and every one of the 15 documented operations', () => {
  const documented = Object.entries(document.paths).flatMap(([path, ops]) =>
    Object.keys(ops as object).map((m) => `${m.toUpperCase()} ${path}`),
  );
  for (const route of ROUTES) expect(documented).toContain(`${route.method.toUpperCase()} /api${route.path.replace(/:(\w+)/g, '{$1}')}`);
  for (const operation of [
    'GET /api/record/list',
    'GET /api/record/list/{id}',
    'POST /api/record/add',
    'PUT /api/record/edit/{id}',
    'DELETE /api/record/delete/{id}',
    'GET /api/user/list',
    'GET /api/user/list/{id}',
    'POST /api/user/add',
    'PUT /api/user/edit/{id}',
    'DELETE /api/user/delete/{id}',
    'GET /api/domain/list',
    'GET /api/domain/list/zone/{zoneid}',
    'GET /api/domain/list/user/{userid}',
    'POST /api/domain/add',
    'DELETE /api/domain/delete',
  ]) {
    expect(documented).toContain(operation);
  }
});

test('every documented operation answers on its path (not an unknown route or a wrong method)', async () => {
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const method of Object.keys(operations as object)) {
      const url = path.replace(/\{\w+\}/g, '1');
      const res = await (app.http as any)[method](url).set('X-API-Key', ADMIN_KEY);
      expect({ method, path, error: res.body?.error }).not.toEqual({ method, path, error: 'ROUTE_NOT_FOUND' });
      expect(res.status).not.toBe(405);
      expect(res.status).toBeLessThan(500);
    }
  }
});
