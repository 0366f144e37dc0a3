import { execFile } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildOnce } from '../../support/build';
import { ADMIN_KEY, startTestApp, TestApp } from '../../support/test-app';

/**
 * The documented REST paths are a contract with the clients generated from the OpenAPI document: types made by
 * openapi-typescript from the document as `scripts/emit-openapi` writes it, calls by openapi-fetch, and a
 * client (test/typed-rest-client/client.mts) that reads `.id` and `.rdata` of the record add and edit answers,
 * compiled with `tsc --strict` and run against the service. On a zone under review it meets 409
 * ZONE_UNDER_REVIEW without asking, and 202 with the change request when it asks (`Prefer: respond-async`,
 * RFC 7240). The same client does not compile against a document that gives record add a second success body
 * (a 202 beside the record): what the document must not do again.
 */
const ROOT = path.join(__dirname, '..', '..', '..');
const CLIENT = path.join(ROOT, 'test', 'typed-rest-client', 'client.mts');
const run = promisify(execFile);

/** a folder holding the client beside the types generated from `document`, with the repository's packages */
async function clientWith(document: object): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'zk-typed-client-'));
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
  copyFileSync(CLIENT, path.join(dir, 'client.mts'));
  // a client project's own settings: strict, ESM, the DOM's fetch types as a browser client has them
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, target: 'ES2022', module: 'nodenext', lib: ['ES2023', 'DOM'], types: ['node'], outDir: 'out' },
      files: ['client.mts'],
    }),
  );
  await run(
    process.execPath,
    [path.join(ROOT, 'node_modules', 'openapi-typescript', 'bin', 'cli.js'), 'openapi.json', '-o', 'openapi.d.ts'],
    {
      cwd: dir,
    },
  );
  return dir;
}

/** `tsc --strict` over the client: its exit code and what it said */
async function compile(dir: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir, '--strict'], {
      cwd: dir,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: `${failed.stdout}${failed.stderr}` };
  }
}

let app: TestApp;
let emitted: any;
const folders: string[] = [];

beforeAll(async () => {
  buildOnce();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'zk-openapi-')), 'openapi.json');
  await run(process.execPath, [path.join(ROOT, 'dist', 'src', 'scripts', 'emit-openapi.js'), file], { cwd: ROOT });
  emitted = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(path.dirname(file), { recursive: true, force: true });
  app = await startTestApp();
}, 180_000);

afterAll(async () => {
  await app?.close();
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

test('a client generated from the emitted document compiles with tsc --strict and keeps its word against the service', async () => {
  const dir = await clientWith(emitted);
  folders.push(dir);
  expect(await compile(dir)).toEqual({ code: 0, output: '' });

  const user = (await app.http.post('/api/user/add').set('X-API-Key', ADMIN_KEY).send({ email: 'typed@example.org' })).body;
  const [zone, reviewZone] = ['typed.example', 'typed-review.example'];
  for (const name of [zone, reviewZone])
    expect(
      (
        await app.http
          .post('/api/domain/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ user_id: Number(user.id), zone: name })
      ).status,
    ).toBe(201);
  const kept = await app.http
    .post('/api/record/add')
    .set('X-API-Key', ADMIN_KEY)
    .send({ zone: reviewZone, owner: 'reviewed', rtype: 'A', rdata: '192.0.2.70', ttl: 3600 });
  expect(kept.status).toBe(201);
  const approvals = await app.gql(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 1) }`, { z: reviewZone });
  expect(approvals.errors).toBeUndefined();

  const { stdout } = await run(
    process.execPath,
    [path.join(dir, 'out', 'client.mjs'), app.baseUrl, ADMIN_KEY, zone, reviewZone, String(kept.body.id)],
    { cwd: dir },
  );
  const report = JSON.parse(stdout);
  expect(report.added).toEqual({ status: 201, id: expect.any(Number), rdata: '192.0.2.80' });
  expect(report.edited).toEqual({ status: 200, id: report.added.id, rdata: '192.0.2.81', zone, ttl: '3600', comment: 'typed by a client' });
  for (const refused of [report.refusedAdd, report.refusedEdit]) {
    expect(refused).toMatchObject({ status: 409, error: 'ZONE_UNDER_REVIEW' });
    expect(refused.message).toContain('Prefer: respond-async');
  }
  for (const proposed of [report.proposedAdd, report.proposedEdit])
    expect(proposed).toEqual({
      status: 202,
      preferenceApplied: 'respond-async',
      changeRequest: { zone: reviewZone, changeRequest: { id: expect.stringMatching(/^\d+$/), status: 'PENDING', requiredApprovals: 1 } },
    });
  // proposed, nothing written: the record as it was, and two requests pending
  const record = await app.http.get(`/api/record/list/${kept.body.id}`).set('X-API-Key', ADMIN_KEY);
  expect(record.body.rdata).toBe('192.0.2.70');
  const pending = await app.http.get(`/api/domain/changes/${reviewZone}/requests`).set('X-API-Key', ADMIN_KEY);
  expect(pending.body.map((request: any) => request.id).sort()).toEqual(
    [report.proposedAdd.changeRequest.changeRequest.id, report.proposedEdit.changeRequest.changeRequest.id].sort(),
  );
}, 120_000);

test('the same client does not compile against a document whose record add has a second success body', async () => {
  const broken = structuredClone(emitted);
  const accepted = { $ref: '#/components/schemas/ChangeRequestAccepted' };
  broken.paths['/api/record/add'].post.responses['202'] = {
    description: 'a change request',
    content: { 'application/json': { schema: accepted } },
  };
  const dir = await clientWith(broken);
  folders.push(dir);
  const { code, output } = await compile(dir);
  expect(code).not.toBe(0);
  expect(output).toMatch(/client\.mts\(\d+,\d+\): error TS2339: Property 'id' does not exist on type/);
}, 120_000);
