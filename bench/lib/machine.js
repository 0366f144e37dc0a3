'use strict';
// What the results were measured on: the machine, the date, the commit and the software versions.
const fs = require('node:fs');
const os = require('node:os');
const { execFileSync } = require('node:child_process');

function git(args, cwd) {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function wrkVersion() {
  try {
    const out = execFileSync('wrk', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return (out.match(/wrk (\S+)/) || [])[1] ?? 'unknown';
  } catch (error) {
    return (`${error.stdout ?? ''}`.match(/wrk (\S+)/) || [])[1] ?? 'unknown';
  }
}

function machineInfo(root) {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  const meminfo = fs.readFileSync('/proc/meminfo', 'utf8');
  const memKb = Number((meminfo.match(/^MemTotal:\s+(\d+) kB/m) || [])[1]);
  const commit = git(['rev-parse', 'HEAD'], root) || 'unknown';
  const dirty = git(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'package.json', 'package-lock.json'], root);
  return {
    date: new Date().toISOString(),
    commit,
    commitSubject: git(['log', '-1', '--format=%s'], root),
    dirty: dirty ? dirty.split('\n').length : 0,
    nproc: typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length,
    memoryGiB: memKb / 1024 / 1024,
    cpuModel: (cpuinfo.match(/^model name\s*:\s*(.+)$/m) || [])[1] ?? os.cpus()[0]?.model ?? 'unknown',
    kernel: os.release(),
    node: process.version,
    autocannon: require('autocannon/package.json').version,
    wrk: wrkVersion(),
  };
}

module.exports = { machineInfo };
