'use strict';
// Small process/network helpers for the benchmarks: free loopback ports, starting and stopping child
// processes, waiting for an HTTP endpoint, and reading a process's memory from /proc.
const fs = require('node:fs');
const net = require('node:net');
const http = require('node:http');
const { spawn } = require('node:child_process');

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** One HTTP request on loopback; the body is read in full (use streamTimed for large answers). */
function request(method, url, { headers = {}, body, agent } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const req = http.request(url, {
      method,
      ...(agent ? { agent } : {}),
      headers: {
        ...(payload !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...(payload !== undefined ? { 'content-length': Buffer.byteLength(payload) } : {}),
        ...headers,
      },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json;
        try { json = text ? JSON.parse(text) : undefined; } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

/**
 * GET that counts the bytes without keeping them: time to first and to last byte (ms), status and size.
 * `onChunk` sees every chunk (used to check the JSON as it streams, without buffering 100,000 records).
 */
function streamTimed(url, headers = {}, onChunk) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByte;
    let bytes = 0;
    const req = http.get(url, { headers }, (res) => {
      res.on('data', (chunk) => {
        if (firstByte === undefined) firstByte = process.hrtime.bigint();
        bytes += chunk.length;
        if (onChunk) onChunk(chunk);
      });
      res.on('end', () => {
        const ended = process.hrtime.bigint();
        resolve({
          status: res.statusCode,
          bytes,
          ttfbMs: Number((firstByte ?? ended) - started) / 1e6,
          totalMs: Number(ended - started) / 1e6,
        });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

async function waitForHttp(url, { timeoutMs = 90_000, ok = (status) => status < 500, child } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with code ${child.exitCode} before ${url} answered`);
    try {
      const res = await request('GET', url);
      if (ok(res.status)) return res;
      last = `status ${res.status}`;
    } catch (error) {
      last = error.message;
    }
    await sleep(200);
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms (${last})`);
}

/** Starts a child process with its output going to a log file; stop() sends SIGTERM, then SIGKILL. */
function startProcess(command, args, { env, cwd, logFile }) {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    pid: child.pid,
    exited,
    async stop(graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** VmRSS and VmHWM of a process in bytes, from /proc/<pid>/status. */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => {
    const match = status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
    return match ? Number(match[1]) * 1024 : NaN;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Samples a process's memory every `everyMs` until stop(); returns baseline, peak and the HWM before/after. */
function sampleMemory(pid, everyMs = 5) {
  const before = memoryOf(pid);
  let peakRss = before.rss;
  let samples = 0;
  const timer = setInterval(() => {
    try {
      const { rss } = memoryOf(pid);
      samples += 1;
      if (rss > peakRss) peakRss = rss;
    } catch { /* process gone */ }
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const after = memoryOf(pid);
      if (after.rss > peakRss) peakRss = after.rss;
      return { before, after, peakRss, samples };
    },
  };
}

/** Machine-wide CPU time from /proc/stat (jiffies): busy, idle and steal (time the hypervisor gave to others). */
function cpuStat() {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

/** Share of the machine's CPU time between two cpuStat() readings: busy and steal, in %. */
function cpuShare(a, b) {
  const busy = b.busy - a.busy;
  const idle = b.idle - a.idle;
  const steal = b.steal - a.steal;
  const total = busy + idle + steal || 1;
  return { busy: (100 * busy) / total, steal: (100 * steal) / total };
}

/** CPU time (s) of every process now: pid → { cpu, command }. */
function processTimes() {
  const out = new Map();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(Number(entry), { cpu: (Number(fields[11]) + Number(fields[12])) / 100, command });
    } catch { /* gone */ }
  }
  return out;
}

/** PostgreSQL's own processes beside the clients' backends: their work follows the WAL and the tables' growth */
const POSTGRES_BACKGROUND = /^postgres: .*(checkpointer|walwriter|background writer|autovacuum|logical replication|stats)/;

/**
 * CPU seconds of the service (its pid) and of PostgreSQL's processes between two processTimes() snapshots;
 * `postgresBackground`: the part of `postgres` that its background processes took (the checkpointer, the WAL
 * writer, autovacuum), which lands on whichever case runs when they do
 */
function cpuBetween(before, after, servicePid) {
  let service = 0;
  let postgres = 0;
  let postgresBackground = 0;
  for (const [pid, { cpu, command }] of after) {
    const used = cpu - (before.get(pid)?.cpu ?? 0);
    if (pid === servicePid) service += used;
    else if (/(^|\/)postgres\b|^postgres:/.test(command)) {
      postgres += used;
      if (POSTGRES_BACKGROUND.test(command)) postgresBackground += used;
    }
  }
  return { service, postgres, postgresBackground };
}

/** The processes that used more than `minShare` of one CPU over `ms`, busiest first. */
async function busyProcesses(ms = 2000, minShare = 0.1) {
  const before = processTimes();
  await sleep(ms);
  const after = processTimes();
  const busy = [];
  for (const [pid, { cpu, command }] of after) {
    const share = (cpu - (before.get(pid)?.cpu ?? cpu)) / (ms / 1000);
    if (share >= minShare && pid !== process.pid) busy.push({ pid, share, command: command.slice(0, 100) });
  }
  return busy.sort((a, b) => b.share - a.share);
}

/**
 * The machine is shared: waits until it is quiet (CPU busy below `threshold` % over 3 s), at most `maxMs`.
 * Returns how long it waited, whether it got quiet, and what was busy when it started waiting.
 */
async function waitForQuiet({ threshold = 25, maxMs = 180_000, log = () => undefined } = {}) {
  const started = Date.now();
  const busyAtStart = await busyProcesses();
  while (true) {
    const a = cpuStat();
    await sleep(3000);
    const share = cpuShare(a, cpuStat());
    if (share.busy < threshold) return { waitedMs: Date.now() - started, quiet: true, busyAtStart, busyPercent: share.busy };
    if (Date.now() - started > maxMs) return { waitedMs: Date.now() - started, quiet: false, busyAtStart, busyPercent: share.busy };
    log(`the machine is busy (${share.busy.toFixed(0)}% CPU); waiting for it to be quiet`);
  }
}

module.exports = { busyProcesses, processTimes, cpuBetween, waitForQuiet, cpuStat, cpuShare, freePort, sleep, request, streamTimed, waitForHttp, startProcess, memoryOf, sampleMemory };
