/**
 * Servers a test starts as a process group of their own (spawned detached), so that each is stopped as a group,
 * with whatever it started, and none outlives the test process: at its exit (Jest's --forceExit included) and at
 * a signal that ends it (a lane's deadline, Ctrl-C), every group still running is killed. A server stopped the
 * usual way (`killGroup`, then waiting for its exit) leaves the list when it exits.
 */
import { ChildProcess, spawn, SpawnOptions } from 'node:child_process';

const running = new Set<number>();
let watching = false;

function killEvery(signal: NodeJS.Signals): void {
  for (const pid of running) {
    try {
      process.kill(-pid, signal);
    } catch {
      // gone already
    }
  }
}

function watchExit(): void {
  if (watching) return;
  watching = true;
  process.on('exit', () => killEvery('SIGKILL'));
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      killEvery('SIGKILL');
      // the signal's own end for this process, as without the listener
      process.kill(process.pid, signal);
    });
  }
}

/** `command` started as the leader of a new process group, killed with the test process if still running then */
export function spawnGroup(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  watchExit();
  const child = spawn(command, args, { ...options, detached: true });
  const pid = child.pid;
  if (pid !== undefined) {
    running.add(pid);
    child.once('exit', () => running.delete(pid));
  }
  return child;
}

/** sends `signal` to the child's whole process group */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // gone already
  }
}
