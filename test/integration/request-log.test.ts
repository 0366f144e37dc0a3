import { waitFor } from '../support/wait-for';
import { ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { buildOnce } from '../support/build';
import { startServiceProcess } from '../support/service-process';
import { logger, requestLogger } from '../../src/logger';
import { freePort } from '../support/free-port';
import { startTestApp } from '../support/test-app';
import { createTestDatabase } from '../support/test-db';

/**
 * The service as started by `npm run serve` logs one line per request (request id, method,
 * path, status, duration; the id also answered as X-Request-Id), never a key; JSON lines when stdout is not a
 * terminal, readable lines when it is (a pseudo-terminal from `script`).
 */
const root = path.resolve(__dirname, '..', '..');
const API_KEY = 'request-log-admin-key-0123456789abcdef';

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
}

async function start(databaseUrl: string, terminal: boolean, logLevel = 'info'): Promise<Started> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    DATABASE_URL: databaseUrl,
    PORT: String(port),
    HOST: '127.0.0.1',
    DNS_LISTEN: '',
    ROLES: 'api',
    API_KEY,
    LOG_LEVEL: logLevel,
  };
  // `script` runs the command on a pseudo-terminal, as a person's shell would
  const inTerminal = (command: string, args: string[], childEnv: NodeJS.ProcessEnv) =>
    spawn('script', ['-qfec', [command, ...args].join(' '), '/dev/null'], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const { child, output } = startServiceProcess(env, terminal ? { spawn: inTerminal } : {});
  // ready when /health answers (a level above info prints no "listening" line); probes are not logged
  const answers = () =>
    fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
  for (let waited = 0; !(await answers()); waited += 100) {
    if (waited > 60_000 || child.exitCode !== null) throw new Error(`the service did not start:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port, output };
}

/**
 * Stops the service and answers everything it wrote: its streams are read to their end ('close' comes after
 * the last 'data'), so a line is there or never was, with no guess at how long a write takes to arrive
 */
async function stop(started: Started): Promise<string> {
  if (started.child.exitCode === null && started.child.signalCode === null) {
    const closed = new Promise((resolve) => started.child.once('close', resolve));
    started.child.kill('SIGTERM');
    await closed;
  }
  return started.output();
}

let database: { url: string; drop(): Promise<void> };
beforeAll(async () => {
  buildOnce();
  database = await createTestDatabase();
}, 120_000);
afterAll(async () => database?.drop());

test('JSON lines: one per request, with its id, method, path, status and duration; never the key', async () => {
  const service = await start(database.url, false);
  try {
    const base = `http://127.0.0.1:${service.port}`;
    const given = await fetch(`${base}/api/user/list?email=someone@example.org`, {
      headers: { 'X-API-Key': API_KEY, 'X-Request-Id': 'client-id-1' },
    });
    expect(given.headers.get('x-request-id')).toBe('client-id-1');
    // an id that is no fit for a log line or a header is replaced
    const odd = await fetch(`${base}/api/domain/list`, { headers: { 'X-API-Key': API_KEY, 'X-Request-Id': 'a b'.repeat(40) } });
    const oddId = odd.headers.get('x-request-id')!;
    expect(oddId).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-API-Key': 'wrong-key-0123456789abcdef' },
      body: '{"query":"{ __typename }"}',
    });
    expect(refused.status).toBe(401);
    await fetch(`${base}/health`);
    const output = await stop(service);

    const lines = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.req);
    expect(requests.map((line) => [line.reqId, line.req.method, line.req.path, line.res.status])).toEqual([
      ['client-id-1', 'GET', '/api/user/list', 404],
      [oddId, 'GET', '/api/domain/list', 200],
      [refused.headers.get('x-request-id'), 'POST', '/graphql', 401],
    ]);
    for (const line of requests) expect(typeof line.ms).toBe('number');
    // no key, no query string (filters hold e-mail addresses), no headers
    expect(output).not.toContain(API_KEY);
    expect(output).not.toContain('wrong-key-0123456789abcdef');
    expect(output).not.toContain('someone@example.org');
  } finally {
    await stop(service);
  }
}, 120_000);

test('on a terminal the lines are for people, not JSON', async () => {
  const service = await start(database.url, true);
  try {
    const res = await fetch(`http://127.0.0.1:${service.port}/api/domain/list`, { headers: { 'X-API-Key': API_KEY } });
    expect(res.status).toBe(200);
    // the line is read as it arrives on the pseudo-terminal: `script` stops its child on SIGTERM without
    // waiting for what the pretty printer still holds, so the output after a stop is no measure of the lines
    const line = await waitFor('the request line on the terminal', () =>
      service
        .output()
        .split('\n')
        .find((l) => l.includes('GET /api/domain/list 200')),
    );
    const output = await stop(service);
    expect(line).toBeDefined();
    expect(line.trim().startsWith('{')).toBe(false);
    expect(line).toContain(res.headers.get('x-request-id')!);
    expect(output).not.toContain(API_KEY);
  } finally {
    await stop(service);
  }
}, 120_000);

test('LOG_LEVEL above info leaves the request lines out, as every other info line', async () => {
  const service = await start(database.url, false, 'warn');
  try {
    const res = await fetch(`http://127.0.0.1:${service.port}/api/domain/list`, { headers: { 'X-API-Key': API_KEY } });
    expect(res.status).toBe(200);
    // the id is still answered: it is for the client as much as for the log
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await stop(service)).not.toContain('/api/domain/list');
  } finally {
    await stop(service);
  }
}, 120_000);

test('LOG_LEVEL from the settings applies to the request lines too (a service started in-process)', async () => {
  const app = await startTestApp({ LOG_LEVEL: 'error' });
  try {
    expect(logger.level).toBe('error');
    expect(requestLogger.level).toBe('error');
  } finally {
    await app.close();
  }
}, 120_000);

test('audit events are log lines too (field `audit`), without secrets; failed authentications summarised', async () => {
  const service = await start(database.url, false);
  try {
    const base = `http://127.0.0.1:${service.port}`;
    const gql = async (query: string, key = API_KEY) => {
      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify({ query }),
      });
      return (await res.json()) as any;
    };
    const user = await gql(`mutation { createUser(input: {email: "audit-line@example.org"}) { id } }`);
    const userId = user.data.createUser.id as string;
    const key = await gql(`mutation { createApiKey(input: {userId: "${userId}", name: "logged"}) { secret apiKey { id } } }`);
    const secret = key.data.createApiKey.secret as string;
    for (let i = 0; i < 3; i++) expect((await gql('{ __typename }', `zk_wrong_${i}`)).errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const output = await stop(service);
    const audit = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line))
      .filter((line) => line.audit)
      .map((line) => line.audit);
    expect(audit.filter((a) => a.kind === 'user-created')).toEqual([expect.objectContaining({ subject: `user:${userId}` })]);
    expect(audit.filter((a) => a.kind === 'api-key-created')).toEqual([
      expect.objectContaining({ subject: `api-key:${key.data.createApiKey.apiKey.id}`, actor: expect.objectContaining({ admin: true }) }),
    ]);
    // counted while the service ran, written at the latest as it stopped: a line per address and minute, not per attempt
    const failed = audit.filter((a) => a.kind === 'authentication-failed');
    expect(failed.reduce((sum, a) => sum + a.count, 0)).toBe(3);
    expect(failed.length).toBeLessThan(3);
    expect(output).not.toContain(secret);
    expect(output).not.toContain('zk_wrong_');
    expect(output).not.toContain('audit-line@example.org');
  } finally {
    await stop(service);
  }
}, 120_000);
