import pino from 'pino';
import pretty from 'pino-pretty';

const level = process.env.LOG_LEVEL?.trim().toLowerCase() || 'info';
const options: pino.LoggerOptions = {
  level,
  base: undefined,
  redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', '*.secret'], censor: '[redacted]' },
};

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
    // «Requests and logs»); pino writes out what is left when the process exits. A log reader that stops reading
    // costs at most 16 MiB of buffered lines (later lines are dropped), where a synchronous write would stop the service.
    pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 });

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
