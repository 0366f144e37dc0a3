'use strict';
// The two tenants of the noisy-tenant benchmark and its experiments (bench/noisy-tenant.js,
// bench/experiments/noisy-tenant-trace.js, noisy-tenant-stalls.js): their users, zones and keys as the admin makes
// them, A's runaway script and B's steady reads.
const http = require('node:http');
const { spawn } = require('node:child_process');

/** A: autocannon in a child process (so B's client does not share its event loop), JSON out, counted by status */
function noisyLoad(url, key, seconds, connections = 64) {
  return new Promise((resolve, reject) => {
    const bin = require.resolve('autocannon/autocannon.js');
    const child = spawn(process.execPath, [bin, '-j', '-c', String(connections), '-d', String(seconds), '-H', `x-api-key=${key}`, url], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        const result = JSON.parse(out);
        const byStatus = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([status, stat]) => [status, stat.count]));
        resolve({
          requests: result.requests.total,
          rps: result.requests.total / result.duration,
          byStatus,
          errors: result.errors,
          timeouts: result.timeouts,
        });
      } catch (error) {
        reject(new Error(`autocannon exited ${code}: ${error.message}`));
      }
    });
  });
}

/** B: one keep-alive connection, `rate` requests a second; each answer's start (epoch ms, sub-ms) and duration */
async function paced(url, key, seconds, rate) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples = [];
  const end = Date.now() + seconds * 1000;
  let next = Date.now();
  while (Date.now() < end) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    next += 1000 / rate;
    const t0 = performance.now();
    await new Promise((resolve, reject) =>
      http.get(url, { agent, headers: { 'x-api-key': key } }, (res) => res.resume().on('end', resolve)).on('error', reject),
    );
    samples.push({ t: performance.timeOrigin + t0, ms: performance.now() - t0 });
  }
  agent.destroy();
  return samples;
}

/**
 * Users A and B of the noisy-tenant runs, as the admin makes them: each with a zone of `records` A records and an
 * API key of its own. Returns per name its user id, key secret and key id, and the URL of its zone's read.
 */
async function createTenants(svc, records = 20, keyName = 'bench') {
  const tenants = {};
  for (const name of ['a', 'b']) {
    const user = await svc.api('POST', '/user/add', { email: `${name}@noisy.example` });
    await svc.api('POST', '/domain/add', { user_id: user.id, zone: `${name}.noisy.example` });
    const lines = Array.from({ length: records }, (_, i) => `h${i} 3600 IN A 10.0.0.${i}`);
    await svc.graphql(`mutation($z: String!, $t: String!) { importZone(zone: $z, text: $t, mode: MERGE) { added } }`, {
      z: `${name}.noisy.example`,
      t: `$ORIGIN ${name}.noisy.example.\n${lines.join('\n')}\n`,
    });
    const key = await svc.graphql(`mutation($u: ID!, $n: String!) { createApiKey(input: {userId: $u, name: $n}) { secret apiKey { id } } }`, {
      u: String(user.id),
      n: keyName,
    });
    tenants[name] = {
      id: user.id,
      key: key.createApiKey.secret,
      keyId: key.createApiKey.apiKey.id,
      url: `${svc.base}/api/domain/list/zone/${name}.noisy.example`,
    };
  }
  return tenants;
}

/** the admin sets a tenant's rate (its user's bucket and its key's, which defaults to the user's): null the default, 0 none */
async function setTenantRate(svc, tenant, ratePerSecond) {
  await svc.graphql(
    `mutation($u: ID!, $k: ID!, $r: Int) {
      setUserLimits(id: $u, input: {ratePerSecond: $r}) { ratePerSecond }
      setApiKeyRate(id: $k, input: {ratePerSecond: $r}) { ratePerSecond } }`,
    { u: String(tenant.id), k: tenant.keyId, r: ratePerSecond },
  );
}

module.exports = { createTenants, noisyLoad, paced, setTenantRate };
