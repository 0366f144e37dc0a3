import dgram from 'node:dgram';
import net from 'node:net';
import { buildOnce } from '../support/build';
import { startServiceProcess } from '../support/service-process';
import { freePort } from '../support/free-port';
import { createTestDatabase } from '../support/test-db';

/**
 * A port that cannot be bound stops the start: a message naming the address and what wanted it, exit status 1,
 * nothing left running. (Express 5 hands the listen error to the listen callback, which once took it for
 * success: the service logged "listening" and ran with nothing bound.)
 */
let database: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  buildOnce();
  database = await createTestDatabase();
}, 120_000);

afterAll(async () => {
  await database?.drop();
});

function run(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const service = startServiceProcess({
    DATABASE_URL: database.url,
    API_KEY: 'busy-port-admin-key-0123456789',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ...env,
  });
  const { child, output } = service;
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output() });
    }),
  );
}

test('a busy HTTP port: a clear message and exit status 1, never "listening"', async () => {
  const blocker = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
  try {
    const result = await run({ PORT: String(port), DNS_LISTEN: `127.0.0.1:${await freePort()}`, ROLES: 'api,dns,worker' });
    expect(result.code).toBe(1);
    expect(result.output).toContain(`zonekeeper: cannot listen on 127.0.0.1:${port} for the HTTP API: the address is already in use`);
    expect(result.output).not.toContain('HTTP API listening');
  } finally {
    blocker.close();
  }
}, 90_000);

test('a busy DNS port (UDP taken, TCP free): the same, for the DNS primary', async () => {
  const port = await freePort();
  const blocker = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => blocker.bind(port, '127.0.0.1', resolve));
  try {
    const result = await run({ PORT: String(await freePort()), DNS_LISTEN: `127.0.0.1:${port}`, ROLES: 'dns' });
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `zonekeeper: cannot listen on 127.0.0.1:${port} for the DNS primary (UDP): the address is already in use`,
    );
    expect(result.output).not.toContain('DNS primary listening');
  } finally {
    blocker.close();
  }
}, 90_000);
