import {
  CreateWebhookDocument,
  DeleteWebhookDocument,
  ListEventsDocument,
  ListWebhooksDocument,
  RedeliverWebhookDocument,
  RotateWebhookSecretDocument,
  WebhookDeliveriesDocument,
  type RestWebhookFragment,
  type RestWebhookDeliveryFragment,
} from './generated/events';
import type { FieldSpec, RouteSpec } from './route-spec';

/**
 * Events out over REST (docs/events.md): the event feed and webhook subscriptions, each path one GraphQL
 * operation of src/rest/operations.graphql, as every REST path is. The feed and the deliveries change without a new
 * zone version, so they answer without an ETag (`uncached`).
 */
/** a subscription as REST shows it (snake_case, as the API's other answers); never its secret */
const presentWebhook = (w: RestWebhookFragment) => ({
  id: Number(w.id),
  user_id: w.userId === null ? null : Number(w.userId),
  url: w.url,
  events: w.eventTypes ?? ['*'],
  zones: w.zones,
  enabled: w.enabled,
  disabled_reason: w.disabledReason,
  previous_secret_until: w.previousSecretUntil,
  previous_secrets: w.previousSecrets.map((p) => ({ retired_at: p.retiredAt, until: p.until })),
  created_at: w.createdAt,
});

const presentDelivery = (d: RestWebhookDeliveryFragment) => ({
  id: Number(d.id),
  event_id: Number(d.eventId),
  type: d.type,
  zone: d.zone,
  status: d.status,
  attempts: d.attempts,
  response_code: d.responseCode,
  last_error: d.lastError,
  next_attempt_at: d.nextAttemptAt,
  delivered_at: d.deliveredAt,
  created_at: d.createdAt,
});

const ID_PARAM: Record<string, FieldSpec> = { id: { kind: 'int', required: true, description: 'webhook id' } };
const STRINGS = { type: 'string' };
const WEBHOOK_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'integer' },
    user_id: { type: ['integer', 'null'], description: "null: the operator's" },
    url: { type: 'string' },
    events: { type: 'array', items: STRINGS, description: '["*"]: every type' },
    zones: { type: ['array', 'null'], items: STRINGS, description: 'null: every zone its creator may read' },
    enabled: { type: 'boolean' },
    disabled_reason: { type: ['string', 'null'] },
    previous_secret_until: { type: ['string', 'null'], format: 'date-time', description: 'the last of previous_secrets to end' },
    previous_secrets: {
      type: 'array',
      description: 'the previous secrets still signing too, each until its own overlap ends (the first to end first)',
      items: {
        type: 'object',
        properties: { retired_at: { type: 'string', format: 'date-time' }, until: { type: 'string', format: 'date-time' } },
        required: ['retired_at', 'until'],
      },
    },
    created_at: { type: 'string', format: 'date-time' },
  },
  required: ['id', 'url', 'events', 'enabled'],
};
const WITH_SECRET = {
  ...WEBHOOK_SCHEMA,
  properties: { ...WEBHOOK_SCHEMA.properties, secret: { type: 'string', description: 'whsec_… (Standard Webhooks), shown this once' } },
  required: [...WEBHOOK_SCHEMA.required, 'secret'],
};

export const EVENT_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/events',
    operationId: 'listEvents',
    tag: 'events',
    summary: 'The event feed after a cursor, in order (docs/events.md)',
    status: 200,
    uncached: true,
    query: {
      after: { kind: 'string', description: 'the `next` of the previous answer; none: from the oldest event kept' },
      limit: { kind: 'int', description: 'events at most (1–1000, default 100)', max: 1000 },
      types: { kind: 'list', commaText: true, description: 'only these event types (comma-separated)', items: STRINGS },
    },
    response: {
      type: 'object',
      properties: {
        events: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              type: { type: 'string' },
              timestamp: { type: 'string', format: 'date-time' },
              zone: { type: ['string', 'null'] },
              data: { type: 'object' },
            },
            required: ['id', 'type', 'timestamp', 'data'],
          },
        },
        next: { type: 'string', description: 'the cursor to read on from' },
      },
      required: ['events', 'next'],
    },
    async handle(inputs, runner) {
      const data = await runner.run(ListEventsDocument, { after: inputs.after, limit: inputs.limit, types: inputs.types });
      return { body: { events: data.events.events.map((e) => ({ ...e, id: Number(e.id) })), next: data.events.next } };
    },
  },
  {
    method: 'post',
    path: '/webhook/add',
    operationId: 'createWebhook',
    tag: 'events',
    summary: 'Subscribes a URL to events; answers its signing secret once',
    status: 201,
    body: {
      url: { kind: 'string', required: true, description: 'http(s) URL of the endpoint (a public address unless WEBHOOK_ALLOW allows it)' },
      events: {
        kind: 'list',
        commaText: true,
        description: 'event types, a JSON list or comma-separated; * (default): every type',
        items: STRINGS,
      },
      zones: {
        kind: 'list',
        commaText: true,
        description: 'only events of these zones; none: every zone the key may read',
        items: STRINGS,
      },
    },
    response: WITH_SECRET,
    async handle(inputs, runner) {
      const data = await runner.run(CreateWebhookDocument, {
        url: inputs.url,
        events: inputs.events,
        zones: inputs.zones,
      });
      return { body: { ...presentWebhook(data.createWebhook.webhook), secret: data.createWebhook.secret } };
    },
  },
  {
    method: 'get',
    path: '/webhook/list',
    operationId: 'listWebhooks',
    tag: 'events',
    summary: "The caller's webhook subscriptions (the admin key: every one); never a secret",
    status: 200,
    uncached: true,
    response: { type: 'array', items: WEBHOOK_SCHEMA },
    async handle(_inputs, runner) {
      const data = await runner.run(ListWebhooksDocument, {});
      return { body: data.webhooks.map(presentWebhook) };
    },
  },
  {
    method: 'delete',
    path: '/webhook/delete/:id',
    operationId: 'deleteWebhook',
    tag: 'events',
    summary: 'Deletes a webhook subscription and its deliveries',
    status: 204,
    params: ID_PARAM,
    async handle(inputs, runner) {
      await runner.run(DeleteWebhookDocument, { id: String(inputs.id) });
      return { empty: true };
    },
  },
  {
    method: 'get',
    path: '/webhook/deliveries/:id',
    operationId: 'webhookDeliveries',
    tag: 'events',
    summary: "A subscription's deliveries, newest first",
    status: 200,
    uncached: true,
    params: ID_PARAM,
    query: {
      first: { kind: 'int', description: 'deliveries at most (1–1000, default 100)', max: 1000 },
      before: { kind: 'int', description: 'only deliveries older than this delivery id' },
    },
    response: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'integer' },
          event_id: { type: 'integer' },
          type: { type: 'string' },
          zone: { type: ['string', 'null'] },
          status: { enum: ['pending', 'delivered', 'failed'] },
          attempts: { type: 'integer' },
          response_code: { type: ['integer', 'null'] },
          last_error: { type: ['string', 'null'] },
          next_attempt_at: { type: ['string', 'null'], format: 'date-time' },
          delivered_at: { type: ['string', 'null'], format: 'date-time' },
          created_at: { type: 'string', format: 'date-time' },
        },
        required: ['id', 'event_id', 'type', 'status', 'attempts'],
      },
    },
    async handle(inputs, runner) {
      const data = await runner.run(WebhookDeliveriesDocument, {
        id: String(inputs.id),
        first: inputs.first,
        before: inputs.before === undefined ? undefined : String(inputs.before),
      });
      return { body: data.webhookDeliveries.map(presentDelivery) };
    },
  },
  {
    method: 'post',
    path: '/webhook/rotate/:id',
    operationId: 'rotateWebhookSecret',
    tag: 'events',
    summary:
      'A new signing secret, answered once; the current one signs too for WEBHOOK_SECRET_OVERLAP_HOURS, each previous one until its own overlap ends',
    status: 200,
    params: ID_PARAM,
    body: {
      secret: {
        kind: 'string',
        description:
          'the new secret, when the receiver has one already: whsec_ and the base64 of 24 to 64 random bytes; none: a random one',
      },
    },
    response: WITH_SECRET,
    async handle(inputs, runner) {
      const data = await runner.run(RotateWebhookSecretDocument, {
        id: String(inputs.id),
        secret: inputs.secret,
      });
      return { body: { ...presentWebhook(data.rotateWebhookSecret.webhook), secret: data.rotateWebhookSecret.secret } };
    },
  },
  {
    method: 'post',
    path: '/webhook/redeliver/:id',
    operationId: 'redeliverWebhook',
    tag: 'events',
    summary: 'Delivers again the events given, or every failed delivery',
    status: 200,
    params: ID_PARAM,
    body: { events: { kind: 'list', commaText: true, description: 'event ids; none: every failed delivery', items: { type: 'integer' } } },
    response: { type: 'object', properties: { redelivered: { type: 'integer' } }, required: ['redelivered'] },
    async handle(inputs, runner) {
      const events = (inputs.events as unknown[] | undefined)?.map(String);
      const data = await runner.run(RedeliverWebhookDocument, { id: String(inputs.id), events });
      return { body: { redelivered: data.redeliverWebhook } };
    },
  },
];
