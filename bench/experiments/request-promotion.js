'use strict';
// Experiment behind bench/FINDINGS.md («What kept every request's objects alive through young-generation
// collections»; not the service, `npm run bench` does not run it): how much of what requests allocate outlives a
// scavenge and is promoted at the next one.
//   node bench/experiments/request-promotion.js <built checkout dir> <path> <n> [GraphQL query]
// Starts that build's service (`npm run serve`'s node options, ROLES=api) on a new empty database with
// --trace-gc-nvp, sends n requests one at a time over one keep-alive connection (GET <path>, or POST of the query),
// and prints the last scavenges' allocated, promoted and survived MB. Promoted equal to the previous scavenge's
// survivors means every request's objects outlived it. EXTRA_ARGS: more node options (e.g.
// --no-allocation-site-pretenuring); SVC_ENV: JSON, more service settings.
const { startService } = require('../lib/service');
const { withDatabase } = require('../lib/database');
const fs = require('fs');
const http = require('http');
const path = require('path');
const [dir, urlPath, n, query] = process.argv.slice(2);
const API_KEY = 'zk_experiment_admin_key_0123456789';
(async () => {
  await withDatabase('promotion', async (databaseUrl) => {
    const logFile = path.join(require('node:os').tmpdir(), 'request-promotion.log');
    try {
      fs.unlinkSync(logFile);
    } catch {}
    const svc = await startService({
      databaseUrl,
      apiKey: API_KEY,
      logFile,
      nodeArgs: ['--trace-gc-nvp', ...(process.env.EXTRA_ARGS ? process.env.EXTRA_ARGS.split(' ') : [])],
      env: { ROLES: 'api', ...(process.env.SVC_ENV ? JSON.parse(process.env.SVC_ENV) : {}) },
      main: path.join(dir, 'dist/src/main.js'),
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const body = query ? JSON.stringify({ query }) : undefined;
    for (let i = 0; i < Number(n); i++) {
      await new Promise((resolve, reject) => {
        const req = http.request(
          `${svc.base}${urlPath}`,
          {
            agent,
            method: body ? 'POST' : 'GET',
            headers: { 'x-api-key': API_KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    }
    await svc.stop();
    const t = fs.readFileSync(logFile, 'utf8');
    const all = [...t.matchAll(/gc=(s|mc) .*?allocated=(\d+) promoted=(\d+) new_space_survived=(\d+)/g)].slice(-8);
    console.log(
      all.map((m) => `${m[1]} alloc=${(m[2] / 1e6).toFixed(1)} prom=${(m[3] / 1e6).toFixed(2)} surv=${(m[4] / 1e6).toFixed(2)}`).join('\n'),
    );
  });
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
