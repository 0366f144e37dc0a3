'use strict';
// Experiment behind bench/FINDINGS.md («The edges' layers around the write»), not the service:
//   node bench/experiments/edge-cpu/edge-cpu.js <base tree> <new tree> [rounds] [seconds]   (both trees built)
// Each tree's HTTP edge (edge-server.js: its request log, its /api/v1 and /api routers in its app's order) with
// the services stubbed where the write starts, so what is measured is the edge alone, without PostgreSQL. The
// two run side by side; wrk (c16) loads one at a time, alternating, with REST's POST /api/record/add and the
// PowerDNS API's PATCH of one rrset (KASES=post,patch), and the server process's CPU per request is read
// from /proc. Far less disturbed by a loaded machine than the whole service's figures.
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const ticks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};
const path = require('node:path');
const trees = { base: path.resolve(process.argv[2]), new: path.resolve(process.argv[3]) };
const rounds = Number(process.argv[4] ?? 8),
  seconds = Number(process.argv[5] ?? 4);
const os = require('node:os');
(async () => {
  const servers = {};
  let port = 39200;
  for (const [name, tree] of Object.entries(trees)) {
    const p = spawn(process.execPath, [path.join(__dirname, 'edge-server.js'), tree, String(++port)], {
      stdio: ['ignore', fs.openSync(path.join(os.tmpdir(), `edge-cpu-${name}.log`), 'w'), 'inherit'],
    });
    servers[name] = { pid: p.pid, port, proc: p };
  }
  await new Promise((r) => setTimeout(r, 4000));
  const results = {};
  for (let r = 0; r < rounds; r++)
    for (const kase of (process.env.KASES ?? 'post,patch').split(','))
      for (const name of r % 2 ? ['new', 'base'] : ['base', 'new']) {
        const s = servers[name];
        const run = (secs) =>
          execFileSync('wrk', ['-t2', '-c16', `-d${secs}s`, '-s', path.join(__dirname, `${kase}.lua`), `http://127.0.0.1:${s.port}`], {
            encoding: 'utf8',
          });
        if (r === 0) run(2);
        const t0 = ticks(s.pid);
        const out = run(seconds);
        const t1 = ticks(s.pid);
        const requests = Number(/(\d+) requests in/.exec(out)[1]);
        const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
        const us = ((t1 - t0) * 10000) / requests;
        (results[`${kase} ${name}`] ??= []).push(us);
        console.log(
          `round ${r + 1} ${kase} ${name}: ${(requests / seconds).toFixed(0)} req/s, ${us.toFixed(1)} µs CPU a request${non2xx ? `, ${non2xx} non-2xx` : ''}, load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}`,
        );
      }
  const med = (a) => {
    const s = [...a].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  for (const [k, v] of Object.entries(results))
    console.log(`${k}: median ${med(v).toFixed(1)} µs (${v.map((x) => x.toFixed(0)).join(', ')})`);
  for (const s of Object.values(servers)) s.proc.kill();
})();
