'use strict';
// autocannon runs with the numbers the results need: requests/s over the measured time, latency
// percentiles in ms, and every response that was not a 2xx (or did not pass the caller's check).
const autocannon = require('autocannon');
const { cpuStat, cpuShare } = require('./proc');

/**
 * options: url, connections, duration (s) or amount, method, headers, next() (a fresh body per request) or
 * setup(req) (autocannon's setupRequest: path and body per request), overallRate (requests/s, paced), check(status, body) → true when the answer is right (counted as `bad` otherwise).
 */
async function load({ url, connections, duration, amount, method = 'GET', headers = {}, next, setup, check, overallRate }) {
  let bad = 0;
  let badExample;
  const requestSpec = { method, headers };
  if (setup) requestSpec.setupRequest = setup;
  else if (next) requestSpec.setupRequest = (req) => ({ ...req, body: next() });
  if (check) {
    requestSpec.onResponse = (status, body) => {
      if (!check(status, body)) {
        bad += 1;
        if (!badExample) badExample = `${status} ${String(body).slice(0, 200)}`;
      }
    };
  }
  const cpuBefore = cpuStat();
  const result = await autocannon({
    url,
    connections,
    ...(amount ? { amount } : { duration }),
    // requests a second over all connections (a paced client, such as a tenant within its rate limit)
    ...(overallRate ? { overallRate } : {}),
    requests: [requestSpec],
    timeout: 30,
  });
  const cpu = cpuShare(cpuBefore, cpuStat());
  const total = result.requests.total;
  return {
    tool: 'autocannon',
    connections,
    requests: total,
    seconds: result.duration,
    rps: total / result.duration,
    p50: result.latency.p50,
    p90: result.latency.p90,
    p99: result.latency.p99,
    max: result.latency.max,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    bad,
    badExample,
    cpu,
  };
}

module.exports = { load };
