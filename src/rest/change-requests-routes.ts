import {
  ApproveChangeRequestDocument,
  CancelChangeRequestDocument,
  RejectChangeRequestDocument,
  ChangeRequestDocument,
  ChangeRequestsDocument,
} from './generated/change-requests';
import { proposedOf, type ProposalAcceptance, type WriteOutcome } from '../services/zones/change-requests.service';
import { arrayOf, FieldSpec, ID_PARAM, Preferences, ref, RouteResult, RouteSpec } from './route-spec';

/**
 * Review (docs/changes.md, «Review»), beside the documented paths: a zone's change requests listed and read, and
 * each approved, rejected or cancelled, by the same GraphQL operations as the API's (ChangeRequestsService
 * decides: a key approves nothing, NOT_SIGNED_IN; a person signs in by the console's cookie). And what a REST
 * write answers on a zone under review: 202, the change request it became (a documented path's, only when asked).
 */

/** the change request's statuses as the API names them; `ALL`: every one */
const STATUSES = ['PENDING', 'APPROVED', 'APPLIED', 'REJECTED', 'REFUSED', 'CANCELLED'] as const;

const COMMENT: Record<string, FieldSpec> = {
  comment: { kind: 'string', description: 'why (kept with the review, shown to the author)' },
};

/**
 * Whether a documented path's write (`proposes: 'when-preferred'`) to a zone that requires approvals is proposed
 * instead as a change request (ChangeRequestsService.writeOrPropose decides) and answered 202 with it, as the
 * changes route answers (`{"zone", "changeRequest": {"id", "status", "requiredApprovals"}}`): when the request
 * prefers `respond-async` (RFC 7240 §4.1). Without it the write is refused, 409 ZONE_UNDER_REVIEW, its message
 * naming that header: a legacy client knows the path's one success body, and a 202 it never asked for would read
 * as a write that was done.
 */
export const proposesWhenPreferred = (preferences: Preferences): ProposalAcceptance =>
  preferences.respondAsync
    ? true
    : { refusal: 'or send this request again with the header "Prefer: respond-async" (RFC 7240): answered 202, the change request' };

/** a write's outcome as the path answers it: its own answer when written, 202 with the change request when proposed */
export function answerOf<T>(
  outcome: WriteOutcome<T>,
  written: (result: T) => RouteResult | Promise<RouteResult>,
): RouteResult | Promise<RouteResult> {
  if (outcome.outcome === 'written') return written(outcome.written);
  const request = outcome.changeRequest;
  return accepted(request.zone, { ...proposedOf(request), id: String(request.id) });
}

/** a write that became a change request: 202, the request (docs/changes.md, «Review») */
export const accepted = (zone: string, changeRequest: Record<string, unknown>): RouteResult => ({
  status: 202,
  body: { zone, changeRequest },
});

const review = (verdict: 'approve' | 'reject'): RouteSpec => ({
  method: 'post',
  path: `/domain/change-requests/:id/${verdict}`,
  operationId: `${verdict}ChangeRequest`,
  tag: 'domains',
  summary:
    verdict === 'approve'
      ? 'Approve a change request, with a comment: a person signed in whose role writes the zone, not its author; the last approval applies it (or refuses it, its conflicts named)'
      : 'Reject a change request, with a comment: it is closed, nothing written',
  status: 200,
  params: ID_PARAM,
  body: COMMENT,
  response: ref('ChangeRequest'),
  async handle(inputs, runner) {
    const variables = { id: String(inputs.id), comment: inputs.comment ?? null };
    const body =
      verdict === 'approve'
        ? (await runner.run(ApproveChangeRequestDocument, variables)).approveChangeRequest
        : (await runner.run(RejectChangeRequestDocument, variables)).rejectChangeRequest;
    return { body };
  },
});

export const CHANGE_REQUEST_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/domain/changes/:zone/requests',
    operationId: 'listChangeRequests',
    tag: 'domains',
    names: 'zone',
    // a request's state moves with its reviews, which step no serial: no ETag
    uncached: true,
    status: 200,
    summary: "A zone's change requests, newest first: the pending ones unless `status` says otherwise, each with its plan and reviews",
    params: { zone: { kind: 'string', required: true, description: 'zone name' } },
    query: {
      status: {
        kind: 'string',
        description: 'PENDING (default), APPROVED, APPLIED, REJECTED, REFUSED, CANCELLED, or ALL',
        choices: [...STATUSES, 'ALL'],
        spelling: (written) => written.toUpperCase(),
      },
      first: { kind: 'int', description: 'at most this many (default 50)', max: 500 },
    },
    response: arrayOf('ChangeRequest'),
    async handle(inputs, runner) {
      const status = (inputs.status as string | undefined) ?? 'PENDING';
      const data = await runner.run(ChangeRequestsDocument, {
        zone: inputs.zone,
        status: status === 'ALL' ? null : [status],
        first: inputs.first,
      });
      return { body: data.changeRequests };
    },
  },
  {
    method: 'get',
    path: '/domain/change-requests/:id',
    operationId: 'getChangeRequest',
    tag: 'domains',
    uncached: true,
    status: 200,
    summary: 'One change request: its plan (each RRset before and after, its warnings), reviews and status',
    params: ID_PARAM,
    response: ref('ChangeRequest'),
    async handle(inputs, runner) {
      const data = await runner.run(ChangeRequestDocument, { id: String(inputs.id) });
      return { body: data.changeRequest };
    },
  },
  review('approve'),
  review('reject'),
  {
    method: 'post',
    path: '/domain/change-requests/:id/cancel',
    operationId: 'cancelChangeRequest',
    tag: 'domains',
    summary: 'Cancel a change request not applied yet: its author, a reviewer or the operator',
    status: 200,
    params: ID_PARAM,
    response: ref('ChangeRequest'),
    async handle(inputs, runner) {
      const data = await runner.run(CancelChangeRequestDocument, { id: String(inputs.id) });
      return { body: data.cancelChangeRequest };
    },
  },
];

const nullable = (type: string) => ({ type: [type, 'null'] });
const CHANGED_RECORD = { $ref: '#/components/schemas/ChangedRecord' };

/** the OpenAPI schemas of a change request, and of the 202 a write to a zone under review answers */
export const CHANGE_REQUEST_SCHEMAS = {
  ChangeRequestAccepted: {
    type: 'object',
    description: 'The zone requires approvals: the write became this change request, and nothing was written (docs/changes.md, «Review»)',
    properties: {
      zone: { type: 'string' },
      changeRequest: {
        type: 'object',
        properties: {
          id: { type: 'string', pattern: '^[0-9]+$' },
          status: { enum: ['PENDING', 'APPROVED'] },
          requiredApprovals: { type: 'integer' },
        },
        required: ['id', 'status', 'requiredApprovals'],
      },
    },
    required: ['zone', 'changeRequest'],
  },
  ChangeRequest: {
    type: 'object',
    properties: {
      id: { type: 'string', pattern: '^[0-9]+$' },
      zone: { type: 'string' },
      status: { enum: [...STATUSES] },
      author: { type: 'string', description: "the person's e-mail address, or the key's name" },
      plannedSerial: { type: 'integer' },
      appliedSerial: nullable('integer'),
      requiredApprovals: { type: 'integer' },
      approvals: { type: 'integer' },
      scheduledAt: nullable('string'),
      createdAt: { type: 'string' },
      closedAt: nullable('string'),
      conflicts: {
        type: ['array', 'null'],
        description: 'REFUSED: the RRsets that moved since it was planned',
        items: { type: 'object', properties: { owner: { type: 'string' }, type: { type: 'string' } }, required: ['owner', 'type'] },
      },
      reason: nullable('string'),
      plan: {
        type: 'object',
        properties: {
          serialBefore: { type: 'integer' },
          serial: { type: 'integer' },
          rrsets: {
            type: ['array', 'null'],
            items: {
              type: 'object',
              properties: {
                owner: { type: 'string' },
                type: { type: 'string' },
                before: { type: 'array', items: CHANGED_RECORD },
                after: { type: 'array', items: CHANGED_RECORD },
              },
              required: ['owner', 'type', 'before', 'after'],
            },
          },
          warnings: {
            type: ['array', 'null'],
            items: { type: 'object', properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } } },
          },
        },
        required: ['serialBefore', 'serial'],
      },
      reviews: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            reviewer: { type: 'string' },
            verdict: { enum: ['APPROVE', 'REJECT'] },
            comment: nullable('string'),
            createdAt: { type: 'string' },
          },
          required: ['reviewer', 'verdict', 'comment', 'createdAt'],
        },
      },
    },
    required: ['id', 'zone', 'status', 'author', 'plannedSerial', 'requiredApprovals', 'approvals', 'plan', 'reviews'],
  },
};
