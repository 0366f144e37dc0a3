'use strict';
// Preloaded into a service (`node -r bench/lib/alloc-probe.js`) by bench/write-path.js with BENCH_ALLOC=1: counts
// the bytes the process allocated on V8's heap. Between two collections the used heap only grows by what is
// allocated, so the allocation is the sum of each collection's "before" less the previous one's "after"
// (v8.GCProfiler), plus the growth since the last. SIGUSR2 writes the running total to `<dir>/alloc-<pid>`
// (`allocatedBytes` reads it), so the benchmark takes it before and after a case as it takes the CPU.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const v8 = require('node:v8');

const file = path.join(process.env.ALLOC_PROBE_DIR ?? os.tmpdir(), `alloc-${process.pid}`);
let total = 0;
let profiler = new v8.GCProfiler();
let last = v8.getHeapStatistics().used_heap_size;
profiler.start();

function count() {
  const { statistics } = profiler.stop();
  for (const gc of statistics) {
    total += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - last);
    last = gc.afterGC.heapStatistics.usedHeapSize;
  }
  const now = v8.getHeapStatistics().used_heap_size;
  total += Math.max(0, now - last);
  last = now;
  profiler = new v8.GCProfiler();
  profiler.start();
  return total;
}

let asked = 0;
process.on('SIGUSR2', () => fs.writeFileSync(file, `${++asked} ${count()}`));
