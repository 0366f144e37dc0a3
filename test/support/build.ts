import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
/** what `npm run build` builds dist/ from: the service's and the console's sources and their settings */
const SOURCES = ['src', 'console', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'mikro-orm.config.ts'];
const STAMP = path.join(ROOT, 'dist', '.built-from');
const LOCK = path.join(os.tmpdir(), `zonekeeper-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
/** a lock older than this was left by a run that died while building */
const STALE_LOCK_MS = 5 * 60_000;

function filesUnder(entry: string, found: string[] = []): string[] {
  const full = path.join(ROOT, entry);
  if (!existsSync(full)) return found;
  if (statSync(full).isDirectory()) {
    for (const name of readdirSync(full).sort()) if (name !== 'node_modules') filesUnder(path.join(entry, name), found);
  } else found.push(entry);
  return found;
}

/** a digest of every source file's path and content: dist/ is current when it was built from these */
function sourcesDigest(): string {
  const digest = createHash('sha256');
  for (const file of SOURCES.flatMap((entry) => filesUnder(entry)))
    digest
      .update(file)
      .update('\0')
      .update(readFileSync(path.join(ROOT, file)))
      .update('\0');
  return digest.digest('hex');
}

const current = (digest: string) => existsSync(STAMP) && readFileSync(STAMP, 'utf8') === digest;

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * `npm run build` (the service's tsc and the console's vite build into dist/, as a user's `npm start` builds),
 * unless dist/ was built from these very sources already: the tests that run the built service or the CLI as
 * a user does share one build a run instead of making their own (about 40 s each on this 2-core machine). One
 * build at a time (a lock file), as two test runs side by side would otherwise write dist/ together.
 */
export function buildOnce(): void {
  const digest = sourcesDigest();
  if (current(digest)) return;
  for (;;) {
    try {
      closeSync(openSync(LOCK, 'wx'));
      break;
    } catch {
      const lock = statSync(LOCK, { throwIfNoEntry: false });
      if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { force: true });
      sleep(500);
    }
  }
  try {
    if (current(digest)) return;
    execFileSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'ignore' });
    writeFileSync(STAMP, digest);
  } finally {
    rmSync(LOCK, { force: true });
  }
}
