import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The sessions `zonekeeper login` made (docs/people.md, «Signing in from a terminal»), one per service URL, in
 * `sessions.json` of ZONEKEEPER_CONFIG_DIR or the XDG config directory (`$XDG_CONFIG_HOME/zonekeeper`,
 * `~/.config/zonekeeper`). A session is a credential: the folder is made 0700 and the file written 0600 (whole,
 * then renamed, so no reader sees half of it and no other user ever could read it).
 */

export interface StoredSession {
  session: string;
  email: string;
  at: number;
}

type Stored = Record<string, StoredSession>;

function configFile(): string {
  const dir =
    process.env.ZONEKEEPER_CONFIG_DIR || path.join(process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'zonekeeper');
  return path.join(dir, 'sessions.json');
}

function readStored(file: string): Stored {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Stored) : {};
  } catch {
    return {};
  }
}

/** the session stored for the service at `base`, if any */
export function storedSession(base: string): StoredSession | undefined {
  const stored = readStored(configFile())[base];
  return stored && typeof stored.session === 'string' ? stored : undefined;
}

/** keeps (or, with undefined, forgets) the session for the service at `base`; returns the file written */
export function storeSession(base: string, session: StoredSession | undefined): string {
  const file = configFile();
  const stored = readStored(file);
  if (session) stored[base] = session;
  else delete stored[base];
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  // the mode given to a new file is masked by the umask: set it as it must be
  chmodSync(partial, 0o600);
  renameSync(partial, file);
  return file;
}
