'use strict';
// PowerDNS Authoritative (Debian's pdns-server + pdns-backend-pgsql or pdns-backend-sqlite3), the reference of
// the side-by-side runs: our own config dir, `launch=gpgsql` on its own database (or gsqlite3 on a file in the
// config dir), its HTTP API on a free loopback port.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { freePort, request, startProcess, waitForHttp } = require('./proc');

const SCHEMA = '/usr/share/pdns-backend-pgsql/schema/schema.pgsql.sql';
const SQLITE_SCHEMA = '/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql';

function pdnsBinary() {
  for (const candidate of ['/usr/sbin/pdns_server', '/usr/bin/pdns_server']) if (fs.existsSync(candidate)) return candidate;
  return 'pdns_server';
}

function pdnsVersion() {
  try {
    const out = execFileSync(pdnsBinary(), ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return (out.match(/PowerDNS Authoritative Server (\S+)/) || [])[1] ?? out.split('\n')[0];
  } catch (error) {
    const text = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    return (text.match(/PowerDNS Authoritative Server (\S+)/) || [])[1] ?? 'unknown';
  }
}

/** Loads the gpgsql schema into `database` (fresh) through an admin pg client of that database. */
async function loadSchema(client) {
  await client.query(fs.readFileSync(SCHEMA, 'utf8'));
}

/** `backend`: the launch= line and the backend's settings */
async function startPdns({ dir, backend, apiKey, logFile, extraConfig = [] }) {
  fs.mkdirSync(dir, { recursive: true });
  const apiPort = await freePort();
  const dnsPort = await freePort();
  const conf = [
    ...backend,
    'api=yes',
    `api-key=${apiKey}`,
    'webserver=yes',
    'webserver-address=127.0.0.1',
    `webserver-port=${apiPort}`,
    'webserver-allow-from=127.0.0.1/32',
    'local-address=127.0.0.1',
    `local-port=${dnsPort}`,
    `socket-dir=${dir}`,
    'daemon=no',
    'guardian=no',
    'disable-syslog=yes',
    'loglevel=4',
    'default-soa-content=ns1.example.net. hostmaster.example.net. 0 10800 3600 604800 3600',
    ...extraConfig,
  ].join('\n');
  fs.writeFileSync(path.join(dir, 'pdns.conf'), `${conf}\n`);
  const proc = startProcess(pdnsBinary(), [`--config-dir=${dir}`], { logFile, env: { PATH: process.env.PATH } });
  const base = `http://127.0.0.1:${apiPort}/api/v1/servers/localhost`;
  const headers = { 'x-api-key': apiKey };
  try {
    // without the key the API answers 401: it is up; then check the key
    await waitForHttp(base, { child: proc.child, ok: (status) => status === 200 || status === 401, timeoutMs: 30_000 });
    const res = await request('GET', base, { headers });
    if (res.status !== 200) throw new Error(`PowerDNS API answered ${res.status} with the key`);
  } catch (error) {
    await proc.stop();
    throw new Error(`PowerDNS did not start (log: ${logFile}): ${error.message}`);
  }
  return {
    ...proc,
    apiPort,
    dnsPort,
    base,
    headers,
    async api(method, route, body, expect = [200, 201, 204]) {
      const res = await request(method, `${base}${route}`, { headers, body });
      if (!expect.includes(res.status)) throw new Error(`PowerDNS ${method} ${route} → ${res.status} ${res.text.slice(0, 300)}`);
      return res.json;
    },
  };
}

/**
 * PowerDNS on a fresh PostgreSQL database of its own (`databaseUrl`): loads the gpgsql schema into it, then
 * starts pdns_server on it with `options` (dir, apiKey, logFile, extraConfig).
 */
async function startPdnsOnDatabase(databaseUrl, options) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await loadSchema(client);
  } finally {
    await client.end();
  }
  const url = new URL(databaseUrl);
  const backend = [
    'launch=gpgsql',
    `gpgsql-host=${url.hostname}`,
    `gpgsql-port=${url.port || 5432}`,
    `gpgsql-dbname=${url.pathname.slice(1)}`,
    `gpgsql-user=${decodeURIComponent(url.username) || 'postgres'}`,
    `gpgsql-password=${decodeURIComponent(url.password)}`,
  ];
  return startPdns({ ...options, backend });
}

/** PowerDNS on gsqlite3: a database file in `options.dir` made from the package's schema (sqlite3's CLI) */
async function startPdnsOnSqlite(options) {
  fs.mkdirSync(options.dir, { recursive: true });
  const database = path.join(options.dir, 'pdns.sqlite3');
  execFileSync('sqlite3', [database], { input: fs.readFileSync(SQLITE_SCHEMA), stdio: ['pipe', 'ignore', 'pipe'] });
  return startPdns({ ...options, backend: ['launch=gsqlite3', `gsqlite3-database=${database}`] });
}

module.exports = { startPdns, startPdnsOnDatabase, startPdnsOnSqlite, loadSchema, pdnsVersion, SCHEMA };
