'use strict';
// Giving the benchmark's clients CPUs of their own (`taskset`, Linux): on a small machine the load generators
// otherwise take their CPU from the service they measure, and a latency bar then judges the client as much as the
// service. In production a tenant's clients run on the tenant's machines. The service and PostgreSQL get the
// remaining CPUs; the pinning is undone when the benchmark ends (PostgreSQL is the machine's, not the benchmark's).
const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');
const { Client } = require('pg');

/** CPU lists for `taskset -c`: the last `clientCpus` CPUs for the clients, the others for the service */
function cpuSplit(clientCpus) {
  const n = os.cpus().length;
  if (!(clientCpus >= 1 && clientCpus < n)) throw new Error(`BENCH_CLIENT_CPUS must be between 1 and ${n - 1} on this ${n}-CPU machine`);
  const list = (from, to) => (from === to ? `${from}` : `${from}-${to}`);
  return { service: list(0, n - clientCpus - 1), clients: list(n - clientCpus, n - 1), all: list(0, n - 1) };
}

/** every thread of `pid` (and so the children it starts later) on `cpus` */
function pin(pid, cpus) {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' });
}

const childrenOf = (parent) =>
  fs
    .readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
      } catch {
        return false; // gone
      }
    })
    .map(Number);

/**
 * PostgreSQL's postmaster and its processes on `cpus` (backends started later inherit the postmaster's CPUs).
 * Needs a superuser connection (the data directory) and root or the server's user (taskset). Returns the undo.
 */
async function pinPostgres(adminUrl, cpus, allCpus) {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  let dataDirectory;
  try {
    dataDirectory = (await client.query(`select setting from pg_settings where name = 'data_directory'`)).rows[0].setting;
  } finally {
    await client.end();
  }
  const postmaster = Number(fs.readFileSync(`${dataDirectory}/postmaster.pid`, 'utf8').split('\n')[0]);
  const pinAll = (list) => {
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      try {
        pin(pid, list);
      } catch {
        /* a backend that just ended */
      }
    }
  };
  pinAll(cpus);
  return () => pinAll(allCpus);
}

/**
 * BENCH_CLIENT_CPUS=n in the environment: PostgreSQL on the first CPUs (`pinned.unpinPostgres` undoes it), and
 * once the service runs, `pinned.pinProcesses(servicePid)`: the service there too, this process (the clients,
 * and what it starts later) on the last n. Unset or 0: nothing is pinned, and both do nothing.
 */
async function clientCpusFromEnv(adminUrl) {
  const clientCpus = Number(process.env.BENCH_CLIENT_CPUS) || 0;
  if (!clientCpus) return { cpus: undefined, unpinPostgres: () => undefined, pinProcesses: () => undefined };
  const cpus = cpuSplit(clientCpus);
  const unpinPostgres = await pinPostgres(adminUrl, cpus.service, cpus.all);
  return {
    cpus,
    clientCpus,
    unpinPostgres,
    pinProcesses(servicePid) {
      pin(servicePid, cpus.service);
      pin(process.pid, cpus.clients);
    },
  };
}

module.exports = { clientCpusFromEnv };
