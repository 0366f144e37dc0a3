'use strict';
// The floor of the write path on this machine: a plain node `http` server with a `pg` pool
// that runs the service's own statements for `POST /api/record/add` — readZone, then writeZoneChange, from the
// built repositories (dist/src/repositories/zone-writes.js), as named prepared statements — with nothing
// else: no express, no GraphQL, no authentication, no DNS validation, no rules. What the service does above
// this floor is its framework and its checks; the bench reports Zonekeeper ÷ floor from the same run.
// The body is one record `{ zone, owner, rtype, rdata, ttl }` (bench/run.js's wrk script), or a set of new
// records `{ zone, records: [{ owner, rtype, rdata, ttl }] }` written as one change set (bench/powerdns-api.js).
//
// Two floors, as the service has two paths (src/services/write-engine/optimistic.ts):
//   - `read`: readZone, then writeZoneChange conditional on the serial read: two round trips a request (the
//     service's path before zone heads, and still its path for a zone it does not hold);
//   - `head` (`startWriteFloor(url, { head: true })`): the zone's head held in the process (id, user, serial,
//     SOA, as write-engine/zone-heads.ts holds it), and writeZoneChange with `expect` (the serial, the zone
//     still primary, unsigned, its user's, no record at the new owners): one round trip; a zone not held, or a
//     write that did not apply, is read and written as `read` does.
const http = require('node:http');
const path = require('node:path');
const { Pool } = require('pg');

const ROOT = path.resolve(__dirname, '..', '..');

/** Starts the floor server on a free loopback port against `databaseUrl` (the service's own database). */
async function startWriteFloor(databaseUrl, options = {}) {
  const { readZone, writeZoneChange } = require(path.join(ROOT, 'dist', 'src', 'repositories', 'zone-writes.js'));
  const { StatementNames } = require(path.join(ROOT, 'dist', 'src', 'db', 'prepared-statements.js'));
  const statementNames = new StatementNames();
  // a statement run alone as the service runs it (its generic plan where it asks for one: src/db/pool.ts)
  const { queryAlone } = require(path.join(ROOT, 'dist', 'src', 'db', 'pool.js'));
  const pool = new Pool({ connectionString: databaseUrl, max: 10 });
  // a connection the server ends is an 'error' event of the pool; unheard, it ends the whole benchmark (pg's
  // documentation: always listen on a pool's errors). After `stop`, a backend still closing when the run drops
  // its database (`with (force)`) is ended so: expected, and not worth a line
  let stopping = false;
  pool.on('error', (error) => {
    if (!stopping) console.error(`write floor: a pooled connection ended: ${error.message}`);
  });

  /** the zones' heads (`options.head`): by zone name, what the last read or write here left */
  const heads = new Map();

  const handle = async (body) => {
    const parsed = JSON.parse(body);
    const records = parsed.records ?? [parsed];
    const client = await pool.connect();
    try {
      const sql = {
        rows: async (text, values = [], rowOptions) =>
          (await queryAlone(client, { name: statementNames.nameOf(text), text, values }, rowOptions)).rows,
        // the floor wakes no journal reader (the service signals after its commits: src/db/journal-signal.ts)
        journalWritten: () => undefined,
      };
      const owners = records.map((r) => r.owner);
      const head = options.head ? heads.get(parsed.zone) : undefined;
      heads.delete(parsed.zone);
      if (head) {
        const ids = await write(sql, head, records, { userId: head.userId, unknownOwners: owners });
        if (Array.isArray(ids)) return answer(parsed, records, ids);
      }
      const zone = await readZone(
        sql,
        parsed.records
          ? { zone: { name: parsed.zone }, touching: { owners: records.map((r) => r.owner), recordIds: [] } }
          : { zone: { name: parsed.zone }, owner: parsed.owner },
        false,
      );
      if (!zone) return { status: 404 };
      const ids = await write(sql, zone, records);
      // another write to the zone came in between: the service decides again; the floor answers 409
      if (!Array.isArray(ids)) return { status: 409 };
      return answer(parsed, records, ids);
    } finally {
      client.release();
    }
  };

  const answer = (parsed, records, ids) => {
    const first = { owner: records[0].owner, type: records[0].rtype, rdata: records[0].rdata, ttl: records[0].ttl };
    return { status: 201, json: parsed.records ? { ids: ids.map(String) } : { id: String(ids[0]), ...first } };
  };

  /** the change on the zone as read (or as held): the serial up by one, the SOA's serial with it, the journal row */
  const write = async (sql, zone, records, expect) => {
    const after = zone.serial + 1;
    // RFC 1035 §3.3.13: the serial is the third field of the SOA's RDATA
    const soaRdata = zone.soa.rdata.replace(/^(\S+ \S+ )\d+/, `$1${after}`);
    const inserted = records.map((r) => ({ owner: r.owner, type: r.rtype, rdata: r.rdata, ttl: r.ttl }));
    const written = await writeZoneChange(sql, {
      domainId: zone.id,
      zone: zone.name,
      serialBefore: zone.serial,
      serialAfter: after,
      inserts: inserted,
      deleteIds: [],
      soa: { id: zone.soa.id, rdata: soaRdata, ttl: zone.soa.ttl },
      removed: [{ owner: '@', type: 'SOA', ttl: zone.soa.ttl, rdata: zone.soa.rdata }],
      added: [...inserted, { owner: '@', type: 'SOA', ttl: zone.soa.ttl, rdata: soaRdata }],
      expect,
    });
    // `{ inserted, signerInserted }` when written; `{ moved }` or `{ quota }` when not
    const ids = written.inserted;
    if (ids && options.head) {
      heads.set(zone.name, { id: zone.id, name: zone.name, userId: zone.userId, serial: after, soa: { ...zone.soa, rdata: soaRdata } });
    }
    return ids;
  };

  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => {
      body += chunk;
    });
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
