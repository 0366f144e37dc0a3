import express, { Request, RequestHandler, Response, Router } from 'express';
import type { Database } from '../db/pool';
import { DomainError, ERROR_CATALOGUE, ErrorCode } from '../errors/catalogue';
import { failureOf, startFailureAnswer } from '../request-failure';
import { logger } from '../logger';
import { BodyTooLarge } from '../http/body-limits';
import { heavyBodies, HeavyRequests } from '../http/heavy-requests';
import { sendJson } from '../http/send-json';
import { sendChunks } from '../http/send-stream';
import { principalOf, requireApiKey, wholeBodyFirst } from '../http/request-gates';
import { databaseOf } from '../http/read-routing';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import { PowerDnsError, POWERDNS_ROUTES, PowerDnsResult } from './routes';
import { refuseZoneVariant } from './route-kit';

export interface PowerDnsDeps {
  db: Database;
  services: Services;
  /** the process's turns for heavy requests: a large body waits for one before it is read, as on REST and GraphQL */
  heavy: HeavyRequests;
}

/** the rrset each change and each comments entry of a change set came from, to name it in an error */
interface RrsetLabels {
  changes: readonly string[];
  comments: readonly string[];
}

/**
 * what PowerDNS answers 409 (a zone or TSIG key that exists), and a locked or a steered RRset, which PowerDNS does
 * not have and every edge answers alike (docs/changes.md, docs/steering.md); a change that breaks a zone rule is its 422
 */
const CONFLICTS = new Set<ErrorCode>([
  'DUPLICATE_ZONE',
  'ZONE_OWNED_BY_ANOTHER_USER',
  'DUPLICATE_TSIG_KEY',
  'RRSET_PROTECTED',
  'RRSET_STEERED',
]);

/**
 * A domain error as PowerDNS answers: `{"error": "…"}` with its status. PowerDNS answers every refused input
 * 422 (ws-auth.cc's ApiException), so our 400s, 422s and rule conflicts are 422 here; a change set's problem
 * names the rrset it came from (`RRset www.example.com. IN A: …`), as PowerDNS's messages do. Other codes keep
 * their status (404 zone not found, 409 duplicate zone, 403 policy or quota, 429 rate, 503 database).
 */
function fromDomainError(error: DomainError, rrsetLabels: RrsetLabels): PowerDnsError {
  const catalogued = ERROR_CATALOGUE[error.code].status;
  const status = catalogued === 400 || (catalogued === 409 && !CONFLICTS.has(error.code)) ? 422 : catalogued;
  const [first] = error.details;
  let message = status === 422 && first ? first.message : error.message;
  // a change's problem names its rrset, not its place in the change set
  const change = /^(changes|comments)\[(\d+)\][^:\s]*:\s*/.exec(message);
  if (change) {
    const label = (change[1] === 'changes' ? rrsetLabels.changes : rrsetLabels.comments)[Number(change[2])];
    message = (label ? `${label}: ` : '') + message.slice(change[0].length);
  }
  const more = error.details.length > 1 ? ` (and ${error.details.length - 1} more problems)` : '';
  return new PowerDnsError(status, message + more);
}

/**
 * The PowerDNS HTTP API edge (docs/powerdns-api.md): a route table beside the REST layer's, mounted at
 * /api/v1 (and `GET /api`), answering in PowerDNS's shapes. Each route reads its inputs and calls the services
 * as the key's principal; the services decide (policies, zone rules, write engine), as they do for REST and
 * GraphQL. Authentication, rate limits and the per-user turn are the shared gates (request-gates.ts).
 */
export function createPowerDnsRouter({ db, services, heavy }: PowerDnsDeps): { discovery: RequestHandler[]; api: Router } {
  const { bodyLimit } = services.settings;
  const authenticated = requireApiKey(db, services, 'powerdns');
  const wholeBody = wholeBodyFirst(bodyLimit);
  // PowerDNS clients send JSON, some without a content type (acme.sh's curl): every body is read as JSON
  const json = express.json({ limit: bodyLimit, type: () => true });

  const send = async (res: Response, result: PowerDnsResult) => {
    if ('text' in result) res.status(result.status).type(result.contentType).send(result.text);
    else if ('body' in result) sendJson(res, result.status, result.body);
    else if ('chunks' in result) await sendChunks(res, result.status, result.contentType, result.chunks);
    else res.status(result.status).end();
  };
  const fail = (res: Response, error: unknown, rrsetLabels: RrsetLabels = { changes: [], comments: [] }) => {
    // a streamed answer that failed after its first page: its status is sent, so the connection is cut short
    // (the client sees an incomplete body, never a list that looks whole)
    if (res.headersSent) {
      logger.error({ err: error }, 'PowerDNS API answer failed while streaming');
      res.destroy();
      return;
    }
    // a PowerDnsError is the edge's own answer in PowerDNS's words (its status and message as PowerDNS's)
    if (error instanceof PowerDnsError) {
      res.status(error.status).json({ error: error.message });
      return;
    }
    const failure = failureOf(error, 'PowerDNS API');
    if (failure.kind === 'refused') {
      const refused = fromDomainError(failure.error, rrsetLabels);
      startFailureAnswer(res, failure, refused.status).json({ error: refused.message });
      return;
    }
    startFailureAnswer(res, failure).json({
      error: ERROR_CATALOGUE[failure.kind === 'unavailable' ? 'DATABASE_UNAVAILABLE' : 'INTERNAL'].message,
    });
  };

  const api = Router({ strict: false, caseSensitive: false });
  for (const route of POWERDNS_ROUTES) {
    const answer = async (req: Request, res: Response) => {
      // no `warnings`: PowerDNS's answers have no place for them (docs/powerdns-api.md), so none are worked out
      // a GET may read from a standby (http/read-routing.ts); the audit of a refusal below writes on the primary
      const ctx: RequestContext = { db: route.readsPrimary ? db : databaseOf(req, db), principal: principalOf(req)! };
      const labels: string[] = [];
      const commentLabels: string[] = [];
      try {
        // PowerDNS 5's zone variant (`zone..view`) is refused on every route of a zone: views are not zones here
        if (typeof req.params.zone === 'string') refuseZoneVariant(req.params.zone);
        await send(
          res,
          await route.handle({
            params: req.params as Record<string, string>,
            query: req.query,
            body: req.body,
            services,
            ctx,
            labels,
            commentLabels,
            // PowerDNS's web server answers JSON where the client's Accept names it (the export's `{"zone": …}`)
            accepts: /application\/json/i.test(req.get('accept') ?? '') ? 'json' : 'text',
          }),
        );
      } catch (error) {
        if (error instanceof DomainError) services.audit.refusals.note(db, ctx.principal, error);
        fail(res, error, { changes: labels, comments: commentLabels });
      }
    };
    api[route.method](route.path, authenticated, heavyBodies(heavy), json, wholeBody, answer);
  }
  // a path of the API with another method, and a path it does not have: PowerDNS's answers (405, 404)
  const methodsByPath = new Map<string, string[]>();
  for (const route of POWERDNS_ROUTES)
    methodsByPath.set(route.path, [...(methodsByPath.get(route.path) ?? []), route.method.toUpperCase()]);
  for (const [path, methods] of methodsByPath)
    api.all(path, authenticated, (_req, res) => res.set('Allow', methods.join(', ')).status(405).json({ error: 'Method Not Allowed' }));
  api.use(authenticated, (_req, res) => res.status(404).json({ error: 'Not Found' }));
  // a body that is not JSON (PowerDNS: 400 Bad Request, webserver.cc HttpRequest::json); too large: 413,
  // naming the limit and its setting
  const tooLarge = new BodyTooLarge('BODY_LIMIT', bodyLimit);
  api.use((error: { status?: number; type?: string }, _req: Request, res: Response, next: (error?: unknown) => void) => {
    if (res.headersSent || typeof error?.status !== 'number') return next(error);
    res
      .status(error.status === 413 ? 413 : 400)
      .json({ error: error.status === 413 ? tooLarge.message : 'Bad Request: the body is not valid JSON' });
  });

  // GET /api: the API versions (PowerDNS's discovery), with the key like every API path
  const discovery: RequestHandler[] = [authenticated, (_req, res) => void res.json([{ url: '/api/v1', version: 1 }])];
  return { discovery, api };
}
