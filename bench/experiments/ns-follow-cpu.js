'use strict';
// Experiment behind docs/scale.md («A set's NS names, followed by its zones»), not the service:
//   node bench/experiments/ns-follow-cpu.js [zones]          (built: `npm run build`; NS_FOLLOW_PROFILE=<dir> profiles)
// A set of `zones` zones (default 10,000, made 1,000 a call) whose NS names change with `zonesFollow`: the walk's
// time, its rate, and the CPU it took per zone in the service (all roles, one process) and in PostgreSQL, with no
// secondary (the set has none), so that what is left is the walk's own cost.
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { startService } = require('../lib/service');
const { withDatabase } = require('../lib/database');
const { processTimes, cpuBetween, sleep } = require('../lib/proc');

const ZONES = Number(process.argv[2] ?? 10_000);
const PROFILE = process.env.NS_FOLLOW_PROFILE;

withDatabase('zk_bench_ns_follow', async (databaseUrl) => {
  const apiKey = randomBytes(16).toString('hex');
  const service = await startService({
    databaseUrl,
    apiKey,
    logFile: path.join(require('node:os').tmpdir(), 'zk-bench-ns-follow.log'),
    env: { SECONDARIES: '', HEALTH_CHECK_INTERVAL: '0' },
    nodeArgs: PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : [],
  });
  try {
    const { createUser } = await service.graphql(`mutation { createUser(input: {email: "ns-follow@bench.example"}) { id } }`);
    await service.graphql(`mutation($i: NameserverSetInput!) { createNameserverSet(input: $i) { name } }`, {
      i: { name: 'bench', secondaries: [], nsNames: ['ns1.bench.example.', 'ns2.bench.example.'], catalogZone: 'catalog.bench.example' },
    });
    for (let i = 0; i < ZONES; i += 1000) {
      const input = Array.from({ length: Math.min(1000, ZONES - i) }, (_, j) => ({
        userId: createUser.id,
        zone: `z${i + j}.follow.bench.example`,
        nameserverSet: 'bench',
      }));
      await service.graphql(`mutation($input: [CreateDomainInput!]!) { createDomains(input: $input) { id } }`, { input });
    }
    await sleep(2000);
    const before = processTimes();
    const started = Date.now();
    await service.graphql(`mutation($i: NameserverSetUpdateInput!) { updateNameserverSet(name: "bench", input: $i) { name } }`, {
      i: { secondaries: [], nsNames: ['ns1.renamed.bench.example.', 'ns2.renamed.bench.example.'], zonesFollow: true },
    });
    for (;;) {
      const { nameserverSet } = await service.graphql(`{ nameserverSet(name: "bench") { nsFollow { zonesLeft } } }`);
      if (nameserverSet.nsFollow === null) break;
      await sleep(250);
    }
    const seconds = (Date.now() - started) / 1000;
    const cpu = cpuBetween(before, processTimes(), service.child.pid);
    const ms = (s) => ((1000 * s) / ZONES).toFixed(2);
    process.stdout.write(
      `${ZONES} zones followed in ${seconds.toFixed(1)} s (${Math.round(ZONES / seconds)} a second); CPU per zone: ` +
        `service ${ms(cpu.service)} ms, PostgreSQL ${ms(cpu.postgres)} ms (background ${ms(cpu.postgresBackground)} ms)\n`,
    );
  } finally {
    await service.stop();
  }
}).catch((error) => {
  console.error(error);
  process.exit(1);
});
