import type { IncomingMessage, Server } from 'node:http';
import { SESSION_COOKIE } from '../services/people/sessions.service';
import type { SessionCredential } from '../graphql/context';
import type { Database } from '../db/pool';
import { execute, GraphQLError, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocket, WebSocketServer } from 'ws';
import { buildContext, type GraphQLContext } from '../graphql/context';
import { DomainError } from '../errors/catalogue';
import { isOperator, type Principal } from '../auth/principal';
import { sourceAddressOf } from '../services/audit-log';
import { formatError } from '../graphql/format-error';
import type { Logger } from '../logger';
import { ChangeFeed } from '../repositories/change-feed';
import type { Services } from '../services';
import { rateLimitError } from '../services/rate-limits';

/** the close code for a key that is wrong, revoked, or whose user is gone (graphql-ws's Forbidden) */
const CLOSE_FORBIDDEN = 4403;
/**
 * The connection's rights changed (a member's role, a key's policy) while the key or session stays valid: closed
 * with RFC 6455's «Try Again Later», which graphql-ws clients retry, so a client connects again and subscribes
 * with the rights it has now (a zone it may no longer read is then refused). Not 4403: the console signs out on it.
 */
const CLOSE_RIGHTS_CHANGED = 1013;

/**
 * What a connection's subscriptions were begun with: the account acted in, the role there and the rules of the
 * key or role. Any change (a role, a membership ended, a key's policy, a person switching account) ends the
 * connection's subscriptions; the client connects again with what it may now.
 */
function rightsOf(principal: Principal): string {
  const person = principal.person;
  const account = person ? person.accountId : principal.kind === 'user' ? principal.userId : null;
  return JSON.stringify([principal.kind, account, person?.role ?? null, principal.policy ?? null]);
}
/** how often an open connection's key is checked again (a revoked key closes its subscriptions) */
const RECHECK_KEYS_MS = 2_000;

/** the API key of a connection_init payload: `{"X-API-Key": …}`, the name in any letter case */
/**
 * A browser's socket signed in by the session cookie (docs/people.md). A WebSocket is not bound by the
 * same-origin policy and a page cannot add headers to it, so the Origin the browser sends with the upgrade is
 * what tells a page of another site (cross-site WebSocket hijacking): it must be this service's own.
 */
function sessionOfUpgrade(
  request: IncomingMessage,
  publicOrigin: string | undefined,
  trustProxy: TrustProxy | undefined,
): SessionCredential | undefined {
  const cookies = request.headers.cookie;
  if (!cookies) return undefined;
  const token = cookies
    .split(';')
    .map((pair) => pair.trim().split('='))
    .find(([name]) => name === SESSION_COOKIE)?.[1];
  const own = publicOrigin ?? `${protocolOf(request, trustProxy)}://${request.headers.host ?? ''}`;
  if (!token || request.headers.origin !== own) return undefined;
  return { session: token };
}

/** Express's `trust proxy` as compiled (`app.get('trust proxy fn')`): is the peer at `address` a proxy to trust */
export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * The upgrade request's protocol as Express's `req.protocol` reads an HTTP request's (sameSiteRequest compares
 * the same origin): the socket's, or behind a proxy TRUST_PROXY trusts, the first X-Forwarded-Proto.
 */
function protocolOf(request: IncomingMessage, trustProxy: TrustProxy | undefined): string {
  const own = (request.socket as { encrypted?: boolean }).encrypted === true ? 'https' : 'http';
  if (!trustProxy || !trustProxy(request.socket.remoteAddress ?? '', 0)) return own;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0].trim();
  return first || own;
}

function keyOf(payload: Record<string, unknown> | undefined): string | undefined {
  const entry = Object.entries(payload ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key');
  return typeof entry?.[1] === 'string' ? entry[1] : undefined;
}

/**
 * GraphQL subscriptions over WebSocket with the graphql-ws protocol (Apollo Client's and urql's), on the HTTP
 * server's port and path (/graphql). The key comes in connection_init and is checked as on HTTP; it is checked
 * again every RECHECK_KEYS_MS, so a revoked key (or a deleted user) closes its connection with 4403 within
 * that, plus the key cache's 5 s in other processes. Events come from this process's change feed (the event
 * feed's journal rows, woken by LISTEN/NOTIFY: changes committed by any process arrive).
 */
export async function startSubscriptions(
  server: Server,
  schema: GraphQLSchema,
  db: Database,
  services: Services,
  log: Logger,
  trustProxy?: TrustProxy,
) {
  const feed = new ChangeFeed(
    db,
    log,
    (change) => services.liveUpdates.publishChange(change),
    (domainId) => services.liveUpdates.publishPropagation(domainId),
    () => services.liveUpdates.subscribedZones(),
    {
      onEvent: (event) => services.liveUpdates.publishKeyEvent(event),
      subscribedZones: () => services.liveUpdates.keyEventZones(),
    },
  );
  await feed.start();
  services.liveUpdates.attachFeed({
    startNow: () => feed.startNow(),
    join: (source, head) => feed.join(source, head),
    changesPassed: (domainId, upTo, snapshot) => feed.changesPassed(domainId, upTo, snapshot),
    keyEventsPassed: (domainId, upTo, snapshot) => feed.keyEventsPassed(domainId, upTo, snapshot),
    changesOfZoneAfter: (zone, afterId, limit) => feed.changesOfZoneAfter(zone, afterId, limit),
    keyEventsOfZoneAfter: (domainId, afterId, limit) => feed.keyEventsOfZoneAfter(domainId, afterId, limit),
  });
  const wss = new WebSocketServer({ server, path: '/graphql' });
  /** each socket's credential: its API key, or a person's session (SessionCredential) */
  const keys = new Map<WebSocket, string | SessionCredential>();
  const authenticate = (
    key: string | SessionCredential | undefined,
    address: string | undefined,
    activity: 'request' | 'check' = 'request',
  ) =>
    typeof key === 'object'
      ? services.sessions.authenticate(db, key.session, address, activity)
      : services.apiKeys.authenticate(db, key, address);
  const addresses = new Map<WebSocket, string | undefined>();
  /** the sockets of an operator person's session (docs/people.md, «The operator»): closed once the grant is revoked */
  const operatorSessions = new Set<WebSocket>();
  /** each connection's rights when it began (`rightsOf`) */
  const rightsAt = new Map<WebSocket, string>();
  /** the socket an operation's context came from, and what to do when it closes (turns still waiting leave the queue) */
  const socketOf = new WeakMap<object, WebSocket>();
  const onSocketClose = new Map<WebSocket, Set<() => void>>();

  /**
   * A query or mutation over the socket takes its turn among the user's requests running in this process
   * (RATE_LIMIT_CONCURRENCY, RATE_LIMIT_QUEUE), the same gate and the same turns as the user's HTTP requests
   * (services/rate-limits.ts `InFlight`): one socket carries any number of operations at once, so without it a
   * client could run past the cap on a single connection. The turn ends when the operation's result is ready.
   * The queue full, the operation is refused with RATE_LIMITED (HTTP's 429), the connection stays. A
   * subscription is not counted: it runs for as long as the client keeps it, and its events cost the change
   * feed, not a turn (graphql-ws calls `subscribe` for it, not this).
   */
  async function executeInTurn(args: ExecutionArgs) {
    const context = args.contextValue as Partial<GraphQLContext> | undefined;
    const principal = context?.principal;
    if (!principal) return execute(args);
    const socket = context ? socketOf.get(context) : undefined;
    let turn: (go: boolean) => void = () => undefined;
    const started = new Promise<boolean>((resolve) => (turn = resolve));
    const leave = services.rateLimits.enter(principal, () => turn(true));
    if (!leave) {
      const refusal = rateLimitError({ retryAfter: 1, limitedBy: 'user' }, 'requests at once');
      services.audit.refusals.note(db, principal, refusal);
      return { errors: [new GraphQLError(refusal.message, { extensions: { code: refusal.code, details: refusal.details } })] };
    }
    // the client gone while the operation waits: out of the queue, and never run
    const gone = () => turn(false);
    const waiters = socket && (onSocketClose.get(socket) ?? onSocketClose.set(socket, new Set()).get(socket)!);
    waiters?.add(gone);
    try {
      if (socket && socket.readyState !== WebSocket.OPEN) turn(false);
      if (!(await started)) return { data: null };
      return await execute(args);
    } finally {
      waiters?.delete(gone);
      if (socket && !waiters?.size && onSocketClose.get(socket) === waiters) onSocketClose.delete(socket);
      leave();
    }
  }
  const cleanup = useServer(
    {
      schema,
      execute: executeInTurn,
      async onConnect(ctx) {
        const key = keyOf(ctx.connectionParams) ?? sessionOfUpgrade(ctx.extra.request, services.settings.sessions.publicOrigin, trustProxy);
        const address = sourceAddressOf(ctx.extra.request.socket.remoteAddress);
        const principal = await authenticate(key, address).catch(() => null);
        if (!principal || !key) return false;
        keys.set(ctx.extra.socket, key);
        addresses.set(ctx.extra.socket, address);
        if (typeof key === 'object' && isOperator(principal)) operatorSessions.add(ctx.extra.socket);
        rightsAt.set(ctx.extra.socket, rightsOf(principal));
        return true;
      },
      // each operation over the socket takes from the key's and the user's buckets, as an HTTP request does
      // (services/rate-limits.ts); over the limit it is refused with RATE_LIMITED, the connection stays. The key is
      // checked from the connection's address (allowedNetworks), and a refusal goes to the audit log's summary as
      // on HTTP (services/audit-log.ts `Refusals`)
      async onSubscribe(ctx) {
        const socket = ctx.extra.socket;
        const principal = await authenticate(keys.get(socket), addresses.get(socket)).catch(() => null);
        const decision = principal ? await services.rateLimits.take(db, principal) : undefined;
        if (!principal || !decision || decision.allowed) return undefined;
        const refusal = rateLimitError(decision);
        services.audit.refusals.note(db, principal, refusal);
        return [new GraphQLError(refusal.message, { extensions: { code: refusal.code, details: refusal.details } })];
      },
      // errors leave with the catalogue's codes, as on HTTP (graphql/format-error.ts)
      onError(_ctx, _id, _payload, errors) {
        return errors.map((error) => formatError(error.toJSON(), error));
      },
      onNext(_ctx, _id, _payload, args, result) {
        if (!result.errors?.length) return undefined;
        // a subscription its key's policy refuses (or a quota): to the audit log's summary, as /graphql's refusals
        const context = args.contextValue as Partial<GraphQLContext> | undefined;
        for (const error of result.errors) services.audit.refusals.note(db, context?.principal, error);
        return { ...result, errors: result.errors.map((error) => formatError(error.toJSON(), error)) } as ReturnType<
          NonNullable<Parameters<typeof useServer>[0]['onNext']>
        >;
      },
      onClose(ctx) {
        keys.delete(ctx.extra.socket);
        addresses.delete(ctx.extra.socket);
        operatorSessions.delete(ctx.extra.socket);
        rightsAt.delete(ctx.extra.socket);
        for (const gone of onSocketClose.get(ctx.extra.socket) ?? []) gone();
        onSocketClose.delete(ctx.extra.socket);
      },
      async context(ctx) {
        const key = keys.get(ctx.extra.socket);
        const context = await buildContext(db, services, key, ctx.extra.request.socket.remoteAddress);
        // the context itself, not a copy: a spread would leave its prototype's `loaders` behind (graphql/context.ts)
        const operationContext = Object.assign(context, {
          dropConnection: (code: number, reason: string) => ctx.extra.socket.close(code, reason),
        });
        socketOf.set(operationContext, ctx.extra.socket);
        return operationContext;
      },
    },
    wss,
  );
  const recheck = setInterval(() => {
    for (const [socket, key] of keys) {
      // the service's own check, not the person's activity: an open console tab does not keep its session alive
      authenticate(key, addresses.get(socket), 'check').then(
        (principal) => {
          if (!principal) socket.close(CLOSE_FORBIDDEN, 'Forbidden: the API key is no longer valid');
          // its subscriptions were begun with the operator's rights (every account's zones): not one more event
          else if (operatorSessions.has(socket) && !isOperator(principal))
            socket.close(CLOSE_FORBIDDEN, 'Forbidden: the person is no operator any more');
          else if (rightsAt.has(socket) && rightsAt.get(socket) !== rightsOf(principal))
            socket.close(CLOSE_RIGHTS_CHANGED, 'The rights of this connection changed: connect again');
        },
        (error) => {
          // a key that expired or went idle meanwhile (policy.ts); otherwise the database is away: checked again later
          if (error instanceof DomainError && error.code === 'FORBIDDEN_BY_POLICY')
            socket.close(CLOSE_FORBIDDEN, `Forbidden: ${error.message}`);
        },
      );
    }
  }, RECHECK_KEYS_MS);
  recheck.unref();
  return {
    async stop() {
      clearInterval(recheck);
      await cleanup.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await feed.stop();
    },
  };
}
