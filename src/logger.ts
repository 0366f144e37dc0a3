import pino from 'pino';
import pretty from 'pino-pretty';

const level = process.env.LOG_LEVEL?.trim().toLowerCase() || 'info';
const options: pino.LoggerOptions = {
  level,
  base: undefined,
  redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', '*.secret'], censor: '[redacted]' },
};

/** how long a line waits for others before they are handed to the destination together */
const LINES_HELD_MS = 20;

/**
 * The lines of LINES_HELD_MS, handed to the (asynchronous) destination in one write. Each write of the
 * destination is a system call in libuv's thread pool and a wake-up of the event loop when it is done: alone, a
 * request's line cost ~0.1 ms of the process's CPU (bench/FINDINGS.md, «Edges: the work around the write»),
 * as much as a third of a write's own; a request every 2 ms never overlapped the last line's write, which is
 * when the destination gathers lines by itself. A line leaves at most LINES_HELD_MS late. Nothing is lost at
 * the end: the timer holds the event loop until the lines are handed over, and at `process.exit` pino writes
 * the destination out synchronously (its `flushSync`), which first takes what is held here.
 */
class HeldLines {
  private held = '';
  private timer?: NodeJS.Timeout;

  constructor(private readonly destination: pino.DestinationStream & { flushSync(): void; flush(cb?: () => void): void }) {
    const flushSync = destination.flushSync.bind(destination);
    destination.flushSync = () => {
      this.handOver();
      flushSync();
    };
  }

  write(line: string): void {
    this.held += line;
    this.timer ??= setTimeout(() => this.handOver(), LINES_HELD_MS);
  }

  /** pino's `logger.flush()`: what is held goes now */
  flush(cb?: () => void): void {
    this.handOver();
    this.destination.flush(cb);
  }

  private handOver(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.held) return;
    const text = this.held;
    this.held = '';
    this.destination.write(text);
  }
}

/**
 * Where the lines go: JSON lines on stdout for log collectors; readable lines (pino-pretty, synchronously, in
 * this thread) when stdout is a person's terminal.
 */
const destination = process.stdout.isTTY
  ? pretty({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      sync: true,
      // a request's line says it all in its message (method, path, status, duration); its id follows it
      ignore: 'pid,hostname,req,res,ms,reqId',
      messageFormat: '{msg}{if reqId} [{reqId}]{end}',
    })
  : // written asynchronously: a line goes to the kernel when the previous write is done, so under load lines
    // leave together instead of one system call each (0.14 ms of CPU per REST write, docs/performance.md,
    // «Requests and logs»), and held for LINES_HELD_MS so that they leave together under any load; pino
    // writes out what is left when the process exits. A log reader that stops reading costs at most 16 MiB of
    // buffered lines (later lines are dropped), where a synchronous write would stop the service.
    new HeldLines(pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }));

/** One structured logger. API keys and TSIG secrets never reach it: they are redacted by path too. */
export const logger = pino(options, destination);
export type Logger = typeof logger;

/**
 * The request log's lines (src/http/request-log.ts), to the same destination. They are built from the request
 * id, method, path, status and duration only, so they need no redaction: the redaction paths' wildcards are
 * checked on every line, and a line per request is the hottest log call there is.
 */
export const requestLogger = pino({ level, base: undefined }, destination);

/** the level of every line (the LOG_LEVEL setting), the request log's included */
export function setLogLevel(level: pino.LevelWithSilent): void {
  logger.level = level;
  requestLogger.level = level;
}
