import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

// The console finds a zone among many by the start of its name (domains(nameStartsWith:)), paged.
let app: TestApp;
let aliceId: string;
let bobId: string;

/** the 12 zones the prefix `shop-` matches: 8 of alice's, 4 of bob's */
const SHOPS = Array.from({ length: 12 }, (_, i) => `shop-${String(i).padStart(2, '0')}.test`);
const ALICE_SHOPS = SHOPS.slice(0, 8);

const SEARCH = `query($p: String, $first: Int!, $after: String) {
  domains(nameStartsWith: $p, first: $first, after: $after) { totalCount nodes { name } pageInfo { hasNextPage endCursor } } }`;

interface SearchPage {
  totalCount: number;
  nodes: { name: string }[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

/** every page of a search, `first` at a time, as the console walks it */
async function allPages(prefix: string, first: number, key?: string): Promise<{ totals: number[]; pages: string[][] }> {
  const totals: number[] = [];
  const pages: string[][] = [];
  let after: string | null = null;
  for (;;) {
    const res: { errors?: unknown[]; data?: any } = await app.gql(SEARCH, { p: prefix, first, after }, key);
    expect(res.errors).toBeUndefined();
    const { totalCount, nodes, pageInfo }: SearchPage = res.data.domains;
    totals.push(totalCount);
    pages.push(nodes.map((n) => n.name));
    if (!pageInfo.hasNextPage) return { totals, pages };
    expect(pageInfo.endCursor).not.toBe(after);
    after = pageInfo.endCursor;
  }
}

beforeAll(async () => {
  app = await startTestApp();
  aliceId = await createUser(app, 'alice@search.example');
  bobId = await createUser(app, 'bob@search.example');
  // 30 zones: the 12 shops, and 18 whose names sort just before, after or around `shop-` without starting with it
  const others = [
    'shop.test',
    'shoq-00.test',
    'shoo-99.test',
    'shop.shop-00.test',
    'xshop-00.test',
    ...Array.from({ length: 13 }, (_, i) => `blog-${i}.test`),
  ];
  expect(SHOPS.length + others.length).toBe(30);
  for (const [i, zone] of SHOPS.entries()) await createZone(app, i < ALICE_SHOPS.length ? aliceId : bobId, zone);
  for (const [i, zone] of others.entries()) await createZone(app, i % 2 ? aliceId : bobId, zone);
}, 120_000);
afterAll(async () => {
  await app?.close();
});

it('pages through the 12 matches by 5 with the search total and fresh cursors', async () => {
  const { totals, pages } = await allPages('shop-', 5);
  expect(totals).toEqual([12, 12, 12]);
  expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
  expect(pages.flat().sort()).toEqual(SHOPS);
});

it('normalises the prefix like a zone name: letter case and a final dot', async () => {
  const { totals, pages } = await allPages('SHOP-0', 100);
  expect(totals).toEqual([10]);
  expect(pages.flat().sort()).toEqual(SHOPS.slice(0, 10));
  const whole = await app.gql(SEARCH, { p: 'Shop-07.TEST.', first: 5 });
  expect(whole.data.domains.nodes).toEqual([{ name: 'shop-07.test' }]);
  // the empty prefix is no filter
  const all = await app.gql(SEARCH, { p: '', first: 1 });
  expect(all.data.domains.totalCount).toBe(30);
});

it('refuses a prefix that no zone name can start with, naming the field', async () => {
  const res = await app.gql(SEARCH, { p: 'sh op', first: 5 });
  expect(errorCode(res)).toBe('INVALID_INPUT');
  expect(res.errors?.[0].extensions.details[0]).toMatchObject({ field: 'nameStartsWith', code: 'NAME_INVALID_CHARACTER' });
});

it("a user key finds only its own user's matches", async () => {
  const aliceKey = await createUserKey(app, aliceId);
  const { totals, pages } = await allPages('shop-', 5, aliceKey);
  expect(totals).toEqual([8, 8]);
  expect(pages.flat().sort()).toEqual(ALICE_SHOPS);
});

it('a restricted key finds only the matches its rules name', async () => {
  const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
    input: { userId: bobId, name: 'one shop', policy: { rules: [{ zone: 'shop-10.test', access: 'READ' }] } },
  });
  expect(res.errors).toBeUndefined();
  const { totals, pages } = await allPages('shop-', 5, res.data.createApiKey.secret);
  expect(totals).toEqual([1]);
  expect(pages.flat()).toEqual(['shop-10.test']);
});

it('REST: GET /api/domain/list?name_prefix= lists the matches', async () => {
  const res = await app.http.get('/api/domain/list').set('X-API-Key', ADMIN_KEY).query({ name_prefix: 'SHOP-1' });
  expect(res.status).toBe(200);
  expect(res.body.map((d: { zone: string }) => d.zone).sort()).toEqual(['shop-10.test', 'shop-11.test']);
});

const BY_NAME = `query($p: String, $first: Int!, $after: String, $o: DomainOrder) {
  domains(nameStartsWith: $p, first: $first, after: $after, orderBy: $o) { nodes { name } pageInfo { hasNextPage endCursor } } }`;

/** every page in the order asked for, `first` at a time */
async function ordered(order: 'CREATED' | 'NAME' | 'NAME_DESC', first: number, prefix = '', key?: string): Promise<string[][]> {
  const pages: string[][] = [];
  let after: string | null = null;
  for (;;) {
    const res: { errors?: unknown[]; data?: any } = await app.gql(BY_NAME, { p: prefix, first, after, o: order }, key);
    expect(res.errors).toBeUndefined();
    pages.push(res.data.domains.nodes.map((n: { name: string }) => n.name));
    if (!res.data.domains.pageInfo.hasNextPage) return pages;
    after = res.data.domains.pageInfo.endCursor;
  }
}

it('sorts by name across pages (the console’s zone list), creation order staying the default', async () => {
  const byName = await ordered('NAME', 7);
  expect(byName.map((p) => p.length)).toEqual([7, 7, 7, 7, 2]);
  const names = byName.flat();
  expect(names).toEqual([...names].sort());
  expect(names).toHaveLength(30);
  const reversed = await ordered('NAME_DESC', 7);
  expect(reversed.flat()).toEqual([...names].reverse());
  // the zones were made shops first: creation order is not name order, and is what no orderBy gives
  const created = (await ordered('CREATED', 7)).flat();
  expect(created.slice(0, 12)).toEqual(SHOPS);
  expect(created).not.toEqual(names);
  const plain = await app.gql(SEARCH, { p: '', first: 30 });
  expect(plain.data.domains.nodes.map((n: { name: string }) => n.name)).toEqual(created);
  // with a prefix and a user's key: the user's matches, in name order
  const aliceKey = await createUserKey(app, aliceId);
  expect((await ordered('NAME', 3, 'shop', aliceKey)).flat()).toEqual([...ALICE_SHOPS, 'shop.shop-00.test'].sort());
});

it('a name-ordered page after a deleted zone’s cursor says so, naming the field', async () => {
  const userId = await createUser(app, 'carol@search.example');
  for (const zone of ['zz-a.test', 'zz-b.test', 'zz-c.test']) await createZone(app, userId, zone);
  const first = await app.gql(BY_NAME, { p: 'zz-', first: 1, o: 'NAME' });
  expect(first.data.domains.nodes).toEqual([{ name: 'zz-a.test' }]);
  const deleted = await app.gql(`mutation { deleteDomain(zone: "zz-a.test") }`, {}, ADMIN_KEY);
  expect(deleted.errors).toBeUndefined();
  const next = await app.gql(BY_NAME, { p: 'zz-', first: 1, after: first.data.domains.pageInfo.endCursor, o: 'NAME' });
  expect(errorCode(next)).toBe('INVALID_INPUT');
  expect(next.errors?.[0].extensions.details[0]).toMatchObject({ field: 'after', code: 'CURSOR_GONE' });
});
