/**
 * Typed RDATA. `Record.data` answers the RDATA as a union with one object type per record
 * type, generated from the DNS model's field lists; `RecordInput.data` takes typed fields instead of `rdata`
 * (exactly one of them), checked by the same model.
 */
import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createZone, errorCode } from '../support/fixtures';

let app: TestApp;
const ZONE = 'typed.example';

beforeAll(async () => {
  app = await startTestApp({ ALLOWED_TTLS: 'any', LOG_LEVEL: 'error' });
  await createZone(app, await createUser(app, 'typed@example.org'), ZONE);
});
afterAll(async () => app?.close());

const CREATE = `mutation($input: RecordInput!) { createRecord(input: $input) { id type recordType rdata data {
  __typename
  ... on MXData { preference exchange }
  ... on TXTData { txtData }
  ... on SRVData { priority weight port target }
  ... on CAAData { flags tag value }
} } }`;

test('records made from typed fields are stored in canonical form and answered as typed fields', async () => {
  const mx = await app.gql(CREATE, {
    input: { zone: ZONE, owner: '@', type: 'MX', ttl: 3600, data: { mx: { preference: 10, exchange: 'mail' } } },
  });
  expect(mx.errors).toBeUndefined();
  expect(mx.data.createRecord).toMatchObject({
    type: 'MX',
    recordType: 'MX',
    rdata: '10 mail.typed.example.',
    data: { __typename: 'MXData', preference: 10, exchange: 'mail.typed.example.' },
  });
  const txt = await app.gql(CREATE, {
    input: { zone: ZONE, owner: 'txt', type: 'TXT', ttl: 300, data: { txt: { txtData: ['v=spf1 -all', 'say "hi"', 'café'] } } },
  });
  expect(txt.errors).toBeUndefined();
  expect(txt.data.createRecord.rdata).toBe('"v=spf1 -all" "say \\"hi\\"" "caf\\195\\169"');
  expect(txt.data.createRecord.data).toEqual({ __typename: 'TXTData', txtData: ['v=spf1 -all', 'say "hi"', 'café'] });
  // records made from text answer typed fields too
  const srv = await app.gql(CREATE, {
    input: { zone: ZONE, owner: '_sip._tcp', type: 'SRV', ttl: 300, rdata: '10 60 5060 sip.example.net.' },
  });
  expect(srv.data.createRecord.data).toEqual({ __typename: 'SRVData', priority: 10, weight: 60, port: 5060, target: 'sip.example.net.' });
  const caa = await app.gql(CREATE, {
    input: { zone: ZONE, owner: '@', type: 'CAA', ttl: 300, data: { caa: { flags: 0, tag: 'issue', value: 'letsencrypt.org' } } },
  });
  expect(caa.data.createRecord).toMatchObject({
    rdata: '0 issue "letsencrypt.org"',
    data: { flags: 0, tag: 'issue', value: 'letsencrypt.org' },
  });
  // the SOA's serial is a Serial
  const soa = await app.gql(`{ records(zone: "${ZONE}", recordType: SOA) { nodes { data { ... on SOAData { mname serial minimum } } } } }`);
  expect(soa.data.records.nodes[0].data).toEqual({ mname: 'ns1.example.net.', serial: expect.any(Number), minimum: expect.any(Number) });
});

test('an RFC 3597 type answers GenericData and has no enum value', async () => {
  const imported = await app.gql(
    `mutation { importZone(zone: "${ZONE}", mode: MERGE, text: "generic 300 IN TYPE65280 \\\\# 3 ABCDEF\\n") { added } }`,
  );
  expect(imported.errors).toBeUndefined();
  const generic = await app.gql(
    `{ records(zone: "${ZONE}", type: "TYPE65280") { nodes { type recordType data { __typename ... on GenericData { genericRdata } } } } }`,
  );
  expect(generic.data.records.nodes).toEqual([
    { type: 'TYPE65280', recordType: null, data: { __typename: 'GenericData', genericRdata: '\\# 3 ABCDEF' } },
  ]);
});

test('typed input mistakes: a 4xx naming the field, nothing written', async () => {
  const before = (await app.gql(`{ records(zone: "${ZONE}") { totalCount } }`)).data.records.totalCount;
  const cases: [Record<string, unknown>, string, string][] = [
    [{ type: 'MX', rdata: '10 mail', data: { mx: { preference: 10, exchange: 'mail' } } }, 'RDATA_OR_DATA', 'rdata'],
    [{ type: 'MX' }, 'RDATA_OR_DATA', 'rdata'],
    [{ type: 'A', data: { mx: { preference: 10, exchange: 'mail' } } }, 'DATA_TYPE_MISMATCH', 'data.mx'],
    [{ type: 'MX', data: {} }, 'DATA_MEMBER_COUNT', 'data'],
    [{ type: 'MX', data: { mx: { preference: 70000, exchange: 'mail' } } }, 'MX_PREFERENCE_RANGE', 'data.mx.preference'],
    [{ type: 'TXT', data: { txt: { txtData: [] } } }, 'INVALID_TEXT', 'data.txt.txtData'],
  ];
  for (const [input, code, field] of cases) {
    const res = await app.gql(CREATE, { input: { zone: ZONE, owner: 'bad', ttl: 300, ...input } });
    expect([JSON.stringify(input), res.status]).toEqual([JSON.stringify(input), 200]);
    const details = res.errors?.[0]?.extensions?.details ?? [];
    expect([JSON.stringify(input), details.some((d: any) => d.field === field && (d.code === code || errorCode(res) === code))]).toEqual([
      JSON.stringify(input),
      true,
    ]);
  }
  // a required field left out is a GraphQL input error on the field
  const missing = await app.gql(CREATE, { input: { zone: ZONE, owner: 'bad', ttl: 300, type: 'MX', data: { mx: { preference: 10 } } } });
  expect(JSON.stringify(missing.errors)).toContain('exchange');
  expect((await app.gql(`{ records(zone: "${ZONE}") { totalCount } }`)).data.records.totalCount).toBe(before);
});
