/**
 * A secondary's printed configuration with the query analytics' collector listening (ANALYTICS_DNSTAP_LISTEN,
 * docs/analytics.md): BIND's, Knot's and NSD's dnstap lines, held to their own checkers (named-checkconf,
 * knotc conf-check with Debian's knot-module-dnstap, nsd-checkconf), for a collector on a unix socket and one on
 * TCP (a relay's socket on the secondary); PowerDNS's dnsdist in front of it, held to `dnsdist --check-config`;
 * none printed without a collector.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestApp, TestApp } from '../support/test-app';
import { createTsigKey } from '../support/fixtures';
import { DNSDIST_CONF_LINE, POWERDNS_BEHIND_DNSDIST, RELAY_SOCKET, withDnstap } from '../../src/services/transfers/dnstap-config';
import { secondaryConfig } from '../../src/services/transfers/secondary-config';
import { secondarySizing } from '../../src/services/transfers/secondary-sizing';

const run = promisify(execFile);
const SOCKET = '/run/zonekeeper/dnstap.sock';
const PRINT = `query($v: String!, $p: String!, $s: SecondarySoftware!) { viewSecondaryConfig(view: $v, primary: $p, software: $s) }`;

let app: TestApp;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'zk-dnstap-config-'));
  app = await startTestApp({ ANALYTICS_DNSTAP_LISTEN: SOCKET });
  const key = await createTsigKey(app, null, 'dnstap-view-key');
  const made = await app.gql(`mutation($i: ViewInput!) { createView(input: $i) { id } }`, {
    i: { name: 'inside', tsigKeyId: key.id, networks: ['10.0.0.0/8'] },
  });
  expect(made.errors).toBeUndefined();
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const printed = async (software: string) => {
  const res = await app.gql(PRINT, { v: 'inside', p: '192.0.2.53:5300', s: software });
  expect(res.errors).toBeUndefined();
  return res.data.viewSecondaryConfig as string;
};

/** the checker's verdict on a configuration: '' when it takes it, else what it said */
async function check(software: 'bind' | 'knot' | 'nsd' | 'dnsdist', text: string): Promise<string> {
  // the secret placeholder is no base64: a real one stands in for it, as the operator pastes it
  const file = path.join(dir, `${software}.conf`);
  writeFileSync(file, text.replace(/<the key's secret[^>]*>/g, 'c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0'));
  const [command, args] =
    software === 'bind'
      ? ['named-checkconf', [file]]
      : software === 'knot'
        ? ['knotc', ['-c', file, 'conf-check']]
        : software === 'nsd'
          ? ['nsd-checkconf', [file]]
          : ['dnsdist', ['--check-config', '-C', file]];
  try {
    await run(command, args);
    return '';
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message;
  }
}

test("each secondary's configuration sends its answers to the collector's unix socket, and its checker takes it", async () => {
  const bind = await printed('BIND');
  expect(bind).toContain(`dnstap-output unix "${SOCKET}";`);
  expect(bind).toContain('dnstap { auth response; };');
  expect(await check('bind', bind)).toBe('');

  const knot = await printed('KNOT');
  expect(knot).toContain(`sink: "unix:${SOCKET}"`);
  expect(knot).toMatch(/- id: default\n {4}global-module: mod-dnstap\/zonekeeper\n/);
  expect(await check('knot', knot)).toBe('');

  const nsd = await printed('NSD');
  expect(nsd).toContain(`dnstap-socket-path: "${SOCKET}"`);
  expect(nsd).toContain('dnstap-log-auth-response-messages: yes');
  expect(await check('nsd', nsd)).toBe('');

  const powerdns = await printed('POWERDNS');
  expect(powerdns).toContain(
    `local-address=127.0.0.1\nlocal-port=${POWERDNS_BEHIND_DNSDIST.port}\nallow-notify-from=127.0.0.1\ntrusted-notification-proxy=127.0.0.1\n`,
  );
  // PowerDNS takes NOTIFY from dnsdist alone; dnsdist takes the primary's alone
  expect(powerdns).not.toContain('allow-notify-from=192.0.2.53');
  const lua = dnsdistPart(powerdns);
  expect(lua).toContain(`newFrameStreamUnixLogger("${SOCKET}", { inputQueueSize = 16384 })`);
  expect(lua).toContain('NotRule(makeRule("192.0.2.53"))');
  expect(lua).toContain('addResponseAction(OpcodeRule(DNSOpcode.Query), DnstapLogResponseAction(identity, collector))');
  expect(await check('dnsdist', lua)).toBe('');
});

/** dnsdist's configuration in PowerDNS's printed text: the Lua after its opening line */
function dnsdistPart(text: string): string {
  const at = text.indexOf(`${DNSDIST_CONF_LINE}\n`);
  expect(at).toBeGreaterThan(0);
  return text.slice(at + DNSDIST_CONF_LINE.length + 1);
}

/** a view's secondary, printed here without the service */
const AT = {
  name: 'inside',
  view: { networks: ['10.0.0.0/8'] },
  key: { name: 'dnstap-view-key', algorithm: 'hmac-sha256' },
  catalog: 'catalog.zonekeeper.invalid',
  host: '192.0.2.53',
  port: 5300,
  sizing: secondarySizing(1),
};

test('a collector on TCP is reached through a relay on the secondary (dnsdist writes TCP itself); the checkers take that too', async () => {
  const tcp = { host: '192.0.2.9', port: 6000 };
  for (const software of ['bind', 'knot', 'nsd'] as const) {
    const base = secondaryConfig(software, AT);
    const text = withDnstap(software, base, tcp);
    expect(text).toContain(`socat UNIX-LISTEN:${RELAY_SOCKET},fork,unlink-early TCP:192.0.2.9:6000`);
    expect(text).toContain(RELAY_SOCKET);
    expect(await check(software, text)).toBe('');
  }
  // dnsdist writes to TCP itself: no relay
  const powerdns = withDnstap('powerdns', secondaryConfig('powerdns', AT), { host: '2001:db8::9', port: 6000 });
  expect(powerdns).not.toContain('socat');
  expect(dnsdistPart(powerdns)).toContain('newFrameStreamTcpLogger("[2001:db8::9]:6000", { inputQueueSize = 16384 })');
  expect(await check('dnsdist', dnsdistPart(powerdns))).toBe('');
});

test('without a collector, nothing of dnstap is printed', () => {
  expect(withDnstap('bind', 'view "x" {};\n', undefined)).toBe('view "x" {};\n');
});
