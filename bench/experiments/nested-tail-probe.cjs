'use strict';
// Preloaded into the service by bench/experiments/nested-tail.js (`node --require`; not part of the service): keeps,
// on the machine's clock (ms), the GC pauses (perf_hooks 'gc' entries), the timer callbacks that ran longer than
// 0.2 ms with where they were set, each pg query's wall time and text, and each HTTP request's time in the server.
// SIGUSR2 writes what was kept to TAIL_PROBE_OUT and starts again.
const { PerformanceObserver, performance, constants } = require('node:perf_hooks');
const fs = require('node:fs');
const T0 = performance.timeOrigin;
const now = () => T0 + performance.now();
const ev = { gc: [], timers: [], pg: [], http: [] };
const kinds = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};
new PerformanceObserver((list) => {
  for (const e of list.getEntries())
    ev.gc.push({ t: T0 + e.startTime, d: e.duration, k: kinds[e.detail?.kind ?? e.kind] ?? String(e.detail?.kind) });
}).observe({ entryTypes: ['gc'] });
function wrapTimer(name) {
  const orig = global[name];
  global[name] = function (fn, ...rest) {
    if (typeof fn !== 'function') return orig.call(this, fn, ...rest);
    const where = (new Error().stack || '')
      .split('\n')
      .slice(2, 4)
      .map((s) => s.trim())
      .join(' < ');
    const w = function (...a) {
      const s = now();
      try {
        return fn.apply(this, a);
      } finally {
        const d = now() - s;
        if (d > 0.2) ev.timers.push({ t: s, d, where: name + ' ' + where });
      }
    };
    return orig.call(this, w, ...rest);
  };
}
wrapTimer('setTimeout');
wrapTimer('setInterval');
wrapTimer('setImmediate');
// pg
const Module = require('node:module');
const origLoad = Module._load;
let pgPatched = false;
Module._load = function (request, parent, isMain) {
  const m = origLoad.apply(this, arguments);
  if (!pgPatched && request === 'pg' && m && m.Query) {
    pgPatched = true;
    // each statement's time from its sending to its end, kept on the Query: a wrapper of Client.query that made
    // a closure per statement made V8 place those closures in the old generation, and they kept every statement's
    // result alive through scavenges, as pg's own promise form did (bench/FINDINGS.md, «What kept every
    // request's objects alive through young-generation collections»)
    const proto = m.Query.prototype;
    const { submit, handleReadyForQuery, handleError } = proto;
    const ended = (query) => {
      if (query.probeStart === undefined) return;
      ev.pg.push({
        t: query.probeStart,
        d: now() - query.probeStart,
        q: String(query.text || query.name || '')
          .replace(/\s+/g, ' ')
          .slice(0, 60),
      });
      query.probeStart = undefined;
    };
    proto.submit = function () {
      this.probeStart = now();
      return submit.apply(this, arguments);
    };
    proto.handleReadyForQuery = function () {
      ended(this);
      return handleReadyForQuery.apply(this, arguments);
    };
    proto.handleError = function () {
      ended(this);
      return handleError.apply(this, arguments);
    };
  }
  return m;
};
const http = require('node:http');
let answersSent = 0;
const emit = http.Server.prototype.emit;
// each request's start, kept on its response; its time ends when the answer's end() is called. Not a 'finish'
// listener: a second listener beside Node's own kept every request alive through scavenges (bench/FINDINGS.md,
// «What kept every request's objects alive through young-generation collections»), which is what this measures
const STARTED = Symbol('probe: request started');
const URL_OF = Symbol('probe: request url');
http.Server.prototype.emit = function (type, req, res) {
  if (type === 'request') {
    res[STARTED] = now();
    res[URL_OF] = req.url;
  }
  return emit.apply(this, arguments);
};
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function () {
  const s = this[STARTED];
  if (s !== undefined) {
    this[STARTED] = undefined;
    const u = this[URL_OF];
    ev.http.push({ t: s, d: now() - s, u });
    if (process.env.TAIL_SPACES === '1' && u === '/graphql')
      (ev.spaces ??= []).push(
        Object.fromEntries(
          require('node:v8')
            .getHeapSpaceStatistics()
            .map((x) => [x.space_name, x.space_used_size]),
        ),
      );
    // TAIL_SNAPSHOT_AFTER=n: a heap snapshot right after the n-th answer was sent: what keeps an answer's data
    if (u === '/graphql' && ++answersSent === Number(process.env.TAIL_SNAPSHOT_AFTER))
      setImmediate(() => require('node:v8').writeHeapSnapshot(`${process.env.TAIL_PROBE_OUT}.heapsnapshot`));
  }
  return end.apply(this, arguments);
};
process.on('SIGUSR2', () => {
  fs.writeFileSync(process.env.TAIL_PROBE_OUT, JSON.stringify(ev));
  for (const k of Object.keys(ev)) ev[k] = [];
});
// SIGWINCH, twice: a sampling heap profile between the two that keeps what mark-compacts collected and leaves
// out what scavenges did (TAIL_PROBE_OUT with .heapprofile): the allocations that outlived a scavenge
let heapSession;
process.on('SIGWINCH', () => {
  const inspector = require('node:inspector');
  if (!heapSession) {
    heapSession = new inspector.Session();
    heapSession.connect();
    heapSession.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: false,
    });
    return;
  }
  heapSession.post('HeapProfiler.stopSampling', (error, result) => {
    fs.writeFileSync(`${process.env.TAIL_PROBE_OUT}.heapprofile`, JSON.stringify(error ? { error: String(error) } : result.profile));
    heapSession.disconnect();
    heapSession = undefined;
  });
});
