import pino from 'pino';
import pretty from 'pino-pretty';

const options: pino.LoggerOptions = {
  level: process.env.LOG_LEVEL?.trim().toLowerCase() || 'info',
  base: undefined,
  redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', '*.secret'], censor: '[redacted]' },
};

/**
 * One structured logger. JSON lines for log collectors; readable lines (pino-pretty, synchronously, in this
 * thread) when stdout is a person's terminal. API keys and TSIG secrets never reach it: they are redacted by
 * path too.
 */
export const logger = process.stdout.isTTY
  ? pino(options, pretty({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      sync: true,
      // a request's line says it all in its message (method, path, status, duration); its id follows it
      ignore: 'pid,hostname,req,res,ms,reqId',
      messageFormat: '{msg}{if reqId} [{reqId}]{end}',
    }))
  : pino(options);
export type Logger = typeof logger;
