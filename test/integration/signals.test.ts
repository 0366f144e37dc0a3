import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { buildOnce } from '../support/build';
import { freePort } from '../support/free-port';
import { startServiceProcess } from '../support/service-process';
import { waitUntil } from '../support/wait-for';

/**
 * Stopping as operators do: Ctrl-C at a terminal (SIGINT to the whole process group of `npm run serve`,
 * embedded PostgreSQL included) and SIGTERM to node alone. The service stops in order, exits 0 without a
 * stack trace, lets a request in flight finish, and starts again on the same data folder with the data kept.
 */
const API_KEY = 'signals-admin-key-0123456789abcdef';

interface Started {
  child: ChildProcess;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * Starts the service on ports that were free a moment ago. A port can be taken in between (the DNS port's UDP
 * side by another test's resolver, whose queries go out from random ports): the service then says so and
 * exits, and it is started again on other ports, up to three times.
 */
async function start(command: string[], dataDir: string): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    const started = await startOnce(command, dataDir);
    if ('port' in started) return started;
    if (attempt === 3 || !started.output.includes('already in use')) throw new Error(`the service did not start:\n${started.output}`);
  }
}

async function startOnce(command: string[], dataDir: string): Promise<Started | { output: string }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    DNS_LISTEN: `127.0.0.1:${await freePort()}`,
    API_KEY,
    LOG_LEVEL: 'info',
    DATABASE_URL: undefined,
  };
  // a process group of its own, as a shell gives a foreground job
  const service = startServiceProcess(env, { command, processGroup: true });
  // the output is whole once every process of the group closed it
  const exited = service.closed.then(({ code }) => code);
  // started when every role listens: the DNS primary starts after the HTTP API, and a DNS port it cannot take
  // stops the HTTP API again (main.ts: no half-running service), so the HTTP line alone is not a started service
  const started = () => service.output().includes('HTTP API listening') && service.output().includes('DNS primary listening');
  for (let waited = 0; !started(); waited += 100) {
    if (service.child.exitCode !== null) {
      await exited;
      return { output: service.output() };
    }
    if (waited > 60_000) throw new Error(`the service did not start:\n${service.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child: service.child, port, output: service.output, exited };
}

async function post(port: number, query: string): Promise<any> {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': API_KEY },
    body: JSON.stringify({ query }),
  });
  return res.json();
}

/** a request whose body is still arriving when the signal comes: it must be answered, not cut */
function slowRequest(port: number): { connected: Promise<void>; sendRest: () => void; answer: Promise<string> } {
  const body = JSON.stringify({ query: '{ users { nodes { email } } }' });
  const socket = net.connect(port, '127.0.0.1');
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /graphql HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-API-Key: ${API_KEY}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
  );
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString();
  });
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(received));
    socket.on('error', () => resolve(received));
  });
  return { connected, sendRest: () => socket.write(body.slice(10)), answer };
}

describe('signals', () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-signals-'));

  beforeAll(() => {
    buildOnce();
  }, 120_000);
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('Ctrl-C to the process group of npm run serve: orderly stop, exit 0, in-flight request answered', async () => {
    const service = await start(['npm', 'run', 'serve', '--silent'], dataDir);
    // where it sends a person: the console at localhost (a passkey needs a domain name; a browser refuses one at
    // 127.0.0.1), on the loopback address it listens on by default
    expect(service.output()).toContain(`web console: http://localhost:${service.port}/console/`);
    const created = await post(service.port, 'mutation { createUser(input: {email: "kept@example.org"}) { id } }');
    expect(created.errors).toBeUndefined();

    const inFlight = slowRequest(service.port);
    await inFlight.connected;
    // a request on another connection, answered after the service took in the first one and its headers
    expect((await fetch(`http://127.0.0.1:${service.port}/health`)).ok).toBe(true);
    process.kill(-service.child.pid!, 'SIGINT');
    // the rest of the body comes once the service is stopping
    await waitUntil('the service to log that it is stopping', () => /SIGINT received: stopping/.test(service.output()));
    inFlight.sendRest();

    // npm's script execs node (no shell between them), so npm ends with node's status, 0, after node did;
    // node logs 'stopped' right before its exit(0)
    const npmExit = await service.exited;
    expect(npmExit).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"/);
    const answer = await inFlight.answer;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('kept@example.org');
    const output = service.output();
    expect(output).not.toMatch(/Unhandled|\n\s+at |database unreachable/);
    expect(output).toMatch(/SIGINT received: stopping/);
    expect(output.indexOf('stopping HTTP API')).toBeLessThan(output.indexOf('stopping the embedded PostgreSQL'));
    expect(output).toMatch(/stopped/);
  }, 120_000);

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s to the npm process of `npm start` alone (as systemd and container runtimes send it): node stops and the port closes',
    async (signal) => {
      // --ignore-scripts leaves out prestart (the build, done above) and runs the start script itself
      const service = await start(['npm', 'start', '--silent', '--ignore-scripts'], dataDir);
      const nodePid = Number(/"pid":(\d+)/.exec(service.output())?.[1]);
      expect(nodePid).not.toBe(service.child.pid);
      process.kill(service.child.pid!, signal);
      // npm ends after node did; node logs 'stopped' right before its exit(0)
      await service.exited;
      expect(service.output()).toMatch(new RegExp(`${signal} received: stopping`));
      expect(service.output()).toMatch(/"msg":"stopped"/);
      expect(() => process.kill(nodePid, 0)).toThrow();
      const refused = await new Promise<boolean>((resolve) => {
        const socket = net.connect(service.port, '127.0.0.1');
        socket.once('connect', () => {
          socket.destroy();
          resolve(false);
        });
        socket.once('error', () => resolve(true));
      });
      expect(refused).toBe(true);
    },
    120_000,
  );

  it('SIGTERM to node alone: exit 0, and the next start finds the data with no manual step', async () => {
    const service = await start(['node', 'dist/src/main.js'], dataDir);
    expect(service.output()).not.toMatch(/orphaned/);
    expect((await post(service.port, 'mutation { createUser(input: {email: "kept-term@example.org"}) { id } }')).errors).toBeUndefined();
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
    expect(service.output()).not.toMatch(/Unhandled|\n\s+at /);
    // the pools close and PostgreSQL stops on purpose: a stop is no outage
    expect(service.output()).not.toMatch(/database unreachable/);
    const again = await start(['node', 'dist/src/main.js'], dataDir);
    try {
      expect(again.output()).not.toMatch(/orphaned/);
      const users = await post(again.port, '{ users { nodes { email } } }');
      expect(users.data.users.nodes.map((u: { email: string }) => u.email)).toContain('kept-term@example.org');
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 120_000);

  it('kill -9 of node alone leaves PostgreSQL orphaned; the next start stops it and serves the data', async () => {
    const service = await start(['node', 'dist/src/main.js'], dataDir);
    expect((await post(service.port, 'mutation { createUser(input: {email: "kept-kill@example.org"}) { id } }')).errors).toBeUndefined();
    service.child.kill('SIGKILL');
    await service.exited;
    const again = await start(['node', 'dist/src/main.js'], dataDir);
    try {
      expect(again.output()).toMatch(/orphaned PostgreSQL/);
      const users = await post(again.port, '{ users { nodes { email } } }');
      expect(users.data.users.nodes.map((u: { email: string }) => u.email)).toContain('kept-kill@example.org');
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 120_000);

  it('kill -9 of node and the embedded PostgreSQL together: the next start recovers and serves the data', async () => {
    const service = await start(['node', 'dist/src/main.js'], dataDir);
    const created = await post(service.port, 'mutation { createUser(input: {email: "acknowledged@example.org"}) { id } }');
    expect(created.errors).toBeUndefined();
    const postmaster = Number(readFileSync(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    service.child.kill('SIGKILL');
    await service.exited;
    const again = await start(['node', 'dist/src/main.js'], dataDir);
    try {
      const users = await post(again.port, '{ users { nodes { email } } }');
      expect(users.data.users.nodes.map((u: { email: string }) => u.email)).toContain('acknowledged@example.org');
    } finally {
      again.child.kill('SIGTERM');
      expect(await again.exited).toBe(0);
    }
  }, 120_000);
});
