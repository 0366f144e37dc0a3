'use strict';
// The floor of the write path on this machine: a plain node `http` server with a `pg` pool
// that runs the service's own statements for `POST /api/record/add` — readZone, then writeZoneChange, from the
// built repositories (dist/src/repositories/zone-writes.js), as named prepared statements — with nothing
// else: no express, no GraphQL, no authentication, no DNS validation, no rules. What the service does above
// this floor is its framework and its checks; the bench reports Zonekeeper ÷ floor from the same run.
// The body is one record `{ zone, owner, rtype, rdata, ttl }` (bench/run.js's wrk script), or a set of new
// records `{ zone, records: [{ owner, rtype, rdata, ttl }] }` written as one change set (bench/powerdns-api.js).
const http = require('node:http');
const path = require('node:path');
const { Pool } = require('pg');

const ROOT = path.resolve(__dirname, '..', '..');

/** Starts the floor server on a free loopback port against `databaseUrl` (the service's own database). */
async function startWriteFloor(databaseUrl) {
  const { readZone, writeZoneChange } = require(path.join(ROOT, 'dist', 'src', 'repositories', 'zone-writes.js'));
  const { statementName } = require(path.join(ROOT, 'dist', 'src', 'db', 'prepared-statements.js'));
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  // a connection the server ends is an 'error' event of the pool; unheard, it ends the whole benchmark (pg's
  // documentation: always listen on a pool's errors). After `stop`, a backend still closing when the run drops
  // its database (`with (force)`) is ended so: expected, and not worth a line
  let stopping = false;
  pool.on('error', (error) => {
    if (!stopping) console.error(`write floor: a pooled connection ended: ${error.message}`);
  });

  const handle = async (body) => {
    const parsed = JSON.parse(body);
    const records = parsed.records ?? [parsed];
    const client = await pool.connect();
    try {
      const sql = {
        rows: async (text, values = []) => (await client.query({ name: statementName(text), text, values })).rows,
        // the floor wakes no journal reader (the service signals after its commits: src/db/journal-signal.ts)
        journalWritten: () => undefined,
      };
      const zone = await readZone(
        sql,
        parsed.records
          ? { zone: { name: parsed.zone }, touching: { owners: records.map((r) => r.owner), recordIds: [] } }
          : { zone: { name: parsed.zone }, owner: parsed.owner },
        false,
      );
      if (!zone) return { status: 404 };
      const after = zone.serial + 1;
      // RFC 1035 §3.3.13: the serial is the third field of the SOA's RDATA
      const soaRdata = zone.soa.rdata.replace(/^(\S+ \S+ )\d+/, `$1${after}`);
      const inserted = records.map((r) => ({ owner: r.owner, type: r.rtype, rdata: r.rdata, ttl: r.ttl }));
      const ids = await writeZoneChange(sql, {
        domainId: zone.id,
        zone: zone.name,
        serialBefore: zone.serial,
        serialAfter: after,
        inserts: inserted,
        deleteIds: [],
        soa: { id: zone.soa.id, rdata: soaRdata, ttl: zone.soa.ttl },
        removed: [{ owner: '@', type: 'SOA', ttl: zone.soa.ttl, rdata: zone.soa.rdata }],
        added: [...inserted, { owner: '@', type: 'SOA', ttl: zone.soa.ttl, rdata: soaRdata }],
      });
      // another write to the zone came in between: the service decides again; the floor answers 409
      if (!Array.isArray(ids)) return { status: 409 };
      return { status: 201, json: parsed.records ? { ids: ids.map(String) } : { id: String(ids[0]), ...inserted[0] } };
    } finally {
      client.release();
    }
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => { body += chunk; });
    req.on('end', () => {
      handle(body).then(
        ({ status, json }) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(json ? JSON.stringify(json) : '');
        },
        (error) => {
          res.writeHead(500);
          res.end(String(error));
        },
      );
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    async stop() {
      stopping = true;
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}

module.exports = { startWriteFloor };
