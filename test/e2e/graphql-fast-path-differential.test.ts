import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  getNamedType,
  GraphQLArgument,
  GraphQLField,
  GraphQLNamedType,
  GraphQLSchema,
  isAbstractType,
  isEnumType,
  isLeafType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  print,
} from 'graphql';
import { getSchema } from '../../src/graphql/schema';
import { RunningService, startService } from '../../src/main';
import { createUser, createZone, CREATE_RECORD } from '../support/fixtures';
import { prng } from '../support/prng';
import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';

/**
 * The fast paths of GraphQL (FAST_PATHS: compiled execution, the direct field resolvers, the plain record lists
 * written from packed text) must answer exactly what graphql-js answers without them. A seeded generator writes
 * queries over the nested shape (users, zones, records and the types around them: every field the schema gives
 * them, with arguments, aliases, named and inline fragments, variables, directives, totalCount and pageInfo,
 * nulls and errors), and each is sent to two services on one database: one with the fast paths, one with
 * FAST_PATHS=off. The answers (status, data and errors) must be the same JSON. A document runs on graphql-js the
 * first time a service sees it and compiled from the second (fast-path/compiled-execution.ts): the fast service answers
 * each query twice, and both answers must be the slow one's.
 *
 * Each query is sent with one of three keys: the admin key, a user's unrestricted key, and a key whose rules let
 * it read one zone whole and only the MX records of another.
 */
/**
 * the corpus's seed: the schema's fields are drawn from it, so a field added moves the corpus; moved on when
 * `Record.comment` came, for a corpus that still holds the pages with permissions the last check asks of it, and
 * again when `User.queries` came (the corpus it drew had 64 answers with data, not over a third)
 */
const SEED = 20261130;
const QUERIES = 200;
/** how deep the generator nests object fields below a root field */
const MAX_DEPTH = 4;

/**
 * Fields whose answer is not a function of the stored data: each service keeps its own in-process state for
 * them (what it has probed, sent or counted since it started), so two services on one database may differ.
 */
const LIVE_FIELDS = new Set(['Domain.propagation', 'Domain.health', 'Domain.aliasStatus', 'Domain.steeringChecks', 'Domain.steeredRrsets']);

/** the fields of User, Domain and Record the nested shape is made of: the generator picks them more often */
const SPINE = new Set([
  'Query.users',
  'Query.domains',
  'Query.records',
  'Query.domain',
  'Query.user',
  'Query.record',
  'User.domains',
  'User.domainsConnection',
  'Domain.records',
  'Domain.recordsConnection',
  'Domain.user',
  'Record.domain',
  'Record.data',
  'UserConnection.nodes',
  'DomainConnection.nodes',
  'RecordConnection.nodes',
  'UserConnection.pageInfo',
  'DomainConnection.pageInfo',
  'RecordConnection.pageInfo',
]);

/** the fields of a record its packed text holds */
const PLAIN_RECORD_FIELDS = ['id', 'zone', 'owner', 'type', 'rdata', 'ttl'];

const ZONES = ['a.diff.test', 'b.diff.test', 'c.diff.test', 'd.diff.test', 'e.diff.test'];
const EMAILS = ['one@diff.test', 'two@diff.test', 'three@diff.test', 'none@diff.test'];

let fast: TestApp;
let slow: RunningService;
let schema: GraphQLSchema;
/** the values the generator draws an argument from, by argument name; seeded below (ids and cursors) */
const VALUES: Record<string, unknown[]> = {
  first: [1, 1, 2, 2, 3, 5, 10, 100],
  owner: ['@', 'mail', 'www', 'host', 'txt', 'nope'],
  type: ['MX', 'A', 'TXT', 'mx', 'AAAA', 'TYPE1', 'SRV'],
  zone: ZONES,
  name: ZONES,
  nameStartsWith: ['a', 'b.', 'diff', 'z'],
  email: [...EMAILS, 'nobody@diff.test'],
  toSerial: [null],
};
/**
 * The values that make a field fail (a bad page size or cursor, a type no one knows, a zone or record that is
 * not there). A query draws at most one: when several fields fail under one non-null parent, GraphQL nulls the
 * parent with one of their errors, and which one comes first is each engine's own order (both are right).
 */
const FAULTS: Record<string, unknown[]> = {
  first: [0, -1, 100000],
  last: [0, 100000],
  after: ['not a cursor', '', 'eyJpZCI6MX0'],
  // `before` takes no id (cursors before 2026-11-29 were ids, and only `after` still takes one)
  before: ['not a cursor', '1'],
  type: ['NOPE!'],
  zone: ['missing.diff.test'],
  name: ['missing.diff.test'],
  id: ['999999', 'x'],
  userId: ['999999'],
  domainId: ['999999'],
  fromSerial: [1, 4294967295],
};
let keys: { name: string; key: string }[] = [];

beforeAll(async () => {
  fast = await startTestApp({ FAST_PATHS: 'on' });
  // the second service on the same database: the same rows, ids and times
  slow = await startService({ ...fast.settings, fastPaths: false });
  schema = await getSchema();

  const users: string[] = [];
  for (const email of EMAILS) users.push(await createUser(fast, email));
  const zoneIds: string[] = [];
  const owners = [users[0], users[0], users[1], users[1], users[2]];
  for (const [i, zone] of ZONES.entries()) zoneIds.push(await createZone(fast, owners[i], zone));
  const recordIds: string[] = [];
  for (const [i, zone] of ZONES.entries()) {
    const rows: [string, string, string][] = [
      ['mail', 'MX', `10 mx${i}.example.net.`],
      ['mail', 'MX', `20 backup${i}.example.net.`],
      ['host', 'A', `192.0.2.${i + 1}`],
      ['host', 'AAAA', `2001:db8::${i + 1}`],
      ['txt', 'TXT', `"v=spf1 -all" "é ${i}\\" \\\\"`],
      ['_sip._tcp', 'SRV', `10 60 5060 sip${i}.example.net.`],
      ['@', 'CAA', `0 issue "ca${i}.example.net"`],
    ];
    for (const [owner, type, rdata] of rows.slice(0, 3 + (i % 5))) {
      const res = await fast.gql(CREATE_RECORD, { input: { zone, owner, type, rdata, ttl: [300, 900, 3600][i % 3] } });
      if (res.errors) throw new Error(JSON.stringify(res.errors));
      recordIds.push(res.data.createRecord.id);
    }
  }
  // one disabled record: kept, not served
  const disable = await fast.gql(
    `mutation($z: String!, $id: ID!) { applyZoneChanges(zone: $z, changes: [{kind: DISABLE, id: $id}]) { serial } }`,
    {
      z: ZONES[0],
      id: recordIds[1],
    },
  );
  if (disable.errors) throw new Error(JSON.stringify(disable.errors));
  // RRsets' comments (Record.comment, read per RRset by a loader): some records answer one, the rest null
  for (const zone of ZONES.slice(0, 3)) {
    const commented = await fast.gql(
      `mutation($z: String!) { applyZoneChanges(zone: $z, changes: [{kind: COMMENT, owner: "mail", type: "MX", comment: "the mail hosts"},
        {kind: COMMENT, owner: "host", type: "A", comment: "é \\"quoted\\"\\nsecond line"}]) { serial } }`,
      { z: zone },
    );
    if (commented.errors) throw new Error(JSON.stringify(commented.errors));
  }

  const keyOf = async (userId: string, policy?: unknown) => {
    const res = await fast.gql(`mutation($i: CreateApiKeyInput!) { createApiKey(input: $i) { secret } }`, {
      i: { userId, name: policy ? 'narrow' : 'whole', ...(policy ? { policy } : {}) },
    });
    if (res.errors) throw new Error(JSON.stringify(res.errors));
    return res.data.createApiKey.secret as string;
  };
  keys = [
    { name: 'admin', key: ADMIN_KEY },
    { name: 'user', key: await keyOf(users[0]) },
    {
      name: 'narrow',
      key: await keyOf(users[0], {
        rules: [
          { zone: ZONES[0], access: 'READ' },
          { zone: ZONES[1], types: ['MX'], access: 'READ' },
        ],
      }),
    },
  ];

  // real cursors, from the answers themselves: each list's own (taken where its list, order and arguments are
  // the query's, refused elsewhere), and each list's also as a fault of the others' (another list's cursor)
  const cursors =
    await fast.gql(`{ users(first: 1) { pageInfo { endCursor startCursor } } domains(first: 2) { pageInfo { endCursor startCursor } }
    records(first: 3) { pageInfo { endCursor startCursor } } domain(name: "${ZONES[0]}") { recordsConnection(first: 1) { pageInfo { endCursor startCursor } }
    user { domainsConnection(first: 1) { pageInfo { endCursor startCursor } } } } }`);
  if (cursors.errors) throw new Error(JSON.stringify(cursors.errors));
  const data = cursors.data;
  const own: Record<string, { endCursor: string; startCursor: string }> = {
    users: data.users.pageInfo,
    domains: data.domains.pageInfo,
    records: data.records.pageInfo,
    recordsConnection: data.domain.recordsConnection.pageInfo,
    domainsConnection: data.domain.user.domainsConnection.pageInfo,
  };
  for (const [field, pageInfo] of Object.entries(own)) {
    // a list's own cursor is bound to the filters it was read with (none here): drawn beside other filters it is
    // refused, so it is drawn less often than none, for a corpus that still answers most of its questions
    VALUES[`${field}.after`] = [pageInfo.endCursor, null, null];
    VALUES[`${field}.before`] = [pageInfo.startCursor, null, null];
    const others = Object.entries(own).filter(([other]) => other !== field);
    FAULTS[`${field}.after`] = [...FAULTS.after, ...others.map(([, info]) => info.endCursor)];
    FAULTS[`${field}.before`] = [...FAULTS.before, ...others.map(([, info]) => info.startCursor)];
  }
  // a page from the end, now and then: `last` is drawn where `first` is not (both are a fault)
  VALUES.last = [1, 2, 3];
  VALUES['domain.id'] = zoneIds;
  VALUES['record.id'] = recordIds;
  VALUES['user.id'] = users;
  VALUES.userId = users;
  VALUES.domainId = zoneIds;
}, 60_000);

afterAll(async () => {
  await slow?.stop();
  await fast?.close();
});

interface Generated {
  query: string;
  variables: Record<string, unknown>;
}

/** a query of the corpus: its root fields, the fragments and variables its fields asked for */
function generate(random: () => number): Generated {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const chance = (p: number) => random() < p;
  const fragments: string[] = [];
  const variableDefinitions: string[] = [];
  const variables: Record<string, unknown> = {};

  let faulty = false;
  const argumentValue = (field: string, arg: GraphQLArgument): { value: unknown } | undefined => {
    const named = getNamedType(arg.type);
    const faults = FAULTS[`${field}.${arg.name}`] ?? FAULTS[arg.name];
    const menu = VALUES[`${field}.${arg.name}`] ?? VALUES[arg.name];
    if (faults && !faulty && (chance(0.04) || !menu?.length)) {
      faulty = true;
      return { value: pick(faults) };
    }
    if (menu?.length) return { value: pick(menu) };
    if (faults) return undefined;
    if (isEnumType(named)) return { value: { enum: pick(named.getValues()).name } };
    if (named.name === 'Boolean') return { value: chance(0.5) };
    return undefined;
  };
  const literal = (value: unknown): string =>
    value && typeof value === 'object' && 'enum' in value ? String((value as { enum: string }).enum) : JSON.stringify(value);

  /** the arguments of a field as written (some as variables), or undefined when a required one has no value */
  const argumentsOf = (field: GraphQLField<unknown, unknown>): string | undefined => {
    const written: string[] = [];
    for (const arg of field.args) {
      const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
      if (!required && !chance(0.5)) continue;
      // both type filters, naming different types, are a fault too, as are both page sizes
      const other = { type: 'recordType:', recordType: 'type:', first: 'last:', last: 'first:' }[arg.name];
      if (other && written.some((w) => w.startsWith(other))) {
        if (faulty || chance(0.9)) continue;
        faulty = true;
      }
      const drawn = argumentValue(field.name, arg);
      if (!drawn) {
        if (required) return undefined;
        continue;
      }
      // a value of the wrong shape for a non-null argument is a validation error; keep those rare
      if (drawn.value === null && isNonNullType(arg.type)) continue;
      if (chance(0.3)) {
        const name = `v${variableDefinitions.length}`;
        variableDefinitions.push(`$${name}: ${String(arg.type)}`);
        const value = drawn.value;
        variables[name] = value && typeof value === 'object' && 'enum' in value ? (value as { enum: string }).enum : value;
        written.push(`${arg.name}: $${name}`);
      } else {
        written.push(`${arg.name}: ${literal(drawn.value)}`);
      }
    }
    return written.length ? `(${written.join(', ')})` : '';
  };

  const selection = (type: GraphQLNamedType, depth: number): string => {
    if (isAbstractType(type)) {
      const members = schema.getPossibleTypes(type);
      const parts = ['__typename'];
      for (let i = 0; i < 1 + Math.floor(random() * 3); i++) {
        const member = pick(members);
        parts.push(`... on ${member.name} { ${selection(member, depth + 1)} }`);
      }
      return parts.join(' ');
    }
    if (!isObjectType(type)) return '';
    const fields = Object.values(type.getFields()).filter((f) => !LIVE_FIELDS.has(`${type.name}.${f.name}`));
    const leaves = fields.filter((f) => isLeafType(getNamedType(f.type)));
    const objects = fields.filter((f) => !isLeafType(getNamedType(f.type)));
    const parts: string[] = [];
    const spine = objects.filter((f) => SPINE.has(`${type.name}.${f.name}`));
    const aliasOf = () => (chance(0.15) ? `k${Math.floor(random() * 1000)}: ` : '');
    // a record list of plain fields only is the shape the fast paths answer from packed text: most record
    // lists are asked so, the others with every field or a few
    const plain = type.name === 'Record' && chance(0.6);
    const chosen = plain
      ? leaves.filter((f) => PLAIN_RECORD_FIELDS.includes(f.name) && chance(0.7))
      : type.name === 'Record' && chance(0.5)
        ? leaves
        : Array.from({ length: 1 + Math.floor(random() * Math.min(4, leaves.length)) }, () => pick(leaves));
    if (plain && chance(0.3)) chosen.reverse();
    for (const field of chosen) {
      const args = field.args.length ? argumentsOf(field) : '';
      if (args === undefined) continue;
      parts.push(`${aliasOf()}${field.name}${args}`);
    }
    if (chance(0.1)) parts.push('__typename');
    // a page's records with what the caller may do with each, as the console's zone page asks them
    if (plain && chance(0.4))
      parts.push(
        `${aliasOf()}permissions { ${pick(['edit delete', 'delete edit', 'edit', '__typename delete', 'e: edit delete', 'edit edit'])} }`,
      );
    if (depth < MAX_DEPTH && !(plain && chance(0.8))) {
      const wanted: GraphQLField<unknown, unknown>[] = [];
      for (const field of spine) if (chance(0.6)) wanted.push(field);
      if (chance(0.3) && objects.length) wanted.push(pick(objects));
      for (const field of wanted) {
        const args = argumentsOf(field);
        if (args === undefined) continue;
        const directive = chance(0.05) ? ` @${pick(['include', 'skip'])}(if: ${chance(0.5)})` : '';
        parts.push(`${aliasOf()}${field.name}${args}${directive} { ${selection(getNamedType(field.type), depth + 1)} }`);
      }
    }
    if (parts.length === 0) parts.push('__typename');
    let body = parts.join(' ');
    const wrap = random();
    if (wrap < 0.15) {
      const name = `F${fragments.length}`;
      fragments.push(`fragment ${name} on ${type.name} { ${body} }`);
      body = chance(0.5) ? `...${name}` : `...${name} ${parts[0]}`;
    } else if (wrap < 0.3) {
      body = chance(0.5) ? `... on ${type.name} { ${body} }` : `... { ${body} }`;
    }
    return body;
  };

  const query = schema.getQueryType()!;
  const roots = ['users', 'domains', 'records', 'domain', 'user', 'record'];
  // a second root field is a list: two root fields that may both be not found (one of them a zone, the other a
  // record) race to null the answer, and graphql-js reports whichever failed first, on either service
  const secondRoots = ['users', 'domains', 'records'];
  const parts: string[] = [];
  for (let i = 0; i < 1 + (chance(0.3) ? 1 : 0); i++) {
    const field = query.getFields()[pick(i ? secondRoots : roots)];
    const args = argumentsOf(field);
    if (args === undefined) continue;
    parts.push(`${i ? `second: ` : ''}${field.name}${args} { ${selection(getNamedType(field.type), 1)} }`);
  }
  const head = variableDefinitions.length ? `query Generated(${variableDefinitions.join(', ')})` : chance(0.5) ? 'query' : '';
  return { query: `${head} { ${parts.join(' ')} } ${fragments.join(' ')}`.trim(), variables };
}

async function ask(port: number, key: string, { query, variables }: Generated) {
  const res = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key },
    body: JSON.stringify({ query, variables }),
  });
  const text = await res.text();
  try {
    return { status: res.status, body: JSON.parse(text) as { data?: unknown; errors?: unknown[] } };
  } catch {
    throw new Error(`the answer to this query is not JSON\n${query}\n${JSON.stringify(variables)}\n${text.slice(0, 2000)}`);
  }
}

/**
 * The answer with its errors' list positions left out. When one field fails in several items of a list under a
 * non-null parent (a zone the key may not read whole, met twice), GraphQL nulls the parent with the error of
 * one of those items; which one is each engine's own order. The error is the same (message, code, locations,
 * field); its item may differ.
 */
function anyItem(answer: { status: number; body: { data?: unknown; errors?: unknown[] } }) {
  const errors = answer.body.errors?.map((error) => {
    const { path, ...rest } = error as { path?: (string | number)[] };
    return { ...rest, path: path?.map((key) => (typeof key === 'number' ? '#' : key)) };
  });
  return { ...answer, body: { ...answer.body, errors } };
}

/**
 * Whether both answers failed whole (no data, each with errors) with the same status. A query may meet two
 * failures the generator does not count as its one fault: a refusal that depends on the key (a user another key
 * may not see is USER_NOT_FOUND to it) beside a drawn fault. Both null the whole answer, and which error an engine
 * meets first is its own order (both are right); anything answered with data is still compared in full.
 */
const bothFailedWhole = (a: { status: number; body: { data?: unknown; errors?: unknown[] } }, b: typeof a) =>
  a.status === b.status && a.body.data === null && b.body.data === null && !!a.body.errors?.length && !!b.body.errors?.length;

test(`${QUERIES} generated queries: the fast paths answer what graphql-js answers, data and errors`, async () => {
  const random = prng(SEED);
  let answeredWithData = 0;
  let answeredWithErrors = 0;
  let recordLists = 0;
  let pagesWithPermissions = 0;
  let pagesFromTheEnd = 0;
  for (let i = 0; i < QUERIES; i++) {
    const generated = generate(random);
    const { name, key } = keys[Math.floor(random() * keys.length)];
    const expected = await ask(slow.httpPort!, key, generated);
    // the first run of a document is graphql-js's (with the direct resolvers), the second the compiled one
    for (const run of ['first', 'compiled']) {
      const answer = await ask(fast.service.httpPort!, key, generated);
      if (
        JSON.stringify(answer) !== JSON.stringify(expected) &&
        JSON.stringify(anyItem(answer)) !== JSON.stringify(anyItem(expected)) &&
        !bothFailedWhole(answer, expected)
      )
        throw new Error(
          `query ${i} (${run} run, key ${name}) answered differently\n${generated.query}\n${JSON.stringify(generated.variables)}\n` +
            `fast: ${JSON.stringify(answer).slice(0, 2000)}\nslow: ${JSON.stringify(expected).slice(0, 2000)}`,
        );
    }
    if (expected.body.data) answeredWithData++;
    if (expected.body.errors) answeredWithErrors++;
    if (/records(\(| \{)/.test(generated.query)) recordLists++;
    if (/nodes \{[^{}]*permissions \{/.test(generated.query)) pagesWithPermissions++;
    if (/\b(last|before): /.test(generated.query)) pagesFromTheEnd++;
  }
  // the corpus asks both questions that are answered and questions that fail, and the record lists
  expect(answeredWithData).toBeGreaterThan(QUERIES / 3);
  expect(answeredWithErrors).toBeGreaterThan(QUERIES / 20);
  expect(recordLists).toBeGreaterThan(QUERIES / 3);
  expect(pagesWithPermissions).toBeGreaterThan(QUERIES / 20);
  // and pages read backwards (last, before), their cursors the lists' own or another's
  expect(pagesFromTheEnd).toBeGreaterThan(QUERIES / 10);
}, 150_000);

test("the console's zone page (ZoneRecords, its own document): the same answer from each key, compiled or not", async () => {
  // the console's document as it sends it (it spreads no fragment)
  const operations = parse(readFileSync(path.join(__dirname, '../../console/src/operations.graphql'), 'utf8'));
  const zoneRecords = operations.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION && d.name?.value === 'ZoneRecords');
  const document = print(zoneRecords!);
  let compared = 0;
  for (const { name, key } of keys)
    for (const zone of ZONES)
      for (const variables of [
        { zone, first: 10000 },
        { zone, first: 2 },
        { zone, first: 3, type: 'MX' },
      ]) {
        const generated = { query: document, variables };
        const expected = await ask(slow.httpPort!, key, generated);
        for (const run of ['first', 'compiled']) {
          const answer = await ask(fast.service.httpPort!, key, generated);
          if (JSON.stringify(answer) !== JSON.stringify(expected))
            throw new Error(
              `ZoneRecords ${JSON.stringify(variables)} (${run} run, key ${name}) answered differently\n` +
                `fast: ${JSON.stringify(answer).slice(0, 2000)}\nslow: ${JSON.stringify(expected).slice(0, 2000)}`,
            );
        }
        if ((expected.body.data as { records?: { nodes: { permissions: unknown }[] } } | undefined)?.records?.nodes.length) compared++;
      }
  // pages of records with their permissions were compared, from more than one key
  expect(compared).toBeGreaterThan(ZONES.length * 2);
});
