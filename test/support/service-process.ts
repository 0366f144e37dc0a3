/**
 * A service process as a user runs it (the built service, `node dist/src/main.js`, buildOnce first), its output
 * kept for a failure's message, stopped and waited for: the one way the tests start a process of the service.
 * `options.spawn` starts it elsewhere (a test host's network namespace: test/support/test-hosts.ts).
 */
import { ChildProcess, spawn as spawnChild } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  /** what it printed so far, stdout and stderr */
  output(): string;
  /** how it ended, once it has (its exit code, or the signal that ended it) */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** as `exited`, once its output streams closed too (every process that held them, a process group's, is gone) */
  closed: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** sends the signal (SIGTERM: an orderly stop) and waits for the process to end */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export interface ServiceProcessOptions {
  /** how the command is started: elsewhere, as a test host (test-hosts.ts); here by default */
  spawn?: (command: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess;
  /** node's own flags before the service's script (`npm run serve`'s heap flags, --trace-gc-nvp) */
  nodeOptions?: string[];
  /**
   * the process's environment is `env` and PATH alone, not the test process's with `env` over it: for a service
   * that must read no setting of the test's (DATABASE_URL, …)
   */
  ownEnvironment?: boolean;
  /** the command as a user types it (`npm run serve --silent`); the built service under this node by default */
  command?: string[];
  /** a process group of its own, as a shell gives a foreground job (Ctrl-C reaches the whole group) */
  processGroup?: boolean;
}

export function startServiceProcess(env: NodeJS.ProcessEnv, options: ServiceProcessOptions = {}): ServiceProcess {
  const spawn =
    options.spawn ??
    ((command: string, args: string[], childEnv: NodeJS.ProcessEnv) =>
      spawnChild(command, args, { cwd: ROOT, env: childEnv, detached: options.processGroup, stdio: ['ignore', 'pipe', 'pipe'] }));
  const childEnv = options.ownEnvironment ? { PATH: process.env.PATH, ...env } : { ...process.env, ...env };
  const [command, ...args] = options.command ?? [
    process.execPath,
    ...(options.nodeOptions ?? []),
    path.join(ROOT, 'dist', 'src', 'main.js'),
  ];
  const child = spawn(command, args, childEnv);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const closed = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    output: () => output,
    exited,
    closed,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      await exited;
    },
  };
}
