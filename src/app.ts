import { ApolloServer } from '@apollo/server';
import { ApolloServerPluginCacheControlDisabled, ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { expressMiddleware } from '@as-integrations/express5';
import type { Database } from './db/pool';
import type { ReadReplicas } from './db/read-replicas';
import express, { NextFunction, Request, Response } from 'express';
import type { GraphQLSchema } from 'graphql';
import { databaseReachable, noteDatabaseFailure, noteDatabaseReachable, RETRY_AFTER_SECONDS } from './db/availability';
import { fastPath } from './graphql/fast-path';
import { conditionalGet } from './http/conditional-get';
import { webConsole } from './http/console';
import { graphiql } from './http/graphiql';
import { requestLog } from './http/request-log';
import { InMemoryLRUCache } from '@apollo/utils.keyvaluecache';
import type { DocumentNode } from 'graphql';
import { buildContext, contextFor, GraphQLContext } from './graphql/context';
import { databaseOutageStatus, formatError, operationWarnings, rateLimitedStatus, refusalAudit } from './graphql/format-error';
import { operationLimitFigures, operationLimits } from './graphql/limits';
import { textInputCheck } from './graphql/text-input';
import { getSchema } from './graphql/schema';
import { errorBody } from './http/error-body';
import { metricsAccess, principalOf, requireApiKey } from './http/request-gates';
import { heavyBodies, HeavyRequests } from './http/heavy-requests';
import { BodyTooLarge, graphqlBody, largeBodyTurn } from './http/body-limits';
import { logger } from './logger';
import { hostPortName } from './config/settings';
import { metrics, observeSecondaryLag, observeSteeringHeld, observeZoneHealth } from './metrics';
import { createRestRouter } from './rest/router';
import { createPowerDnsRouter } from './powerdns/router';
import { databaseOf, readRouting } from './http/read-routing';
import { standbyReads } from './graphql/standby-reads';
import { signInRoutes } from './http/sign-in';
import type { Services } from './services';

/** the most tokens a GraphQL document may have (graphql-js parse option `maxTokens`) */
const GRAPHQL_MAX_TOKENS = 5000;

export interface App {
  express: express.Express;
  apollo: ApolloServer<GraphQLContext>;
  schema: GraphQLSchema;
}

/** TRUST_PROXY as Express takes it: true/false, a hop count, or addresses and subnets (`loopback`, `10.0.0.0/8`) */
function trustProxyValue(text: string): boolean | number | string {
  if (text === 'true' || text === 'false') return text === 'true';
  return /^\d+$/.test(text) ? Number(text) : text;
}

/** Body-parser failures are client mistakes: a clear 4xx, never a 500. */
function bodyErrors(error: unknown, req: Request, res: Response, next: NextFunction) {
  const status = (error as { status?: number; type?: string }).status;
  const type = (error as { type?: string }).type;
  if (res.headersSent) return next(error);
  if (error instanceof BodyTooLarge) {
    // the limit and its setting named, in the edge's shape: /graphql answers as GraphQL, the rest as REST
    const body = errorBody(error.code, error.message, error.details);
    const graphql = req.originalUrl.startsWith('/graphql');
    return res
      .status(413)
      .json(graphql ? { errors: [{ message: error.message, extensions: { code: error.code, details: error.details } }] } : body);
  }
  if (status === 413 || type === 'entity.too.large') {
    return res.status(413).json(errorBody('PAYLOAD_TOO_LARGE'));
  }
  if (type === 'entity.parse.failed' || type?.startsWith('charset') || type?.startsWith('encoding')) {
    return res
      .status(400)
      .json(
        errorBody('BAD_REQUEST', 'Malformed request body', [
          { field: 'body', code: 'MALFORMED_BODY', message: 'the request body could not be parsed' },
        ]),
      );
  }
  if (status && status >= 400 && status < 500) {
    // e.g. a path segment that is not valid percent-encoding
    return res
      .status(400)
      .json(
        errorBody('BAD_REQUEST', 'Malformed request', [
          { field: 'path', code: 'MALFORMED_REQUEST', message: 'the request could not be read' },
        ]),
      );
  }
  if (noteDatabaseFailure(error, 'HTTP')) {
    return res.set('Retry-After', String(RETRY_AFTER_SECONDS)).status(503).json(errorBody('DATABASE_UNAVAILABLE'));
  }
  logger.error({ err: error }, 'unexpected error');
  return res.status(500).json(errorBody('INTERNAL'));
}

/**
 * The HTTP face: /graphql (Apollo), /api (the REST layer, on the same schema), /health, /metrics and the /console.
 * With `replicas` (DATABASE_REPLICA_URL), reads that may lag are served by standbys (docs/deployment.md).
 */
export async function createApp(db: Database, services: Services, replicas?: ReadReplicas): Promise<App> {
  const { settings } = services;
  const schema = await getSchema(settings.fastPaths);
  const heavy = new HeavyRequests(settings.heavyRequestsAtOnce);
  // a body over BODY_LIMIT (a zone file's) is read one at a time in the process (src/http/body-limits.ts)
  const largeBodies = new HeavyRequests(1);
  // FAST_PATHS (src/graphql/fast-path/): operations compiled by graphql-jit, or graphql-js as Apollo runs it
  const fast = fastPath(schema, settings.fastPaths, (error) =>
    logger.warn({ err: error }, 'graphql-jit could not compile an operation; it runs on graphql-js'),
  );
  const apollo = new ApolloServer<GraphQLContext>({
    schema,
    // parsed documents by query text, bounded by their JSON size (Apollo's default is 30 MiB, which a stream
    // of distinct hostile documents fills at several times that in heap): 2 MiB holds a few hundred documents
    documentStore: new InMemoryLRUCache<DocumentNode>({ maxSize: 2 * 1024 * 1024 }),
    formatError,
    stringifyResult: fast.stringifyResult,
    includeStacktraceInErrorResponses: false,
    // the service stops Apollo itself, in order (main.ts); Apollo's own handlers would stop it at the signal and
    // raise the signal again
    stopOnTerminationSignals: false,
    // the parse is bounded before anything else looks at a document: a legitimate operation of this schema is a
    // few hundred tokens; 5,000 leaves room for large generated documents and stops token floods
    parseOptions: { maxTokens: GRAPHQL_MAX_TOKENS },
    // schema-driven clients introspect; every /graphql request needs an API key anyway
    introspection: true,
    // CSRF (Apollo's csrfPrevention): a browser cannot send X-API-Key cross-site without a CORS preflight, and
    // every operation needs it, so it counts as a preflighted header; GET queries then need no other
    // (a person's session cookie: X-Requested-With, which the cookie gate requires, src/http/request-gates.ts)
    csrfPrevention: { requestHeaders: ['x-api-key', 'x-apollo-operation-name', 'apollo-require-preflight', 'x-requested-with'] },
    plugins: [
      operationLimits(schema, operationLimitFigures(settings)),
      databaseOutageStatus,
      rateLimitedStatus,
      refusalAudit,
      operationWarnings,
      textInputCheck,
      ...(replicas ? [standbyReads(replicas, services)] : []),
      // no cache hints are used; the plugin would otherwise wrap every field of every answer
      ApolloServerPluginCacheControlDisabled(),
      // a browser's GET /graphql gets the service's own GraphiQL (src/http/graphiql.ts), not Apollo's CDN page
      ApolloServerPluginLandingPageDisabled(),
      // last: an operation it answers has passed every check above
      ...fast.plugins,
    ],
  });
  await apollo.start();

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  // TRUST_PROXY (docs/people.md): behind a TLS proxy, req.secure and req.ip as the proxy reports them
  if (settings.sessions.trustProxy !== undefined) app.set('trust proxy', trustProxyValue(settings.sessions.trustProxy));
  // express's own ETag is a SHA-1 of every body, POST answers included (1.8% of a write's CPU); the answers
  // that pollers revalidate carry a version-derived ETag instead (http/conditional-get.ts)
  app.set('etag', false);
  // the request's log line and its observation in the request histogram, one layer
  app.use(requestLog);

  const limit = settings.bodyLimit;
  // the PowerDNS HTTP API (docs/powerdns-api.md): /api/v1 and GET /api, beside REST's documented /api paths;
  // first after the request log: a write to the API passes no layer of the probes' or of the routers below,
  // none of which serves an /api path (each layer passed and each path compared is CPU on every request,
  // bench/FINDINGS.md)
  // with standbys, a GET of /api may be answered by one (chosen once the router's requireApiKey let it in), and
  // every other request's answer carries its token
  if (replicas) app.use('/api', readRouting(replicas, services, db));
  const powerDns = createPowerDnsRouter({ db, services, heavy });
  app.use('/api/v1', powerDns.api);
  app.get('/api', ...powerDns.discovery);
  app.use('/api', createRestRouter({ runOperation: fast.serviceOperations, db, services, heavy, largeBodies }));

  // liveness: the process answers; a database outage is not a reason to restart it (that is /ready's business)
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok', database: databaseReachable() ? 'reachable' : 'unreachable' });
  });
  // readiness, for load balancers: the database answers (this code's migrations were applied at start, before
  // the roles started: openDatabase fails the start otherwise). The standbys are named with their state and lag;
  // one that does not serve leaves the process ready, its reads going to the primary
  app.get('/ready', async (_req, res) => {
    const standbys = replicas ? { standbys: replicas.status() } : {};
    try {
      await db.rows('select 1');
      noteDatabaseReachable();
      res.json({ status: 'ready', ...standbys });
    } catch (error) {
      noteDatabaseFailure(error, 'readiness check');
      res
        .set('Retry-After', String(RETRY_AFTER_SECONDS))
        .status(503)
        .json({ status: 'unavailable', reason: 'database unreachable', ...standbys });
    }
  });
  // the secondaries' lag, every nameserver set's, read from the shared status rows at each scrape (one aggregate
  // over the rows not in sync); while the database is away the gauges are left out and the process's own
  // metrics still answered
  observeSecondaryLag(() =>
    services.propagation.secondaryLag(db).catch((error) => {
      if (!noteDatabaseFailure(error, 'metrics')) logger.warn({ err: error }, "metrics: the secondaries' lag could not be read");
      return [];
    }),
  );
  // zones by health state and findings by code (docs/health.md), likewise from the shared rows
  observeZoneHealth(() =>
    services.health.counts(db).catch((error) => {
      if (!noteDatabaseFailure(error, 'metrics')) logger.warn({ err: error }, 'metrics: zone health could not be read');
      return undefined;
    }),
  );
  // the steering checks held where they are (docs/steering.md), likewise
  observeSteeringHeld(() =>
    services.steering.heldCounts(db).catch((error) => {
      if (!noteDatabaseFailure(error, 'metrics')) logger.warn({ err: error }, 'metrics: the held steering checks could not be read');
      return undefined;
    }),
  );
  app.get('/metrics', metricsAccess(db, services), async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.metrics());
  });

  // before /graphql: a browser's GET /graphql gets GraphiQL, not the API's 401
  app.use(graphiql());
  app.use(
    '/graphql',
    requireApiKey(db, services, 'graphql'),
    // a GET is a query (Apollo refuses mutations over GET): its database is chosen before its ETag is read
    ...(replicas ? [readRouting(replicas, services, db, false)] : []),
    largeBodyTurn(largeBodies, limit),
    heavyBodies(heavy),
    // GET /graphql?query=… answers carry an ETag; a poller's If-None-Match gets 304 while nothing changed
    // propagation answers change with SECONDARIES (the servers shown, no_secondaries) even when no row does
    conditionalGet(db, { withPropagation: true, variant: `graphql secondaries ${settings.secondaries.map(hostPortName).join(',')}` }),
    // within BODY_LIMIT; an importZone's body within IMPORT_BODY_LIMIT
    graphqlBody(settings),
    expressMiddleware(apollo, {
      // the principal requireApiKey found: a request is authenticated once
      context: async ({ req, res }) => {
        const principal = principalOf(req);
        const context = principal ? contextFor(db, services, principal) : await buildContext(db, services, req.get('x-api-key'));
        // a GET's query reads where its ETag was read (http/read-routing.ts); what it writes goes to the primary
        const readDb = databaseOf(req, db);
        if (readDb !== db) Object.assign(context, { db: readDb, primary: db });
        return Object.assign(context, { heavyTurn: () => heavy.take(res), answerBodyWritten: true });
      },
    }),
  );
  // the web console (static files; it uses /graphql like any client) and / leading to it; after /graphql, which
  // it serves no path of: an operation passes none of its layers
  app.use(webConsole(!services.settings.sessions.publicOrigin && !services.settings.oidc));
  app.use('/auth', signInRoutes(db, services));
  app.use((_req: Request, res: Response) => {
    res.status(404).json(errorBody('ROUTE_NOT_FOUND'));
  });
  app.use(bodyErrors);
  return { express: app, apollo, schema };
}
