import { ADMIN_KEY, startTestApp, TestApp } from '../support/test-app';
import { CREATE_RECORD, createUser, createUserKey, createZone, errorCode } from '../support/fixtures';

// The console finds a zone among many by the start of its name (domains(nameStartsWith:)), paged; and a record
// among every zone's by a part of its name or content (searchRecords, PowerDNS's search-data: docs/search.md).
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

it('sorts by record count, serial, kind and DNSSEC state either way across pages, ties in creation order', async () => {
  // the zones differ in record count and serial: a few get records
  for (const [i, zone] of ['blog-3.test', 'blog-4.test', 'blog-5.test', 'shop-05.test'].entries())
    for (let n = 0; n <= i; n++) {
      const res = await app.gql(CREATE_RECORD, { input: { zone, owner: `host${n}`, type: 'A', rdata: `192.0.2.${n + 1}`, ttl: 3600 } });
      expect(res.errors).toBeUndefined();
    }
  const FACTS = `query($o: DomainOrder, $first: Int!, $after: String) {
    domains(first: $first, after: $after, orderBy: $o) { nodes { id recordCount serial kind dnssecState } pageInfo { hasNextPage endCursor } } }`;
  const walk = async (o: string) => {
    const all: { id: string; recordCount: number; serial: number; kind: string; dnssecState: string }[] = [];
    let after: string | null = null;
    for (;;) {
      const res: { errors?: unknown[]; data?: any } = await app.gql(FACTS, { o, first: 4, after });
      expect(res.errors).toBeUndefined();
      all.push(...res.data.domains.nodes);
      if (!res.data.domains.pageInfo.hasNextPage) return all;
      after = res.data.domains.pageInfo.endCursor;
    }
  };
  const created = await walk('CREATED');
  const by = (fact: (z: (typeof created)[number]) => number | string, descending: boolean) =>
    [...created]
      .sort((a, b) => {
        const [x, y] = [fact(a), fact(b)];
        const order = x < y ? -1 : x > y ? 1 : Number(a.id) - Number(b.id);
        return descending ? -order : order;
      })
      .map((z) => z.id);
  expect(new Set(created.map((z) => z.recordCount)).size).toBeGreaterThan(3);
  for (const [o, fact] of [
    ['RECORDS', (z) => z.recordCount],
    ['SERIAL', (z) => z.serial],
    ['KIND', (z) => z.kind.toLowerCase()],
    ['DNSSEC', (z) => z.dnssecState],
  ] as [string, (z: (typeof created)[number]) => number | string][]) {
    expect({ o, ids: (await walk(o)).map((z) => z.id) }).toEqual({ o, ids: by(fact, false) });
    expect({ o, ids: (await walk(`${o}_DESC`)).map((z) => z.id) }).toEqual({ o, ids: by(fact, true) });
  }
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

describe('the search across zones (searchRecords, search-data)', () => {
  const FIND = `query($q: String!, $first: Int!, $after: String) {
    searchRecords(query: $q, first: $first, after: $after) { totalCount nodes { zone owner type rdata ttl domain { id } } pageInfo { hasNextPage endCursor } } }`;
  /** every match as `owner.zone TYPE rdata`, walking the pages `first` at a time */
  async function found(q: string, key?: string, first = 100): Promise<string[]> {
    const all: string[] = [];
    let after: string | null = null;
    for (;;) {
      const res: { errors?: unknown[]; data?: any } = await app.gql(FIND, { q, first, after }, key);
      expect(res.errors).toBeUndefined();
      const page = res.data.searchRecords;
      expect(page.nodes.length).toBeLessThanOrEqual(first);
      for (const r of page.nodes) all.push(`${r.owner === '@' ? '' : `${r.owner}.`}${r.zone} ${r.type} ${r.rdata}`);
      if (!page.pageInfo.hasNextPage) {
        expect(page.totalCount).toBe(all.length);
        return all.sort();
      }
      after = page.pageInfo.endCursor;
    }
  }
  const add = async (zone: string, owner: string, type: string, rdata: string) => {
    const res = await app.gql(CREATE_RECORD, { input: { zone, owner, type, rdata, ttl: 3600 } });
    expect(res.errors).toBeUndefined();
  };

  beforeAll(async () => {
    // alice's shop-03 and blog-0, bob's shop-10 and blog-1
    await add('shop-03.test', 'mail', 'A', '192.0.2.33');
    await add('shop-03.test', 'notes', 'TXT', '"Hello-Needle World"');
    await add('shop-10.test', 'needle-host', 'A', '192.0.2.10');
    await add('blog-0.test', 'files', 'CNAME', 'needle.shop-03.test.');
    await add('blog-1.test', 'other', 'AAAA', '2001:db8::1');
  });

  it('finds a part of a name or of a content, in any letter case, across the zones of every user (the admin)', async () => {
    const needles = [
      'files.blog-0.test CNAME needle.shop-03.test.',
      'needle-host.shop-10.test A 192.0.2.10',
      'notes.shop-03.test TXT "Hello-Needle World"',
    ];
    expect(await found('NEEDLE')).toEqual(needles);
    // by pages of 2, with the same total on each
    expect(await found('needle', undefined, 2)).toEqual(needles);
    // an absolute name across its owner and its zone's name, a final dot or not
    expect(await found('mail.shop-03.TEST.')).toEqual(['mail.shop-03.test A 192.0.2.33']);
    expect(await found('r.blog-1.t')).toEqual(['other.blog-1.test AAAA 2001:db8::1']);
    expect(await found('2001:DB8::')).toEqual(['other.blog-1.test AAAA 2001:db8::1']);
    // `_` and `%` are characters, not wildcards; nothing found is an empty page
    expect(await found('needle_host')).toEqual([]);
    expect(await found('%')).toEqual([]);
  });

  it("finds every record of a zone by a part of the zone's name, the apex's too; the apex's `@` is no part of a name", async () => {
    const res = await app.gql(`{ records(zone: "blog-1.test", first: 100) { nodes { owner type rdata } } }`);
    expect(res.errors).toBeUndefined();
    const zone: string[] = res.data.records.nodes.map(
      (r: { owner: string; type: string; rdata: string }) => `${r.owner === '@' ? '' : `${r.owner}.`}blog-1.test ${r.type} ${r.rdata}`,
    );
    expect(zone).toEqual(expect.arrayContaining([expect.stringMatching(/^blog-1\.test SOA /), 'other.blog-1.test AAAA 2001:db8::1']));
    // blog-10, blog-11 and blog-12 hold the text as well
    const matches = await found('BLOG-1');
    expect(matches).toEqual(expect.arrayContaining(zone));
    expect(matches.every((m) => /blog-1/.test(m))).toBe(true);
    expect(await found('@')).toEqual([]);
  });

  it("a user's key finds only its user's records; a restricted key only what its rules let it read", async () => {
    expect(await found('needle', await createUserKey(app, aliceId))).toEqual([
      'files.blog-0.test CNAME needle.shop-03.test.',
      'notes.shop-03.test TXT "Hello-Needle World"',
    ]);
    expect(await found('needle', await createUserKey(app, bobId))).toEqual(['needle-host.shop-10.test A 192.0.2.10']);
    const res = await app.gql(`mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { secret } }`, {
      input: { userId: bobId, name: 'www of one shop', policy: { rules: [{ zone: 'shop-10.test', owner: 'www', access: 'READ' }] } },
    });
    expect(res.errors).toBeUndefined();
    const restricted = res.data.createApiKey.secret;
    expect(await found('needle', restricted)).toEqual([]);
    expect(await found('shop-1', restricted)).toEqual(['www.shop-10.test CNAME shop-10.test.']);
  });

  it('has its trigram indexes: pg_trgm is there in the embedded PostgreSQL and in Debian’s alike', async () => {
    const rows = await app.service.database.db.rows<{ indexname: string }>(
      `select indexname from pg_indexes where indexname like '%trgm_index' order by indexname`,
    );
    expect(rows.map((r) => r.indexname)).toEqual(['domains_name_trgm_index', 'records_owner_trgm_index', 'records_rdata_trgm_index']);
  });

  it('refuses an empty or overlong query, naming the field', async () => {
    for (const q of ['  ', 'x'.repeat(256)]) {
      const res = await app.gql(FIND, { q, first: 5 });
      expect(errorCode(res)).toBe('INVALID_INPUT');
      expect(res.errors?.[0].extensions.details[0]).toMatchObject({ field: 'query' });
    }
  });

  it('PowerDNS search-data: zones first, then records in PowerDNS’s shape, `*` and `?` matched whole', async () => {
    const search = (q: string, more = '', key = ADMIN_KEY) =>
      app.http.get(`/api/v1/servers/localhost/search-data?q=${encodeURIComponent(q)}${more}`).set('X-API-Key', key);
    const mail = await search('MAIL.shop-0?.test');
    expect(mail.status).toBe(200);
    expect(mail.body).toEqual([
      {
        object_type: 'record',
        name: 'mail.shop-03.test.',
        type: 'A',
        ttl: 3600,
        content: '192.0.2.33',
        disabled: false,
        zone: 'shop-03.test.',
        zone_id: 'shop-03.test.',
      },
    ]);
    // matched whole: a part alone is not found without its wildcards
    expect((await search('needle')).body).toEqual([]);
    const needles = await search('*needle*');
    expect(needles.body.map((o: any) => `${o.object_type} ${o.name} ${o.type}`).sort()).toEqual([
      'record files.blog-0.test. CNAME',
      'record needle-host.shop-10.test. A',
      'record notes.shop-03.test. TXT',
    ]);
    // the zone first, then its apex records, `max` zones and `max` records (as PowerDNS bounds each apart)
    const zoneFirst = await search('shop-03.test', '&max=1');
    expect(zoneFirst.body.map((o: any) => `${o.object_type} ${o.name}`)).toEqual(['zone shop-03.test.', 'record shop-03.test.']);
    expect((await search('shop-03.test', '&object_type=zone')).body).toHaveLength(1);
    expect((await search('*needle*', '&object_type=record', await createUserKey(app, bobId))).body.map((o: any) => o.name)).toEqual([
      'needle-host.shop-10.test.',
    ]);
    expect((await search('*needle*', '&object_type=comment')).body).toEqual([]);
  });
});
