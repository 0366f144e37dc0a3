'use strict';
// The two tenants' clients of the noisy-tenant benchmark and its experiments (bench/noisy-tenant.js,
// bench/experiments/noisy-tenant-trace.js, noisy-tenant-stalls.js): A's runaway script and B's steady reads.
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

module.exports = { noisyLoad, paced };
