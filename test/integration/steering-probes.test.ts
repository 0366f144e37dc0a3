/**
 * Steering's probes (src/outbound/probes.ts) against real endpoints on loopback: HTTP's status range and body
 * text, the Host header, HTTPS with a self-signed certificate (passing unless the check asks for verification,
 * and then failing), TCP, a silent endpoint within the timeout, and the outbound rule before any connection.
 */
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { probe, ProbeTarget } from '../../src/outbound/probes';
import { freePort } from '../support/free-port';
import { selfSignedCertificate } from '../support/self-signed';

const ALLOW = ['127.0.0.0/8'];
let web: http.Server;
let secure: https.Server;
let silent: net.Server;
const hosts: string[] = [];
const silentSockets = new Set<net.Socket>();

const listen = async (server: net.Server): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};
let webPort: number;
let securePort: number;
let silentPort: number;

const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
  hosts.push(String(req.headers.host));
  if (req.url === '/down') res.writeHead(503).end('down for maintenance');
  else if (req.url === '/moved') res.writeHead(301, { location: '/' }).end();
  else res.writeHead(200).end('status: healthy');
};

beforeAll(async () => {
  web = http.createServer(handler);
  secure = https.createServer(selfSignedCertificate('app.example'), handler);
  // accepts connections and never answers (they are closed when the test ends)
  silent = net.createServer((socket) => silentSockets.add(socket));
  webPort = await listen(web);
  securePort = await listen(secure);
  silentPort = await listen(silent);
});

afterAll(async () => {
  for (const server of [web, secure]) server.closeAllConnections();
  for (const socket of silentSockets) socket.destroy();
  await Promise.all([web, secure, silent].map((server) => new Promise((resolve) => server.close(resolve))));
});

const target = (overrides: Partial<ProbeTarget>): ProbeTarget => ({
  protocol: 'http',
  address: '127.0.0.1',
  port: webPort,
  host: null,
  path: '/',
  statusMin: 200,
  statusMax: 399,
  bodyContains: null,
  verifyTls: false,
  ...overrides,
});

const run = (overrides: Partial<ProbeTarget>, timeoutMs = 1000) => probe(target(overrides), { timeoutMs, allow: ALLOW });

test.each([
  ['a 200 passes', {}, true, null],
  ['a redirect is in 200–399', { path: '/moved' }, true, null],
  ['a 503 fails', { path: '/down' }, false, /HTTP status 503/],
  ['a narrower range fails a redirect', { path: '/moved', statusMax: 299 }, false, /HTTP status 301/],
  ['the body holds the text', { bodyContains: 'healthy' }, true, null],
  ['the body lacks the text', { bodyContains: 'ready' }, false, /does not contain "ready"/],
])('HTTP: %s', async (_name, overrides, ok, error) => {
  const result = await run(overrides);
  expect(result.ok).toBe(ok);
  if (error) expect(result.error).toMatch(error);
  else expect(result.error).toBeNull();
  expect(result.latencyMs).not.toBeNull();
});

test('HTTP sends the check’s Host', async () => {
  hosts.length = 0;
  await run({ host: 'app.example' });
  expect(hosts).toEqual([`app.example:${webPort}`]);
});

test('HTTPS: a self-signed certificate passes unless the check asks for verification', async () => {
  expect(await run({ protocol: 'https', port: securePort, host: 'app.example', bodyContains: 'healthy' })).toMatchObject({ ok: true });
  const verified = await run({ protocol: 'https', port: securePort, host: 'app.example', verifyTls: true });
  expect(verified.ok).toBe(false);
  expect(verified.error).toMatch(/self.signed|certificate/i);
});

test('TCP: a connection passes, a closed port fails', async () => {
  expect(await run({ protocol: 'tcp', port: silentPort })).toMatchObject({ ok: true, error: null });
  const closed = await run({ protocol: 'tcp', port: await freePort() });
  expect(closed.ok).toBe(false);
  expect(closed.error).toMatch(/ECONNREFUSED/);
});

test('an endpoint that does not answer fails within the timeout', async () => {
  const started = Date.now();
  const result = await run({ port: silentPort }, 300);
  expect(result).toMatchObject({ ok: false, error: 'no answer within 300 ms' });
  expect(Date.now() - started).toBeLessThan(2000);
});

test('the outbound rule comes first: loopback is refused unless allowed, and nothing connects', async () => {
  hosts.length = 0;
  const refused = await probe(target({}), { timeoutMs: 1000, allow: [] });
  expect(refused).toMatchObject({ ok: false, latencyMs: null });
  expect(refused.error).toMatch(/loopback.*STEERING_ALLOW_NETWORKS/);
  expect(hosts).toEqual([]);
});
