/**
 * A service process as a user runs it (the built service, `node dist/src/main.js`, buildOnce first), its output
 * kept for a failure's message, stopped and waited for: the one way the tests start a process of the service.
 * `spawn` starts it elsewhere (a test host's network namespace: test/support/test-hosts.ts).
 */
import { ChildProcess, spawn as spawnChild } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  child: ChildProcess;
  /** what it printed so far, stdout and stderr */
  output(): string;
  /** sends the signal (SIGTERM: an orderly stop) and waits for the process to end */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export function startServiceProcess(
  env: NodeJS.ProcessEnv,
  spawn: (command: string, args: string[], env: NodeJS.ProcessEnv) => ChildProcess = (command, args, childEnv) =>
    spawnChild(command, args, { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] }),
): ServiceProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', 'src', 'main.js')], { ...process.env, ...env });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  return {
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(signal);
      await exited;
    },
  };
}
