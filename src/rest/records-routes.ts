import { GetRecordDocument } from './generated/records';
import { RecordInput } from '../graphql/inputs/record.input';
import { parseId } from '../graphql/inputs/ids';
import { presentRecord, type PresentedRecord } from './presenters';
import { arrayOf, FieldSpec, ID_PARAM, Inputs, mapPages, PAGE, ref, RouteSpec } from './route-spec';
import type { Services } from '../services';
import type { RequestContext } from '../services/context';
import type { RecordRow } from '../repositories/read-model';
import { rrsetKey } from '../repositories/rrset-comments';
import { answerOf, proposesWhenPreferred } from './change-requests-routes';

/** The records' REST routes: /record/… */
const RECORD_BODY: Record<string, FieldSpec> = {
  zone: { kind: 'string', required: true, description: 'zone name' },
  owner: { kind: 'string', required: true, description: "owner of the record ('@' = apex)" },
  rtype: { kind: 'string', required: true, description: 'record type' },
  rdata: { kind: 'string', required: true, description: 'record RDATA' },
  ttl: { kind: 'int', required: true, description: 'one of the allowed TTL values', max: 2_147_483_647 },
  comment: {
    kind: 'string',
    emptyText: true,
    description:
      "the comment of the record's RRset becomes this ('' removes it; absent, it stays): free text, at most MAX_COMMENT_LENGTH characters (else 422 COMMENT_TOO_LONG naming comment); no DNS data, kept in the zone's history",
  },
};

/** the comment a body gives the record's RRset (absent: it stays as it is) */
const commentOf = (inputs: Inputs) =>
  inputs.comment === undefined || inputs.comment === null ? {} : { comment: inputs.comment as string };

/** the comment a body gave the record's RRset, as a write answers it ('' removed it: none) */
const givenComment = (inputs: Inputs) => (inputs.comment as string | undefined) || null;

/** a record named by its id alone: a deletion's argument (no rule to check beyond the path's whole number) */
class RecordIdInput {
  id!: number;
}

const recordInput = (inputs: Inputs): RecordInput => ({
  zone: inputs.zone as string,
  owner: inputs.owner as string,
  type: inputs.rtype as string,
  rdata: inputs.rdata as string,
  ttl: inputs.ttl as number,
  ...commentOf(inputs),
});

/**
 * Pages of records with their RRsets' comments (`comment`, where one has one): one statement a page, over the
 * records the caller has read already (so may read their RRsets)
 */
async function* withComments(
  services: Services,
  context: RequestContext,
  pages: AsyncIterable<readonly RecordRow[]>,
): AsyncIterable<readonly PresentedRecord[]> {
  for await (const page of pages) {
    const texts = await services.rrsetComments.textsOfRecords(context, page);
    yield texts.size ? page.map((r) => ({ ...r, comment: texts.get(rrsetKey(r.domainId, r.owner, r.type)) ?? null })) : page;
  }
}

export const RECORD_ROUTES: RouteSpec[] = [
  {
    method: 'get',
    path: '/record/list',
    operationId: 'listRecords',
    tag: 'records',
    summary: 'List all records',
    status: 200,
    response: arrayOf('Record'),
    async handle(_inputs, runner) {
      // the records GraphQL's `records` lists, by the same service method's scope and rules, in pages of 10,000
      const rows = await runner.stream((services, context) =>
        withComments(services, context, services.records.pages(context, {}, PAGE * 5)),
      );
      return { itemPages: mapPages(rows, presentRecord) };
    },
  },
  {
    method: 'get',
    path: '/record/list/:id',
    operationId: 'getRecord',
    tag: 'records',
    summary: 'Get one record',
    status: 200,
    params: ID_PARAM,
    response: ref('Record'),
    async handle(inputs, runner) {
      const data = await runner.run(GetRecordDocument, { id: String(inputs.id) });
      return { body: presentRecord(data.record) };
    },
  },
  {
    method: 'post',
    path: '/record/add',
    operationId: 'addRecord',
    tag: 'records',
    summary: 'Create a record',
    status: 201,
    body: RECORD_BODY,
    response: ref('Record'),
    proposes: 'when-preferred',
    async handle(inputs, runner, preferences) {
      // GraphQL's createRecord (its resolver calls the same service with its argument), run as `call`; a zone
      // under review, asked (Prefer: respond-async): the record proposed as a change set's ADD (docs/changes.md)
      const outcome = await runner.call('input', RecordInput, recordInput(inputs), (services, context, input) =>
        services.recordWrites.create(context, input, proposesWhenPreferred(preferences)),
      );
      // the comment given is answered as written (GET answers the RRset's comment whatever wrote it)
      return answerOf(outcome, (record) => ({ body: presentRecord({ ...record, comment: givenComment(inputs) }) }));
    },
  },
  {
    method: 'put',
    path: '/record/edit/:id',
    operationId: 'editRecord',
    tag: 'records',
    summary: 'Edit a record (an SOA edit must raise the serial)',
    names: 'record',
    status: 200,
    params: ID_PARAM,
    body: RECORD_BODY,
    response: ref('Record'),
    proposes: 'when-preferred',
    async handle(inputs, runner, preferences) {
      const id = parseId(inputs.id as number, 'id');
      // GraphQL's updateRecord, run as `call`; a zone under review, asked: the record replaced by id, as a change
      // set's REPLACE (its zone is the body's: a record of another is not found)
      const outcome = await runner.call('input', RecordInput, recordInput(inputs), async (services, context, input) => {
        const edited = await services.recordWrites.update(context, id, input, proposesWhenPreferred(preferences));
        if (edited.outcome === 'proposed') return edited;
        // the comment given is answered as written; none given, the RRset's, whatever wrote it (as GET answers)
        const record = edited.written;
        const comment =
          inputs.comment === undefined || inputs.comment === null
            ? ((await services.rrsetComments.textsOfRecords(context, [record])).get(rrsetKey(record.domainId, record.owner, record.type)) ??
              null)
            : givenComment(inputs);
        return { outcome: 'written' as const, written: { ...record, comment } };
      });
      return answerOf(outcome, (record) => ({ body: presentRecord(record) }));
    },
  },
  {
    method: 'delete',
    path: '/record/delete/:id',
    operationId: 'deleteRecord',
    tag: 'records',
    summary: 'Delete a record',
    status: 204,
    params: ID_PARAM,
    proposes: 'when-preferred',
    async handle(inputs, runner, preferences) {
      const id = parseId(inputs.id as number, 'id');
      // GraphQL's removeRecord, run as `call`; a zone under review, asked: the record removed by id, in its zone
      const outcome = await runner.call('record', RecordIdInput, { id }, (services, context) =>
        services.recordWrites.delete(context, id, proposesWhenPreferred(preferences)),
      );
      return answerOf(outcome, () => ({ empty: true }));
    },
  },
];

/** the OpenAPI schema of a record as the answers show it (a component of the document: openapi.ts assembles them) */
export const RECORD_SCHEMAS = {
  Record: {
    type: 'object',
    properties: {
      id: { type: 'integer' },
      owner: { type: 'string' },
      rdata: { type: 'string' },
      zone: { type: 'string' },
      type: { type: 'string' },
      ttl: { type: 'string', pattern: '^[0-9]+$' },
      comment: {
        type: 'string',
        description:
          "the comment of the record's RRset, where it has one (docs/changes.md, «Comments»); a record's add answers the comment it gave",
      },
    },
    required: ['id', 'owner', 'rdata', 'zone', 'type', 'ttl'],
  },
};
