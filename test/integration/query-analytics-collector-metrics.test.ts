/**
 * METRICS_PORT: a collector-only process (ROLES=collector) has no HTTP API, and serves its metrics there instead:
 * dnstap frames sent to it (the service's own encoders) read back as zonekeeper_analytics_frames_total from its
 * /metrics, its /health answers, and SIGTERM stops it and the port with it. A busy port fails the start naming
 * METRICS_PORT; with the api role the setting is refused.
 */
import net from 'node:net';
import { encodeDnstap, MESSAGE_TYPE } from '../../src/analytics/dnstap';
import { loadSettings, SettingsError } from '../../src/config/settings';
import { encodeMessage, FLAG } from '../../src/dns/wire/message';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';
import { buildOnce } from '../support/build';
import { freePort } from '../support/free-port';
import { openDnstapSender } from '../support/dnstap-sender';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';
import { waitFor } from '../support/wait-for';

let app: TestApp;
const started: ServiceProcess[] = [];

beforeAll(async () => {
  buildOnce();
  app = await startTestApp();
  await createZone(app, await createUser(app, 'collector-metrics@example.org'), 'metered.example');
});
afterAll(async () => {
  await Promise.all(started.map((process) => process.stop()));
  await app?.close();
});

function startCollector(metricsPort: number, dnstapPort: number): ServiceProcess {
  const process = startServiceProcess({
    DATABASE_URL: app.settings.databaseUrl,
    API_KEY: ADMIN_KEY,
    ROLES: 'collector',
    HOST: '127.0.0.1',
    DNS_LISTEN: '',
    SECONDARIES: '',
    HEALTH_CHECK_INTERVAL: '0',
    LOG_LEVEL: 'info',
    ANALYTICS_DNSTAP_LISTEN: `127.0.0.1:${dnstapPort}`,
    ANALYTICS_FLUSH_MS: '200',
    METRICS_PORT: String(metricsPort),
  });
  started.push(process);
  return process;
}

const answer = (name: string, rcode = 0) =>
  encodeDnstap({
    identity: 'ns-metered',
    type: MESSAGE_TYPE.AUTH_RESPONSE,
    responseTimeSec: Math.floor(Date.now() / 1000),
    responseMessage: encodeMessage({ id: 1, flags: FLAG.QR | FLAG.AA | rcode, questions: [{ name, type: 1, klass: 1 }] }),
  });

/** a sample's value in Prometheus's text format, undefined when not there */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

test('a collector alone serves /metrics and /health on METRICS_PORT, and stops with SIGTERM', async () => {
  const [metricsPort, dnstapPort] = [await freePort(), await freePort()];
  const collector = startCollector(metricsPort, dnstapPort);
  const base = `http://127.0.0.1:${metricsPort}`;
  const health = await waitFor(
    'the metrics server to answer',
    async () => {
      if (collector.child.exitCode !== null) throw new Error(`the collector exited: ${collector.output()}`);
      const res = await fetch(`${base}/health`).catch(() => undefined);
      return res?.ok ? res.json() : undefined;
    },
    30_000,
  );
  expect(health).toEqual({ status: 'ok', database: 'reachable' });
  // the collector listens once its zones are read: the dnstap port answers then
  const sender = await waitFor(
    'the dnstap listener',
    () => openDnstapSender({ host: '127.0.0.1', port: dnstapPort }).catch(() => undefined),
    30_000,
  );
  await sender.send([
    answer('www.metered.example.'),
    answer('metered.example.'),
    answer('nope.metered.example.', 3),
    answer('elsewhere.test.'),
  ]);
  await sender.finish();

  const text = await waitFor(
    'the frames counted',
    async () => {
      const res = await fetch(`${base}/metrics`);
      const body = await res.text();
      return sample(body, 'zonekeeper_analytics_frames_total{kind="answer"}') === 3 ? { res, body } : undefined;
    },
    15_000,
  );
  expect(text.res.headers.get('content-type')).toMatch(/^text\/plain/);
  expect(sample(text.body, 'zonekeeper_analytics_frames_total{kind="unmatched"}')).toBe(1);
  // nothing else is served there: the API is not
  expect((await fetch(`${base}/graphql`)).status).toBe(404);

  await collector.stop('SIGTERM');
  expect(await collector.exited).toEqual({ code: 0, signal: null });
  await expect(fetch(`${base}/health`)).rejects.toThrow();
}, 90_000);

test('a busy METRICS_PORT fails the start, naming it', async () => {
  const busy = net.createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const port = (busy.address() as net.AddressInfo).port;
  try {
    const collector = startCollector(port, await freePort());
    const { code } = await collector.exited;
    expect(code).toBe(1);
    expect(collector.output()).toMatch(
      new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port} for the metrics \\(METRICS_PORT\\): the address is already in use`),
    );
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
}, 60_000);

test('METRICS_PORT with the api role is refused: its /metrics is on PORT', () => {
  expect(() => loadSettings({ ROLES: 'api,collector', ANALYTICS_DNSTAP_LISTEN: '127.0.0.1:6000', METRICS_PORT: '9100' })).toThrow(
    SettingsError,
  );
  expect(() => loadSettings({ ROLES: 'api', METRICS_PORT: '9100' })).toThrow(/METRICS_PORT is for a process without the api role/);
  expect(loadSettings({ ROLES: 'worker', METRICS_PORT: '9100' }).analytics.metricsPort).toBe(9100);
  expect(loadSettings({ ROLES: 'worker' }).analytics.metricsPort).toBeUndefined();
});
