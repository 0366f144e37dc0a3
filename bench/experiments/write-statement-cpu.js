'use strict';
// Experiment behind bench/FINDINGS.md («A single change's write, below the edges»), not the service:
//   node bench/experiments/write-statement-cpu.js <base work tree> [<work tree>]   (each built: `npm run build`)
// `writeZoneChange` of one new A record decided on a zone's head (a REST create's or a PATCH's write), with the
// pool's naming of its prepared statement, against a connection that answers at once: node's CPU (process.cpuUsage)
// and V8 heap allocation (v8.GCProfiler: the used heap's growth between collections) per call, the two builds
// alternated five times after a warm-up.
const path = require('node:path');
const v8 = require('node:v8');
if (!process.argv[2]) throw new Error('usage: node bench/experiments/write-statement-cpu.js <base work tree> [<work tree>]');
const trees = { base: path.resolve(process.argv[2]), branch: path.resolve(process.argv[3] ?? path.join(__dirname, '..', '..')) };
const mods = Object.fromEntries(Object.entries(trees).map(([k, t]) => [k, {
  zw: require(`${t}/dist/src/repositories/zone-writes.js`),
  names: require(`${t}/dist/src/db/prepared-statements.js`),
}]));
const answer = [{ written: true, inserted: ['42'], signer_inserted: [], quota: null }];
// a build's naming of statements: a Database's own StatementNames, or (older builds) the module's statementName
const namerOf = (names) => { if (!names.StatementNames) return names.statementName; const own = new names.StatementNames(); return (text) => own.nameOf(text); };
const sqlOf = (names) => { const nameOf = namerOf(names); return { rows: async (text, params) => { const name = nameOf(text); if (!name) throw new Error('no name'); return answer; }, affected: async () => 0, journalWritten() {} }; };
const write = (i) => ({
  domainId: 7, zone: 'w1.experiment.example', serialBefore: 100 + i, serialAfter: 101 + i,
  inserts: [{ owner: `h${i}`, type: 'A', ttl: 3600, rdata: `10.0.${(i >> 8) & 255}.${i & 255}` }],
  deleteIds: [],
  soa: { id: 1, rdata: `ns1.example. hostmaster.example. ${101 + i} 3600 600 86400 300`, ttl: 3600 },
  removed: [{ owner: '@', type: 'SOA', ttl: 3600, rdata: `ns1.example. hostmaster.example. ${100 + i} 3600 600 86400 300` }],
  added: [{ owner: `h${i}`, type: 'A', ttl: 3600, rdata: `10.0.${(i >> 8) & 255}.${i & 255}` }, { owner: '@', type: 'SOA', ttl: 3600, rdata: `ns1.example. hostmaster.example. ${101 + i} 3600 600 86400 300` }],
  author: { keyId: 1, keyName: 'bench', userId: 3 },
  kind: 'zone-changed', defaultMaxRecords: 0,
  expect: { userId: 3, unknownOwners: [`h${i}`] },
});
let allocated = 0, last = v8.getHeapStatistics().used_heap_size, prof = new v8.GCProfiler(); prof.start();
const alloc = () => { for (const gc of prof.stop().statistics) { allocated += Math.max(0, gc.beforeGC.heapStatistics.usedHeapSize - last); last = gc.afterGC.heapStatistics.usedHeapSize; } const now = v8.getHeapStatistics().used_heap_size; allocated += Math.max(0, now - last); last = now; prof = new v8.GCProfiler(); prof.start(); return allocated; };
async function run(k, n) {
  const { zw, names } = mods[k]; const sql = sqlOf(names);
  const a0 = alloc(); const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await zw.writeZoneChange(sql, write(i));
  const c = process.cpuUsage(c0); const a = alloc() - a0;
  return { us: (c.user + c.system) / n, kb: a / 1024 / n };
}
(async () => {
  for (const k of ['base', 'branch']) await run(k, 20000); // warm-up
  const out = { base: [], branch: [] };
  for (let r = 0; r < 5; r++) for (const k of r % 2 ? ['branch', 'base'] : ['base', 'branch']) out[k].push(await run(k, 50000));
  for (const k of ['base', 'branch']) console.log(k, out[k].map((x) => `${x.us.toFixed(2)} µs ${x.kb.toFixed(2)} kB`).join(' | '));
})();
