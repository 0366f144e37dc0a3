/**
 * Real master files (../shared/corpus/zones-real: BIND, Knot, NSD, PowerDNS, ldns, dnspython, dnsjava test zones
 * and production zones) through the real service: create the zone, import it (REPLACE), export it, and compare
 * with what BIND makes of the original (`named-compilezone -s full`): the same record sets, owner names and
 * names in RDATA compared case-insensitively, the SOA serial aside (the import raises it), the signer's
 * records (RRSIG, NSEC, NSEC3, NSEC3PARAM) aside (dropped on import, and counted). The zone the hidden primary
 * then sends by AXFR (read by BIND's dig) must give the same records: the wire forms are right too.
 *
 * Third-party data: read from ../shared at run time, never copied here. Run: `npm run test:corpus`
 * (jest.corpus.config.js). Without ../shared the run fails: nothing is skipped silently.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createUser, createZone, errorCode } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { startTestApp, TestApp } from '../support/test-app';

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/zones-real');

interface ManifestFile {
  file: string;
  zone: string;
  bind_accepts: boolean;
  kind: string;
}

/**
 * Files BIND takes that the service refuses on purpose, with the code it answers (docs/dns-known-differences.md).
 * Anything else BIND takes must import whole and round-trip.
 */
const REFUSED_BY_POLICY: Record<string, string> = {
  // $INCLUDE reads a file of the server: an uploaded file cannot
  'bind-masterfile-include.zone': 'DIRECTIVE_NOT_SUPPORTED',
};

/** RDATA of these types holds domain names only in places where case does not matter (RFC 4343) */
const NAME_TYPES = new Set([
  'NS',
  'CNAME',
  'DNAME',
  'PTR',
  'MX',
  'SOA',
  'SRV',
  'NAPTR',
  'SVCB',
  'HTTPS',
  'RP',
  'AFSDB',
  'KX',
  'LP',
  'MINFO',
  'MB',
  'MG',
  'MR',
  'RT',
  'PX',
]);
const SIGNER_TYPES = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM']);

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

// read when the file loads, so that each corpus file is a test of its own; a missing corpus is a failing test
const MANIFEST = path.join(CORPUS, 'manifest.json');
const FILES: ManifestFile[] = existsSync(MANIFEST)
  ? (JSON.parse(readFileSync(MANIFEST, 'utf8')).files as ManifestFile[]).filter((f) => f.file.endsWith('.zone'))
  : [];

let app: TestApp;
let userId: string;
let dir: string;
let dnsPort: number;

beforeAll(async () => {
  if (!existsSync(MANIFEST)) {
    throw new Error(`the real-zone corpus is missing: expected ${MANIFEST} (the project's ../shared beside the clone)`);
  }
  const probe = await run('named-compilezone', ['-v']);
  if (probe.code !== 0)
    throw new Error('named-compilezone is not installed: apt-get install -y bind9-utils (scripts/ensure-test-tools.sh)');
  dir = mkdtempSync(path.join(os.tmpdir(), 'zonekeeper-corpus-'));
  // the TTL list is a policy with a setting (ALLOWED_TTLS): real zones use every TTL
  dnsPort = await freePort();
  app = await startTestApp({ ALLOWED_TTLS: 'any', ROLES: 'api,dns', DNS_LISTEN: `127.0.0.1:${dnsPort}` });
  userId = await createUser(app, 'corpus@example.org');
});

afterAll(async () => {
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** BIND's full-style rendering of a master file as sorted, comparable lines */
async function compiled(zone: string, file: string): Promise<string[]> {
  const out = path.join(dir, `${path.basename(file)}.${Date.now()}.full`);
  const result = await run('named-compilezone', [
    '-k',
    'warn',
    '-i',
    'local',
    '-w',
    path.join(CORPUS, 'include-support'),
    '-s',
    'full',
    '-o',
    out,
    zone,
    file,
  ]);
  if (result.code !== 0) throw new Error(`named-compilezone refused ${file}:\n${result.output}`);
  const lines: string[] = [];
  for (const raw of readFileSync(out, 'utf8').split('\n')) {
    if (raw.trim() === '' || raw.startsWith(';')) continue;
    const [owner, ttl, klass, type, ...rest] = raw.trim().split(/\s+/);
    if (SIGNER_TYPES.has(type)) continue;
    let rdata = rest.join(' ');
    if (type === 'SOA') rdata = rest.map((f, i) => (i === 2 ? 'SERIAL' : f)).join(' ');
    if (NAME_TYPES.has(type)) rdata = rdata.toLowerCase();
    lines.push(`${owner.toLowerCase()} ${ttl} ${klass} ${type} ${rdata}`);
  }
  return lines.sort();
}

const outcomes: string[] = [];

afterAll(() => {
  const whole = outcomes.filter((o) => o.startsWith('whole')).length;
  console.log(`real zones: ${whole} of ${outcomes.length} import whole and round-trip\n  ${outcomes.join('\n  ')}`);
});

const IMPORT = `mutation($zone: String!, $text: String!) {
  importZone(zone: $zone, text: $text, mode: REPLACE) { added dropped { type count } warnings { code } } }`;

describe('real master files: import whole what BIND takes, and export what BIND reads from the original', () => {
  test(`the corpus is at ${CORPUS} and lists 28 files`, () => {
    expect(FILES.length).toBe(28);
  });

  for (const entry of FILES) {
    test(`${entry.file} (zone ${entry.zone}, BIND ${entry.bind_accepts ? 'takes' : 'refuses'} it)`, async () => {
      const source = path.join(CORPUS, entry.file);
      const text = readFileSync(source, 'utf8');
      const zoneName = `${entry.zone}`;
      await createZone(app, userId, zoneName).catch(async () => undefined); // two files share a zone name
      const res = await app.gql(IMPORT, { zone: zoneName, text });
      expect(res.status).toBeLessThan(500);
      const policy = REFUSED_BY_POLICY[entry.file];
      if (res.errors) {
        const details = res.errors[0].extensions?.details ?? [];
        outcomes.push(
          `refused ${entry.file} (BIND ${entry.bind_accepts ? 'takes' : 'refuses'} it): ${errorCode(res)} ${res.errors[0].message.slice(0, 160)}`,
        );
        expect(errorCode(res)).toBe('INVALID_ZONE_FILE');
        // every problem says its line: its own, or (one problem repeated on several lines, told once) its lines
        // from the first, `lines 2-13 (12 lines): …`
        const namesItsLine = (d: { line?: number; count?: number; message: string }) =>
          d.line === undefined || d.message.startsWith(d.count ? `lines ${d.line}` : `line ${d.line}: `);
        expect(details.filter((d: { line?: number; count?: number; message: string }) => !namesItsLine(d))).toEqual([]);
        if (entry.bind_accepts) {
          expect({ file: entry.file, refusedWith: details.map((d: { code: string }) => d.code) }).toEqual({
            file: entry.file,
            refusedWith: details.map(() => policy),
          });
        }
        return;
      }
      expect(policy).toBeUndefined();
      const exported: string = (await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: zoneName })).data.exportZone;
      const ours = path.join(dir, `${entry.file}.export`);
      writeFileSync(ours, exported);
      const reference = await compiled(zoneName, source);
      expect({ file: entry.file, records: await compiled(zoneName, ours) }).toEqual({ file: entry.file, records: reference });
      // what the primary sends: dig decodes the wire form, BIND reads dig's text
      const axfr = await run('dig', ['@127.0.0.1', '-p', String(dnsPort), '+nocmd', '+nostats', '+nocomments', zoneName, 'AXFR']);
      expect(axfr.output).not.toMatch(/Transfer failed|communications error|connection refused/i);
      const transferred = path.join(dir, `${entry.file}.axfr`);
      // the SOA comes first and last (RFC 5936 §2.2); BIND would read the second one as a duplicate
      const axfrLines = axfr.output.split('\n').filter((l) => l.trim() !== '' && !l.startsWith(';'));
      writeFileSync(transferred, `${axfrLines.slice(0, -1).join('\n')}\n`);
      expect({ file: entry.file, transferred: await compiled(zoneName, transferred) }).toEqual({
        file: entry.file,
        transferred: reference,
      });
      const dropped = res.data.importZone.dropped.map((d: { type: string; count: number }) => `${d.count} ${d.type}`).join(', ');
      outcomes.push(
        `whole   ${entry.file}: ${res.data.importZone.added} records, ${res.data.importZone.warnings.length} warnings${dropped ? `, dropped ${dropped}` : ''}`,
      );
    });
  }
});
