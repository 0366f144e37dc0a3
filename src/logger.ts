import pino from 'pino';

/** One structured logger (JSON lines). API keys and TSIG secrets never reach it: they are redacted by path too. */
export const logger = pino({
  level: process.env.LOG_LEVEL?.trim().toLowerCase() || 'info',
  base: undefined,
  redact: { paths: ['req.headers["x-api-key"]', 'headers["x-api-key"]', '*.apiKey', '*.secret'], censor: '[redacted]' },
});
export type Logger = typeof logger;
