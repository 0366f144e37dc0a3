// Experiment behind bench/FINDINGS.md §1 (not the service): `node bench/experiments/write-floor.js`
// ceiling of the write path on this machine: node http + pg pool, one transaction of 4 statements per request
// (lock zone + read same-owner + SOA; one CTE inserting record + journal, updating serial + SOA; BEGIN/COMMIT)
const http = require('http'); const { Pool, Client } = require('pg'); const { wrk } = require('../lib/wrk');
(async () => {
  const admin = new Client({ connectionString: 'postgresql://postgres@127.0.0.1:5432/postgres' }); await admin.connect();
  await admin.query('drop database if exists zk_wfloor with (force)'); await admin.query('create database zk_wfloor');
  const pool = new Pool({ connectionString: 'postgresql://postgres@127.0.0.1:5432/zk_wfloor', max: 20 });
  await pool.query(`create table domains (id bigserial primary key, name text unique, serial bigint);
    create table records (id bigserial primary key, domain_id bigint not null, owner text not null, type text not null, rdata text not null, ttl int not null, created_at timestamptz default now(), updated_at timestamptz default now());
    create index on records(domain_id, owner); create unique index on records (domain_id, owner, type, md5(rdata));
    create table changes (id bigserial primary key, domain_id bigint, zone text, kind text, serial_before bigint, serial_after bigint, removed jsonb, added jsonb, created_at timestamptz default now(), published_at timestamptz);
    insert into domains (name, serial) select 'w' || g || '.w.example', 1 from generate_series(0, 99) g;
    insert into records (domain_id, owner, type, rdata, ttl) select id, '@', 'SOA', 'ns1. h. 1 3600 1800 604800 86400', 3600 from domains;`);
  const server = http.createServer((req, res) => { let b = ''; req.on('data', (c) => b += c); req.on('end', async () => {
    const r = JSON.parse(b); const c = await pool.connect();
    try {
      await c.query('begin');
      const { rows: [d] } = await c.query(`select d.id, d.serial, (select json_agg(x) from records x where x.domain_id = d.id and x.owner = $2) same, (select json_build_object('id', s.id, 'rdata', s.rdata) from records s where s.domain_id = d.id and s.owner = '@' and s.type = 'SOA') soa from domains d where d.name = $1 for update`, [r.zone, r.owner]);
      const after = Number(d.serial) + 1; const soa = d.soa.rdata.replace(/ \d+ /, ` ${after} `);
      const { rows: [ins] } = await c.query(`with i as (insert into records (domain_id, owner, type, rdata, ttl) values ($1, $2, $3, $4, $5) returning id), s as (update records set rdata = $6 where id = $7), u as (update domains set serial = $8 where id = $1) insert into changes (domain_id, zone, kind, serial_before, serial_after, removed, added) select $1, $9, 'zone-changed', $10, $8, $11, $12 from i returning (select id from i)`,
        [d.id, r.owner, r.rtype, r.rdata, r.ttl, soa, d.soa.id, after, r.zone, d.serial, JSON.stringify([{ soa: d.soa.rdata }]), JSON.stringify([r, { soa }])]);
      await c.query('commit'); res.writeHead(201, { 'content-type': 'application/json' }); res.end(JSON.stringify({ id: ins.id, ...r }));
    } catch (e) { await c.query('rollback'); res.writeHead(500); res.end(String(e)); } finally { c.release(); }
  }); }).listen(0, '127.0.0.1', async () => {
    const port = server.address().port; const zones = Array.from({ length: 100 }, (_, z) => `w${z}.w.example`);
    await wrk({ url: `http://127.0.0.1:${port}/api/record/add`, kind: 'zk-record', method: 'POST', headers: { 'content-type': 'application/json' }, zones, expect: 201, tmpDir: require('path').join(__dirname, '..', '.tmp'), connections: 16, seconds: 3, offset: 0 });
    const r = await wrk({ url: `http://127.0.0.1:${port}/api/record/add`, kind: 'zk-record', method: 'POST', headers: { 'content-type': 'application/json' }, zones, expect: 201, tmpDir: require('path').join(__dirname, '..', '.tmp'), connections: 16, seconds: 10, offset: 1000000 });
    console.log('write floor:', r.rps.toFixed(1), 'req/s p50', r.p50.toFixed(1), 'p99', r.p99.toFixed(1), 'bad', r.bad + r.non2xx);
    server.close(); await pool.end(); await admin.query('drop database zk_wfloor with (force)'); await admin.end();
  });
})();
