'use strict';
// The floor of the console's read shapes (bench/graphql-shapes.js): a plain node `http` server with a `pg` pool
// that reads the rows each shape answers with plain SELECTs of the same tables and columns the service reads,
// turns them into the answer's JSON with JSON.stringify, and sends it. The statements are named (parsed once per
// connection, as the service's are), and each runs on the plan that reads least for it: planned for its values
// (a count of one zone's records, a search), except the history page, which runs on its generic plan. Planned
// for its values, that page (`zone = … order by id desc limit 21`) walks the primary key backwards and filters by
// zone, which for a zone whose changes are not the table's newest reads most of the table (30 ms instead of 0.1);
// the generic plan takes the (zone, id) index, while a generic count of one zone's records scans the whole
// table. Hence two pools, one per plan_cache_mode. The records page is ordered by (domain_id, id), the index that
// serves it, so that no plan walks the primary key for it. A floor is the plain way done well, not a planner's
// misstep. Nothing else: no express, no GraphQL, no authentication, no permissions beyond the one rule
// the answer shows (the SOA is not deletable). Its answers have the GraphQL answer's shape (`{ data: … }`, the
// same field names), so that the bytes on the wire and the benchmark's checks are the same for both.
//
// It runs in a process of its own (`startShapesFloor` forks this file), as the service does, so that the client
// measuring both shares neither's event loop.
const http = require('node:http');
const { fork } = require('node:child_process');

/** the statements, by the name each is prepared under */
const SQL = {
  zoneByName: 'select id, serial from domains where name = $1',
  recordPage: `select r.id, r.owner, r.type, r.ttl, r.rdata from records r
     where r.domain_id = $1 and r.id > $2 order by r.domain_id, r.id limit $3`,
  recordCount: 'select count(*)::int as n from records where domain_id = $1',
  disabled: 'select owner, type, ttl, rdata from disabled_records where domain_id = $1 order by owner, type, rdata',
  zonePage: `select d.id, d.name, d.serial, d.created_at, d.kind, d.user_id, u.email, d.record_count, z.state as dnssec_state,
            h.state as health_state, n.secondaries
       from domains d join users u on u.id = d.user_id join nameserver_sets n on n.id = d.nameserver_set
       left join dnssec_zones z on z.domain_id = d.id left join zone_health h on h.domain_id = d.id
      where d.user_id = $1 order by d.name collate "C" limit $2`,
  zoneCount: 'select count(*)::int as n from domains where user_id = $1',
  serverStatus: 'select domain_id, served_serial, state from zone_server_status where domain_id = any($1::bigint[])',
  changePage: `select id, kind, serial_before, serial_after, created_at, added, removed, author_key_id, author_key_name,
            author_user_id, author_tsig_key_id, author_email
       from changes where zone = $1 and domain_id = $2 and kind <> 'zone-signed' order by id desc limit $3`,
  changeCount: `select count(*)::int as n from changes where zone = $1 and domain_id = $2 and kind <> 'zone-signed'`,
  search: `select r.id, d.name as zone, r.owner, r.type, r.ttl, r.rdata from records r join domains d on d.id = r.domain_id
      where r.derived_from is null and (lower(r.owner) like $1 or lower(r.rdata) like $1) order by r.id limit $2`,
  searchCount: `select count(*)::int as n from records r
      where r.derived_from is null and (lower(r.owner) like $1 or lower(r.rdata) like $1)`,
  members: `select m.user_id, m.person_id, p.email, u.email as account_email, m.role, m.zones, m.created_at
       from memberships m join people p on p.id = m.person_id join users u on u.id = m.user_id
      where m.user_id = $1 order by lower(p.email)`,
  apiKeys: `select id, name, user_id, created_at, revoked_at, last_used_at, rules, preset, may_create_zones, may_delete_zones,
            may_manage_keys, expires_at, idle_days, allowed_networks
       from api_keys where user_id = $1 order by id`,
};

/** the statements run on their generic plan (the others are planned for their values) */
const GENERIC = new Set(['changePage']);

const iso = (t) => (t ? t.toISOString() : null);
const str = (v) => (v === null || v === undefined ? null : String(v));
const changed = (list) => list.map((r) => ({ owner: r.owner, type: r.type, ttl: r.ttl, rdata: r.rdata, toggled: r.toggled === true }));

/** a change's author: none for the service's own changes (no author column set) */
function authorOf(c) {
  const ids = [c.author_key_id, c.author_key_name, c.author_user_id, c.author_tsig_key_id, c.author_email];
  if (ids.every((v) => v === null)) return null;
  return {
    admin: c.author_key_id !== null && c.author_user_id === null,
    email: c.author_email,
    keyId: c.author_key_id,
    keyName: c.author_key_name,
    tsigKeyId: c.author_tsig_key_id,
    userId: c.author_user_id,
  };
}

/** the answers, by path: each reads its rows and returns the object to stringify */
function handlers(pools) {
  const rows = async (name, values) =>
    (await (GENERIC.has(name) ? pools.generic : pools.custom).query({ name, text: SQL[name], values })).rows;
  const zone = async (name) => (await rows('zoneByName', [name]))[0];
  return {
    /** ZoneRecords: a page of the zone's records in id order, and their count */
    async records(q) {
      const z = await zone(q.zone);
      const first = Number(q.first);
      const [page, [{ n }]] = await Promise.all([rows('recordPage', [z.id, q.after ?? 0, first + 1]), rows('recordCount', [z.id])]);
      const nodes = page.slice(0, first).map((r) => ({
        id: r.id,
        owner: r.owner,
        type: r.type,
        ttl: r.ttl,
        rdata: r.rdata,
        permissions: { edit: true, delete: r.type !== 'SOA' },
      }));
      const end = nodes.length ? nodes[nodes.length - 1].id : null;
      return { data: { records: { totalCount: n, pageInfo: { endCursor: end, hasNextPage: page.length > first }, nodes } } };
    },
    /** ZoneDisabledRecords */
    async disabled(q) {
      const z = await zone(q.zone);
      return { data: { domain: { id: z.id, disabledRecords: await rows('disabled', [z.id]) } } };
    },
    /** Zones: the first page by name of one account's zones, with their owner, facts, propagation and health */
    async zones(q) {
      const first = Number(q.first);
      const [page, [{ n }]] = await Promise.all([rows('zonePage', [q.userId, first + 1]), rows('zoneCount', [q.userId])]);
      const shown = page.slice(0, first);
      const statuses = await rows('serverStatus', [shown.map((d) => d.id)]);
      const behind = new Set(statuses.filter((s) => s.state !== 'in_sync').map((s) => s.domain_id));
      const nodes = shown.map((d) => ({
        id: d.id,
        name: d.name,
        serial: Number(d.serial),
        createdAt: iso(d.created_at),
        kind: d.kind.toUpperCase(),
        user: { id: d.user_id, email: d.email },
        recordCount: d.record_count,
        dnssecState: d.dnssec_state ?? 'unsigned',
        propagation: { state: d.secondaries?.length ? (behind.has(d.id) ? 'pending' : 'in_sync') : 'no_secondaries' },
        health: { state: d.health_state ?? 'unknown' },
      }));
      const end = nodes.length ? nodes[nodes.length - 1].id : null;
      return { data: { domains: { totalCount: n, pageInfo: { endCursor: end, hasNextPage: page.length > first }, nodes } } };
    },
    /** ZoneHistory: the newest changes of a zone, each with its author and records */
    async history(q) {
      const z = await zone(q.name);
      const first = Number(q.first);
      const [page, [{ n }]] = await Promise.all([rows('changePage', [q.name, z.id, first + 1]), rows('changeCount', [q.name, z.id])]);
      const nodes = page.slice(0, first).map((c) => ({
        id: c.id,
        kind: c.kind,
        createdAt: iso(c.created_at),
        serialBefore: c.serial_before === null ? null : Number(c.serial_before),
        serialAfter: Number(c.serial_after),
        author: authorOf(c),
        added: changed(c.added),
        removed: changed(c.removed),
      }));
      const end = nodes.length ? nodes[nodes.length - 1].id : null;
      const pageInfo = { endCursor: end, hasNextPage: page.length > first };
      return { data: { domain: { id: z.id, serial: Number(z.serial), changes: { totalCount: n, pageInfo, nodes } } } };
    },
    /** SearchRecords: records whose name or content holds the text, with their zone */
    async search(q) {
      const first = Number(q.first);
      const like = `%${q.query.toLowerCase()}%`;
      const [page, [{ n }]] = await Promise.all([rows('search', [like, first + 1]), rows('searchCount', [like])]);
      const nodes = page.slice(0, first);
      const end = nodes.length ? nodes[nodes.length - 1].id : null;
      return { data: { searchRecords: { totalCount: n, pageInfo: { endCursor: end, hasNextPage: page.length > first }, nodes } } };
    },
    /** Members */
    async members(q) {
      const list = await rows('members', [q.userId]);
      return {
        data: {
          members: list.map((m) => ({
            userId: m.user_id,
            personId: m.person_id,
            email: m.email,
            accountEmail: m.account_email,
            role: m.role.toUpperCase(),
            zones: m.zones,
            createdAt: iso(m.created_at),
          })),
        },
      };
    },
    /** ApiKeys: an account's keys with their policies */
    async keys(q) {
      const list = await rows('apiKeys', [q.userId]);
      return {
        data: {
          apiKeys: list.map((k) => ({
            id: k.id,
            name: k.name,
            userId: str(k.user_id),
            origin: 'CREATED',
            createdAt: iso(k.created_at),
            revokedAt: iso(k.revoked_at),
            lastUsedAt: iso(k.last_used_at),
            policy: {
              restricted: k.rules !== null,
              preset: k.preset,
              rules: k.rules,
              // an unrestricted key (no rules) may do everything its account may
              mayCreateZones: k.rules === null || k.may_create_zones,
              mayDeleteZones: k.rules === null || k.may_delete_zones,
              mayManageKeys: k.rules === null || k.may_manage_keys,
              expiresAt: iso(k.expires_at),
              idleDays: k.idle_days,
              allowedNetworks: k.allowed_networks,
            },
          })),
        },
      };
    },
  };
}

/** the child: serves GET /<shape>?<variables> on a free loopback port and tells the parent which */
function serve(databaseUrl) {
  const { Pool, types } = require('pg');
  // bigint ids as strings, as GraphQL's ID gives them
  types.setTypeParser(20, (v) => v);
  const pool = (mode) => {
    const made = new Pool({ connectionString: databaseUrl, max: 4, options: `-c plan_cache_mode=${mode}` });
    made.on('error', () => undefined); // a backend ended when the run drops its database: expected
    return made;
  };
  const pools = { custom: pool('force_custom_plan'), generic: pool('force_generic_plan') };
  const answer = handlers(pools);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://floor');
    const handler = answer[url.pathname.slice(1)];
    if (!handler) {
      res.writeHead(404).end();
      return;
    }
    handler(Object.fromEntries(url.searchParams)).then(
      (body) => {
        const text = JSON.stringify(body);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      },
      (error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error.stack ?? error)),
    );
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('disconnect', () => {
    server.close();
    void Promise.all([pools.custom.end(), pools.generic.end()]).finally(() => process.exit(0));
  });
}

/** Starts the floor in a child process (with the node options given: the service's own) against `databaseUrl`. */
function startShapesFloor(databaseUrl, nodeOptions = []) {
  return new Promise((resolve, reject) => {
    const child = fork(__filename, ['--serve', databaseUrl], { execArgv: nodeOptions, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the floor ended (exit ${code})`)));
    child.once('message', ({ port }) => {
      child.removeAllListeners('exit');
      resolve({
        pid: child.pid,
        base: `http://127.0.0.1:${port}`,
        stop: () =>
          new Promise((done) => {
            child.once('exit', () => done());
            child.disconnect();
          }),
      });
    });
  });
}

if (require.main === module && process.argv[2] === '--serve') serve(process.argv[3]);

module.exports = { startShapesFloor };
