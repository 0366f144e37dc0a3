import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import { Kind, OperationTypeNode, parse } from 'graphql';
import { DomainError } from '../errors/catalogue';
import type { Settings } from '../config/settings';
import { HeavyRequests, refuseBusy } from './heavy-requests';

/**
 * The bounds on what a request may send. BODY_LIMIT bounds every request; a zone-file import (`importZone`,
 * `POST /api/domain/import/:zone`) is bounded by IMPORT_BODY_LIMIT instead, sized for a zone of the record
 * quota (MAX_RECORDS_PER_ZONE): an import must take any zone the quota allows, and a 100,000-record zone file
 * is some 7 MB. A body over BODY_LIMIT is read only for an import, and one at a time in the process (what an
 * import holds while it runs is some 25 to 60 times its file, docs/performance.md, «Memory under hostile
 * input»). A refusal names the limit and the setting that raises it. Within the bound, what a file becomes is
 * bounded by its records, counted while it is read against the user's record quota and the parser's heap
 * (services/zones/zone-files.service.ts): a file of IMPORT_BODY_LIMIT holds no more than a file of the quota.
 */
export type BodyLimitSetting = 'BODY_LIMIT' | 'IMPORT_BODY_LIMIT';

/** the request body passed a bound: PAYLOAD_TOO_LARGE naming it and its setting, in each edge's error shape */
export class BodyTooLarge extends DomainError {
  constructor(
    readonly setting: BodyLimitSetting,
    readonly limit: number,
  ) {
    const message =
      setting === 'IMPORT_BODY_LIMIT'
        ? `the zone file's request is over IMPORT_BODY_LIMIT (${limit} bytes), the bound of zone-file imports; the operator raises IMPORT_BODY_LIMIT for larger files`
        : `the request body is over BODY_LIMIT (${limit} bytes); a zone file goes to importZone or POST /api/domain/import/:zone, bounded by IMPORT_BODY_LIMIT instead, and the operator raises BODY_LIMIT for other requests`;
    super('PAYLOAD_TOO_LARGE', `Request body too large: ${message}`, [{ field: 'body', code: 'PAYLOAD_TOO_LARGE', message, limit }]);
  }
}

/** an import's bound: IMPORT_BODY_LIMIT, never below BODY_LIMIT */
export const importBodyLimit = (settings: Settings): number => Math.max(settings.bodyLimit, settings.importBodyLimit);

/** a body-parser (express.json, raw, urlencoded) whose 413 becomes BodyTooLarge naming `setting` */
export function limitedBy(setting: BodyLimitSetting, limit: number, parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (error?: unknown) => {
      const tooLarge = (error as { status?: number; type?: string } | undefined)?.type === 'entity.too.large';
      next(tooLarge ? new BodyTooLarge(setting, limit) : error);
    });
}

/** the body is (or may be: chunked, its length unsaid) larger than `limit` */
export function bodyOver(req: Request, limit: number): boolean {
  return Number(req.get('content-length') ?? (req.get('transfer-encoding') ? Infinity : 0)) > limit;
}

/**
 * A body over BODY_LIMIT (only an import's may be) waits for the process's one turn for such bodies before it
 * is read: one large import runs at a time, beside the heavy turns of the rest. A full queue: 503 SERVER_BUSY.
 */
export function largeBodyTurn(turns: HeavyRequests, bodyLimit: number): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (!bodyOver(req, bodyLimit)) return next();
    turns.whenTaken(res, (turn) => {
      if (turn) return next();
      if (!res.destroyed) refuseBusy(res);
    });
  };
}

/**
 * /graphql's body: within BODY_LIMIT as every request, or, for a body over it, within IMPORT_BODY_LIMIT when
 * it is one operation that only imports zone files (`importZone`); any other body over BODY_LIMIT is refused
 * once read, naming BODY_LIMIT. The operation is known only from the body, so a large body is read (in the
 * one turn of `largeBodyTurn`) before it can be refused.
 */
export function graphqlBody(settings: Settings): RequestHandler {
  const { bodyLimit } = settings;
  const small = limitedBy('BODY_LIMIT', bodyLimit, express.json({ limit: bodyLimit }));
  // a chunked body says its length only once read: the parser tells it
  const sizes = new WeakMap<Request, number>();
  const large = limitedBy(
    'IMPORT_BODY_LIMIT',
    importBodyLimit(settings),
    express.json({ limit: importBodyLimit(settings), verify: (req, _res, bytes) => sizes.set(req as Request, bytes.length) }),
  );
  return (req: Request, res: Response, next: NextFunction) => {
    if (!bodyOver(req, bodyLimit)) return small(req, res, next);
    large(req, res, (error?: unknown) => {
      if (error) return next(error);
      if ((sizes.get(req) ?? 0) <= bodyLimit) return next();
      next(onlyImports(req.body) ? undefined : new BodyTooLarge('BODY_LIMIT', bodyLimit));
    });
  };
}

/** a GraphQL request of one mutation whose every root field is `importZone` */
function onlyImports(body: unknown): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const { query, operationName } = body as { query?: unknown; operationName?: unknown };
  if (typeof query !== 'string') return false;
  try {
    // the document is small (the file is in the variables); its tokens are bounded as every document's
    const document = parse(query, { maxTokens: 5000 });
    const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
    const operation = operations.length === 1 ? operations[0] : operations.find((o) => o.name?.value === operationName);
    if (!operation || operation.kind !== Kind.OPERATION_DEFINITION || operation.operation !== OperationTypeNode.MUTATION) return false;
    return operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value === 'importZone');
  } catch {
    return false;
  }
}
