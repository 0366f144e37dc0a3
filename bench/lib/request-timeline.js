'use strict';
// A timeline of each HTTP request of the service, loaded into it with `-r`: e.g.
//   BENCH_NODE_ARGS='-r ./bench/lib/request-timeline.js' BENCH_ROLES=api,dns,worker BENCH_CASES=1x1 \
//     BENCH_EDGES=Power node bench/write-path.js
// At concurrency 1 it marks (performance.now) the request's arrival, each statement sent while it is open
// (every role's: the write, the journal's NOTIFY, the worker's claim, the webhook fan-out) and when it was
// answered, the first write to the socket and 'finish', and writes medians at exit to
// bench/.tmp/request-timeline-<pid>.json: before the write, the write's round trip alone and beside another
// statement, after it. A measuring aid, not part of the service.
const fs = require('node:fs');
const path = require('node:path');
const http = require('node:http');
const { performance } = require('node:perf_hooks');
const pg = require(require.resolve('pg', { paths: [path.join(__dirname, '..', '..')] }));

const WRITE = 'with lim as'; // the write engine's statement (zone-writes.ts)
let open = null;
const done = [];

const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request') {
    const r = { at: performance.now(), statements: [], cpu: process.cpuUsage() };
    open = r;
    const socket = res.socket;
    const write = socket.write;
    socket.write = function (...args) {
      r.firstByte ??= performance.now();
      return write.apply(this, args);
    };
    res.once('finish', () => {
      socket.write = write;
      r.end = performance.now();
      r.cpu = process.cpuUsage(r.cpu);
      done.push(r);
    });
  }
  return emit.apply(this, arguments);
};

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (config) {
  const s = { text: String(typeof config === 'string' ? config : config?.text).slice(0, 14), sent: performance.now() };
  if (open && open.end === undefined) open.statements.push(s);
  const p = query.apply(this, arguments);
  const answered = () => (s.answered = performance.now());
  if (p && typeof p.then === 'function') p.then(answered, answered);
  return p;
};

process.on('exit', () => {
  const rows = done.slice(Math.floor(done.length / 5)).filter((r) => r.statements.some((s) => s.text.startsWith(WRITE)));
  const median = (xs) => {
    const v = xs.filter(Number.isFinite).sort((a, b) => a - b);
    return v.length ? Number(v[Math.floor(v.length / 2)].toFixed(3)) : null;
  };
  const write = (r) => r.statements.find((s) => s.text.startsWith(WRITE));
  const alone = rows.filter((r) => r.statements.length === 1);
  const beside = rows.filter((r) => r.statements.length > 1);
  const others = {};
  for (const r of beside) for (const s of r.statements) if (s !== write(r)) others[s.text] = (others[s.text] ?? 0) + 1;
  const out = {
    requests: rows.length,
    total: median(rows.map((r) => r.end - r.at)),
    beforeWrite: median(rows.map((r) => write(r).sent - r.at)),
    write: median(rows.map((r) => write(r).answered - write(r).sent)),
    afterWrite: median(rows.map((r) => r.firstByte - write(r).answered)),
    cpuMicroseconds: median(rows.map((r) => r.cpu.user + r.cpu.system)),
    alone: { requests: alone.length, total: median(alone.map((r) => r.end - r.at)), write: median(alone.map((r) => write(r).answered - write(r).sent)) },
    besideAnother: { requests: beside.length, total: median(beside.map((r) => r.end - r.at)), write: median(beside.map((r) => write(r).answered - write(r).sent)) },
    otherStatements: others,
  };
  const dir = path.join(__dirname, '..', '.tmp');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, `request-timeline-${process.pid}.json`), JSON.stringify(out, null, 1));
});
