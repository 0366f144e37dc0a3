// Experiment behind bench/FINDINGS.md §2 and §3 (not the service): `node bench/experiments/read-floor.js`
// lower bounds: the same SQL as the service, rows → JSON, without GraphQL (node + pg only)
const { Client } = require('pg');
(async () => {
  const admin = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' }); await admin.connect();
  await admin.query('drop database if exists zk_floor with (force)'); await admin.query('create database zk_floor');
  const db = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/zk_floor' }); await db.connect();
  await db.query(`create table users (id bigserial primary key, email text not null, created_at timestamptz not null default now());
    create table domains (id bigserial primary key, user_id bigint not null, name text not null unique, serial bigint not null, created_at timestamptz not null default now());
    create index on domains(user_id);
    create table records (id bigserial primary key, domain_id bigint not null, owner text not null, type text not null, rdata text not null, ttl int not null, created_at timestamptz not null default now(), updated_at timestamptz not null default now());
    create index on records(domain_id, owner);
    insert into users (email) select 'u' || g || '@x.example' from generate_series(1, 100) g;
    insert into domains (user_id, name, serial) select 1 + (g % 100), 'z' || g || '.x.example', 1 from generate_series(0, 999) g;
    insert into records (domain_id, owner, type, rdata, ttl) select 1 + (g % 1000), 'r' || g, 'A', '192.0.2.1', 3600 from generate_series(0, 9999) g;
    insert into domains (user_id, name, serial) select 101, 'l' || g || '.x.example', 1 from generate_series(0, 99) g;
    insert into records (domain_id, owner, type, rdata, ttl) select 1001 + (g % 100), 'n' || g, 'A', '10.0.0.1', 3600 from generate_series(0, 89999) g; analyze;`);
  const RC = 'select r.id, r.domain_id, d.name as zone, r.owner, r.type, r.rdata, r.ttl from records r join domains d on d.id = r.domain_id';
  console.log((await db.query(`explain (analyze, buffers) ${RC} where r.id > 50000 order by r.id limit 10000`)).rows.map((r) => r['QUERY PLAN']).join('\n'));
  for (let k = 0; k < 3; k++) {
    let t = process.hrtime.bigint(); let after = 0; let bytes = 0;
    while (true) { const { rows } = await db.query(`${RC} where r.id > $1 order by r.id limit 10000`, [after]); if (!rows.length) break; after = rows[rows.length - 1].id; bytes += JSON.stringify(rows.map((r) => ({ id: Number(r.id), owner: r.owner, rdata: r.rdata, zone: r.zone, type: r.type, ttl: String(r.ttl) }))).length; }
    console.log('list 100k direct (SQL pages + JSON):', Number(process.hrtime.bigint() - t) / 1e6, 'ms', bytes, 'bytes');
    t = process.hrtime.bigint();
    const users = (await db.query('select id, email, created_at from users order by id limit 100')).rows;
    const doms = (await db.query('select id, user_id, name, serial, created_at from domains where user_id = any($1) order by id', [users.map((u) => u.id)])).rows;
    const recs = (await db.query(`${RC} where r.domain_id = any($1) order by r.id`, [doms.map((d) => d.id)])).rows;
    const byD = new Map(); for (const r of recs) (byD.get(r.domain_id) || byD.set(r.domain_id, []).get(r.domain_id)).push({ owner: r.owner, type: r.type, rdata: r.rdata, ttl: r.ttl });
    const byU = new Map(); for (const d of doms) (byU.get(d.user_id) || byU.set(d.user_id, []).get(d.user_id)).push({ name: d.name, records: byD.get(d.id) || [] });
    const s = JSON.stringify({ data: { users: { nodes: users.map((u) => ({ email: u.email, domains: byU.get(u.id) || [] })) } } });
    console.log('graphql-shaped answer direct (3 SQL + JSON):', Number(process.hrtime.bigint() - t) / 1e6, 'ms', s.length, 'bytes', recs.length, 'records');
  }
  await db.end(); await admin.query('drop database zk_floor with (force)'); await admin.end();
})();
