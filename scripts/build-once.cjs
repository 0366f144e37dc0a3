'use strict';
// `node scripts/build-once.cjs`: `npm run build` (the service's tsc and the console's vite build into dist/, as a
// user's `npm start` builds), unless dist/ was built from these very sources already. The tests that run the
// built service or the CLI as a user does call it (test/support/build.ts), so that a test run builds once, not
// once per test file; CI calls it before its lanes, so that no test's hook waits for a build. One build at a
// time (a lock file): two test runs side by side would otherwise write dist/ together.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
/** what `npm run build` builds dist/ from: the service's and the console's sources and their settings */
const SOURCES = ['src', 'console', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'mikro-orm.config.ts'];
const STAMP = path.join(ROOT, 'dist', '.built-from');
const LOCK = path.join(os.tmpdir(), `zonekeeper-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
/** a lock older than this was left by a run that died while building */
const STALE_LOCK_MS = 5 * 60_000;

function filesUnder(entry, found = []) {
  const full = path.join(ROOT, entry);
  if (!fs.existsSync(full)) return found;
  if (fs.statSync(full).isDirectory()) {
    for (const name of fs.readdirSync(full).sort()) if (name !== 'node_modules') filesUnder(path.join(entry, name), found);
  } else found.push(entry);
  return found;
}

/** a digest of every source file's path and content: dist/ is current when it was built from these */
function sourcesDigest() {
  const digest = createHash('sha256');
  for (const file of SOURCES.flatMap((entry) => filesUnder(entry)))
    digest.update(file).update('\0').update(fs.readFileSync(path.join(ROOT, file))).update('\0');
  return digest.digest('hex');
}

const current = (digest) => fs.existsSync(STAMP) && fs.readFileSync(STAMP, 'utf8') === digest;

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function buildOnce() {
  const digest = sourcesDigest();
  if (current(digest)) return;
  for (;;) {
    try {
      fs.closeSync(fs.openSync(LOCK, 'wx'));
      break;
    } catch {
      const lock = fs.statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS) fs.rmSync(LOCK, { force: true });
      sleep(500);
    }
  }
  try {
    if (current(digest)) return;
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
    fs.writeFileSync(STAMP, digest);
  } finally {
    fs.rmSync(LOCK, { force: true });
  }
}

module.exports = { buildOnce };

if (require.main === module) buildOnce();
