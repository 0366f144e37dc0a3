/**
 * The printed secondary configurations, sized for 1 to 1,000,000 zones (docs/scale.md, «Every secondary in step»),
 * are read by each software's own checker of its Debian 12 version: `named-checkconf` (BIND 9.18), `knotc
 * conf-check` (Knot DNS 3.2), `nsd-checkconf` (NSD 4.6) and `pdns_server --config=check` (PowerDNS 4.7); each
 * checker reads back the sized values, and refuses a misspelt option (so a pass means the options were read).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SECRET_PLACEHOLDER, secondaryConfig, SecondaryAt } from '../../src/services/transfers/secondary-config';
import { secondarySizing } from '../../src/services/transfers/secondary-sizing';
import { findBinary } from './knot';

const SECRET = Buffer.alloc(32, 7).toString('base64');
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-sizing-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(binary: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(findBinary(binary), args, { timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

const setSecondary = (zones: number, key = true): SecondaryAt => ({
  name: 'default',
  key: key ? { name: 'fleet-key', algorithm: 'hmac-sha256' } : undefined,
  catalog: 'catalog.sizing.test',
  host: '192.0.2.53',
  port: 5353,
  sizing: secondarySizing(zones),
});
const viewSecondary = (zones: number): SecondaryAt => ({
  ...setSecondary(zones),
  name: 'inside',
  view: { networks: ['10.0.0.0/8'] },
});

const COUNTS = [1, 10_000, 100_000, 1_000_000];

test.each(COUNTS)('BIND reads the set’s and the view’s text at %i zones, with the limits sized', async (zones) => {
  for (const at of [setSecondary(zones), setSecondary(zones, false), viewSecondary(zones)]) {
    const text = secondaryConfig('bind', at).replace(SECRET_PLACEHOLDER, SECRET);
    // the operator's own options go into the printed block (named.conf has one)
    const file = path.join(dir, `named-${zones}.conf`);
    writeFileSync(file, text.replace('options {\n', `options {\n  directory "${dir}";\n`));
    expect(await run('named-checkconf', [file])).toEqual({ code: 0, output: '' });
    // named-checkconf -p prints the configuration as it read it
    const read = (await run('named-checkconf', ['-p', file])).output;
    expect(read).toContain(`serial-query-rate ${at.sizing.bind.serialQueryRate};`);
    expect(read).toContain(`transfers-in ${at.sizing.bind.transfersIn};`);
    expect(read).toContain(`transfers-per-ns ${at.sizing.bind.transfersPerNs};`);
  }
  // a misspelt option is refused: the checker reads what it is given
  const wrong = path.join(dir, 'named-wrong.conf');
  writeFileSync(wrong, secondaryConfig('bind', setSecondary(zones)).replace('serial-query-rate', 'serial-query-rates'));
  expect((await run('named-checkconf', [wrong])).code).not.toBe(0);
});

test.each(COUNTS)('Knot reads the set’s and the view’s text at %i zones beside its own server section', async (zones) => {
  for (const at of [setSecondary(zones), setSecondary(zones, false), viewSecondary(zones)]) {
    const text = secondaryConfig('knot', at)
      .replace(SECRET_PLACEHOLDER, SECRET)
      .replaceAll(/"\/var\/lib\/knot\/[a-z]+"/g, `"${dir}"`);
    const file = path.join(dir, `knot-${zones}.conf`);
    writeFileSync(file, `server:\n    listen: 127.0.0.1@53535\ndatabase:\n    storage: "${dir}"\n${text}`);
    expect(await run('knotc', ['-c', file, 'conf-check'])).toEqual({ code: 0, output: 'Configuration is valid\n' });
    // knotc conf-export writes the configuration as Knot read it
    const exported = path.join(dir, `knot-${zones}.export`);
    expect((await run('knotc', ['-c', file, 'conf-export', exported])).code).toBe(0);
    const read = readFileSync(exported, 'utf8');
    expect(read).toContain(`    background-workers: "${at.sizing.knot.backgroundWorkers}"\n`);
    expect(read).toMatch(new RegExp(`  - id: "${at.name}-member"\\n(    .*\\n)*    zonefile-sync: "-1"\\n`));
  }
  const wrong = path.join(dir, 'knot-wrong.conf');
  writeFileSync(wrong, secondaryConfig('knot', setSecondary(zones)).replace('background-workers', 'background-worker'));
  expect((await run('knotc', ['-c', wrong, 'conf-check'])).code).not.toBe(0);
});

test.each(COUNTS)('NSD reads the set’s text at %i zones beside its own server section', async (zones) => {
  for (const at of [setSecondary(zones), setSecondary(zones, false), viewSecondary(zones)]) {
    const text = secondaryConfig('nsd', at)
      .replace(SECRET_PLACEHOLDER, SECRET)
      .replace(/"\/var\/lib\/nsd\/[a-z]+\//, `"${dir}/`);
    const file = path.join(dir, `nsd-${zones}.conf`);
    writeFileSync(file, `server:\n    zonesdir: "${dir}"\n${text}`);
    expect(await run('nsd-checkconf', [file])).toEqual({ code: 0, output: '' });
    expect((await run('nsd-checkconf', ['-o', 'xfrd-tcp-max', file])).output.trim()).toBe(String(at.sizing.nsd.xfrdTcpMax));
    expect((await run('nsd-checkconf', ['-o', 'xfrd-tcp-pipeline', file])).output.trim()).toBe(String(at.sizing.nsd.xfrdTcpPipeline));
  }
});

test.each(COUNTS)('PowerDNS 4.7 reads the set’s pdns.conf lines at %i zones', async (zones) => {
  const text = secondaryConfig('powerdns', setSecondary(zones));
  const lines = text.split('\n').filter((l) => /^[a-z-]+=/.test(l));
  const s = secondarySizing(zones);
  expect(lines).toEqual([
    'secondary=yes',
    'allow-notify-from=192.0.2.53',
    `retrieval-threads=${s.powerdns.retrievalThreads}`,
    `xfr-cycle-interval=${s.powerdns.xfrCycleInterval}`,
  ]);
  const confDir = mkdtempSync(path.join(dir, 'pdns-'));
  writeFileSync(path.join(confDir, 'pdns.conf'), ['launch=', ...lines, ''].join('\n'));
  expect(await run('pdns_server', [`--config-dir=${confDir}`, '--config=check'])).toEqual({ code: 0, output: '' });
  writeFileSync(
    path.join(confDir, 'pdns.conf'),
    ['launch=', ...lines.map((l) => l.replace('retrieval-threads', 'retrieval-thread')), ''].join('\n'),
  );
  expect((await run('pdns_server', [`--config-dir=${confDir}`, '--config=check'])).code).not.toBe(0);
});

test('every sized value comes with its reason, and the defaults are the floors', () => {
  const small = secondarySizing(10);
  expect(small).toMatchObject({
    sizedFor: 1000,
    bind: { serialQueryRate: 20, transfersIn: 10, transfersPerNs: 10 },
    knot: { backgroundWorkers: 10 },
    powerdns: { retrievalThreads: 2, xfrCycleInterval: 10 },
  });
  // 100,000 zones: sized for 200,000; a change to all of them in 300 s plus their hourly refreshes
  const large = secondarySizing(100_000);
  expect(large.sizedFor).toBe(200_000);
  expect(large.refreshesPerSecond).toBe(Math.ceil(200_000 / 300 + 200_000 / 3600));
  expect(large.bind.serialQueryRate).toBeGreaterThanOrEqual(large.refreshesPerSecond);
  for (const software of ['bind', 'knot', 'nsd', 'powerdns'] as const) {
    const text = secondaryConfig(software, setSecondary(100_000));
    expect(text).toContain('sized for 200,000 zones (100,000 now; twice that, rounded up, for growth: print this again past 200,000)');
    // each sized line follows a comment that gives its reason
    const sized = ['serial-query-rate', 'transfers-in', 'background-workers', 'xfrd-tcp-max', 'retrieval-threads', 'xfr-cycle-interval'];
    const lines = text.split('\n');
    for (const [i, line] of lines.entries())
      if (sized.some((option) => line.trim().startsWith(option))) {
        const above = lines
          .slice(0, i)
          .reverse()
          .find((l) => !sized.some((o) => l.trim().startsWith(o)) && !/^\s*transfers-per-ns|xfrd-tcp-pipeline/.test(l));
        expect({ line, above: /^\s*(\/\/|#)/.test(above ?? '') }).toEqual({ line, above: true });
      }
  }
});
