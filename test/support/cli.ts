import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ADMIN_KEY } from './test-app';

/** what a run of the CLI gave: its exit code and both streams */
export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

export const CLI = path.resolve(__dirname, '..', '..', 'dist', 'src', 'cli', 'main.js');

/**
 * the CLI's state (the Consistency-Tokens it sends back, src/cli/consistency.ts) and config (the sessions of
 * `zonekeeper login`) in a folder of this test file's, not in the home of whoever runs the tests
 */
let stateDir: string | undefined;

/** a run of the CLI under way: what it wrote so far, and its end */
export interface CliProcess {
  out(): string;
  err(): string;
  done: Promise<CliRun>;
}

/**
 * Starts the built `zonekeeper` CLI (buildOnce first) as a child process against the service at `baseUrl`, with
 * the admin key unless `env` gives another; its output readable as it comes (`zonekeeper login` prints its code,
 * then waits).
 */
export function startCli(baseUrl: string, args: string[], env: Record<string, string | undefined> = {}): CliProcess {
  const child = spawn(process.execPath, [CLI, ...args], {
    env: {
      PATH: process.env.PATH,
      ZONEKEEPER_URL: baseUrl,
      ZONEKEEPER_API_KEY: ADMIN_KEY,
      ZONEKEEPER_STATE_DIR: (stateDir ??= mkdtempSync(path.join(os.tmpdir(), 'zk-cli-state-'))),
      // the sessions `zonekeeper login` keeps: the test file's folder too
      ZONEKEEPER_CONFIG_DIR: stateDir,
      ...env,
    },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => (out += chunk));
  child.stderr.on('data', (chunk) => (err += chunk));
  const done = new Promise<CliRun>((resolve) => child.on('close', (code) => resolve({ code, out, err })));
  return { out: () => out, err: () => err, done };
}

/**
 * Runs the built `zonekeeper` CLI (startCli) to its end; asynchronously, since the service answers from the
 * test's own process.
 */
export function runCli(baseUrl: string, args: string[], env: Record<string, string | undefined> = {}): Promise<CliRun> {
  return startCli(baseUrl, args, env).done;
}

/** the folder of this test file's CLI config (`zonekeeper login`'s sessions.json) */
export const cliConfigDir = (): string => (stateDir ??= mkdtempSync(path.join(os.tmpdir(), 'zk-cli-state-')));
