import { startTestApp, TestApp } from '../support/test-app';
import { createUser, createUserKey, createZone, feedFrom } from '../support/fixtures';
import { buildOnce } from '../support/build';
import { runCli } from '../support/cli';
import { waitFor } from '../support/wait-for';

/**
 * RRset comments on every edge (docs/changes.md, «Comments»): one comment per RRset, written and read through
 * GraphQL, REST, the CLI, a zone file's import and the PowerDNS API, kept in the zone's history and its events;
 * a change of comments alone steps no serial.
 */
const ZONE = 'comments.example';
const RECORD = 'id owner type rdata ttl comment';
const CREATE = `mutation($i: RecordInput!) { createRecord(input: $i) { ${RECORD} } }`;
const UPDATE = `mutation($id: ID!, $i: RecordInput!) { updateRecord(id: $id, input: $i) { ${RECORD} } }`;
const APPLY = `mutation($z: String!, $c: [ZoneChangeInput!]!, $d: Boolean) { applyZoneChanges(zone: $z, changes: $c, dryRun: $d) {
  serialBefore serial comments { owner type before after } change { entryKind serialBefore serialAfter comments { owner type before after } } } }`;
const HISTORY = `query($z: String!) { domain(name: $z) { serial changes(first: 50) { nodes {
  id entryKind kind serialBefore serialAfter author { keyName } added { owner type rdata } comments { owner type before after } } } } }`;
const RECORDS = `query($z: String!) { records(zone: $z, first: 1000) { nodes { ${RECORD} } } }`;
const IMPORT = `mutation($z: String!, $t: String!, $m: ZoneImportMode!, $d: Boolean!) {
  importZone(zone: $z, text: $t, mode: $m, dryRun: $d, ttlPolicy: REFUSE) { added removed serial commentsKept warnings { code } } }`;

let app: TestApp;
let userId: string;
let userKey: string;

beforeAll(async () => {
  buildOnce();
  app = await startTestApp();
  userId = await createUser(app, 'comments@example.org');
  userKey = await createUserKey(app, userId);
  await createZone(app, userId, ZONE);
});
afterAll(async () => app?.close());

const serialOf = async (zone: string) =>
  (await app.gql(`query($z: String!) { domain(name: $z) { serial } }`, { z: zone })).data.domain.serial;
const history = async (zone: string) => (await app.gql(HISTORY, { z: zone })).data.domain.changes.nodes as any[];
const commentOf = async (zone: string, owner: string, type: string) => {
  const res = await app.gql(`query($z: String!, $o: String, $t: String) { records(zone: $z, owner: $o, type: $t) { nodes { comment } } }`, {
    z: zone,
    o: owner,
    t: type,
  });
  expect(res.errors).toBeUndefined();
  return res.data.records.nodes.map((n: any) => n.comment);
};

describe('GraphQL', () => {
  it('a record written with a comment reads it back, its RRset shares it, and the history keeps it with the record', async () => {
    const created = await app.gql(
      CREATE,
      { i: { zone: ZONE, owner: 'web', type: 'A', rdata: '192.0.2.1', ttl: 300, comment: 'the web server' } },
      userKey,
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createRecord).toMatchObject({ owner: 'web', type: 'A', comment: 'the web server' });
    // a second record of the RRset, written without a comment: the RRset's comment is its too
    const second = await app.gql(CREATE, { i: { zone: ZONE, owner: 'web', type: 'A', rdata: '192.0.2.2', ttl: 300 } }, userKey);
    expect(second.data.createRecord.comment).toBe('the web server');
    expect(await commentOf(ZONE, 'web', 'A')).toEqual(['the web server', 'the web server']);
    // another RRset of the owner has none
    await app.gql(CREATE, { i: { zone: ZONE, owner: 'web', type: 'TXT', rdata: '"v=1"', ttl: 300 } }, userKey);
    expect(await commentOf(ZONE, 'web', 'TXT')).toEqual([null]);

    const [last, withComment] = (await history(ZONE))
      .filter((n) => n.entryKind === 'ZONE_CHANGED')
      .slice(0, 3)
      .slice(1);
    expect(last.comments).toEqual([]);
    expect(withComment.comments).toEqual([{ owner: 'web', type: 'A', before: null, after: 'the web server' }]);
    expect(withComment.added.filter((r: any) => r.type === 'A')).toEqual([{ owner: 'web', type: 'A', rdata: '192.0.2.1' }]);
  });

  it('updateRecord changes the comment with the record; "" removes it; absent leaves it', async () => {
    const res = await app.gql(
      CREATE,
      { i: { zone: ZONE, owner: 'mail', type: 'A', rdata: '192.0.2.25', ttl: 300, comment: 'old mail' } },
      userKey,
    );
    const id = res.data.createRecord.id;
    const edited = await app.gql(UPDATE, {
      id,
      i: { zone: ZONE, owner: 'mail', type: 'A', rdata: '192.0.2.26', ttl: 300, comment: 'new mail' },
    });
    expect(edited.errors).toBeUndefined();
    expect(edited.data.updateRecord).toMatchObject({ rdata: '192.0.2.26', comment: 'new mail' });
    const kept = await app.gql(UPDATE, { id, i: { zone: ZONE, owner: 'mail', type: 'A', rdata: '192.0.2.27', ttl: 300 } });
    expect(kept.data.updateRecord.comment).toBe('new mail');
    const removed = await app.gql(UPDATE, { id, i: { zone: ZONE, owner: 'mail', type: 'A', rdata: '192.0.2.27', ttl: 600, comment: '' } });
    expect(removed.data.updateRecord.comment).toBeNull();
    const [newest] = await history(ZONE);
    expect(newest.comments).toEqual([{ owner: 'mail', type: 'A', before: 'new mail', after: null }]);
  });

  it('a comment past MAX_COMMENT_LENGTH is refused, naming the field, and nothing is written', async () => {
    expect(app.settings.maxCommentLength).toBe(512);
    const serial = await serialOf(ZONE);
    const long = 'x'.repeat(513);
    const res = await app.gql(CREATE, { i: { zone: ZONE, owner: 'long', type: 'A', rdata: '192.0.2.9', ttl: 300, comment: long } });
    expect(res.errors?.[0].extensions.code).toBe('INVALID_INPUT');
    expect(res.errors?.[0].extensions.details[0]).toMatchObject({ field: 'comment', code: 'COMMENT_TOO_LONG', limit: 512 });
    expect(res.errors?.[0].extensions.details[0].message).toContain('MAX_COMMENT_LENGTH');
    const set = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'web', type: 'A', comment: long }] });
    expect(set.errors?.[0].extensions.details[0]).toMatchObject({ field: 'changes[0].comment', code: 'COMMENT_TOO_LONG' });
    // exactly the limit is taken
    const at = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'long', type: 'A', comment: 'y'.repeat(512) }], d: true });
    expect(at.errors).toBeUndefined();
    expect(await serialOf(ZONE)).toBe(serial);
    expect(await commentOf(ZONE, 'long', 'A')).toEqual([]);
  });

  it('a change set of comments alone steps no serial, is one history entry of its own and one event', async () => {
    const before = await serialOf(ZONE);
    const { next } = await feedFrom(app);
    // a dry run says what it would change, and writes nothing
    const plan = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'web', type: 'A', comment: 'web, rack 4' }], d: true });
    expect(plan.data.applyZoneChanges.comments).toEqual([{ owner: 'web', type: 'A', before: 'the web server', after: 'web, rack 4' }]);
    expect(plan.data.applyZoneChanges.change).toBeNull();
    expect(await commentOf(ZONE, 'web', 'A')).toEqual(['the web server', 'the web server']);

    const res = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'web', type: 'A', comment: 'web, rack 4' }] }, userKey);
    expect(res.errors).toBeUndefined();
    const applied = res.data.applyZoneChanges;
    expect(applied.serial).toBe(before);
    expect(applied.serialBefore).toBe(before);
    expect(applied.comments).toEqual([{ owner: 'web', type: 'A', before: 'the web server', after: 'web, rack 4' }]);
    expect(applied.change).toEqual({
      entryKind: 'COMMENTS_CHANGED',
      serialBefore: before,
      serialAfter: before,
      comments: [{ owner: 'web', type: 'A', before: 'the web server', after: 'web, rack 4' }],
    });
    expect(await serialOf(ZONE)).toBe(before);
    expect(await commentOf(ZONE, 'web', 'A')).toEqual(['web, rack 4', 'web, rack 4']);
    const [newest] = await history(ZONE);
    expect(newest).toMatchObject({ entryKind: 'COMMENTS_CHANGED', kind: 'comment-changed', serialBefore: before, serialAfter: before });
    expect(newest.author.keyName).toBe('test');
    expect(newest.added).toEqual([]);

    const event = await waitFor('the comment change in the event feed', async () =>
      (await feedFrom(app, next)).events.find((e) => e.type === 'zone.comments_changed' && e.zone === ZONE),
    );
    expect(event.data).toMatchObject({
      zone: ZONE,
      serial: before,
      comments: [{ owner: 'web', type: 'A', before: 'the web server', after: 'web, rack 4' }],
    });

    // the same comment again changes nothing: no entry
    const count = (await history(ZONE)).length;
    const again = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'web', type: 'A', comment: 'web, rack 4' }] });
    expect(again.data.applyZoneChanges.comments).toBeNull();
    expect(again.data.applyZoneChanges.change).toBeNull();
    expect((await history(ZONE)).length).toBe(count);
  });

  it('records and comments in one set: one serial step, one entry with both; a comment on a change by id alone is refused', async () => {
    const before = await serialOf(ZONE);
    const res = await app.gql(APPLY, {
      z: ZONE,
      c: [
        { kind: 'REPLACE_RRSET', owner: 'api', type: 'A', ttl: 300, rdatas: ['192.0.2.80'], comment: 'the API' },
        { kind: 'COMMENT', owner: 'web', type: 'TXT', comment: 'verification' },
      ],
    });
    expect(res.errors).toBeUndefined();
    const applied = res.data.applyZoneChanges;
    expect(applied.serial).not.toBe(before);
    expect(applied.change.entryKind).toBe('ZONE_CHANGED');
    expect(applied.change.comments).toEqual([
      { owner: 'api', type: 'A', before: null, after: 'the API' },
      { owner: 'web', type: 'TXT', before: null, after: 'verification' },
    ]);
    const [newest] = await history(ZONE);
    expect(newest.serialBefore).toBe(before);
    expect(newest.comments).toHaveLength(2);

    const [record] = (await app.gql(RECORDS, { z: ZONE })).data.records.nodes.filter((r: any) => r.owner === 'api');
    const byId = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'REMOVE', id: record.id, comment: 'x' }] });
    expect(byId.errors?.[0].extensions.details[0]).toMatchObject({ field: 'changes[0].comment', code: 'COMMENT_NEEDS_RRSET' });
    const twice = await app.gql(APPLY, {
      z: ZONE,
      c: [
        { kind: 'COMMENT', owner: 'api', type: 'A', comment: 'one' },
        { kind: 'COMMENT', owner: 'api.comments.example.', type: 'a', comment: 'two' },
      ],
    });
    expect(twice.errors?.[0].extensions.details[0]).toMatchObject({ field: 'changes[1].comment', code: 'DUPLICATE_COMMENT' });
    const missing = await app.gql(APPLY, { z: ZONE, c: [{ kind: 'COMMENT', owner: 'api', type: 'A' }] });
    expect(missing.errors?.[0].extensions.details[0]).toMatchObject({ field: 'changes[0].comment', code: 'REQUIRED' });
  });

  it('a key that reads only some RRsets sees in the history and the events only their comments', async () => {
    const zone = 'acme-comments.example';
    await createZone(app, userId, zone);
    const acme = await app.gql(
      `mutation($u: ID!, $z: String) { createApiKey(input: {userId: $u, name: "acme", preset: ACME, zone: $z}) { secret } }`,
      { u: userId, z: zone },
    );
    const acmeKey = acme.data.createApiKey.secret;
    const { next } = await feedFrom(app);
    await app.gql(APPLY, {
      z: zone,
      c: [
        { kind: 'COMMENT', owner: 'web', type: 'A', comment: 'not the ACME key’s' },
        { kind: 'COMMENT', owner: '_acme-challenge', type: 'TXT', comment: 'renewed by the ACME client' },
      ],
    });
    const seen = await app.gql(HISTORY, { z: zone }, acmeKey);
    expect(seen.errors).toBeUndefined();
    expect(seen.data.domain.changes.nodes[0].comments).toEqual([
      { owner: '_acme-challenge', type: 'TXT', before: null, after: 'renewed by the ACME client' },
    ]);
    const event = await waitFor('the comment event, as the ACME key reads it', async () => {
      const page = await app.gql(`query($a: String) { events(after: $a, limit: 500) { events { type zone data } } }`, { a: next }, acmeKey);
      return (page.data?.events.events as any[] | undefined)?.find((e) => e.type === 'zone.comments_changed' && e.zone === zone);
    });
    expect(event.data.comments).toEqual([{ owner: '_acme-challenge', type: 'TXT', before: null, after: 'renewed by the ACME client' }]);
  });
  it('on a zone under review a comment is proposed with the change request, its plan saying it, nothing written', async () => {
    const zone = 'review-comments.example';
    await createZone(app, userId, zone);
    const approvals = await app.gql(`mutation($z: String!) { setZoneRequiredApprovals(zone: $z, approvals: 1) }`, { z: zone });
    expect(approvals.errors).toBeUndefined();
    const proposed = await app.gql(
      `mutation($z: String!, $c: [ZoneChangeInput!]!) { applyZoneChanges(zone: $z, changes: $c) { serial changeRequest { id } } }`,
      { z: zone, c: [{ kind: 'COMMENT', owner: 'web', type: 'A', comment: 'proposed' }] },
      userKey,
    );
    expect(proposed.errors).toBeUndefined();
    const id = proposed.data.applyZoneChanges.changeRequest.id;
    const request = await app.gql(`query($id: ID!) { changeRequest(id: $id) { status plan { comments { owner type before after } } } }`, {
      id,
    });
    expect(request.data.changeRequest.plan.comments).toEqual([{ owner: 'web', type: 'A', before: null, after: 'proposed' }]);
    // a file's comments are proposed with its records, as COMMENT changes of the request
    const imported = await app.gql(
      `mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE, dryRun: false, ttlPolicy: REFUSE) {
        commentsKept changeRequest { id } } }`,
      { z: zone, t: `api 300 IN A 192.0.2.7 ; from the file\n` },
      userKey,
    );
    expect(imported.errors).toBeUndefined();
    expect(imported.data.importZone.commentsKept).toBe(1);
    const fromFile = await app.gql(`query($id: ID!) { changeRequest(id: $id) { plan { comments { owner type after } } } }`, {
      id: imported.data.importZone.changeRequest.id,
    });
    expect(fromFile.data.changeRequest.plan.comments).toEqual([{ owner: 'api', type: 'A', after: 'from the file' }]);
    expect(await commentOf(zone, 'web', 'A')).toEqual([]);
    expect(await commentOf(zone, 'api', 'A')).toEqual([]);
  });
});

describe('REST', () => {
  it('the record paths take an optional comment and answer it; the list and GET show it; "" removes it', async () => {
    const added = await app.http
      .post('/api/record/add')
      .set('X-API-Key', userKey)
      .send({ zone: ZONE, owner: 'rest', rtype: 'A', rdata: '192.0.2.40', ttl: 300, comment: 'added by REST' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ owner: 'rest', type: 'A', ttl: '300', comment: 'added by REST' });
    const got = await app.http.get(`/api/record/list/${added.body.id}`).set('X-API-Key', userKey);
    expect(got.body.comment).toBe('added by REST');
    const list = await app.http.get('/api/record/list').set('X-API-Key', userKey);
    expect(list.status).toBe(200);
    const listed = list.body.filter((r: any) => r.zone === ZONE);
    expect(listed.find((r: any) => r.id === added.body.id).comment).toBe('added by REST');
    // a record whose RRset has no comment reads as it always did: no `comment`
    const soa = listed.find((r: any) => r.type === 'SOA');
    expect(Object.keys(soa).sort()).toEqual(['id', 'owner', 'rdata', 'ttl', 'type', 'zone']);

    const edited = await app.http
      .put(`/api/record/edit/${added.body.id}`)
      .set('X-API-Key', userKey)
      .send({ zone: ZONE, owner: 'rest', rtype: 'A', rdata: '192.0.2.41', ttl: 300, comment: 'edited by REST' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ rdata: '192.0.2.41', comment: 'edited by REST' });
    const cleared = await app.http
      .put(`/api/record/edit/${added.body.id}`)
      .set('X-API-Key', userKey)
      .send({ zone: ZONE, owner: 'rest', rtype: 'A', rdata: '192.0.2.41', ttl: 900, comment: '' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.comment).toBeUndefined();
    expect((await app.http.get(`/api/record/list/${added.body.id}`).set('X-API-Key', userKey)).body.comment).toBeUndefined();
  });

  it('a comment too long is a 422 naming comment, nothing written; a change set of comments alone, and the history', async () => {
    const serial = await serialOf(ZONE);
    const long = await app.http
      .post('/api/record/add')
      .set('X-API-Key', userKey)
      .send({ zone: ZONE, owner: 'rest2', rtype: 'A', rdata: '192.0.2.42', ttl: 300, comment: 'z'.repeat(600) });
    expect(long.status).toBe(422);
    expect(long.body.error).toBe('INVALID_INPUT');
    expect(long.body.details[0]).toMatchObject({ field: 'comment', code: 'COMMENT_TOO_LONG' });
    expect(await serialOf(ZONE)).toBe(serial);

    // a conditional GET's version moves with a comment alone, though the serial does not
    const listed = await app.http.get('/api/record/list').set('X-API-Key', userKey);
    const history = await app.http.get(`/api/domain/changes/${ZONE}`).set('X-API-Key', userKey);
    expect(listed.headers.etag).toBeTruthy();
    const set = await app.http
      .post(`/api/domain/changes/${ZONE}`)
      .set('X-API-Key', userKey)
      .send({ changes: [{ kind: 'COMMENT', owner: 'rest', type: 'A', comment: 'set by REST' }] });
    const relisted = await app.http.get('/api/record/list').set('X-API-Key', userKey).set('If-None-Match', listed.headers.etag);
    expect(relisted.status).toBe(200);
    expect(relisted.body.find((r: any) => r.owner === 'rest' && r.zone === ZONE).comment).toBe('set by REST');
    const rehistory = await app.http
      .get(`/api/domain/changes/${ZONE}`)
      .set('X-API-Key', userKey)
      .set('If-None-Match', history.headers.etag);
    expect(rehistory.status).toBe(200);
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      serialBefore: serial,
      serial,
      comments: [{ owner: 'rest', type: 'A', before: null, after: 'set by REST' }],
    });
    const plain = await app.http
      .post(`/api/domain/changes/${ZONE}`)
      .set('X-API-Key', userKey)
      .send({ changes: [{ kind: 'ADD', owner: 'plain', type: 'A', rdata: '192.0.2.43', ttl: 300 }] });
    expect(plain.status).toBe(200);
    expect(plain.body.comments).toBeUndefined();
    const changes = await app.http.get(`/api/domain/changes/${ZONE}`).set('X-API-Key', userKey);
    expect(changes.status).toBe(200);
    const [newest, commented] = changes.body;
    expect(newest.comments).toBeUndefined();
    expect(commented).toMatchObject({ kind: 'comment-changed', serialBefore: serial, serialAfter: serial });
    expect(commented.comments).toEqual([{ owner: 'rest', type: 'A', before: null, after: 'set by REST' }]);
  });
});

describe('the CLI', () => {
  it('record add and edit take --comment; record list shows the comments', async () => {
    const zone = 'cli-comments.example';
    await createZone(app, userId, zone);
    const add = await runCli(app.baseUrl, ['--json', 'record', 'add', zone, 'ftp', 'A', '192.0.2.21', '--comment', 'the old FTP host']);
    expect(add.code).toBe(0);
    expect(JSON.parse(add.out)).toMatchObject({ owner: 'ftp', comment: 'the old FTP host' });
    const list = await runCli(app.baseUrl, ['record', 'list', zone]);
    expect(list.code).toBe(0);
    const [header, ...lines] = list.out.trim().split('\n');
    expect(header).toMatch(/^ID\s+OWNER\s+TTL\s+TYPE\s+RDATA\s+COMMENT$/);
    expect(lines.find((l) => l.includes('ftp'))).toMatch(/192\.0\.2\.21\s+the old FTP host$/);
    const id = JSON.parse(add.out).id;
    const edit = await runCli(app.baseUrl, ['--json', 'record', 'edit', id, zone, 'ftp', 'A', '192.0.2.22', '--comment', '']);
    expect(edit.code).toBe(0);
    expect(JSON.parse(edit.out)).toMatchObject({ rdata: '192.0.2.22', comment: null });
    const history = await runCli(app.baseUrl, ['zone', 'changes', zone, '--first', '2']);
    expect(history.out.split('\n')[1]).toMatch(/ftp A$/);
  });
});

describe('zone files', () => {
  // a Cloudflare export: its comments and tags end the record lines; its notes are lines of their own
  const CLOUDFLARE = `;;
;; Domain:     import-comments.example.
;; Exported:   2026-11-29 10:00:00
;;
import-comments.example.	3600	IN	SOA	ns1.import-comments.example. hostmaster.import-comments.example. (
	2026112901 ; serial
	3600 ; refresh
	600 ; retry
	604800 ; expire
	300 ) ; minimum
;; A Records
web.import-comments.example.	300	IN	A	192.0.2.1 ; the web server cf_tags=cf-proxied:true
web.import-comments.example.	300	IN	A	192.0.2.2 ; the web server cf_tags=cf-proxied:true
api.import-comments.example.	300	IN	A	192.0.2.3 ; cf_tags=cf-proxied:false,env:prod
;; TXT Records
txt.import-comments.example.	300	IN	TXT	"a;b" ; quoted ; is data, this is the comment
plain.import-comments.example.	300	IN	A	192.0.2.4
`;

  it("a record line's comment becomes its RRset's, cf_tags kept; the answer counts them; an import of comments alone steps no serial", async () => {
    const zone = 'import-comments.example';
    await createZone(app, userId, zone);
    const dry = await app.gql(IMPORT, { z: zone, t: CLOUDFLARE, m: 'MERGE', d: true });
    expect(dry.errors).toBeUndefined();
    expect(dry.data.importZone.commentsKept).toBe(4);
    expect(await commentOf(zone, 'web', 'A')).toEqual([]);

    const res = await app.gql(IMPORT, { z: zone, t: CLOUDFLARE, m: 'MERGE', d: false }, userKey);
    expect(res.errors).toBeUndefined();
    expect(res.data.importZone.commentsKept).toBe(4);
    // two lines of one RRset with one comment: kept once
    expect(await commentOf(zone, 'web', 'A')).toEqual(['the web server cf_tags=cf-proxied:true', 'the web server cf_tags=cf-proxied:true']);
    expect(await commentOf(zone, 'api', 'A')).toEqual(['cf_tags=cf-proxied:false,env:prod']);
    expect(await commentOf(zone, 'txt', 'TXT')).toEqual(['quoted ; is data, this is the comment']);
    expect(await commentOf(zone, 'plain', 'A')).toEqual([null]);
    // the SOA's fields annotated one a line are the file's notes, no record's comment
    expect(await commentOf(zone, '@', 'SOA')).toEqual([null]);
    const [entry] = await history(zone);
    expect(entry.entryKind).toBe('ZONE_CHANGED');
    expect(entry.comments.map((c: any) => `${c.owner} ${c.type}`).sort()).toEqual(['api A', 'txt TXT', 'web A']);

    // the same file again: nothing; with a comment changed: the comment alone, no serial step
    const serial = await serialOf(zone);
    const count = (await history(zone)).length;
    const same = await app.gql(IMPORT, { z: zone, t: CLOUDFLARE, m: 'MERGE', d: false });
    expect(same.data.importZone).toMatchObject({ added: 0, removed: 0, serial, commentsKept: 4 });
    expect((await history(zone)).length).toBe(count);
    const changed = CLOUDFLARE.replace('cf_tags=cf-proxied:false,env:prod', 'cf_tags=cf-proxied:false,env:staging');
    const again = await app.gql(IMPORT, { z: zone, t: changed, m: 'MERGE', d: false });
    expect(again.data.importZone).toMatchObject({ added: 0, removed: 0, serial });
    expect(await serialOf(zone)).toBe(serial);
    const [newest] = await history(zone);
    expect(newest).toMatchObject({ entryKind: 'COMMENTS_CHANGED', serialBefore: serial, serialAfter: serial });
    expect(newest.comments).toEqual([
      { owner: 'api', type: 'A', before: 'cf_tags=cf-proxied:false,env:prod', after: 'cf_tags=cf-proxied:false,env:staging' },
    ]);
  });

  it('a comment past MAX_COMMENT_LENGTH refuses the file at its line, nothing written', async () => {
    const zone = 'import-long.example';
    await createZone(app, userId, zone);
    const serial = await serialOf(zone);
    const text = `x.import-long.example. 300 IN A 192.0.2.1 ; short\ny.import-long.example. 300 IN A 192.0.2.2 ; ${'n'.repeat(600)}\n`;
    const res = await app.gql(IMPORT, { z: zone, t: text, m: 'MERGE', d: false });
    expect(res.errors?.[0].extensions.code).toBe('INVALID_ZONE_FILE');
    expect(res.errors?.[0].extensions.details[0]).toMatchObject({ code: 'COMMENT_TOO_LONG', line: 2 });
    expect(res.errors?.[0].extensions.details[0].message).toContain('MAX_COMMENT_LENGTH');
    expect(await serialOf(zone)).toBe(serial);
  });
});

describe('the PowerDNS API', () => {
  const ZONES = '/api/v1/servers/localhost/zones';
  const zone = 'pdns-comments.example';
  const rrsetOf = async (name: string, type: string) => {
    const res = await app.http.get(`${ZONES}/${zone}.`).set('X-API-Key', userKey);
    expect(res.status).toBe(200);
    return res.body.rrsets.find((r: any) => r.name === name && r.type === type);
  };

  it("PowerDNS's comments read as the RRset's comment, and a comment written elsewhere reads as PowerDNS reads one", async () => {
    await createZone(app, userId, zone);
    const serial = await serialOf(zone);
    const patch = await app.http
      .patch(`${ZONES}/${zone}.`)
      .set('X-API-Key', userKey)
      .send({
        rrsets: [
          {
            name: `ns.${zone}.`,
            type: 'A',
            changetype: 'REPLACE',
            ttl: 300,
            records: [{ content: '192.0.2.53', disabled: false }],
            comments: [
              { content: 'first', account: 'admin', modified_at: 1700000000 },
              { content: 'second', account: 'ops', modified_at: 1700000100 },
            ],
          },
        ],
      });
    expect(patch.status).toBe(204);
    expect(await commentOf(zone, 'ns', 'A')).toEqual(['first\nsecond']);
    const [entry] = await history(zone);
    expect(entry.comments).toEqual([{ owner: 'ns', type: 'A', before: null, after: 'first\nsecond' }]);

    // GraphQL's comment replaces the list with one comment, of no account
    const serialNow = await serialOf(zone);
    const set = await app.gql(APPLY, { z: zone, c: [{ kind: 'COMMENT', owner: 'ns', type: 'A', comment: 'one comment now' }] });
    expect(set.errors).toBeUndefined();
    const rrset = await rrsetOf(`ns.${zone}.`, 'A');
    expect(rrset.comments).toEqual([{ content: 'one comment now', account: '', modified_at: expect.any(Number) }]);
    expect(Math.abs(rrset.comments[0].modified_at - Date.now() / 1000)).toBeLessThan(600);
    expect(await serialOf(zone)).toBe(serialNow);
    expect(serialNow).not.toBe(serial);

    // PowerDNS-Admin's comment edit alone (records left out): no serial step, an entry in the history
    const edit = await app.http
      .patch(`${ZONES}/${zone}.`)
      .set('X-API-Key', userKey)
      .send({
        rrsets: [{ name: `ns.${zone}.`, type: 'A', changetype: 'REPLACE', comments: [{ content: 'moved', account: 'admin' }] }],
      });
    expect(edit.status).toBe(204);
    expect(await serialOf(zone)).toBe(serialNow);
    const [newest] = await history(zone);
    expect(newest).toMatchObject({ entryKind: 'COMMENTS_CHANGED', serialAfter: serialNow });
    expect(newest.comments).toEqual([{ owner: 'ns', type: 'A', before: 'one comment now', after: 'moved' }]);
    // the account is PowerDNS's own: kept as given
    expect((await rrsetOf(`ns.${zone}.`, 'A')).comments).toEqual([{ content: 'moved', account: 'admin', modified_at: expect.any(Number) }]);
  });
});
