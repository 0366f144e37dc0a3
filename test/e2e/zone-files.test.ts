import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode, zoneEventsUntil } from '../support/fixtures';
import { freePort } from '../support/free-port';
import { renderZoneFile } from '../../src/dns/zone-file';

/** Zone files: export any zone (GraphQL and REST), import one all-or-nothing with line numbers. */
let app: TestApp;
let userId: string;
let dnsPort: number;

beforeAll(async () => {
  // the primary too: what an import leaves is read back by AXFR
  dnsPort = await freePort();
  // GraphQL held to RESTKnot's list too (an operator's ALLOWED_TTLS_BEYOND_REST): the TTL refusals and the CLAMP
  // policy of an import are the same at both edges
  app = await startTestApp({
    ROLES: 'api,dns',
    DNS_LISTEN: `127.0.0.1:${dnsPort}`,
    ALLOWED_TTLS_BEYOND_REST: '300,900,1800,3600,7200,14400,28800,43200,86400',
  });
  userId = await createUser(app, 'files@example.org');
  await createZone(app, userId, 'files.test');
  for (const [owner, type, rdata] of [
    ['@', 'MX', '10 mail'],
    ['mail', 'A', '192.0.2.25'],
    ['_sip._tcp', 'SRV', '10 60 5060 sip'],
    ['@', 'TXT', '"v=spf1 mx -all"'],
    ['@', 'CAA', '0 issue "letsencrypt.org"'],
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: 'files.test', owner, type, rdata, ttl: 3600 } });
    expect(res.errors).toBeUndefined();
  }
});
afterAll(async () => {
  await app?.close();
});

const IMPORT = `mutation($zone: String!, $text: String!, $mode: ZoneImportMode!) { importZone(zone: $zone, text: $text, mode: $mode) { added removed serial } }`;
const stateOf = async (zone: string) =>
  (
    await app.gql(`query($z: String!) { records(zone: $z, first: 1000) { nodes { owner type rdata ttl } } }`, { z: zone })
  ).data.records.nodes
    .filter((r: { type: string }) => r.type !== 'SOA')
    .map((r: { owner: string; type: string; rdata: string; ttl: number }) => `${r.owner} ${r.ttl} ${r.type} ${r.rdata}`)
    .sort();

test('exports a zone as a master file, by GraphQL and by REST', async () => {
  const gql = await app.gql(`{ exportZone(zone: "files.test") domain(name: "files.test") { zoneFile } }`);
  expect(gql.errors).toBeUndefined();
  const text: string = gql.data.exportZone;
  expect(text).toBe(gql.data.domain.zoneFile);
  expect(text).toMatch(/^\$ORIGIN files\.test\.\n/);
  expect(text).toContain('@ 3600 IN MX 10 mail.files.test.');
  expect(text).toContain('_sip._tcp 3600 IN SRV 10 60 5060 sip.files.test.');
  const rest = await app.http.get('/api/domain/export/files.test').set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.headers['content-type']).toMatch(/^text\/dns/);
  expect(rest.text).toBe(text);
});

test('export → import (REPLACE) into another zone gives the same records, and the serial rises', async () => {
  const text: string = (await app.gql(`{ exportZone(zone: "files.test") }`)).data.exportZone;
  await createZone(app, userId, 'copy.test');
  const before = (await app.gql(`{ domain(name: "copy.test") { serial } }`)).data.domain.serial;
  const copied = text.replace(/files\.test\./g, 'copy.test.');
  const res = await app.gql(IMPORT, { zone: 'copy.test', text: copied, mode: 'REPLACE' });
  expect(res.errors).toBeUndefined();
  expect(res.data.importZone.serial).toBeGreaterThan(before);
  const expected = (await stateOf('files.test')).map((line: string) => line.replace(/files\.test\./g, 'copy.test.'));
  expect(await stateOf('copy.test')).toEqual(expected);
  // importing the same file again changes nothing (its serial neither: below)
  const again = await app.gql(IMPORT, {
    zone: 'copy.test',
    text: (await app.gql(`{ exportZone(zone: "copy.test") }`)).data.exportZone,
    mode: 'REPLACE',
  });
  expect(again.data.importZone).toMatchObject({ added: 0, removed: 0 });
});

test('an import that changes TTLs replaces those records and raises the serial once', async () => {
  // a record whose TTL changes is removed and added again: two writing statements, run with the zone row locked
  const text: string = (await app.gql(`{ exportZone(zone: "files.test") }`)).data.exportZone;
  const before = (await app.gql(`{ domain(name: "files.test") { serial } }`)).data.domain.serial;
  const longer = text.replace('mail 3600 IN A 192.0.2.25', 'mail 7200 IN A 192.0.2.25');
  expect(longer).not.toBe(text);
  const res = await app.gql(IMPORT, { zone: 'files.test', text: longer, mode: 'REPLACE' });
  expect(res.errors).toBeUndefined();
  expect(res.data.importZone).toMatchObject({ added: 1, removed: 1 });
  expect(await stateOf('files.test')).toContain('mail 7200 A 192.0.2.25');
  expect(await stateOf('files.test')).not.toContain('mail 3600 A 192.0.2.25');
  const after = (await app.gql(`{ domain(name: "files.test") { serial } }`)).data.domain.serial;
  const journal = await app.service.database.db.rows<{ n: number }>(
    `select count(*)::int as n from changes where zone = 'files.test' and serial_before = $1`,
    [before],
  );
  expect(journal[0].n).toBe(1);
  expect(after).toBeGreaterThan(before);
});

test('an import with problems reports every one with its line, and changes nothing', async () => {
  const before = await stateOf('files.test');
  const text = [
    '$ORIGIN files.test.',
    '$TTL 3600',
    '@ IN SOA ns1.example.net. hostmaster.example.net. 1 3600 1800 604800 86400',
    '@ IN NS ns1.example.net.',
    'ok IN A 192.0.2.1',
    'bad IN A 192.0.2.300',
    'mx IN MX 70000 mail',
    'www IN CNAME x.example.',
    'www IN A 192.0.2.2',
  ].join('\n');
  const res = await app.gql(IMPORT, { zone: 'files.test', text, mode: 'REPLACE' });
  expect(errorCode(res)).toBe('INVALID_ZONE_FILE');
  const lines = res.errors?.[0].extensions.details.map((d: { line: number }) => d.line);
  expect(lines).toEqual(expect.arrayContaining([6, 7, 9]));
  expect(await stateOf('files.test')).toEqual(before);
});

test('REST export of an unknown zone is a 404', async () => {
  const res = await app.http.get('/api/domain/export/nope.test').set('X-API-Key', ADMIN_KEY);
  expect(res.status).toBe(404);
  expect(res.body.error).toBe('ZONE_NOT_FOUND');
});

test('MERGE adds a partial file to a zone and keeps what is there', async () => {
  await createZone(app, userId, 'merge.test');
  const before = await stateOf('merge.test');
  const res = await app.gql(IMPORT, {
    zone: 'merge.test',
    text: '$TTL 3600\napi IN A 192.0.2.80\napi IN AAAA 2001:db8::80\n',
    mode: 'MERGE',
  });
  expect(res.errors).toBeUndefined();
  expect(res.data.importZone).toMatchObject({ added: 2, removed: 0 });
  expect(await stateOf('merge.test')).toEqual([...before, 'api 3600 A 192.0.2.80', 'api 3600 AAAA 2001:db8::80'].sort());
  const partialReplace = await app.gql(IMPORT, { zone: 'merge.test', text: '$TTL 3600\napi IN A 192.0.2.81\n', mode: 'REPLACE' });
  expect(errorCode(partialReplace)).toBe('INVALID_ZONE_FILE');
});

const IMPORT_FULL = `mutation($zone: String!, $text: String!, $mode: ZoneImportMode!, $dryRun: Boolean!, $ttlPolicy: ZoneImportTtlPolicy!) {
  importZone(zone: $zone, text: $text, mode: $mode, dryRun: $dryRun, ttlPolicy: $ttlPolicy) {
    added removed serial dryRun dropped { type count } warnings { line field code message } addedRecords removedRecords } }`;

const SIGNED = [
  '$ORIGIN .', // BIND and pdnsutil dumps start so; the next names are absolute
  '$TTL 3600',
  'real.test IN SOA ns1.example.net. . 2025010100 3600 1800 604800 86400',
  '  NS ns1.example.net.',
  '  RRSIG SOA 8 2 3600 20300101000000 20250101000000 12345 real.test. AAAA',
  '  NSEC a.real.test. NS SOA RRSIG NSEC',
  '$ORIGIN real.test.',
  'a A 192.0.2.1',
  'A A 192.0.2.1', // the same record again (names compare case-insensitively): merged with a warning
  '\\035hash TXT "x"', // an escaped '#': taken, a host-name warning
  'mx MX 10 mail.real.test', // relative, repeats the zone: a warning in an import
  'x TYPE65534 \\# 3 abcdef',
  '$GENERATE 1-2 host$ A 192.0.2.${10}',
  'short 60 A 192.0.2.9',
].join('\n');

test('an import answers warnings and dropped DNSSEC records; a dry run answers the diff and writes nothing', async () => {
  await createZone(app, userId, 'real.test');
  const before = await stateOf('real.test');
  const vars = { zone: 'real.test', text: SIGNED, mode: 'REPLACE', dryRun: true, ttlPolicy: 'CLAMP' };
  const plan = await app.gql(IMPORT_FULL, vars);
  expect(plan.errors).toBeUndefined();
  const result = plan.data.importZone;
  expect(result.dryRun).toBe(true);
  expect(result.dropped).toEqual([
    { type: 'NSEC', count: 1 },
    { type: 'RRSIG', count: 1 },
  ]);
  expect(result.warnings.map((w: { line: number; code: string }) => [w.line, w.code])).toEqual([
    [9, 'DUPLICATE_RECORD_MERGED'],
    [10, 'NAME_NOT_HOSTNAME'],
    [11, 'RELATIVE_NAME_REPEATS_ZONE'],
    [14, 'TTL_CLAMPED'],
    // the zone checks over the zone the import leaves (line 11's MX points at a name the zone does not have)
    [null, 'TARGET_MISSING'],
  ]);
  expect(result.warnings[2].message).toMatch(/^line 11: .*did you mean "mail\.real\.test\."\?/);
  expect(result.addedRecords).toEqual(
    expect.arrayContaining([
      'x.real.test. 3600 IN TYPE65534 \\# 3 ABCDEF',
      '\\035hash.real.test. 3600 IN TXT "x"',
      'host1.real.test. 3600 IN A 192.0.2.11',
      'short.real.test. 300 IN A 192.0.2.9',
    ]),
  );
  // the diff's lines are the records' plus the SOA's change (its old and its new form)
  expect(result.removedRecords.length).toBe(result.removed + 1);
  expect(result.addedRecords.length).toBe(result.added + 1);
  expect(result.removedRecords[0]).toMatch(/^real\.test\. \d+ IN SOA /);
  expect(result.addedRecords[0]).toMatch(new RegExp(`^real\\.test\\. \\d+ IN SOA \\S+ \\S+ ${result.serial} `));
  expect(await stateOf('real.test')).toEqual(before);

  const done = await app.gql(IMPORT_FULL, { ...vars, dryRun: false });
  expect(done.errors).toBeUndefined();
  expect(done.data.importZone).toMatchObject({ dryRun: false, added: result.added, removed: result.removed, addedRecords: null });
  const after = await stateOf('real.test');
  expect(after).toEqual(
    expect.arrayContaining(['x 3600 TYPE65534 \\# 3 ABCDEF', '\\035hash 3600 TXT "x"', 'mx 3600 MX 10 mail.real.test.real.test.']),
  );
  expect(after.some((r: string) => / (RRSIG|NSEC) /.test(r))).toBe(false);
  const exported: string = (await app.gql(`{ exportZone(zone: "real.test") }`)).data.exportZone;
  expect(exported).toMatch(/^@ 3600 IN SOA ns1\.example\.net\. \. /m);
});

test('a dry run decides as the import does: an ALIAS without ALIAS_RESOLVERS, a file past the record quota, each refused alike, with its line', async () => {
  const owner = await createUser(app, 'dry@example.org');
  await createZone(app, owner, 'dry.test');
  const key = await createUserKey(app, owner);
  const TRY = `mutation($zone: String!, $text: String!, $dryRun: Boolean) { importZone(zone: $zone, text: $text, mode: MERGE, dryRun: $dryRun) { added dryRun } }`;
  const before = await stateOf('dry.test');
  // ALIAS_RESOLVERS is not set here: an ALIAS would never be served
  const alias = 'a 3600 IN A 192.0.2.1\n; a comment\ncdn 3600 IN ALIAS cdn.example.net.\nwww2 3600 IN ANAME cdn.example.net.\n';
  const aliasAnswers = [];
  for (const dryRun of [true, false]) {
    const res = await app.gql(TRY, { zone: 'dry.test', text: alias, dryRun }, key);
    expect({ dryRun, code: errorCode(res) }).toEqual({ dryRun, code: 'ALIAS_RESOLVERS_UNSET' });
    aliasAnswers.push(res.errors![0]);
  }
  expect(aliasAnswers[0]).toEqual(aliasAnswers[1]);
  expect(aliasAnswers[0].message).toMatch(/^line 3: records\[1\]: ALIAS records need the ALIAS_RESOLVERS setting.*\(and 1 more\)$/);
  expect(aliasAnswers[0].extensions.details.map((d: any) => [d.line, d.field, d.code])).toEqual([
    [3, 'records[1]', 'ALIAS_RESOLVERS_UNSET'],
    [4, 'records[2]', 'ALIAS_RESOLVERS_UNSET'],
  ]);
  // the record quota (the user's own: 6 records a zone; the zone holds SOA, two NS and www): the file's three pass it
  const limits = await app.gql(`mutation($id: ID!) { setUserLimits(id: $id, input: { maxRecordsPerZone: 6 }) { maxRecordsPerZone } }`, {
    id: owner,
  });
  expect(limits.errors).toBeUndefined();
  const three = 'a 3600 IN A 192.0.2.1\nb 3600 IN A 192.0.2.2\nc 3600 IN A 192.0.2.3\n';
  const quotaAnswers = [];
  for (const dryRun of [true, false]) {
    const res = await app.gql(TRY, { zone: 'dry.test', text: three, dryRun }, key);
    expect({ dryRun, code: errorCode(res) }).toEqual({ dryRun, code: 'QUOTA_EXCEEDED' });
    quotaAnswers.push(res.errors![0]);
  }
  expect(quotaAnswers[0]).toEqual(quotaAnswers[1]);
  expect(quotaAnswers[0].extensions.details[0]).toMatchObject({ field: 'maxRecordsPerZone', limit: 6, current: 4 });
  // within it, both answer: the dry run with the plan, the import with the records
  const two = 'a 3600 IN A 192.0.2.1\nb 3600 IN A 192.0.2.2\n';
  expect((await app.gql(TRY, { zone: 'dry.test', text: two, dryRun: true }, key)).data.importZone).toEqual({ added: 2, dryRun: true });
  expect(await stateOf('dry.test')).toEqual(before);
  expect((await app.gql(TRY, { zone: 'dry.test', text: two, dryRun: false }, key)).data.importZone).toEqual({ added: 2, dryRun: false });
  expect(await stateOf('dry.test')).toEqual([...before, 'a 3600 A 192.0.2.1', 'b 3600 A 192.0.2.2'].sort());
});

test('an owner without its final dot that repeats the zone has the warning a target has, with its line', async () => {
  const res = await app.http.post('/api/domain/import/files.test').set('X-API-Key', ADMIN_KEY).send({
    text: 'ok 3600 IN A 192.0.2.98\nwww.files.test 3600 IN A 192.0.2.99\nmx2 3600 IN MX 10 mail.files.test\n',
    mode: 'MERGE',
    dry_run: 'true',
  });
  expect(res.status).toBe(200);
  expect(res.body.added_records).toContain('www.files.test.files.test. 3600 IN A 192.0.2.99');
  const repeats = res.body.warnings.filter((w: { code: string }) => w.code === 'RELATIVE_NAME_REPEATS_ZONE');
  expect(repeats.map((w: { line: number; field: string }) => [w.line, w.field])).toEqual([
    [2, 'owner'],
    [3, 'rdata'],
  ]);
  expect(repeats[0].message).toContain('did you mean "www.files.test."?');
});

test('a refused import names the first problem and the count, each problem with its line', async () => {
  await createZone(app, userId, 'bad.test');
  const text =
    '$TTL 3600\n@ SOA ns1.example.net. h.example.net. 1 2 3 4 5\n@ NS ns1.example.net.\na 61 A 192.0.2.1\nb 62 A 192.0.2.2\n$INCLUDE /etc/passwd\n';
  const res = await app.gql(IMPORT_FULL, { zone: 'bad.test', text, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
  expect(errorCode(res)).toBe('INVALID_ZONE_FILE');
  expect(res.errors![0].message).toBe(
    'Bad zone file: line 4: ttl: 61 is not one of the allowed values 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400 (ALLOWED_TTLS_BEYOND_REST); to take the nearest allowed TTL instead, import with --clamp-ttls (CLI), ttlPolicy: CLAMP (GraphQL) or ttl_policy=CLAMP (REST), or change that setting (and 2 more problems)',
  );
  const details = res.errors![0].extensions.details;
  expect(details.map((d: { line: number; code: string }) => [d.line, d.code])).toEqual([
    [4, 'TTL_NOT_ALLOWED'],
    [5, 'TTL_NOT_ALLOWED'],
    [6, 'DIRECTIVE_NOT_SUPPORTED'],
  ]);
  expect(details[2].message).toMatch(/^line 6: \$INCLUDE cannot be used/);
});

test('the API refuses a relative RDATA name that repeats the zone (RELATIVE_NAME_REPEATS_ZONE), with the hint', async () => {
  const res = await app.gql(CREATE_RECORD, { input: { zone: 'files.test', owner: '@', type: 'MX', rdata: '10 mx.files.test', ttl: 3600 } });
  expect(errorCode(res)).toBe('INVALID_RDATA');
  const [detail] = res.errors![0].extensions.details;
  expect(detail).toMatchObject({ field: 'rdata', code: 'RELATIVE_NAME_REPEATS_ZONE' });
  expect(detail.message).toContain('did you mean "mx.files.test."?');
  const ok = await app.gql(CREATE_RECORD, { input: { zone: 'files.test', owner: '@', type: 'MX', rdata: '10 mx.files.test.', ttl: 3600 } });
  expect(ok.errors).toBeUndefined();
});

test('REST import: POST /api/domain/import/:zone answers the same result, warnings and dropped included', async () => {
  await createZone(app, userId, 'rest-import.test');
  const text =
    '$ORIGIN .\n$TTL 3600\nrest-import.test SOA ns1.example.net. h.example.net. 1 2 3 4 5\n NS ns1.example.net.\n RRSIG SOA 8 2 3600 20300101000000 20250101000000 1 rest-import.test. AAAA\n$ORIGIN rest-import.test.\nmx MX 10 mail.rest-import.test\n';
  const plan = await app.http.post('/api/domain/import/rest-import.test').set('X-API-Key', ADMIN_KEY).send({ text, dry_run: 'true' });
  expect(plan.status).toBe(200);
  expect(plan.body).toMatchObject({
    zone: 'rest-import.test',
    dry_run: true,
    dropped: [{ type: 'RRSIG', count: 1 }],
    warnings: [
      { line: 7, field: 'rdata', code: 'RELATIVE_NAME_REPEATS_ZONE' },
      { line: null, field: 'rdata', code: 'TARGET_MISSING' },
    ],
    added_records: expect.arrayContaining(['mx.rest-import.test. 3600 IN MX 10 mail.rest-import.test.rest-import.test.']),
  });
  const done = await app.http
    .post('/api/domain/import/rest-import.test')
    .set('X-API-Key', ADMIN_KEY)
    .type('form')
    .send({ text, mode: 'replace' });
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ dry_run: false, added: plan.body.added, removed: plan.body.removed });
  expect(done.body.added_records).toBeUndefined();
  const bad = await app.http
    .post('/api/domain/import/rest-import.test')
    .set('X-API-Key', ADMIN_KEY)
    .send({ text: 'x 61 A 192.0.2.1\n', mode: 'MERGE' });
  expect(bad.status).toBe(422);
  expect(bad.body).toMatchObject({ error: 'INVALID_ZONE_FILE', details: [{ line: 1, code: 'TTL_NOT_ALLOWED' }] });
  expect(bad.body.message).toMatch(/^Bad zone file: line 1: ttl: 61 is not one of the allowed values/);
  const wrongFlag = await app.http.post('/api/domain/import/rest-import.test').set('X-API-Key', ADMIN_KEY).send({ text, dry_run: 'maybe' });
  expect(wrongFlag.status).toBe(422);
  expect(wrongFlag.body.details).toEqual([
    { field: 'dry_run', code: 'INVALID_CHOICE', message: 'dry_run must be one of TRUE, FALSE, 1, 0 (got "maybe")' },
  ]);
  const wrongMode = await app.http.post('/api/domain/import/rest-import.test').set('X-API-Key', ADMIN_KEY).send({ text, mode: 'all' });
  expect(wrongMode.status).toBe(422);
  expect(wrongMode.body.details[0].field).toBe('mode');
});

test('GraphQL: a record outside the host-name rule is created and the answer says so in extensions.warnings', async () => {
  const res = await app.gql(CREATE_RECORD, { input: { zone: 'files.test', owner: 'odd#name', type: 'A', rdata: '192.0.2.7', ttl: 3600 } });
  expect(res.errors).toBeUndefined();
  expect(res.data.createRecord.owner).toBe('odd\\035name');
  expect(res.body.extensions.warnings).toEqual([
    { field: 'owner', code: 'NAME_NOT_HOSTNAME', message: expect.stringContaining('"odd\\\\035name"') },
  ]);
  const plain = await app.gql(CREATE_RECORD, { input: { zone: 'files.test', owner: 'plain', type: 'A', rdata: '192.0.2.8', ttl: 3600 } });
  expect(plain.body.extensions?.warnings).toBeUndefined();
});

test('the streamed export is in RFC 4034 canonical order, the same as the model renders it, in pages', async () => {
  await createZone(app, userId, 'order.test');
  // owners that sort differently by text and by labels from the right; more records than one page (2,000)
  const owners = ['b', 'a.b', 'b.a', 'a', '*', '*.a', '_sip._tcp', 'z', 'a-b', 'a0', '0a', 'xn--bcher-kva', 'a.a.a', 'aa', 'a.aa'];
  const changes = [
    ...owners.flatMap((owner) => [
      { kind: 'ADD', owner, type: 'TXT', rdata: `"${owner}"`, ttl: 3600 },
      { kind: 'ADD', owner, type: 'A', rdata: '192.0.2.9', ttl: 3600 },
      { kind: 'ADD', owner, type: 'A', rdata: '192.0.2.10', ttl: 3600 },
    ]),
    ...Array.from({ length: 2100 }, (_, i) => ({
      kind: 'ADD',
      owner: `bulk${i}.x`,
      type: 'A',
      rdata: `10.0.${i >> 8}.${i & 255}`,
      ttl: 3600,
    })),
  ];
  const applied = await app.gql(`mutation($c: [ZoneChangeInput!]!) { applyZoneChanges(zone: "order.test", changes: $c) { serial } }`, {
    c: changes,
  });
  expect(applied.errors).toBeUndefined();
  const res = await app.http.get('/api/domain/export/order.test').set('X-API-Key', ADMIN_KEY);
  expect(res.status).toBe(200);
  const all = (await app.gql(`{ records(zone: "order.test", first: 10000) { nodes { owner type rdata ttl } } }`)).data.records.nodes;
  expect(res.text).toBe(renderZoneFile('order.test', all));
  expect(res.text.split('\n').filter(Boolean)).toHaveLength(all.length + 2);
  // and GraphQL's whole answer is the same text
  expect((await app.gql(`{ exportZone(zone: "order.test") }`)).data.exportZone).toBe(res.text);
});

/** a program's exit code and both streams */
const run = (command: string, args: string[]) =>
  new Promise<{ code: number; out: string; err: string }>((resolve) =>
    execFile(command, args, (error, out, err) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out, err }),
    ),
  );

/** master-file lines (dig's, named-checkzone -D's) as `owner type rdata` → TTL, owners lower-cased, the SOA aside */
function ttlsOf(text: string): Map<string, number> {
  const ttls = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.trim() || line.startsWith(';')) continue;
    const [owner, ttl, , type, ...rdata] = line.trim().split(/\s+/);
    if (type !== 'SOA') ttls.set(`${owner.toLowerCase()} ${type} ${rdata.join(' ')}`, Number(ttl));
  }
  return ttls;
}

/** the zone the primary sends by AXFR, read by BIND's dig */
const axfrTtls = async (zone: string) => {
  const axfr = await run('dig', ['@127.0.0.1', '-p', String(dnsPort), '+nocmd', '+nostats', '+nocomments', zone, 'AXFR']);
  expect(axfr.out).not.toMatch(/Transfer failed|communications error|connection refused/i);
  return ttlsOf(axfr.out);
};

// an RRset's records with different TTLs, as BIND loads them (named-checkzone): a run of one owner's lines takes
// its first TTL (www), an RRset in two runs the later run's (v), a $GENERATE record comes before the run being
// read (h), a repeated record counts (v's line 9), owners written in another case are another run (mx/MX)
const MIXED_TTLS = (zone: string) =>
  [
    `$ORIGIN ${zone}.`,
    '$TTL 3600',
    '@ SOA ns1.example.net. hostmaster.example.net. 2025010100 3600 1800 604800 86400',
    '@ NS ns1.example.net.',
    'www 300 A 192.0.2.1', // line 5
    'www 86400 A 192.0.2.2',
    'v 7200 A 192.0.2.1',
    'x 300 A 192.0.2.9',
    'v 900 A 192.0.2.2',
    '  1800 A 192.0.2.1',
    'h 300 A 192.0.2.1',
    '$GENERATE 2-3 h 1800 A 192.0.2.$',
    'mx 900 MX 10 mail.example.net.',
    'MX 1800 MX 20 mail2.example.net.',
    '',
  ].join('\n');

test('a file whose RRsets mix TTLs is loaded as BIND loads it: the TTL named-checkzone keeps, served by AXFR, each RRset named in a warning', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-mixed-ttls-'));
  try {
    for (const [zone, edge] of [
      ['mixed-gql.test', 'GraphQL'],
      ['mixed-rest.test', 'REST'],
    ]) {
      await createZone(app, userId, zone);
      const text = MIXED_TTLS(zone);
      const file = path.join(dir, `${zone}.zone`);
      writeFileSync(file, text);
      const bind = await run('named-checkzone', ['-D', zone, file]);
      expect(bind.code).toBe(0);
      expect(bind.err).toContain('TTL set to prior TTL');
      const kept = ttlsOf(bind.out);
      expect(new Set(kept.values()).size).toBeGreaterThan(1);

      let warnings: { line: number; code: string; message: string }[];
      if (edge === 'GraphQL') {
        const res = await app.gql(IMPORT_FULL, { zone, text, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
        expect(res.errors).toBeUndefined();
        warnings = res.data.importZone.warnings;
      } else {
        const res = await app.http.post(`/api/domain/import/${zone}`).set('X-API-Key', ADMIN_KEY).send({ text, mode: 'REPLACE' });
        expect(res.status).toBe(200);
        warnings = res.body.warnings;
      }
      // every record at the TTL BIND keeps for its RRset, as the primary serves it
      expect({ edge, served: Object.fromEntries(await axfrTtls(zone)) }).toEqual({ edge, served: Object.fromEntries(kept) });
      const differ = warnings.filter((w) => w.code === 'RRSET_TTLS_DIFFER');
      expect(differ.map((w) => w.line)).toEqual([6, 7, 12, 13]);
      expect(differ[1].message).toBe(
        'line 7: the A records at v have TTLs 7200 (line 7), 900 (line 9), 1800 (line 10); an RRset has one TTL (RFC 2181 §5.2): 900 is kept for all, as BIND loads the file',
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("MERGE: a record joining an RRset of the zone takes the zone's TTL, with a warning; a client's own write (a record, a change set, a PowerDNS PATCH) keeps refusing another TTL", async () => {
  await createZone(app, userId, 'mixed-merge.test');
  const made = await app.gql(CREATE_RECORD, {
    input: { zone: 'mixed-merge.test', owner: 'api', type: 'A', rdata: '192.0.2.1', ttl: 3600 },
  });
  expect(made.errors).toBeUndefined();
  const res = await app.gql(IMPORT_FULL, {
    zone: 'mixed-merge.test',
    text: 'api 300 IN A 192.0.2.2\napi 300 IN A 192.0.2.3\nnew 300 IN A 192.0.2.4\n',
    mode: 'MERGE',
    dryRun: false,
    ttlPolicy: 'REFUSE',
  });
  expect(res.errors).toBeUndefined();
  expect(res.data.importZone).toMatchObject({ added: 3, removed: 0 });
  expect(res.data.importZone.warnings.filter((w: { code: string }) => w.code === 'RRSET_TTLS_DIFFER')).toEqual([
    {
      line: 1,
      field: 'ttl',
      code: 'RRSET_TTLS_DIFFER',
      message:
        "line 1: the A records at api have TTL 3600 in the zone and 300 in the file; an RRset has one TTL (RFC 2181 §5.2): the zone's 3600 is kept for all, as MERGE keeps what the zone holds",
    },
  ]);
  expect(await stateOf('mixed-merge.test')).toEqual(
    expect.arrayContaining(['api 3600 A 192.0.2.1', 'api 3600 A 192.0.2.2', 'api 3600 A 192.0.2.3', 'new 300 A 192.0.2.4']),
  );
  // a client's explicit write is held to the rule: a record of another TTL than its RRset's is refused
  const other = await app.gql(CREATE_RECORD, {
    input: { zone: 'mixed-merge.test', owner: 'api', type: 'A', rdata: '192.0.2.5', ttl: 300 },
  });
  expect(errorCode(other)).toBe('RRSET_TTL_MISMATCH');
  const set = await app.gql(`mutation($c: [ZoneChangeInput!]!) { applyZoneChanges(zone: "mixed-merge.test", changes: $c) { serial } }`, {
    c: [{ kind: 'ADD', owner: 'api', type: 'A', rdata: '192.0.2.5', ttl: 300 }],
  });
  expect(errorCode(set)).toBe('RRSET_TTL_MISMATCH');
  const patch = await app.http
    .patch('/api/v1/servers/localhost/zones/mixed-merge.test.')
    .set('X-API-Key', ADMIN_KEY)
    .send({
      rrsets: [
        { name: 'api.mixed-merge.test.', type: 'A', ttl: 300, changetype: 'EXTEND', records: [{ content: '192.0.2.5', disabled: false }] },
      ],
    });
  expect(patch.status).toBe(422);
  expect(patch.body.error).toMatch(/share one TTL/);
});

const CHANGES = `query($z: String!) { domain(name: $z) { serial changes(first: 100) { totalCount } } }`;

test('the same file imported again writes nothing: the same serial, no history entry, no event; a file that changes something still does', async () => {
  await createZone(app, userId, 'again.test');
  const text = (await app.gql(`{ exportZone(zone: "files.test") }`)).data.exportZone.replace(/files\.test\./g, 'again.test.');
  const first = await app.gql(IMPORT_FULL, { zone: 'again.test', text, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
  expect(first.errors).toBeUndefined();
  const before = (await app.gql(CHANGES, { z: 'again.test' })).data.domain;
  expect(before.serial).toBe(first.data.importZone.serial);
  const cursor = (await zoneEventsUntil(app, 'again.test', before.serial)).next;

  // a dry run of it plans nothing, the import does nothing; the MERGE of it, nothing either
  const plan = await app.gql(IMPORT_FULL, { zone: 'again.test', text, mode: 'REPLACE', dryRun: true, ttlPolicy: 'REFUSE' });
  expect(plan.data.importZone).toMatchObject({ added: 0, removed: 0, serial: before.serial, addedRecords: [], removedRecords: [] });
  const again = await app.gql(IMPORT_FULL, { zone: 'again.test', text, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
  expect(again.errors).toBeUndefined();
  expect(again.data.importZone).toMatchObject({ added: 0, removed: 0, serial: before.serial });
  const merged = await app.http.post('/api/domain/import/again.test').set('X-API-Key', ADMIN_KEY).send({ text, mode: 'MERGE' });
  expect(merged.status).toBe(200);
  expect(merged.body).toMatchObject({ added: 0, removed: 0, serial: before.serial });
  expect((await app.gql(CHANGES, { z: 'again.test' })).data.domain).toEqual(before);

  // what does change something writes one step, as before: an SOA field (its TTL), then a serial ahead of the zone's
  const soaTtl = text.replace(/^@ 3600 IN SOA /m, '@ 7200 IN SOA ');
  expect(soaTtl).not.toBe(text);
  const changed = await app.gql(IMPORT_FULL, { zone: 'again.test', text: soaTtl, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
  expect(changed.data.importZone).toMatchObject({ added: 0, removed: 0 });
  expect(changed.data.importZone.serial).toBeGreaterThan(before.serial);
  const ahead = changed.data.importZone.serial + 10;
  const raised = soaTtl.replace(/^(@ 7200 IN SOA \S+ \S+ )\d+/m, `$1${ahead}`);
  const stepped = await app.gql(IMPORT_FULL, { zone: 'again.test', text: raised, mode: 'REPLACE', dryRun: false, ttlPolicy: 'REFUSE' });
  expect(stepped.data.importZone).toMatchObject({ added: 0, removed: 0, serial: ahead });
  expect((await app.gql(CHANGES, { z: 'again.test' })).data.domain).toEqual({
    serial: ahead,
    changes: { totalCount: before.changes.totalCount + 2 },
  });
  // the feed holds the two steps, and nothing of the imports that changed nothing
  const { events } = await zoneEventsUntil(app, 'again.test', ahead, cursor);
  expect(events.map((e) => [e.type, e.data.serial])).toEqual([
    ['zone.changed', changed.data.importZone.serial],
    ['zone.changed', ahead],
  ]);
});

test('a hand-written file with its own serial, imported twice by REST: the serial steps once, to the file’s; one history entry, one event', async () => {
  await createZone(app, userId, 'twice.test');
  const start = (await app.gql(CHANGES, { z: 'twice.test' })).data.domain;
  const cursor = (await zoneEventsUntil(app, 'twice.test', start.serial)).next;
  // the serial as a BIND operator writes it, ahead of the zone's: BIND serves the file's serial, and so do we
  const serial = start.serial + 1000;
  const text = [
    '$ORIGIN twice.test.',
    '$TTL 3600',
    `@ IN SOA ns1.example.net. hostmaster.twice.test. ${serial} 7200 3600 1209600 3600`,
    '@ IN NS ns1.example.net.',
    '@ IN NS ns2.example.net.',
    '@ IN MX 10 mail',
    'mail IN A 192.0.2.25',
    'www IN CNAME mail',
    '',
  ].join('\n');
  const import_ = () => app.http.post('/api/domain/import/twice.test').set('X-API-Key', ADMIN_KEY).send({ text });
  const first = await import_();
  expect(first.status).toBe(200);
  expect(first.body.serial).toBe(serial);
  const second = await import_();
  expect(second.status).toBe(200);
  expect(second.body).toMatchObject({ added: 0, removed: 0, serial });
  expect((await app.gql(CHANGES, { z: 'twice.test' })).data.domain).toEqual({
    serial,
    changes: { totalCount: start.changes.totalCount + 1 },
  });
  const later = await app.gql(CREATE_RECORD, { input: { zone: 'twice.test', owner: 'later', type: 'A', rdata: '192.0.2.9', ttl: 3600 } });
  expect(later.errors).toBeUndefined();
  const last = (await app.gql(CHANGES, { z: 'twice.test' })).data.domain.serial;
  const { events } = await zoneEventsUntil(app, 'twice.test', last, cursor);
  expect(events.map((e) => [e.type, e.data.serial])).toEqual([
    ['zone.changed', serial],
    ['zone.changed', last],
  ]);
});
