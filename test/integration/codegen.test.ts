/**
 * Schema-driven clients. graphql-codegen (typescript, typescript-operations,
 * typed-document-node) generates types from the committed schema.graphql and a set of operations using the
 * RecordType enum, the Serial scalar, the typed RDATA union and the nested connections; a typed client compiles with `tsc --strict`,
 * and a client that misuses a type does not. The same operations run against the real service.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'graphql';
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone } from '../support/fixtures';

const root = path.resolve(__dirname, '..', '..');

const OPERATIONS = `
query ZoneRecords($zone: String!, $first: Int!, $after: String, $type: RecordType) {
  domain(name: $zone) {
    id
    name
    serial
    recordsConnection(first: $first, after: $after, recordType: $type) {
      totalCount
      pageInfo { hasNextPage endCursor }
      nodes { id owner type recordType rdata ttl data { __typename ... on MXData { preference exchange } ... on TXTData { txtData } ... on SOAData { serial } } }
    }
  }
}

query TenantView($first: Int!) {
  users(first: 10) {
    nodes {
      email
      domainsConnection(first: $first) {
        totalCount
        nodes { name serial recordsConnection(first: 5) { totalCount nodes { recordType rdata } } }
      }
    }
  }
}

mutation ApplyWithExpectedSerial($zone: String!, $serial: Serial!) {
  applyZoneChanges(zone: $zone, expectSerial: $serial, changes: [{ kind: ADD, owner: "codegen", type: "TXT", rdata: "typed", ttl: 300 }]) {
    serialBefore
    serial
  }
}
`;

const CLIENT = `
import type { ResultOf, VariablesOf } from '@graphql-typed-document-node/core';
import { ZoneRecordsDocument, TenantViewDocument, ApplyWithExpectedSerialDocument, RecordType } from './generated';

type Zone = ResultOf<typeof ZoneRecordsDocument>;
declare const zone: Zone;
export const serial: number = zone.domain.serial;
export const total: number = zone.domain.recordsConnection.totalCount;
export const cursor: string | null = zone.domain.recordsConnection.pageInfo.endCursor;
export const first: RecordType | null | undefined = zone.domain.recordsConnection.nodes[0]?.recordType;
export const mx: RecordType = 'MX';
const data = zone.domain.recordsConnection.nodes[0]?.data;
export const preference: number | undefined = data?.__typename === 'MXData' ? data.preference : undefined;
export const strings: Array<string | null> | undefined = data?.__typename === 'TXTData' ? data.txtData : undefined;
export const variables: VariablesOf<typeof ZoneRecordsDocument> = { zone: 'example.com', first: 10, type: 'AAAA' };
declare const tenants: ResultOf<typeof TenantViewDocument>;
export const names: string[] = tenants.users.nodes.flatMap((u) => u.domainsConnection.nodes.map((d) => d.name));
export const apply: VariablesOf<typeof ApplyWithExpectedSerialDocument> = { zone: 'example.com', serial: 2026112301 };
`;

/** each line breaks one type: a serial is a number, the enum has no 'MXX', a connection is not an array */
const WRONG = [
  `export const wrongSerial: string = zone.domain.serial;`,
  `export const wrongType: RecordType = 'MXX';`,
  `export const wrongList = zone.domain.recordsConnection.map((r) => r);`,
  `export const wrongField = data?.__typename === 'MXData' ? data.txtData : undefined;`,
];

function node(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd, timeout: 120_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as any).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

const tsc = (dir: string, files: string[]) =>
  node(
    [
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--strict',
      '--noEmit',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'commonjs',
      '--moduleResolution',
      'node10',
      ...files,
    ],
    dir,
  );

let app: TestApp;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'zk-codegen-'));
  symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
  writeFileSync(path.join(dir, 'operations.graphql'), OPERATIONS);
  const generate = (out: string, plugins: string) =>
    node(
      [path.join(root, 'test', 'support', 'run-codegen.cjs'), path.join(root, 'schema.graphql'), 'operations.graphql', out, plugins],
      dir,
    );
  for (const run of [
    await generate('schema-types.ts', 'typescript'),
    await generate('generated.ts', 'typescriptOperations,typedDocumentNode'),
  ]) {
    if (run.code !== 0) throw new Error(run.out);
  }
  app = await startTestApp();
}, 120_000);
afterAll(async () => app?.close());

test('generated types compile in a strict typed client; misuses of the enum, Serial and connections do not', async () => {
  const generated = readFileSync(path.join(dir, 'generated.ts'), 'utf8');
  expect(generated).toMatch(/export type RecordType =[^;]*'MX'/);
  expect(generated).toContain('serialBefore: number');
  // the schema's own types (every object, input, enum and scalar) compile on their own
  const schemaTypes = await tsc(dir, ['schema-types.ts']);
  expect(schemaTypes.out).toBe('');
  expect(readFileSync(path.join(dir, 'schema-types.ts'), 'utf8')).toMatch(/export type RecordType =/);
  expect(readFileSync(path.join(dir, 'schema-types.ts'), 'utf8')).toContain('Serial: { input: number; output: number; }');
  writeFileSync(path.join(dir, 'client.ts'), CLIENT);
  const good = await tsc(dir, ['client.ts']);
  expect(good.out).toBe('');
  expect(good.code).toBe(0);
  for (const [i, line] of WRONG.entries()) {
    writeFileSync(path.join(dir, `wrong${i}.ts`), `${CLIENT}\n${line}\n`);
    const bad = await tsc(dir, [`wrong${i}.ts`]);
    expect([line, bad.code]).not.toEqual([line, 0]);
    expect(bad.out).toContain(`wrong${i}.ts`);
  }
}, 120_000);

test('the operations the client was generated from run against the service', async () => {
  const userId = await createUser(app, 'codegen@example.org');
  await createZone(app, userId, 'codegen.example');
  const document = parse(OPERATIONS);
  const text = (name: string) =>
    OPERATIONS.slice(
      document.definitions.find((d: any) => d.name.value === name)!.loc!.start,
      document.definitions.find((d: any) => d.name.value === name)!.loc!.end,
    );
  const zone = await app.gql(text('ZoneRecords'), { zone: 'codegen.example', first: 10, type: 'NS' });
  expect(zone.errors).toBeUndefined();
  expect(zone.data.domain.recordsConnection.totalCount).toBe(2);
  expect(zone.data.domain.recordsConnection.nodes.map((r: any) => r.recordType)).toEqual(['NS', 'NS']);
  const tenants = await app.gql(text('TenantView'), { first: 5 });
  expect(tenants.errors).toBeUndefined();
  const applied = await app.gql(text('ApplyWithExpectedSerial'), { zone: 'codegen.example', serial: zone.data.domain.serial });
  expect(applied.errors).toBeUndefined();
  expect(applied.data.applyZoneChanges.serialBefore).toBe(zone.data.domain.serial);
});
