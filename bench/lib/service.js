'use strict';
// Starts Zonekeeper as a user would after `npm run build`: the command of `npm run serve` (what `npm start`
// runs after building) with settings in the environment, on free loopback ports, against a database URL given
// by the caller.
const path = require('node:path');
const { freePort, request, startProcess, waitForHttp } = require('./proc');

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * `npm run serve` is `exec node <node options> dist/src/main.js` (exec: npm's signals reach node); the bench
 * runs that command line, read from package.json
 */
function serveCommand() {
  const script = require(path.join(ROOT, 'package.json')).scripts.serve;
  const words = script.trim().split(/\s+/).filter((word, i) => !(i === 0 && word === 'exec'));
  if (words[0] !== 'node' || words[words.length - 1] !== 'dist/src/main.js') throw new Error(`unexpected serve script: ${script}`);
  return { nodeOptions: words.slice(1, -1), text: script };
}

async function startService({ databaseUrl, apiKey, logFile, env = {}, nodeArgs = [], main = path.join(ROOT, 'dist', 'src', 'main.js') }) {
  const port = await freePort();
  const dnsPort = await freePort();
  const proc = startProcess(process.execPath, [...serveCommand().nodeOptions, ...nodeArgs, main], {
    cwd: ROOT,
    logFile,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: databaseUrl,
      API_KEY: apiKey,
      HOST: '127.0.0.1',
      PORT: String(port),
      DNS_LISTEN: `127.0.0.1:${dnsPort}`,
      // the benchmarks measure throughput, not the rate limits: none, unless the caller sets them
      // (bench/noisy-tenant.js does)
      RATE_LIMIT_PER_SECOND: '0',
      ZONE_CHANGES_PER_SECOND: '0',
      ...env,
    },
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForHttp(`${base}/health`, { child: proc.child, ok: (status) => status === 200 });
  } catch (error) {
    await proc.stop();
    throw new Error(`Zonekeeper did not start (log: ${logFile}): ${error.message}`);
  }
  const headers = { 'x-api-key': apiKey };
  return {
    ...proc,
    port,
    dnsPort,
    base,
    headers,
    /** REST call as the admin; throws on an unexpected status */
    async api(method, route, body, expect = [200, 201, 204]) {
      const res = await request(method, `${base}/api${route}`, { headers, body });
      if (!expect.includes(res.status)) throw new Error(`${method} /api${route} → ${res.status} ${res.text.slice(0, 300)}`);
      return res.json;
    },
    async graphql(query, variables) {
      const res = await request('POST', `${base}/graphql`, { headers, body: { query, variables } });
      if (res.status !== 200 || res.json?.errors) throw new Error(`GraphQL → ${res.status} ${res.text.slice(0, 300)}`);
      return res.json.data;
    },
  };
}

module.exports = { startService, serveCommand, ROOT };
