'use strict';
// Preloaded into the service by bench/experiments/noisy-tenant-stalls.js (`node -r`), never by the service
// itself: JSON lines to STALL_PROBE_OUT about what the process did while B waited.
// - `lag`: the event loop late by more than 5 ms (a 2 ms interval; `cpu` is the process's CPU time over the
//   same gap: close to the gap, the process itself was busy; far below it, it was not running, i.e. the
//   machine's other work)
// - `gc`: every GC pause (perf_hooks; kind 1 scavenge, 2 mark-compact, 4 incremental marking, 8 weak callbacks)
// - `poolwait` (> 2 ms to get a connection of the pg pool), `newconn`/`rmconn` (the pool opened/closed one)
// - `req`: each of B's requests (path containing `/b.noisy.example`), from the server's 'request' event to 'finish'
// - `sec`: once a second, the event-loop delay's p99 and max (monitorEventLoopDelay), pool counts, CPU
const fs = require('node:fs');
const http = require('node:http');
const Module = require('node:module');
const { monitorEventLoopDelay, PerformanceObserver, performance } = require('node:perf_hooks');

const out = fs.openSync(process.env.STALL_PROBE_OUT, 'w');
const lines = [];
const emit = (o) => lines.push(JSON.stringify(o));
const flush = () => {
  if (lines.length) fs.writeSync(out, lines.splice(0).join('\n') + '\n');
};
const now = () => performance.timeOrigin + performance.now();

let last = performance.now();
let lastCpu = process.cpuUsage();
setInterval(() => {
  const t = performance.now();
  const cpu = process.cpuUsage();
  const gap = t - last;
  if (gap > 5) emit({ type: 'lag', t: performance.timeOrigin + t, ms: +gap.toFixed(2), cpu: +((cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000).toFixed(2) });
  last = t;
  lastCpu = cpu;
}, 2).unref();

let pool;
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
setInterval(() => {
  emit({
    type: 'sec',
    t: now(),
    eldP99: +(delay.percentile(99) / 1e6).toFixed(2),
    eldMax: +(delay.max / 1e6).toFixed(2),
    pool: pool ? { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } : null,
    cpu: process.cpuUsage(),
  });
  delay.reset();
  flush();
}, 1000).unref();

new PerformanceObserver((list) => {
  for (const e of list.getEntries()) emit({ type: 'gc', t: performance.timeOrigin + e.startTime, ms: +e.duration.toFixed(2), kind: e.detail?.kind });
}).observe({ entryTypes: ['gc'] });

const load = Module._load;
let patched = false;
Module._load = function (request) {
  const loaded = load.apply(this, arguments);
  if (!patched && request === 'pg' && loaded?.Pool) {
    patched = true;
    const connect = loaded.Pool.prototype.connect;
    loaded.Pool.prototype.connect = function (cb) {
      if (pool !== this) {
        pool = this;
        this.on('connect', () => emit({ type: 'newconn', t: now(), total: this.totalCount }));
        this.on('remove', () => emit({ type: 'rmconn', t: now(), total: this.totalCount }));
      }
      const t0 = performance.now();
      const [waiting, idle, total] = [this.waitingCount, this.idleCount, this.totalCount];
      const note = () => {
        const ms = performance.now() - t0;
        if (ms > 2) emit({ type: 'poolwait', t: performance.timeOrigin + t0, ms: +ms.toFixed(2), waiting, idle, total });
      };
      if (typeof cb === 'function')
        return connect.call(this, (err, client, done) => {
          note();
          cb(err, client, done);
        });
      const promise = connect.call(this);
      promise.then(note, note);
      return promise;
    };
  }
  return loaded;
};

const serverEmit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, res) {
  if (event === 'request' && req.url.includes('/b.noisy.example')) {
    const t0 = performance.now();
    res.once('finish', () => emit({ type: 'req', t: performance.timeOrigin + t0, ms: +(performance.now() - t0).toFixed(2) }));
  }
  return serverEmit.apply(this, arguments);
};
process.on('exit', flush);
