import type { Request, RequestHandler, Response } from 'express';
import { sourceAddressOf } from '../../services/audit-log';
import { DomainError } from '../../errors/catalogue';
import { SignInLimits } from '../../services/rate-limits';
import { errorBody } from '../error-body';

/** the client's address as the audit log and the limits record it */
export function clientAddressOf(req: Request): string {
  return sourceAddressOf(req.ip ?? req.socket.remoteAddress);
}

/** what a new session records of the browser that signs in */
export function signingInClientOf(req: Request): { sourceAddress: string; userAgent: string | undefined } {
  return { sourceAddress: clientAddressOf(req), userAgent: req.get('user-agent') };
}

/**
 * The gate of the routes that need no credential: one SignInLimits per client address, shared by every route
 * the gate is put before; over it, 429 with Retry-After.
 */
export function limitedByAddress(): RequestHandler {
  const limits = new SignInLimits();
  return (req: Request, res: Response, next: () => void) => {
    try {
      limits.take(clientAddressOf(req));
      next();
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      res.set('Retry-After', String(error.details[0]?.retryAfter ?? 1));
      res.status(429).json(errorBody(error.code, error.message, error.details));
    }
  };
}
