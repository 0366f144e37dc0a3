import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Read your own writes through the command line (docs/deployment.md, «Reading from standbys»): every write's
 * answer carries a Consistency-Token (the primary's WAL position after its commit), and a request that sends it
 * back is never answered from a standby that has not replayed that far. The CLI sends back the latest token it
 * was given: within one command (a write, then the read that shows it), and from one command to the next
 * through a small state file, so that a script's `record add` followed by `record list` sees the record even
 * when the list is read from a standby 200 ms behind.
 *
 * The state file is `consistency-tokens.json` in ZONEKEEPER_STATE_DIR, or in the XDG state directory
 * (`$XDG_STATE_HOME/zonekeeper`, `~/.local/state/zonekeeper`): a token per service URL, with when it was given.
 * A token older than TOKEN_KEPT_MS is not sent: every standby that serves reads has replayed it long since (one
 * further behind than REPLICA_MAX_LAG_MS serves none), and a token from a database since replaced (restored
 * from a backup, its WAL positions lower) would otherwise make each read wait for a position never reached.
 * The file is a convenience: when it cannot be read or written, the command goes on without it.
 */

/** the header, as the service names it (src/db/read-replicas.ts) */
export const CONSISTENCY_TOKEN_HEADER = 'Consistency-Token';

/** how long a token given by a write is sent back by later commands */
export const TOKEN_KEPT_MS = 10 * 60_000;

const LSN_TEXT = /^([0-9A-F]{1,8})\/([0-9A-F]{1,8})$/i;

/** a WAL position's text (`16/B374D848`) as a number that orders, or undefined when it is none */
function positionOf(token: string): bigint | undefined {
  const match = LSN_TEXT.exec(token.trim());
  return match ? (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`) : undefined;
}

type Stored = Record<string, { token: string; at: number }>;

function stateFile(): string {
  const dir =
    process.env.ZONEKEEPER_STATE_DIR || path.join(process.env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state'), 'zonekeeper');
  return path.join(dir, 'consistency-tokens.json');
}

function readStored(file: string): Stored {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Stored) : {};
  } catch {
    return {};
  }
}

/** The latest token of one service (its URL) for this command: read from the state file once, kept up to date. */
export class ConsistencyTokens {
  private latest: string | undefined;
  private loaded = false;
  /** whether this command was given a token already (then only a later one replaces it) */
  private notedHere = false;

  constructor(
    private readonly service: string,
    private readonly file: string = stateFile(),
    private readonly now: () => number = Date.now,
  ) {}

  /** the token to send with the next request, if any */
  current(): string | undefined {
    if (!this.loaded) {
      this.loaded = true;
      const stored = readStored(this.file)[this.service];
      if (stored && typeof stored.token === 'string' && positionOf(stored.token) !== undefined && this.now() - stored.at < TOKEN_KEPT_MS)
        this.latest = stored.token;
    }
    return this.latest;
  }

  /**
   * A token an answer carried: kept when it is later than the one held (one command's answers may arrive out of
   * order), and written to the state file for the commands that follow. A token from another database's history
   * (one lower than the file's) replaces the file's too: the file keeps what the service said last.
   */
  note(token: string | null | undefined): void {
    const position = token ? positionOf(token) : undefined;
    if (!token || position === undefined) return;
    const held = this.current();
    const heldPosition = held === undefined ? undefined : positionOf(held);
    if (heldPosition === undefined || position > heldPosition || !this.notedHere) this.latest = token;
    this.notedHere = true;
    if (this.latest !== token) return;
    try {
      const stored = readStored(this.file);
      stored[this.service] = { token, at: this.now() };
      mkdirSync(path.dirname(this.file), { recursive: true });
      // written whole then renamed: a command running beside never reads half a file
      const partial = `${this.file}.${process.pid}`;
      writeFileSync(partial, `${JSON.stringify(stored)}\n`);
      renameSync(partial, this.file);
    } catch {
      // no state directory to write (a read-only home): the token still serves this command
    }
  }
}
