import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { Kind, parse, print } from 'graphql';
import { buildOnce } from '../support/build';
import { ServiceProcess, startServiceProcess } from '../support/service-process';
import { freePort } from '../support/free-port';
import { createTestDatabase } from '../support/test-db';

/**
 * What one GraphQL operation makes must not outlive it through young-generation collections. The service runs as
 * `npm run serve` runs it, with V8's trace of each collection (`--trace-gc-nvp`: what each scavenge promoted to
 * the old generation); the console's zone list, and a list of zones asking the fields batched per request, are
 * asked one at a time. When an operation's context outlives its answer (a per-request loader kept in a WeakMap
 * keyed by the context, whose values a scavenge holds strongly), every scavenge promotes what the requests since
 * the one before made (1.8 MB each for the zone list, measured; bench/FINDINGS.md, «The zone list's young
 * generation»), and its pause grows with it; otherwise a few tens of kB.
 */
const root = path.resolve(__dirname, '..', '..');
const API_KEY = 'request-promotion-admin-key-0123456789';
/** a scavenge's promotion above this, at its median over the window, is what requests left alive */
const PROMOTED_BOUND = 400_000;
const REQUESTS = 1_500;
const ZONES = 50;

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function post(port: number, pathname: string, body: unknown): Promise<{ status: number; json: any }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathname,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': data.length, 'x-api-key': API_KEY },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(Buffer.concat(chunks).toString()) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** each scavenge's promoted bytes, in the order the trace printed them */
function promotedPerScavenge(trace: string): number[] {
  return [...trace.matchAll(/\bgc=s\b.*?\bpromoted=(\d+)/g)].map((match) => Number(match[1]));
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

let database: { url: string; drop(): Promise<void> };
let child: ChildProcess;
let service: ServiceProcess;
let port: number;
let userId: string;

beforeAll(async () => {
  buildOnce();
  database = await createTestDatabase();
  port = await freePort();
  const serve = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { serve: string } }).scripts.serve;
  const nodeOptions = serve.split(/\s+/).filter((word) => word.startsWith('--'));
  service = startServiceProcess(
    {
      DATABASE_URL: database.url,
      PORT: String(port),
      HOST: '127.0.0.1',
      DNS_LISTEN: '',
      ROLES: 'api',
      API_KEY,
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      HEALTH_CHECK_INTERVAL: '0',
    },
    { nodeOptions: [...nodeOptions, '--trace-gc-nvp'] },
  );
  child = service.child;
  for (let waited = 0; ; waited += 100) {
    const up = await fetch(`http://127.0.0.1:${port}/health`).then(
      (res) => res.ok,
      () => false,
    );
    if (up) break;
    if (waited > 60_000 || child.exitCode !== null) throw new Error(`the service did not start:\n${service.output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const user = await post(port, '/api/user/add', { email: 'promotion@example.com' });
  userId = String(user.json.id);
  for (let i = 0; i < ZONES; i++) {
    const zone = await post(port, '/api/domain/add', { user_id: user.json.id, zone: `z${i}.promotion.example` });
    if (zone.status !== 201 && zone.status !== 200) throw new Error(`zone not made: ${JSON.stringify(zone.json)}`);
  }
}, 180_000);

afterAll(async () => {
  agent.destroy();
  if (child && child.exitCode === null) {
    const closed = new Promise((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    await closed;
  }
  await database?.drop();
});

/** sends `query` REQUESTS times one after another and answers each scavenge's promotion meanwhile */
async function promotionUnder(query: string, variables: Record<string, unknown>, check: (data: any) => void): Promise<number[]> {
  for (let i = 0; i < 100; i++) await post(port, '/graphql', { query, variables });
  const from = service.output().length;
  for (let i = 0; i < REQUESTS; i++) {
    const answer = await post(port, '/graphql', { query, variables });
    if (answer.status !== 200 || answer.json.errors)
      throw new Error(`answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 500)}`);
    if (i === 0) check(answer.json.data);
  }
  return promotedPerScavenge(service.output().slice(from));
}

test("the console's zone list: a scavenge promotes next to nothing of the lists answered since the one before", async () => {
  const operations = parse(readFileSync(path.join(root, 'console/src/operations.graphql'), 'utf8'));
  const zones = operations.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === 'Zones');
  const promoted = await promotionUnder(print(zones!), { first: 50, orderBy: 'NAME', userId }, (data) => {
    expect(data.domains.nodes).toHaveLength(ZONES);
    expect(data.domains.nodes[0].health.state).toBeDefined();
  });
  // at least 10 scavenges measured (a Zones answer allocates hundreds of kB), or the trace was not read
  expect(promoted.length).toBeGreaterThanOrEqual(10);
  expect(median(promoted)).toBeLessThan(PROMOTED_BOUND);
}, 120_000);

test("a zone list with each zone's change policy and its records' derivation: the same", async () => {
  const query = `query ($userId: ID) { domains(first: 50, userId: $userId) { nodes { name strictChecks requiredApprovals records(first: 5) { owner derived } } } }`;
  const promoted = await promotionUnder(query, { userId }, (data) => {
    expect(data.domains.nodes).toHaveLength(ZONES);
    expect(data.domains.nodes[0].records[0].derived).toBe(false);
  });
  expect(promoted.length).toBeGreaterThanOrEqual(10);
  expect(median(promoted)).toBeLessThan(PROMOTED_BOUND);
}, 120_000);
