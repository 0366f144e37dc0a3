/**
 * A person's single-record write is held to a change set's policy of findings (docs/changes.md, "Checks on every
 * plan"): on every edge (REST `POST /api/record/add` and `PUT /api/record/edit/{id}`, GraphQL `createRecord` and
 * `updateRecord`, the CLI's `record add` and `record edit`) a record that makes an error (an apex NS in the zone
 * without an address, an MX whose target is an alias, data below a delegation) is refused 409
 * ZONE_RULE_VIOLATION naming the finding, and nothing is written; a delegation whose name server is in the zone
 * without an address is written with a warning, as BIND loads it; a single record's warnings are kept in the
 * zone's history as a change set's are. Each case is held against BIND's named-checkzone (Debian bind9-utils) on
 * the zone as the write leaves it (or would have).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

const ZONE = 'hoster.test';
let app: TestApp;

beforeAll(async () => {
  buildOnce();
  app = await startTestApp();
  await createZone(app, await createUser(app, 'owner@hoster.test'), ZONE);
  // an alias for the MX to name, a delegation with its name server outside the zone, a record to edit
  for (const [owner, type, rdata] of [
    ['alias', 'CNAME', 'www.example.net.'],
    ['deleg', 'NS', 'ns.example.net.'],
    ['spare', 'A', '192.0.2.5'],
  ]) {
    const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner, type, rdata, ttl: 3600 } });
    expect(res.errors).toBeUndefined();
  }
}, 120_000);

afterAll(async () => {
  await app?.close();
});

const exportZone = async (): Promise<string> => {
  const res = await app.gql(`query($z: String!) { exportZone(zone: $z) }`, { z: ZONE });
  expect(res.errors).toBeUndefined();
  return res.data.exportZone;
};

/** named-checkzone on a zone file: whether it loads, and what it said (the "loaded serial" line aside) */
function namedCheckzone(text: string, options: string[] = []): { loads: boolean; says: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zk-single-checks-'));
  try {
    const file = path.join(dir, 'zone');
    writeFileSync(file, text);
    let out: string;
    let loads = true;
    try {
      out = execFileSync('named-checkzone', [...options, ZONE, file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      loads = false;
      out = `${(error as { stdout?: string }).stdout ?? ''}`;
    }
    const said = out.split('\n').filter((l) => l.startsWith('zone ') && !l.includes('loaded serial') && !l.includes('(out of zone)'));
    return { loads, says: said.join('\n') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** the exported zone with one master-file line more: the zone as the write would have left it */
const withLine = (text: string, line: string) => `${text.trimEnd()}\n${line}\n`;

interface Refused {
  name: string;
  owner: string;
  type: string;
  rdata: string;
  code: string;
  /** the words of the finding's message, which every edge says (the CLI prints the messages, not the codes) */
  words: RegExp;
  /** BIND as a primary with check-mx-cname fail (its default only warns): 'fails', 'reports' and loads, 'silent' */
  bind: 'fails' | 'silent';
  says?: RegExp;
  /** what BIND does with its defaults, when it differs */
  bindDefault?: { loads: boolean; says: RegExp };
}

const REFUSED: Refused[] = [
  {
    name: 'an apex NS in the zone without an address',
    owner: '@',
    type: 'NS',
    rdata: 'ns7',
    code: 'NS_TARGET_NO_ADDRESS',
    words: /@ NS → ns7\.hoster\.test\.: the name server is in the zone and has no address/,
    bind: 'fails',
    says: /NS 'ns7\.hoster\.test' has no address records/,
  },
  {
    name: 'an MX whose target is an alias',
    owner: '@',
    type: 'MX',
    rdata: `10 alias.${ZONE}.`,
    code: 'TARGET_IS_CNAME',
    words: /@ MX → alias\.hoster\.test\.: the target is an alias \(CNAME\)/,
    bind: 'fails',
    says: /MX 'alias\.hoster\.test' is a CNAME \(illegal\)/,
    bindDefault: { loads: true, says: /is a CNAME \(illegal\)/ },
  },
  {
    name: 'data below a delegation',
    owner: 'www.deleg',
    type: 'TXT',
    rdata: '"never served"',
    code: 'OCCLUDED_DATA',
    words: /www\.deleg TXT: below the delegation deleg\.hoster\.test\., it is never served/,
    bind: 'silent',
  },
];

/** the edges a person writes one record through, each answering (status or exit code, the finding codes, the text) */
type Edge = (c: Refused) => Promise<{ refused: boolean; codes: string[]; text: string }>;

const spareId = async (): Promise<string> => {
  const res = await app.gql(`query($z: String!) { records(zone: $z, owner: "spare", first: 1) { nodes { id } } }`, { z: ZONE });
  return res.data.records.nodes[0].id;
};

const gqlAnswer = (res: any) => ({
  refused: res.errors?.[0]?.extensions?.code === 'ZONE_RULE_VIOLATION',
  codes: (res.errors?.[0]?.extensions?.details ?? []).map((d: any) => d.code),
  text: res.errors?.[0]?.message ?? '',
});
const restAnswer = (res: any) => ({
  refused: res.status === 409,
  codes: (res.body.details ?? []).map((d: any) => d.code),
  text: JSON.stringify(res.body),
});
/** the CLI says the error's code and each finding's message (src/cli/shared.ts) */
const cliAnswer = (run: { code: number | null; out: string; err: string }) => ({
  refused: run.code === 1 && run.out === '',
  codes: [...run.err.matchAll(/\bZONE_RULE_VIOLATION\b/g)].map((m) => m[0]),
  text: run.err,
});

const EDGES: [string, Edge][] = [
  [
    'REST POST /api/record/add',
    async (c) =>
      restAnswer(
        await app.http
          .post('/api/record/add')
          .set('X-API-Key', ADMIN_KEY)
          .send({ zone: ZONE, owner: c.owner, rtype: c.type, ttl: '3600', rdata: c.rdata }),
      ),
  ],
  [
    'REST PUT /api/record/edit/{id}',
    async (c) =>
      restAnswer(
        await app.http
          .put(`/api/record/edit/${await spareId()}`)
          .set('X-API-Key', ADMIN_KEY)
          .send({ zone: ZONE, owner: c.owner, rtype: c.type, ttl: '3600', rdata: c.rdata }),
      ),
  ],
  [
    'GraphQL createRecord',
    async (c) =>
      gqlAnswer(await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: c.owner, type: c.type, rdata: c.rdata, ttl: 3600 } })),
  ],
  [
    'GraphQL updateRecord',
    async (c) =>
      gqlAnswer(
        await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id } }`, {
          id: await spareId(),
          i: { zone: ZONE, owner: c.owner, type: c.type, rdata: c.rdata, ttl: 3600 },
        }),
      ),
  ],
  ['the CLI record add', async (c) => cliAnswer(await runCli(app.baseUrl, ['record', 'add', ZONE, c.owner, c.type, c.rdata]))],
  [
    'the CLI record edit',
    async (c) => cliAnswer(await runCli(app.baseUrl, ['record', 'edit', await spareId(), ZONE, c.owner, c.type, c.rdata, '--ttl', '3600'])),
  ],
];

describe.each(REFUSED)('$name', (c) => {
  test('BIND: the zone as the write would leave it', async () => {
    const line = `${c.owner} 3600 IN ${c.type} ${c.rdata}`;
    const strict = namedCheckzone(withLine(await exportZone(), line), ['-M', 'fail', '-S', 'fail', '-i', 'full']);
    expect(strict.loads).toBe(c.bind !== 'fails');
    if (c.says) expect(strict.says).toMatch(c.says);
    else expect(strict.says).toBe('');
    if (c.bindDefault) {
      const plain = namedCheckzone(withLine(await exportZone(), line));
      expect(plain.loads).toBe(c.bindDefault.loads);
      expect(plain.says).toMatch(c.bindDefault.says);
    }
  });

  test.each(EDGES)('refused at %s, naming the finding; nothing written', async (edge, write) => {
    const before = await exportZone();
    const answer = await write(c);
    expect(answer.refused).toBe(true);
    // GraphQL and REST name the finding by its code in `details`; the CLI by the error's code and the message
    expect(answer.codes).toEqual(edge.startsWith('the CLI') ? ['ZONE_RULE_VIOLATION'] : [c.code]);
    expect(answer.text).toMatch(c.words);
    expect(await exportZone()).toBe(before);
  });
});

test("a delegation's name server in the zone without an address is written with a warning, as BIND loads it; the warning is kept in the history", async () => {
  const res = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'sub', type: 'NS', rdata: 'ns3', ttl: 3600 } });
  expect(res.errors).toBeUndefined();
  expect(res.data.createRecord).toMatchObject({ owner: 'sub', type: 'NS', rdata: `ns3.${ZONE}.` });
  expect((res.body.extensions?.warnings ?? []).map((w: any) => w.code)).toEqual(['TARGET_MISSING']);

  // BIND loads the zone as written, saying what the warning says
  const bind = namedCheckzone(await exportZone(), ['-M', 'fail', '-S', 'fail', '-i', 'full']);
  expect(bind).toEqual({ loads: true, says: `zone ${ZONE}/IN: sub.${ZONE}/NS 'ns3.${ZONE}' has no address records (A or AAAA)` });

  // the history entry of the write keeps its finding, at GraphQL and REST alike
  const finding = {
    code: 'TARGET_MISSING',
    severity: 'warning',
    owner: 'sub',
    type: 'NS',
    rfc: 'RFC 1034 §3.6.2',
    message: expect.stringMatching(/ns3\.hoster\.test\..*no such name/),
  };
  const history = `query($z: String!) { domain(name: $z) { changes(first: 1) { nodes { findings { code severity owner type rfc message } } } } }`;
  expect((await app.gql(history, { z: ZONE })).data.domain.changes.nodes[0].findings).toEqual([finding]);
  const rest = await app.http.get(`/api/domain/changes/${ZONE}?first=1`).set('X-API-Key', ADMIN_KEY);
  expect(rest.status).toBe(200);
  expect(rest.body[0].findings).toEqual([finding]);

  // an edit's warnings are kept too; a write with none keeps none
  const edited = await app.gql(`mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { id } }`, {
    id: await spareId(),
    i: { zone: ZONE, owner: 'mail', type: 'MX', rdata: `10 nohost.${ZONE}.`, ttl: 3600 },
  });
  expect(edited.errors).toBeUndefined();
  const plain = await app.gql(CREATE_RECORD, { input: { zone: ZONE, owner: 'plain', type: 'A', rdata: '192.0.2.9', ttl: 3600 } });
  expect(plain.errors).toBeUndefined();
  const two = (await app.gql(history.replace('first: 1', 'first: 2'), { z: ZONE })).data.domain.changes.nodes;
  expect(two.map((n: any) => n.findings.map((f: any) => `${f.owner} ${f.type} ${f.code}`))).toEqual([[], ['mail MX TARGET_MISSING']]);
});

test('the CLI adds the delegation with its warning on stderr', async () => {
  const run = await runCli(app.baseUrl, ['record', 'add', ZONE, 'sub2', 'NS', 'ns4']);
  expect(run.code).toBe(0);
  expect(run.err).toMatch(/^warning: sub2 NS → ns4\.hoster\.test\.: no such name in the zone/m);
});

test('on a zone with strictChecks a warning refuses a single record too, as it refuses a change set', async () => {
  const strict = 'strict.hoster.test';
  await createZone(app, await createUser(app, 'owner@strict.hoster.test'), strict);
  expect((await app.gql(`mutation($z: String!) { setZoneStrictChecks(zone: $z, strict: true) }`, { z: strict })).errors).toBeUndefined();
  const res = await app.gql(CREATE_RECORD, {
    input: { zone: strict, owner: 'mail', type: 'MX', rdata: `10 nohost.${strict}.`, ttl: 3600 },
  });
  expect(res.errors?.[0].extensions.code).toBe('ZONE_RULE_VIOLATION');
  expect(res.errors?.[0].extensions.details.map((d: any) => [d.field, d.code, d.severity])).toEqual([
    ['rdata', 'TARGET_MISSING', 'warning'],
  ]);
  const records = await app.gql(`query($z: String!) { records(zone: $z, owner: "mail", first: 5) { nodes { id } } }`, { z: strict });
  expect(records.data.records.nodes).toEqual([]);
  // a write the checks say nothing of is written
  const plain = await app.gql(CREATE_RECORD, { input: { zone: strict, owner: 'mail', type: 'A', rdata: '192.0.2.25', ttl: 3600 } });
  expect(plain.errors).toBeUndefined();
});
