import express, { NextFunction, Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { BodyLimitSetting, BodyTooLarge, limitedBy } from './body-limits';
import { errorBody } from './error-body';

/** the JSON media types a REST body may have (RFC 6839 §3.1: a `+json` type is JSON) */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** multer 2.5's `streamHandler` (feeds busboy a body already read), which @types/multer does not list yet */
type MulterOptionsWithStreamHandler = multer.Options & { streamHandler(req: Request, busboy: { end(bytes?: Buffer): void }): void };

/** the raw multipart body of a request, read within BODY_LIMIT, for multer to parse */
const MULTIPART_BYTES = new WeakMap<object, Buffer>();

/**
 * The body parser of a route that takes forms (the REST layer's), within `limit` (the `setting` a refusal
 * names): one layer that picks the parser of the request's content type (JSON, a urlencoded form, a multipart
 * form), so a request passes one parser, not each in turn. A request with no body, or of another type, is left unread (`wholeBodyFirst` reads it).
 * The whole multipart body is bounded, not each field: the body is read (at most the limit, 413 past it)
 * before busboy parses it from memory. With multer's per-field limit alone, 50 fields of 1 MB each made one
 * 50 MB request, and 16 of them in flight took the process past 1 GB (bench/RESULTS-hostile.md).
 */
export function formBodyParser(setting: BodyLimitSetting, limit: number): RequestHandler {
  // each parser is reached only for its own type (the choice below), so it need not test the type again
  const json = limitedBy(setting, limit, express.json({ limit, type: () => true }));
  const urlencoded = limitedBy(setting, limit, express.urlencoded({ limit, extended: false, parameterLimit: 50, type: () => true }));
  const multipartBytes = limitedBy(setting, limit, express.raw({ limit, type: () => true }));
  // a file part (`curl -F text=@example.com.zone`, the usual way to send a zone file) is read like a text
  // field of its name: its bytes are already within the limit, held in memory as the fields are
  const multipart = multer({
    storage: multer.memoryStorage(),
    limits: { fieldSize: limit, fileSize: limit, fields: 50, files: 5, parts: 50 },
    streamHandler: (req: Request, busboy: { end(bytes?: Buffer): void }) => busboy.end(MULTIPART_BYTES.get(req)),
  } as MulterOptionsWithStreamHandler).any();
  const multipartFields = (req: Request, res: Response, next: NextFunction) => {
    // multer sets req.body to the parsed fields; the raw bytes it parses are handed over beside the request
    MULTIPART_BYTES.set(req, Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0));
    multipart(req, res, (error?: unknown) => {
      MULTIPART_BYTES.delete(req);
      if (!error) {
        for (const file of (req.files as Express.Multer.File[] | undefined) ?? []) {
          // a text field of the same name wins: a form never needs both
          if (req.body[file.fieldname] === undefined) req.body[file.fieldname] = file.buffer.toString('utf8');
        }
        req.files = undefined;
        return next();
      }
      // multer/busboy refusals are client mistakes: too large, or not a well-formed form
      const code = (error as { code?: string }).code ?? '';
      if (code.startsWith('LIMIT_')) {
        const tooLarge = new BodyTooLarge(setting, limit);
        res.status(413).json(errorBody(tooLarge.code, tooLarge.message, tooLarge.details));
      } else
        res
          .status(400)
          .json(
            errorBody('BAD_REQUEST', 'Malformed multipart body', [
              { field: 'body', code: 'MALFORMED_BODY', message: 'the multipart body could not be parsed' },
            ]),
          );
    });
  };
  return (req: Request, res: Response, next: NextFunction) => {
    // `req.is` is null for a request without a body: no parser then, as none would read one
    if (req.is(JSON_TYPES)) return json(req, res, next);
    if (req.is('application/x-www-form-urlencoded')) return urlencoded(req, res, next);
    if (req.is('multipart/form-data'))
      return multipartBytes(req, res, (error?: unknown) => (error ? next(error) : multipartFields(req, res, next)));
    // what the parsers leave on a request none of them took
    if (!Reflect.has(req, 'body')) req.body = undefined;
    next();
  };
}
