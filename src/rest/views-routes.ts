import {
  ClearViewOverlayDocument,
  SetViewOverlayDocument,
  ViewZoneDocument,
  ZoneViewsDocument,
  type RestViewOverlayFragment,
} from './generated/views';
import { FieldSpec, ref, RouteSpec } from './route-spec';

/**
 * Views' REST routes: /domain/views/:zone… (docs/views.md), beside the documented paths. Each runs the GraphQL
 * operation of the same meaning on the same service, so the policy (the operator's only: a user's key is
 * FORBIDDEN) and the write through the write engine, with its view's serial step and its `view.changed` event,
 * are GraphQL's. A view is named by its name, an overlay by its owner and type, as a person writes them.
 */

const presentOverlay = (o: RestViewOverlayFragment) => ({
  owner: o.owner,
  type: o.type,
  action: o.action.toLowerCase(),
  records: o.records,
});

const OVERLAY_RECORD = {
  type: 'object',
  properties: { ttl: { type: 'integer' }, rdata: { type: 'string' } },
  required: ['ttl', 'rdata'],
};
const VIEW_OVERLAY = {
  type: 'object',
  description: 'One RRset the view replaces (its own records) or hides in the zone',
  properties: {
    owner: { type: 'string', description: "relative to the zone ('@' = apex)" },
    type: { type: 'string' },
    action: { enum: ['replace', 'hide'] },
    records: { type: 'array', items: OVERLAY_RECORD, description: "the view's records (replace); none for hide" },
  },
  required: ['owner', 'type', 'action', 'records'],
};

/** the OpenAPI schemas of the answers (components of the document) */
export const VIEW_SCHEMAS = {
  ZoneViews: {
    type: 'object',
    description: 'Every view, lower precedence first, each with its serial of the zone and its overlays of it',
    properties: {
      zone: { type: 'string' },
      views: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            name: { type: 'string' },
            networks: { type: 'array', items: { type: 'string' } },
            precedence: { type: 'integer' },
            tsig_key_name: { type: 'string' },
            notify: { type: 'array', items: { type: 'string' } },
            serial: { type: 'integer', description: "the view's serial of the zone (the base's while it has no overlay in it)" },
            overlays: { type: 'array', items: VIEW_OVERLAY },
          },
          required: ['id', 'name', 'networks', 'precedence', 'tsig_key_name', 'notify', 'serial', 'overlays'],
        },
      },
    },
    required: ['zone', 'views'],
  },
  ViewZone: {
    type: 'object',
    description:
      "A zone as a view serves it: each record marked BASE, REPLACE (the view's own) or HIDE (the base's, not served in the view)",
    properties: {
      zone: { type: 'string' },
      view: { type: 'string' },
      serial: { type: 'integer' },
      records: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            owner: { type: 'string' },
            type: { type: 'string' },
            ttl: { type: 'integer' },
            rdata: { type: 'string' },
            overlay: { enum: ['BASE', 'REPLACE', 'HIDE'] },
          },
          required: ['owner', 'type', 'ttl', 'rdata', 'overlay'],
        },
      },
    },
    required: ['zone', 'view', 'serial', 'records'],
  },
  ViewOverlayChange: {
    type: 'object',
    description: "An overlay set or cleared, and the view's new serial of the zone",
    properties: {
      zone: { type: 'string' },
      view: { type: 'string' },
      owner: { type: 'string' },
      type: { type: 'string' },
      action: { enum: ['replace', 'hide', 'clear'] },
      serial: { type: 'integer' },
    },
    required: ['zone', 'view', 'owner', 'type', 'action', 'serial'],
  },
};

const ZONE_PARAM: Record<string, FieldSpec> = { zone: { kind: 'string', required: true, description: 'zone name' } };
const VIEW_PARAMS: Record<string, FieldSpec> = { ...ZONE_PARAM, view: { kind: 'string', required: true, description: "the view's name" } };
const OVERLAY_PARAMS: Record<string, FieldSpec> = {
  ...VIEW_PARAMS,
  owner: { kind: 'string', required: true, description: "owner, relative to the zone ('@' = apex)" },
  type: { kind: 'string', required: true, description: 'the RRset’s type (not SOA; not NS at the apex)' },
};

export const VIEW_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/views/:zone',
    operationId: 'getZoneViews',
    tag: 'views',
    // an overlay change steps a view's serial, not the zone's: the zone's data version does not follow it
    uncached: true,
    status: 200,
    summary: "Every view (the operator's), each with its serial of the zone and its overlays of it; admin key only",
    params: ZONE_PARAM,
    response: ref('ZoneViews'),
    async handle(inputs, runner) {
      const data = await runner.run(ZoneViewsDocument, { zone: inputs.zone });
      return {
        body: {
          zone: String(inputs.zone),
          views: data.views.map((v) => ({
            id: Number(v.id),
            name: v.name,
            networks: v.networks,
            precedence: v.precedence,
            tsig_key_name: v.tsigKeyName,
            notify: v.notify,
            serial: v.serial,
            overlays: data.viewOverlays.filter((o) => o.view === v.name).map(presentOverlay),
          })),
        },
      };
    },
  },
  {
    method: 'get',
    path: '/domain/views/:zone/:view',
    operationId: 'getViewZone',
    tag: 'views',
    uncached: true,
    status: 200,
    summary: "The zone's records as the view serves them, each marked BASE, REPLACE or HIDE, with the view's serial; admin key only",
    params: VIEW_PARAMS,
    response: ref('ViewZone'),
    async handle(inputs, runner) {
      const data = await runner.run(ViewZoneDocument, {
        zone: inputs.zone,
        view: inputs.view,
      });
      return { body: data.viewZone };
    },
  },
  {
    method: 'put',
    path: '/domain/views/:zone/:view/:owner/:type',
    operationId: 'putViewOverlay',
    tag: 'views',
    status: 200,
    summary:
      "Sets the view's overlay of the RRset: replace (the view's own records, one TTL) or hide; steps the view's serial of the zone; admin key only",
    params: OVERLAY_PARAMS,
    body: {
      action: {
        kind: 'string',
        required: true,
        choices: ['replace', 'hide'],
        spelling: (written) => written.toLowerCase(),
        description: "replace (the view's records) or hide (absent in the view)",
      },
      records: {
        kind: 'list',
        description: "replace: the view's records (the first one's TTL is the RRset's; 3600 when none is given); hide: none",
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { rdata: { type: 'string' }, ttl: { type: 'integer' } },
          required: ['rdata'],
        },
      },
    },
    response: ref('ViewOverlayChange'),
    async handle(inputs, runner) {
      const data = await runner.run(SetViewOverlayDocument, {
        zone: inputs.zone,
        view: inputs.view,
        owner: inputs.owner,
        type: inputs.type,
        action: String(inputs.action).toUpperCase(),
        records: inputs.records ?? null,
      });
      const { zone, view, owner, type, action } = inputs;
      return { body: { zone, view, owner, type, action, serial: data.setViewOverlay } };
    },
  },
  {
    method: 'delete',
    path: '/domain/views/:zone/:view/:owner/:type',
    operationId: 'deleteViewOverlay',
    tag: 'views',
    // the view's new serial is the answer, as GraphQL's clearViewOverlay gives it
    status: 200,
    summary:
      "Clears the view's overlay of the RRset: the view serves the base's again; steps the view's serial of the zone; admin key only",
    params: OVERLAY_PARAMS,
    response: ref('ViewOverlayChange'),
    async handle(inputs, runner) {
      const data = await runner.run(ClearViewOverlayDocument, {
        zone: inputs.zone,
        view: inputs.view,
        owner: inputs.owner,
        type: inputs.type,
      });
      const { zone, view, owner, type } = inputs;
      return { body: { zone, view, owner, type, action: 'clear', serial: data.clearViewOverlay } };
    },
  },
];
