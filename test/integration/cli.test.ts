import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOnce } from '../support/build';
import { CLI, runCli } from '../support/cli';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { largeZoneFile } from '../support/large-zone';
import { signIn } from '../support/people';

/** The `zonekeeper` CLI (the built bin), end to end against the running service. */
let app: TestApp;

beforeAll(async () => {
  buildOnce();
  // a health check asked for meets no root server (nothing listens there) at once
  // the CLI (a GraphQL client) held to RESTKnot's TTLs by the operator (ALLOWED_TTLS_BEYOND_REST): its refusals and
  // --clamp-ttls are shown against a policy
  app = await startTestApp({
    HEALTH_ROOT_HINTS: '127.0.53.20',
    HEALTH_QUERY_TIMEOUT_MS: '100',
    ALLOWED_TTLS_BEYOND_REST: '300,900,1800,3600,7200,14400,28800,43200,86400',
  });
}, 120_000);
afterAll(async () => app?.close());

const cli = (args: string[], env: Record<string, string | undefined> = {}) => runCli(app.baseUrl, args, env);
// each test runs the CLI as a person does, a process a command (some thirty in the longest), each starting node:
// on a loaded host that is a second or more a command, so a test has two minutes, not jest's one
jest.setTimeout(120_000);

test('users, keys, zones and records: tables for people, JSON for scripts', async () => {
  const user = await cli(['--json', 'user', 'add', 'cli@example.org']);
  expect(user.code).toBe(0);
  const userId = JSON.parse(user.out).id;
  const key = await cli(['--json', 'key', 'create', userId, 'laptop']);
  expect(JSON.parse(key.out).secret).toMatch(/^zk_/);

  expect((await cli(['zone', 'add', userId, 'cli.example'])).code).toBe(0);
  // with the user's own key from here on
  const asUser = { ZONEKEEPER_API_KEY: JSON.parse(key.out).secret };
  expect((await cli(['record', 'add', 'cli.example', 'www2', 'A', '192.0.2.8', '--ttl', '300'], asUser)).code).toBe(0);
  const table = await cli(['record', 'list', 'cli.example'], asUser);
  expect(table.code).toBe(0);
  expect(table.out.split('\n')[0]).toMatch(/^ID\s+OWNER\s+TTL\s+TYPE\s+RDATA$/);
  expect(table.out).toMatch(/www2\s+300\s+A\s+192\.0\.2\.8/);
  const json = JSON.parse((await cli(['--json', 'record', 'list', 'cli.example'], asUser)).out);
  expect(json.some((r: any) => r.owner === 'www2' && r.rdata === '192.0.2.8')).toBe(true);

  expect((await cli(['zone', 'export', 'cli.example'], asUser)).out).toContain('www2 300 IN A 192.0.2.8');
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'add.zone');
  writeFileSync(file, 'mail 3600 IN A 192.0.2.25\n');
  const dry = await cli(['zone', 'import', 'cli.example', file, '--merge', '--dry-run'], asUser);
  expect(dry.code).toBe(0);
  expect(dry.out).toContain('+ mail.cli.example. 3600 IN A 192.0.2.25');
  expect((await cli(['record', 'list', 'cli.example'], asUser)).out).not.toContain('192.0.2.25');
  expect((await cli(['zone', 'import', 'cli.example', file, '--merge'], asUser)).code).toBe(0);
  expect((await cli(['record', 'list', 'cli.example'], asUser)).out).toContain('192.0.2.25');
  // a TTL the policy lacks: refused as it is, imported with --clamp-ttls at the nearest allowed TTL
  const odd = path.join(path.dirname(file), 'odd.zone');
  writeFileSync(odd, 'odd 120 IN A 192.0.2.26\n');
  const refused = await cli(['zone', 'import', 'cli.example', odd, '--merge'], asUser);
  expect(refused.code).toBe(1);
  const clamped = await cli(['zone', 'import', 'cli.example', odd, '--merge', '--clamp-ttls'], asUser);
  expect(clamped.code).toBe(0);
  expect((await cli(['record', 'list', 'cli.example'], asUser)).out).toMatch(/odd\s+300\s+A\s+192\.0\.2\.26/);
  // an RRset whose lines give two TTLs: the one BIND keeps (the first of one owner's lines), said on stderr;
  // the same file again changes nothing
  const mixed = path.join(path.dirname(file), 'mixed.zone');
  writeFileSync(mixed, 'multi 300 IN A 192.0.2.31\nmulti 3600 IN A 192.0.2.32\n');
  const loaded = await cli(['--json', 'zone', 'import', 'cli.example', mixed, '--merge'], asUser);
  expect(loaded.code).toBe(0);
  expect(JSON.parse(loaded.out).warnings).toEqual([expect.objectContaining({ line: 2, code: 'RRSET_TTLS_DIFFER' })]);
  const told = await cli(['zone', 'import', 'cli.example', mixed, '--merge'], asUser);
  expect(told.code).toBe(0);
  expect(told.err).toContain(
    'warning: line 2: the A records at multi have TTLs 300 (line 1), 3600 (line 2); an RRset has one TTL (RFC 2181 §5.2): 300 is kept for all, as BIND loads the file',
  );
  expect(JSON.parse((await cli(['--json', 'zone', 'import', 'cli.example', mixed, '--merge'], asUser)).out)).toMatchObject({
    added: 0,
    removed: 0,
    serial: JSON.parse(loaded.out).serial,
  });
  expect((await cli(['record', 'list', 'cli.example'], asUser)).out).toMatch(/multi\s+300\s+A\s+192\.0\.2\.32/);
  // the zone checks: an MX at the default www CNAME is refused, as a change set's plan refuses it; an MX at a name
  // not there is written, with one warning
  const mx = await cli(['record', 'add', 'cli.example', '@', 'MX', '10 www.cli.example.', '--ttl', '3600'], asUser);
  expect(mx.code).toBe(1);
  expect(mx.err).toContain('ZONE_RULE_VIOLATION');
  expect(mx.err).toContain('@ MX → www.cli.example.: the target is an alias (CNAME)');
  const warned = await cli(['record', 'add', 'cli.example', '@', 'MX', '10 nomail.cli.example.', '--ttl', '3600'], asUser);
  expect(warned.code).toBe(0);
  expect(warned.err).toContain('warning: @ MX → nomail.cli.example.: no such name in the zone');
  const checked = await cli(['zone', 'check', 'cli.example'], asUser);
  expect(checked.code).toBe(0);
  expect(checked.out).toMatch(/1 warning\n[\s\S]*@\s+MX\s+TARGET_MISSING/);
  // DNSSEC: enabling prints the keys and the DS for the parent, status shows them, disabling asks or takes --yes, and waits for the parent unless forced
  const signed = await cli(['dnssec', 'enable', 'cli.example'], asUser);
  expect(signed.code).toBe(0);
  expect(signed.out).toMatch(/zone cli\.example: signed \(NSEC\)/);
  expect(signed.out).toMatch(/^DS \d+ 13 2 [0-9A-F]{64}$/m);
  expect((await cli(['dnssec', 'status', 'cli.example'], asUser)).out).toMatch(/KSK\s+ECDSAP256SHA256\s+active/);
  // a roll started by hand: the new ZSK published beside the active one; a second ZSK roll is under way already
  const rolled = await cli(['dnssec', 'roll', 'cli.example', '--role', 'zsk'], asUser);
  expect(rolled.code).toBe(0);
  expect(rolled.out).toMatch(/ZSK\s+ECDSAP256SHA256\s+published/);
  expect((await cli(['dnssec', 'roll', 'cli.example', '--role', 'zsk'], asUser)).err).toContain('DNSSEC_ROLL_IN_PROGRESS');
  const badRole = await cli(['dnssec', 'roll', 'cli.example', '--role', 'dsk'], asUser);
  expect(badRole.code).not.toBe(0);
  expect(badRole.err).toContain('Allowed choices are zsk, ksk');
  // an algorithm roll is a roll too: one at a time; an algorithm the service does not sign with is refused by name
  const algorithmRoll = await cli(['dnssec', 'roll-algorithm', 'cli.example', '--algorithm', 'ED25519'], asUser);
  expect(algorithmRoll.code).not.toBe(0);
  expect(algorithmRoll.err).toContain('DNSSEC_ROLL_IN_PROGRESS');
  const dsa = await cli(['dnssec', 'roll-algorithm', 'cli.example', '--algorithm', 'DSA'], asUser);
  expect(dsa.code).toBe(2);
  expect(dsa.err).toContain('one of ECDSAP256SHA256 (13), ED25519 (15), RSASHA256 (8)');
  // unforced, the zone stays signed until its parent's DS (said published here) is gone (RFC 8078); --force
  // unsigns it at once
  expect((await cli(['dnssec', 'confirm-ds', 'cli.example'], asUser)).code).toBe(0);
  const disabling = await cli(['dnssec', 'disable', 'cli.example', '--yes'], asUser);
  expect(disabling.code).toBe(0);
  expect(disabling.out).toMatch(/zone cli\.example: disabling/);
  expect(disabling.out).toMatch(/waiting for the parent: the DS to be removed/);
  const unsigned = await cli(['dnssec', 'disable', 'cli.example', '--force', '--yes'], asUser);
  expect(unsigned.code).toBe(0);
  expect(unsigned.out).toMatch(/zone cli\.example: unsigned/);
  // the key events, newest first: each key made at enable, removed by the forced disable
  const events = await cli(['dnssec', 'events', 'cli.example'], asUser);
  expect(events.code).toBe(0);
  const [header, newest] = events.out.split('\n');
  expect(header).toMatch(/^ID\s+AT\s+KEYTAG\s+ROLE\s+ALGORITHM\s+FROMSTATE\s+TOSTATE\s+REASON$/);
  expect(newest).toMatch(/\s(KSK|ZSK)\s+ECDSAP256SHA256\s+\S+\s+removed\s+disabled$/);
  const listed = JSON.parse((await cli(['--json', 'dnssec', 'events', 'cli.example'], asUser)).out);
  const ids = listed.map((e: any) => Number(e.id));
  expect(ids).toEqual([...ids].sort((a, b) => b - a));
  expect(
    listed
      .filter((e: any) => e.fromState === null && e.reason === 'enabled')
      .map((e: any) => e.role)
      .sort(),
  ).toEqual(['KSK', 'ZSK']);
  expect(listed.filter((e: any) => e.fromState === null && e.reason === 'rolled-by-hand').map((e: any) => e.role)).toEqual(['ZSK']);
  // the forced disable removed all three: the KSK, the old ZSK and the one the roll published
  expect(listed.filter((e: any) => e.toState === 'removed' && e.reason === 'disabled')).toHaveLength(3);
  expect((await cli(['dnssec', 'events', 'cli.example', '--limit', '1'], asUser)).err).toContain('showing the first 1 events');
  expect((await cli(['dnssec', 'events', 'missing.example'], asUser)).code).not.toBe(0);

  const changes = await cli(['zone', 'changes', 'cli.example'], asUser);
  expect(changes.out.split('\n').length).toBeGreaterThan(3);
  const status = await cli(['status', 'cli.example', '--wait', '--timeout', '10'], asUser);
  expect(status.code).toBe(0);
  // the test's service has no SECONDARIES: nothing to wait for, and it says so
  expect(status.out).toContain('no_secondaries: no secondaries configured');
  // TSIG keys for DNS UPDATE: the user's own, listed without secrets, revoked
  const tsig = JSON.parse(
    (await cli(['--json', 'tsig', 'add', 'cli-update-key', '--user', userId, '--algorithm', 'hmac-sha512'], asUser)).out,
  );
  expect(tsig).toMatchObject({ name: 'cli-update-key', algorithm: 'hmac-sha512' });
  expect(Buffer.from(tsig.secret, 'base64')).toHaveLength(64);
  const keys = await cli(['tsig', 'list'], asUser);
  expect(keys.out).toMatch(/cli-update-key\s+hmac-sha512/);
  expect(keys.out).not.toContain(tsig.secret);
  expect((await cli(['tsig', 'add', 'cli-admin-key'], asUser)).code).toBe(1);
  expect(JSON.parse((await cli(['--json', 'tsig', 'revoke', tsig.id, '--yes'], asUser)).out).revokedAt).toBeTruthy();

  expect((await cli(['record', 'delete', json.find((r: any) => r.owner === 'www2').id, '--yes'], asUser)).code).toBe(0);
  expect((await cli(['zone', 'delete', 'cli.example', '--yes'], asUser)).code).toBe(0);
});

test('dnssec: an algorithm by any name or number the PowerDNS API takes; a KSK roll waiting for the DS says so, not a date', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'algorithms@example.org'])).out).id;
  for (const zone of ['by-number.example', 'by-name.example']) expect((await cli(['zone', 'add', userId, zone])).code).toBe(0);
  const byNumber = await cli(['dnssec', 'enable', 'by-number.example', '--algorithm', '15']);
  expect(byNumber.err).toBe('');
  expect(byNumber.out).toMatch(/KSK\s+ED25519\s+active/);
  const byName = await cli(['dnssec', 'enable', 'by-name.example', '--algorithm', 'ecdsap256sha256']);
  expect(byName.out).toMatch(/KSK\s+ECDSAP256SHA256\s+active/);
  const unknown = await cli(['dnssec', 'enable', 'by-name.example', '--algorithm', '5']);
  expect(unknown.code).toBe(2);
  expect(unknown.err).toContain(
    "option '--algorithm <name>' argument '5' is invalid. one of ECDSAP256SHA256 (13), ED25519 (15), RSASHA256 (8)",
  );
  // the parent is elsewhere and no DNSSEC_PARENT_DS_SERVERS are set: the new KSK waits for the operator's word
  const rolled = await cli(['dnssec', 'roll', 'by-name.example', '--role', 'ksk']);
  expect(rolled.code).toBe(0);
  const waiting = rolled.out.split('\n').find((line) => /\sKSK\s+ECDSAP256SHA256\s+generated\s/.test(line));
  expect(waiting).toMatch(/await-ds\s+once the parent serves its DS$/);
  expect((await cli(['dnssec', 'status', 'by-name.example'])).out).not.toMatch(/20[3-9]\d-\d\d-\d\d/);
  const json = JSON.parse((await cli(['--json', 'dnssec', 'status', 'by-name.example'])).out);
  expect(json.keys.find((k: any) => k.state === 'generated')).toMatchObject({ nextEvent: 'await-ds', nextEventAt: null });
  // a roll to another algorithm by its number reaches the service (one roll at a time)
  const another = await cli(['dnssec', 'roll-algorithm', 'by-name.example', '--algorithm', '8']);
  expect(another.err).toContain('DNSSEC_ROLL_IN_PROGRESS');
});

test('exit codes: --help 0, a usage mistake 2, the API refusing 1 with its code, the service unreachable 3', async () => {
  for (const args of [['--help'], ['zone', '--help'], ['record', 'add', '--help'], ['status', '--help']]) {
    const help = await cli(args);
    expect([args.join(' '), help.code]).toEqual([args.join(' '), 0]);
    expect(help.out).toContain('Usage: zonekeeper');
  }
  expect((await cli(['zone', 'add'])).code).toBe(2);
  expect((await cli(['no-such-command'])).code).toBe(2);
  const refused = await cli(['record', 'add', 'missing.example', 'a', 'A', '192.0.2.1']);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('ZONE_NOT_FOUND');
  const wrongKey = await cli(['zone', 'list'], { ZONEKEEPER_API_KEY: 'wrong-key-0123456789abcdef' });
  expect(wrongKey.code).toBe(1);
  expect(wrongKey.err).toContain('UNAUTHENTICATED');
  expect((await cli(['zone', 'list'], { ZONEKEEPER_URL: 'http://127.0.0.1:1' })).code).toBe(3);
});

test('the rest of the API: record edit, change sets from a file, diff, revert, key list, user delete; destructive commands ask', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'more@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'more.example'])).code).toBe(0);
  const added = JSON.parse((await cli(['--json', 'record', 'add', 'more.example', 'host', 'A', '192.0.2.1', '--ttl', '300'])).out);
  const serialAfterAdd = JSON.parse((await cli(['--json', 'zone', 'list'])).out).find((z: any) => z.name === 'more.example').serial;

  const edited = await cli(['--json', 'record', 'edit', String(added.id), 'more.example', 'host', 'A', '192.0.2.2', '--ttl', '300']);
  expect(JSON.parse(edited.out)).toMatchObject({ id: added.id, rdata: '192.0.2.2' });

  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'set.json');
  writeFileSync(
    file,
    JSON.stringify([
      { kind: 'ADD', owner: 'a', type: 'A', rdata: '192.0.2.10', ttl: 300 },
      { kind: 'ADD', owner: 'b', type: 'TXT', rdata: '"from a file"', ttl: 300 },
    ]),
  );
  // --dry-run: the plan, RRset by RRset, and nothing written
  const planned = await cli(['zone', 'apply', 'more.example', file, '--dry-run']);
  expect(planned.code).toBe(0);
  expect(planned.out).toMatch(/^zone more\.example: dry run, serial \d+ → \d+\n/);
  expect(planned.out).toContain('a A\n  after  300 192.0.2.10\n');
  const recordPlan = await cli(['record', 'add', 'more.example', 'host', 'A', '192.0.2.3', '--ttl', '300', '--dry-run']);
  expect(recordPlan.code).toBe(0);
  expect(recordPlan.out).toContain('host A\n  before 300 192.0.2.2\n  after  300 192.0.2.2\n  after  300 192.0.2.3\n');
  const deletePlan = JSON.parse((await cli(['--json', 'record', 'delete', String(added.id), '--dry-run'])).out);
  expect(deletePlan).toMatchObject({ dryRun: true, removed: [{ owner: 'host', type: 'A', rdata: '192.0.2.2', ttl: 300 }] });
  expect((await cli(['record', 'list', 'more.example'])).out).not.toMatch(/192\.0\.2\.(3|10)\b/);

  const applied = await cli(['zone', 'apply', 'more.example', file]);
  expect(applied.code).toBe(0);
  expect(applied.out).toContain('+ a 300 A 192.0.2.10');

  const diff = await cli(['zone', 'diff', 'more.example', String(serialAfterAdd)]);
  expect(diff.code).toBe(0);
  expect(diff.out).toContain('- host 300 A 192.0.2.1');
  expect(diff.out).toContain('+ b 300 TXT "from a file"');

  // destructive: without a terminal and without --yes, nothing is done (exit 2)
  const unconfirmed = await cli(['zone', 'revert', 'more.example', String(serialAfterAdd)]);
  expect(unconfirmed.code).toBe(2);
  expect(unconfirmed.err).toContain('add --yes to confirm');
  const reverted = await cli(['zone', 'revert', 'more.example', String(serialAfterAdd), '--yes']);
  expect(reverted.code).toBe(0);
  expect(reverted.out).toContain('- a 300 A 192.0.2.10');
  expect((await cli(['record', 'list', 'more.example'])).out).toMatch(/host\s+300\s+A\s+192\.0\.2\.1\b/);

  expect((await cli(['key', 'create', userId, 'ci'])).code).toBe(0);
  const keys = JSON.parse((await cli(['--json', 'key', 'list', '--user', userId])).out);
  expect(keys.map((k: any) => k.name)).toEqual(['ci']);
  expect(JSON.stringify(keys)).not.toContain('zk_');

  // a list cut at its limit says so
  const limited = await cli(['record', 'list', 'more.example', '--limit', '2']);
  expect(limited.code).toBe(0);
  expect(limited.err).toContain('showing the first 2 records; there are more');

  expect((await cli(['record', 'delete', String(added.id)])).code).toBe(2);
  expect((await cli(['user', 'delete', userId])).code).toBe(2);
  expect((await cli(['user', 'delete', userId, '--yes'])).code).toBe(0);
  expect((await cli(['zone', 'export', 'more.example'])).code).toBe(1);
});

test("TTLs: add and edit take BIND's units, edit keeps the record's TTL without --ttl, a bad TTL is a usage mistake", async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'ttl@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'ttl.example'])).code).toBe(0);
  const added = JSON.parse((await cli(['--json', 'record', 'add', 'ttl.example', 'host', 'A', '192.0.2.1', '--ttl', '1d'])).out);
  expect(added).toMatchObject({ ttl: 86400 });
  // an edit without --ttl keeps the record's TTL (not 3600)
  const kept = await cli(['--json', 'record', 'edit', String(added.id), 'ttl.example', 'host', 'A', '192.0.2.2']);
  expect(kept.code).toBe(0);
  expect(JSON.parse(kept.out)).toMatchObject({ rdata: '192.0.2.2', ttl: 86400 });
  const edited = await cli(['--json', 'record', 'edit', String(added.id), 'ttl.example', 'host', 'A', '192.0.2.2', '--ttl', '30m']);
  expect(JSON.parse(edited.out)).toMatchObject({ ttl: 1800 });
  expect(JSON.parse((await cli(['--json', 'record', 'add', 'ttl.example', 'two', 'A', '192.0.2.3', '--ttl', '2H'])).out)).toMatchObject({
    ttl: 7200,
  });
  // units that add up: 1h30m is 5400 s, read by the CLI and then refused by the service's policy (exit 1, not 2)
  const mixed = await cli(['record', 'add', 'ttl.example', 'three', 'A', '192.0.2.4', '--ttl', '1h30m']);
  expect(mixed.code).toBe(1);
  expect(mixed.err).toContain('INVALID_TTL');
  expect(mixed.err).toContain('ttl: 5400 is not one of the allowed values');
  expect(mixed.err).toContain('(ALLOWED_TTLS_BEYOND_REST)');
  // a TTL that is not one: a usage mistake, said by the CLI, nothing sent
  for (const bad of ['1x', 'h', '5y', '1.5h', '99999999999']) {
    for (const args of [
      ['record', 'add', 'ttl.example', 'four', 'A', '192.0.2.5', '--ttl', bad],
      ['record', 'edit', String(added.id), 'ttl.example', 'host', 'A', '192.0.2.6', '--ttl', bad],
    ]) {
      const refused = await cli(args);
      expect({ bad, code: refused.code }).toEqual({ bad, code: 2 });
      expect(refused.err).toContain(`--ttl takes seconds or BIND's units`);
      expect(refused.err).not.toContain('GraphQL');
    }
  }
  const listed = await cli(['record', 'list', 'ttl.example']);
  expect(listed.out).toMatch(/host\s+1800\s+A\s+192\.0\.2\.2/);
  expect(listed.out).not.toContain('192.0.2.5');
  expect(listed.out).not.toContain('192.0.2.6');
});

test('zone import of a 5 MB zone (71,819 records, under the record quota) on the default settings', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'big@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'big.example'])).code).toBe(0);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'big.zone');
  const text = largeZoneFile('big.example', 71_819);
  expect(text.length).toBeGreaterThan(5_000_000);
  writeFileSync(file, text);
  const imported = await cli(['--json', 'zone', 'import', 'big.example', file]);
  expect(imported.err).toBe('');
  expect(imported.code).toBe(0);
  expect(JSON.parse(imported.out)).toMatchObject({ zone: 'big.example', added: 71_819, dryRun: false });
  const exported = await cli(['zone', 'export', 'big.example']);
  expect(exported.code).toBe(0);
  // the SOA, the two NS and every record of the file
  expect(exported.out.split('\n').filter((line) => / IN /.test(line))).toHaveLength(71_819 + 3);
  expect(exported.out).toContain('host-071818 300 IN A 198.51.24.138\n');
  // `zonekeeper zone export big.example | head -1`: the reader goes away after its first chunk, and the CLI ends
  // quietly with SIGPIPE's shell status instead of dying of EPIPE with a stack
  const cut = await new Promise<{ code: number | null; err: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, 'zone', 'export', 'big.example'], {
      env: { PATH: process.env.PATH, ZONEKEEPER_URL: app.baseUrl, ZONEKEEPER_API_KEY: ADMIN_KEY },
    });
    let err = '';
    child.stdout.once('data', () => child.stdout.destroy());
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code) => resolve({ code, err }));
  });
  expect(cut).toEqual({ code: 141, err: '' });
}, 120_000);

test('least-privilege keys from the CLI: a preset, rules, and the key refused beyond them', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'lp-cli@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'lp-cli.example'])).code).toBe(0);
  const acme = JSON.parse((await cli(['--json', 'key', 'create', userId, 'certbot', '--preset', 'acme', '--zone', 'lp-cli.example'])).out);
  expect(acme).toMatchObject({ restricted: true, preset: 'ACME', secret: expect.stringMatching(/^zk_/) });
  const asAcme = { ZONEKEEPER_API_KEY: acme.secret };
  expect((await cli(['record', 'add', 'lp-cli.example', '_acme-challenge', 'TXT', '"t"', '--ttl', '300'], asAcme)).code).toBe(0);
  const refused = await cli(['record', 'add', 'lp-cli.example', 'host', 'A', '192.0.2.1', '--ttl', '300'], asAcme);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('FORBIDDEN_BY_POLICY');
  const ruled = JSON.parse(
    (
      await cli([
        '--json',
        'tsig',
        'add',
        'dyn.lp-cli.example',
        '--user',
        userId,
        '--rule',
        'write:lp-cli.example:dyn.*:A,AAAA',
        '--idle-days',
        '30',
      ])
    ).out,
  );
  expect(ruled.secret).toBeTruthy();
  const listed = await app.gql(`{ tsigKeys { name policy { rules { zone owner types access } idleDays } } }`);
  expect(listed.data.tsigKeys.find((k: any) => k.name === 'dyn.lp-cli.example').policy).toEqual({
    rules: [{ zone: 'lp-cli.example', owner: 'dyn.*', types: ['A', 'AAAA'], access: 'WRITE' }],
    idleDays: 30,
  });
}, 60_000);
test('audit list: the audit log for the admin, filtered by kind; a user key is refused', async () => {
  const user = JSON.parse((await cli(['--json', 'user', 'add', 'audit-cli@example.org'])).out);
  const key = JSON.parse((await cli(['--json', 'key', 'create', String(user.id), 'audit-cli'])).out);
  const listed = await cli(['audit', 'list', '--kind', 'api-key-created']);
  expect(listed.code).toBe(0);
  expect(listed.out).toMatch(/^ID\s+AT\s+KIND\s+ACTOR\s+SUBJECT/);
  expect(listed.out).toContain(`api-key:${key.id}`);
  const json = JSON.parse((await cli(['--json', 'audit', 'list', '--kind', 'user-created', '--since', '2000-01-01T00:00:00Z'])).out);
  expect(json.filter((e: any) => e.subject === `user:${user.id}`)).toHaveLength(1);
  expect(json[0]).toEqual(expect.objectContaining({ kind: 'user-created', actorAdmin: true }));
  const refused = await cli(['audit', 'list'], { ZONEKEEPER_API_KEY: key.secret });
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('FORBIDDEN');
});

test('limits: the admin sets and shows a user’s quotas and rates and a key’s rate; a user key may not', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'limits-cli@example.org'])).out).id;
  const key = JSON.parse((await cli(['--json', 'key', 'create', userId, 'ci'])).out);
  const set = await cli([
    '--json',
    'user',
    'limits',
    userId,
    '--max-zones',
    '2',
    '--rate-burst',
    '40',
    '--max-records-per-zone',
    'default',
  ]);
  expect(set.code).toBe(0);
  expect(JSON.parse(set.out)).toMatchObject({ userId, maxZones: 2, rateBurst: 40, maxRecordsPerZone: null, zoneCount: 0 });
  const shown = await cli(['user', 'limits', userId]);
  expect(shown.code).toBe(0);
  expect(shown.out.split('\n')[0]).toMatch(/^USERID\s+RATEPERSECOND\s+RATEBURST\s+MAXZONES\s+MAXRECORDSPERZONE\s+ZONECOUNT\s+EFFECTIVE$/);
  expect(shown.out.split('\n')[1]).toMatch(new RegExp(`^${userId}\\s+40\\s+2\\s+0\\s+\\{"ratePerSecond":50`));
  const rate = await cli(['--json', 'key', 'rate', key.id, '--rate-per-second', '5']);
  expect(JSON.parse(rate.out)).toEqual({ keyId: key.id, ratePerSecond: 5, rateBurst: null });
  // the quota holds for the user's key: two zones, then QUOTA_EXCEEDED (exit 1, the code named)
  const asUser = { ZONEKEEPER_API_KEY: key.secret };
  expect((await cli(['zone', 'add', userId, 'one.limits-cli.example'], asUser)).code).toBe(0);
  expect((await cli(['zone', 'add', userId, 'two.limits-cli.example'], asUser)).code).toBe(0);
  const third = await cli(['zone', 'add', userId, 'three.limits-cli.example'], asUser);
  expect(third.code).toBe(1);
  expect(third.err).toContain('QUOTA_EXCEEDED');
  const self = await cli(['user', 'limits', userId, '--max-zones', '100'], asUser);
  expect(self.code).toBe(1);
  expect(self.err).toContain('FORBIDDEN');
  expect((await cli(['user', 'limits', userId, '--max-zones', 'lots'])).code).toBe(2);
});

test('the first day: zone add takes an e-mail, record list of a missing zone fails, status --wait in a pipe prints whole lines', async () => {
  const user = JSON.parse((await cli(['--json', 'user', 'add', 'first-day@example.org'])).out);
  const added = await cli(['--json', 'zone', 'add', 'first-day@example.org', 'first-day-cli.example']);
  expect(added.code).toBe(0);
  expect(JSON.parse(added.out)).toMatchObject({ name: 'first-day-cli.example' });
  const owner = await app.gql(`query($z: String!) { domain(name: $z) { user { id } } }`, { z: 'first-day-cli.example' });
  expect(owner.data.domain.user.id).toBe(user.id);
  const unknownUser = await cli(['zone', 'add', 'nobody@example.org', 'first-day-cli2.example']);
  expect(unknownUser.code).toBe(1);
  expect(unknownUser.err).toContain('USER_NOT_FOUND');

  const missing = await cli(['record', 'list', 'nosuch.test']);
  expect(missing.code).toBe(1);
  expect(missing.out).toBe('');
  expect(missing.err).toContain('error: ZONE_NOT_FOUND: no zone nosuch.test');

  // a secondary that never answers: the wait times out, and its progress (stderr is a pipe here) is one line each
  const withSecondary = await startTestApp({ SECONDARIES: '127.0.0.1:9' });
  try {
    await withSecondary.gql(`mutation { createUser(input: {email: "wait@example.org"}) { id } }`);
    await withSecondary.gql(`mutation { createDomain(input: {userId: "1", zone: "wait.example"}) { id } }`);
    const waited = await cli(['status', 'wait.example', '--wait', '--timeout', '1'], { ZONEKEEPER_URL: withSecondary.baseUrl });
    expect(waited.code).toBe(1);
    expect(waited.err).not.toContain('\r');
    const progress = waited.err.split('\n').filter((line) => line.startsWith('serial '));
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) expect(line).toMatch(/^serial \d+: 0\/1 secondaries in sync…$/);
    expect(waited.err).toMatch(/\nerror: TIMEOUT: /);
  } finally {
    await withSecondary.close();
  }
});

/**
 * the CLI at a terminal: `script` (util-linux) gives it a pseudo-terminal for stdin, whose input is `typed`; what
 * the command writes to the terminal (its question, on stderr) comes back in `out`
 */
function cliAtTerminal(args: string[], typed: string, env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const command = [process.execPath, path.resolve(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js'), ...args]
    .map((word) => `'${word.replace(/'/g, "'\\''")}'`)
    .join(' ');
  return new Promise((resolve) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, ZONEKEEPER_URL: app.baseUrl, ZONEKEEPER_API_KEY: ADMIN_KEY, ...env },
    });
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      // answered once asked, as a person would (readline moves the cursor after the question)
      if (/\[y\/N\] /.test(out) && typed) {
        child.stdin.write(`${typed}\n`);
        typed = '';
      }
    });
    // never left waiting: a question that never comes ends the run
    const stop = setTimeout(() => child.kill(), 20_000);
    child.on('close', (code) => {
      clearTimeout(stop);
      resolve({ code, out });
    });
  });
}

test('zone import into a zone that does not exist: a script is told --create; --create makes it; a terminal is asked', async () => {
  const user = JSON.parse((await cli(['--json', 'user', 'add', 'import-new@example.org'])).out);
  const asUser = { ZONEKEEPER_API_KEY: JSON.parse((await cli(['--json', 'key', 'create', user.id, 'importer'])).out).secret };
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'new.zone');
  writeFileSync(file, '$TTL 300\nweb IN A 192.0.2.40\nmail IN A 192.0.2.41\n');
  const exists = async (zone: string) => !(await app.gql(`query($z: String!) { domain(name: $z) { id } }`, { z: zone })).errors;

  // no terminal, no --create: the way is said, exit 1, nothing made
  const told = await cli(['zone', 'import', 'fresh-import.example', file, '--merge'], asUser);
  expect([told.code, told.out]).toEqual([1, '']);
  expect(told.err).toBe(
    `error: ZONE_NOT_FOUND: no zone fresh-import.example (it does not exist, or this key cannot see it): --create creates it and imports ${file} into it (with the admin key, --user USER names its account)\n`,
  );
  // a dry run creates nothing, --create or not
  const dry = await cli(['zone', 'import', 'fresh-import.example', file, '--merge', '--dry-run', '--create'], asUser);
  expect([dry.code, dry.err]).toEqual([1, expect.stringContaining('a dry run creates nothing')]);
  expect(await exists('fresh-import.example')).toBe(false);

  // --create with the user's key: made for its own account, then the file imported into it
  const made = await cli(['--json', 'zone', 'import', 'fresh-import.example', file, '--merge', '--create'], asUser);
  expect([made.code, made.err]).toEqual([0, `created zone fresh-import.example (account import-new@example.org); importing ${file}\n`]);
  expect(JSON.parse(made.out)).toMatchObject({ zone: 'fresh-import.example', added: 2, dryRun: false });
  const stored = await app.gql(
    `{ domain(name: "fresh-import.example") { user { email } } records(zone: "fresh-import.example", type: "A") { nodes { owner rdata } } }`,
  );
  expect(stored.data.domain.user.email).toBe('import-new@example.org');
  expect(stored.data.records.nodes.map((r: any) => `${r.owner} ${r.rdata}`).sort()).toEqual(['mail 192.0.2.41', 'web 192.0.2.40']);
  // a file the service refuses leaves no zone behind: the zone made for it is deleted again
  const bad = path.join(path.dirname(file), 'bad.zone');
  writeFileSync(bad, '$TTL 300\nweb IN A 192.0.2.40\nmail IN A not-an-address\n');
  const refused = await cli(['zone', 'import', 'refused-import.example', bad, '--merge', '--create'], asUser);
  expect([refused.code, refused.out]).toEqual([1, '']);
  expect(refused.err).toContain(`created zone refused-import.example (account import-new@example.org); importing ${bad}\n`);
  expect(refused.err).toContain('the file was refused: zone refused-import.example, created for it, is deleted again\n');
  expect(refused.err).toMatch(/^error: INVALID_ZONE_FILE: /m);
  expect(await exists('refused-import.example')).toBe(false);
  // the admin key acts for every account: it names the new zone's, or is told to
  const unnamed = await cli(['zone', 'import', 'other-import.example', file, '--create']);
  expect([unnamed.code, unnamed.err]).toEqual([2, expect.stringContaining('--user USER')]);
  expect(await exists('other-import.example')).toBe(false);

  // at a terminal the person is asked: no leaves nothing; yes creates and imports
  const declined = await cliAtTerminal(['zone', 'import', 'asked-import.example', file, '--merge'], 'n', asUser);
  expect(declined.out).toContain(
    `There is no zone asked-import.example. Create it (account import-new@example.org) and import ${file} into it? [y/N]`,
  );
  expect(declined.code).toBe(2);
  expect(await exists('asked-import.example')).toBe(false);
  const accepted = await cliAtTerminal(['zone', 'import', 'asked-import.example', file, '--merge'], 'y', asUser);
  expect([accepted.code, accepted.out]).toEqual([0, expect.stringContaining('created zone asked-import.example')]);
  expect(await exists('asked-import.example')).toBe(true);
});

test("secondaries: a zone's extra secondaries set, listed and removed; a bad server is a usage mistake", async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'sec-cli@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'sec-cli.example'])).code).toBe(0);
  expect((await cli(['tsig', 'add', 'sec-cli-xfr', '--user', userId])).code).toBe(0);
  const set = await cli(['--json', 'secondaries', 'set', 'sec-cli.example', '198.51.100.7=sec-cli-xfr', '2001:db8::7#5300=sec-cli-xfr']);
  expect(set.code).toBe(0);
  expect(JSON.parse(set.out)).toEqual([
    { address: '198.51.100.7', port: 53, tsigKeyName: 'sec-cli-xfr' },
    { address: '2001:db8::7', port: 5300, tsigKeyName: 'sec-cli-xfr' },
  ]);
  expect((await cli(['secondaries', 'list', 'sec-cli.example'])).out).toMatch(/2001:db8::7\s+5300\s+sec-cli-xfr/);
  expect((await cli(['secondaries', 'set', 'sec-cli.example', '198.51.100.7'])).code).toBe(2);
  expect((await cli(['secondaries', 'set', 'sec-cli.example'])).code).toBe(0);
  expect((await cli(['secondaries', 'list', 'sec-cli.example'])).out).toContain('(none)');

  // a SECONDARY zone (no worker here: it stays PENDING), not promoted before its first transfer
  const added = await cli(['--json', 'zone', 'add', userId, 'sec2-cli.example', '--primary', '192.0.2.53#5300=sec-cli-xfr']);
  expect(added.code).toBe(0);
  expect(JSON.parse(added.out)).toMatchObject({ name: 'sec2-cli.example', kind: 'SECONDARY' });
  expect(JSON.parse((await cli(['--json', 'zone', 'transfers', 'sec2-cli.example'])).out)).toMatchObject({
    kind: 'SECONDARY',
    state: 'PENDING',
  });
  const promote = await cli(['zone', 'promote', 'sec2-cli.example']);
  expect(promote.code).toBe(1);
  expect(promote.err).toContain('ZONE_NOT_TRANSFERRED');
  expect((await cli(['zone', 'add', userId, 'sec3-cli.example', '--primary', '#53'])).code).toBe(2);
}, 60_000);

test('templates: saved from a JSON file, listed, and a zone added with --template holds their records', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'templates@cli.example'])).out).id;
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'template.json');
  writeFileSync(
    file,
    JSON.stringify([
      { owner: '@', type: 'SOA', rdata: 'ns1.cli.example. hostmaster.{zone}. 1 3600 900 604800 300', ttl: 3600 },
      { owner: '@', type: 'NS', rdata: 'ns1.cli.example.', ttl: 3600 },
      { owner: 'www', type: 'A', rdata: '192.0.2.80', ttl: 300 },
    ]),
  );
  const saved = await cli(['--json', 'template', 'add', 'web', file]);
  expect(saved.code).toBe(0);
  expect(JSON.parse(saved.out)).toMatchObject({ name: 'web', userId: null });
  expect((await cli(['template', 'list'])).out).toMatch(/\n\d+\s+-\s+web\s+3\n/);
  expect((await cli(['zone', 'add', userId, 'templated.cli.example', '--template', 'web'])).code).toBe(0);
  const records = JSON.parse((await cli(['--json', 'record', 'list', 'templated.cli.example'])).out);
  expect(records.map((r: any) => `${r.owner} ${r.type}`).sort()).toEqual(['@ NS', '@ SOA', 'www A']);
  const unknown = await cli(['zone', 'add', userId, 'other.cli.example', '--template', 'nope']);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain('TEMPLATE_NOT_FOUND');
});

test('nameserver sets: added, listed, a zone added in one and moved to another, the set then deleted once empty', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'ns-sets@cli.example'])).out).id;
  const added = await cli([
    '--json',
    'nameserver-set',
    'add',
    'gold',
    'catalog.gold.cli.example',
    '--secondary',
    '192.0.2.53',
    '--ns',
    'ns1.gold.cli.example',
  ]);
  expect(added.code).toBe(0);
  expect(JSON.parse(added.out)).toMatchObject({ name: 'gold', secondaries: ['192.0.2.53:53'], nsNames: ['ns1.gold.cli.example.'] });
  expect((await cli(['nameserver-set', 'list'])).out).toMatch(
    /\ngold\s+192\.0\.2\.53:53\s+ns1\.gold\.cli\.example\.\s+catalog\.gold\.cli\.example\s+0\n/,
  );
  expect((await cli(['zone', 'add', userId, 'gold.cli.example', '--nameserver-set', 'gold'])).code).toBe(0);
  const ns = JSON.parse((await cli(['--json', 'record', 'list', 'gold.cli.example'])).out).filter((r: any) => r.type === 'NS');
  expect(ns.map((r: any) => r.rdata)).toEqual(['ns1.gold.cli.example.']);
  // new NS names with the zones following: taken at once, the walk the worker's (none runs here, so it waits)
  const renamed = ['nameserver-set', 'update', 'gold', '--secondary', '192.0.2.53', '--ns', 'ns2.gold.cli.example', '--zones-follow'];
  const followed = await cli(['--json', ...renamed]);
  expect(followed.code).toBe(0);
  expect(JSON.parse(followed.out)).toMatchObject({ name: 'gold', nsNames: ['ns2.gold.cli.example.'] });
  const again = await cli([
    'nameserver-set',
    'update',
    'gold',
    '--secondary',
    '192.0.2.53',
    '--ns',
    'ns3.gold.cli.example',
    '--zones-follow',
  ]);
  expect(again.code).toBe(1);
  expect(again.err).toContain('NS_FOLLOW_IN_PROGRESS');
  const inUse = await cli(['nameserver-set', 'delete', 'gold']);
  expect(inUse.code).toBe(1);
  expect(inUse.err).toContain('NAMESERVER_SET_IN_USE');
  const moved = await cli(['--json', 'nameserver-set', 'move', 'gold.cli.example', 'default']);
  expect(moved.code).toBe(0);
  expect(JSON.parse(moved.out)).toMatchObject({ zone: 'gold.cli.example', nameserverSet: 'default' });
  // it still leaves gold's catalog (no secondary of the default set serves it yet): the set is still in use
  expect((await cli(['nameserver-set', 'delete', 'gold'])).err).toContain('NAMESERVER_SET_IN_USE');
  expect((await cli(['zone', 'delete', 'gold.cli.example', '--yes'])).code).toBe(0);
  expect((await cli(['nameserver-set', 'delete', 'gold'])).code).toBe(0);
});

test('webhooks: added with its secret shown once, listed without it, a bad address refused, deleted', async () => {
  const user = JSON.parse((await cli(['--json', 'user', 'add', 'webhook-cli@example.org'])).out);
  const key = JSON.parse((await cli(['--json', 'key', 'create', String(user.id), 'webhook-cli'])).out);
  const asUser = { ZONEKEEPER_API_KEY: key.secret };
  const added = await cli(['--json', 'webhook', 'add', 'https://93.184.216.34/hooks', '--events', 'zone.changed,zone.deleted'], asUser);
  expect(added.code).toBe(0);
  const made = JSON.parse(added.out);
  expect(made).toEqual(expect.objectContaining({ url: 'https://93.184.216.34/hooks', eventTypes: ['zone.changed', 'zone.deleted'] }));
  expect(made.secret).toMatch(/^whsec_/);
  const listed = await cli(['webhook', 'list'], asUser);
  expect(listed.code).toBe(0);
  expect(listed.out).toContain('https://93.184.216.34/hooks');
  expect(listed.out).not.toContain('whsec_');
  const refused = await cli(['webhook', 'add', 'http://169.254.169.254/latest'], asUser);
  expect(refused.code).toBe(1);
  expect(refused.err).toContain('ADDRESS_NOT_ALLOWED');
  expect((await cli(['webhook', 'delete', String(made.id), '--yes'], asUser)).code).toBe(0);
  expect(JSON.parse((await cli(['--json', 'webhook', 'list'], asUser)).out)).toEqual([]);
});

test('health: a zone not checked yet is unknown; with the root out of reach a check says so once, as the checker’s state, not as the zone’s findings', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'health-cli@example.org'])).out).id;
  expect((await cli(['zone', 'add', userId, 'health-cli.example'])).code).toBe(0);
  expect((await cli(['zone', 'add', userId, 'health-cli-2.example'])).code).toBe(0);
  const before = await cli(['health', 'health-cli.example']);
  expect(before.code).toBe(0);
  expect(before.out).toContain('zone health-cli.example: unknown (not checked yet)');
  // HEALTH_ROOT_HINTS answers nothing (a fresh install without outside network): no finding for the zone, which
  // stays unknown; the checker's state says why
  const checked = await cli(['--json', 'health', 'health-cli.example', '--check']);
  expect(checked.code).toBe(0);
  const health = JSON.parse(checked.out);
  expect(health).toMatchObject({ zone: 'health-cli.example', state: 'unknown', findings: [], checker: { rootReachable: false } });
  expect(health.checker.rootReason).toMatch(/127\.0\.53\.20/);
  const table = await cli(['health', 'health-cli-2.example', '--check']);
  expect(table.code).toBe(0);
  expect(table.out).toMatch(/^the health checker reaches no root server \(since .*\): zones are not checked from the root$/m);
  expect(table.out).toContain('zone health-cli-2.example: unknown (not checked yet)');
  // once, not per zone: the state noted by the first check is the one the second found (the same since)
  const { data } = await app.gql(`{ healthChecker { rootReachable rootSince intervalSeconds } }`);
  expect(data.healthChecker).toEqual({ rootReachable: false, rootSince: health.checker.rootSince, intervalSeconds: 0 });
  const metrics = (await app.http.get('/metrics')).text;
  expect(metrics).toMatch(/^zonekeeper_health_root_reachable 0$/m);
  expect(metrics).not.toMatch(/zonekeeper_health_findings\{/);
  expect((await cli(['health', 'no-such-zone.example'])).code).toBe(1);
}, 60_000);

test('review: on a zone that requires an approval a record write and an import are proposed; requests listed, approved by a person, rejected, cancelled', async () => {
  const userId = JSON.parse((await cli(['--json', 'user', 'add', 'review@cli.example'])).out).id;
  const asUser = { ZONEKEEPER_API_KEY: JSON.parse((await cli(['--json', 'key', 'create', userId, 'deploy'])).out).secret };
  expect((await cli(['zone', 'add', userId, 'review.cli.example'])).code).toBe(0);
  const set = await app.gql(`mutation { setZoneRequiredApprovals(zone: "review.cli.example", approvals: 1) }`);
  expect(set.errors).toBeUndefined();
  const invited = await app.gql(`mutation($i: InviteMemberInput!) { inviteMember(input: $i) { token } }`, {
    i: { userId, email: 'alice@cli.example', role: 'EDITOR' },
  });
  expect(invited.errors).toBeUndefined();
  const asAlice = { ZONEKEEPER_SESSION: await signIn(app, 'alice@cli.example') };

  // a record's write: proposed, nothing written
  const added = await cli(['record', 'add', 'review.cli.example', 'www2', 'A', '192.0.2.70', '--ttl', '300'], asUser);
  expect(added).toMatchObject({
    code: 0,
    out: expect.stringMatching(/^zone review\.cli\.example: requires 1 approval; proposed as change request (\d+), nothing written\n$/),
  });
  const addId = /change request (\d+)/.exec(added.out)![1];
  expect((await cli(['record', 'list', 'review.cli.example'], asUser)).out).not.toContain('192.0.2.70');
  // an import: the RRsets it changes, proposed
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'zk-cli-')), 'review.zone');
  writeFileSync(file, 'mail 3600 IN A 192.0.2.71\n');
  const imported = await cli(['--json', 'zone', 'import', 'review.cli.example', file, '--merge'], asUser);
  expect(imported.code).toBe(0);
  expect(JSON.parse(imported.out)).toMatchObject({ added: 0, removed: 0, changeRequest: { status: 'PENDING', requiredApprovals: 1 } });
  const importId = JSON.parse(imported.out).changeRequest.id;
  const third = await cli(['record', 'add', 'review.cli.example', 'ftp', 'A', '192.0.2.72', '--ttl', '300'], asUser);
  const cancelId = /change request (\d+)/.exec(third.out)![1];

  // the pending requests, newest first, each with its plan
  const listed = await cli(['zone', 'requests', 'review.cli.example'], asUser);
  expect(listed.code).toBe(0);
  expect(listed.out).toContain(`change request ${addId} (review.cli.example): pending, 0 of 1 approvals; by deploy`);
  expect(listed.out).toMatch(/ {2}www2 A\n {4}\+ 300 192\.0\.2\.70\n/);
  expect(listed.out).toMatch(/ {2}mail A\n {4}\+ 3600 192\.0\.2\.71\n/);
  expect(listed.out.indexOf(`change request ${importId} `)).toBeLessThan(listed.out.indexOf(`change request ${addId} `));

  // a key approves nothing, and is told how a person does it; a person's session approves: applied
  const byKey = await cli(['zone', 'approve', addId], asUser);
  expect(byKey.code).toBe(1);
  expect(byKey.err).toContain('NOT_SIGNED_IN');
  expect(byKey.err).toContain('ZONEKEEPER_SESSION');
  const approved = await cli(['zone', 'approve', addId, '--comment', 'fine'], asAlice);
  expect(approved.code).toBe(0);
  expect(approved.out).toMatch(new RegExp(`^change request ${addId} \\(review\\.cli\\.example\\): applied, 1 of 1 approvals`));
  expect(approved.out).toContain('approved by alice@cli.example: fine');
  expect((await cli(['record', 'list', 'review.cli.example'], asUser)).out).toMatch(/www2\s+300\s+A\s+192\.0\.2\.70/);
  // rejected with a comment; cancelled by its author (the key)
  const rejected = await cli(['--json', 'zone', 'reject', importId, '--comment', 'not this one'], asAlice);
  expect(JSON.parse(rejected.out)).toMatchObject({
    status: 'REJECTED',
    reviews: [{ reviewer: 'alice@cli.example', verdict: 'REJECT', comment: 'not this one' }],
  });
  expect(JSON.parse((await cli(['--json', 'zone', 'cancel', cancelId], asUser)).out).status).toBe('CANCELLED');
  expect((await cli(['zone', 'requests', 'review.cli.example'], asUser)).out).toBe('zone review.cli.example: no pending change requests\n');
  expect(
    JSON.parse((await cli(['--json', 'zone', 'requests', 'review.cli.example', '--status', 'all'], asUser)).out).map((r: any) => r.status),
  ).toEqual(['CANCELLED', 'REJECTED', 'APPLIED']);
  expect((await cli(['zone', 'requests', 'review.cli.example', '--status', 'sideways'], asUser)).code).toBe(2);

  // a record's edit and delete: proposed too (`--json`: the zone and the request), nothing written
  const www2 = JSON.parse((await cli(['--json', 'record', 'list', 'review.cli.example'], asUser)).out).find((r: any) => r.owner === 'www2');
  const pending = { zone: 'review.cli.example', changeRequest: { id: expect.any(String), status: 'PENDING', requiredApprovals: 1 } };
  const edited = await cli(['--json', 'record', 'edit', www2.id, 'review.cli.example', 'www2', 'A', '192.0.2.79'], asUser);
  expect(JSON.parse(edited.out)).toEqual(pending);
  const deleted = await cli(['--json', 'record', 'delete', www2.id, '--yes'], asUser);
  expect(JSON.parse(deleted.out)).toEqual(pending);
  expect((await cli(['record', 'list', 'review.cli.example'], asUser)).out).toMatch(/www2\s+300\s+A\s+192\.0\.2\.70/);
  for (const answer of [edited, deleted])
    expect((await cli(['zone', 'cancel', JSON.parse(answer.out).changeRequest.id], asUser)).code).toBe(0);
});
