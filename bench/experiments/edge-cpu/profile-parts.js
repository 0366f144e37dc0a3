'use strict';
// `node bench/experiments/edge-cpu/profile-parts.js <file.cpuprofile> <requests> [rows]`: a
// `--cpu-prof` profile of the service (write-path.js's BENCH_NODE_ARGS) or of the floor (BENCH_FLOOR_NODE_ARGS)
// read from its first HTTP request on (start-up left out), its busy samples summed by part (the service's
// directories, packages, node's own, garbage collection, the socket writes' system calls) and the service's
// functions bottom-up (self and total), in µs a request (`requests`: the case's and its warm-up's, from the
// bench's JSON). A sample's time is wall time: a thread taken off the CPU inside a system call (a write that
// wakes PostgreSQL, on a loaded machine) is counted to that call, so the parts add up to more than the CPU.
const fs = require('fs');

const [file, requests, rows = 20] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

const stackHas = (id, name) => {
  for (let at = id; at !== undefined; at = parentOf.get(at)) if (nodes.get(at).callFrame.functionName === name) return true;
  return false;
};
let first = profile.samples.findIndex((id) => stackHas(id, 'parserOnIncoming'));
if (first < 0) first = 0;

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);
const partOf = (n) => {
  const { functionName, url } = n.callFrame;
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (!url) return SOCKET_WRITES.has(functionName) ? 'socket writes (system calls)' : 'node (native, program)';
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return `package ${pkg[1]}`;
  if (url.includes('/dist/src/')) {
    const dirs = url.split('/dist/src/')[1].split('/');
    return `src/${dirs.length > 2 ? dirs.slice(0, 2).join('/') : dirs.length > 1 ? dirs[0] : '(top)'}`;
  }
  if (url.includes('/bench/')) return `bench ${url.split('/').pop()}`;
  return 'node (JavaScript)';
};
const functionOf = (n) => {
  const { functionName, url, lineNumber } = n.callFrame;
  return url.includes('/dist/src/') ? `${functionName || '(anonymous)'} ${url.split('/dist/src/')[1]}:${lineNumber + 1}` : undefined;
};

let busy = 0;
const parts = new Map();
const self = new Map();
const total = new Map();
const add = (map, key, time) => map.set(key, (map.get(key) ?? 0) + time);
for (let i = first; i < profile.samples.length; i++) {
  const node = nodes.get(profile.samples[i]);
  if (node.callFrame.functionName === '(idle)') continue;
  const time = profile.timeDeltas[i + 1] ?? 0;
  busy += time;
  add(parts, partOf(node), time);
  const own = functionOf(node);
  if (own) add(self, own, time);
  const seen = new Set();
  for (let at = node.id; at !== undefined; at = parentOf.get(at)) {
    const name = functionOf(nodes.get(at));
    if (name && !seen.has(name)) {
      seen.add(name);
      add(total, name, time);
    }
  }
}
const micros = (time) => (time / Number(requests)).toFixed(1);
const share = (time) => `${((100 * time) / busy).toFixed(1)} %`;
console.log(`busy ${(busy / 1e6).toFixed(2)} s from the first request on: ${micros(busy)} µs a request`);
console.log('| part | share | µs a request |\n| --- | ---: | ---: |');
for (const [part, time] of [...parts].sort((a, b) => b[1] - a[1]).slice(0, Number(rows)))
  console.log(`| ${part} | ${share(time)} | ${micros(time)} |`);
console.log('\n| function (built file:line) | self µs | total µs |\n| --- | ---: | ---: |');
for (const [name, time] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(rows)))
  console.log(`| \`${name}\` | ${micros(time)} | ${micros(total.get(name))} |`);
