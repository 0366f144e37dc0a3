/**
 * The OpenAPI rule CI holds (`npm run openapi:compat`): a change of the REST layer's document that breaks a
 * client generated from it (a path, operation, field or enum value removed, an input newly required, a new
 * success answer or a success answer's shape widened) passes only when docs/openapi-changelog.md names it.
 * Each kind is made here on a copy of the document the service serves, and found; additions pass.
 */
import 'reflect-metadata';
import { refusedOpenApiChanges } from '../../src/scripts/openapi-compatibility';
import { buildOpenApi } from '../../src/rest/openapi';
import { ROUTES } from '../../src/rest/routes';

const DOCUMENT = buildOpenApi(ROUTES) as any;
/** the document changed by `change`, the original untouched */
const changed = (change: (document: any) => void) => {
  const copy = structuredClone(DOCUMENT);
  change(copy);
  return copy;
};
const refused = (after: object, changelog = '') => refusedOpenApiChanges(DOCUMENT, after, changelog);
const RECORD_ADD = (document: any) => document.paths['/api/record/add'].post;

describe('refusedOpenApiChanges', () => {
  test('the document against itself: nothing', () => {
    expect(refused(DOCUMENT)).toEqual([]);
  });

  test('additions break nobody: a path, an operation, an optional parameter and body field, an answer field, an error answer', () => {
    const after = changed((document) => {
      document.paths['/api/record/count'] = { get: { operationId: 'countRecords', responses: { '200': { description: 'n' } } } };
      document.paths['/api/record/list'].post = { operationId: 'listRecordsPost', responses: { '200': { description: 'n' } } };
      const add = RECORD_ADD(document);
      add.parameters = [...(add.parameters ?? []), { name: 'dry_run', in: 'query', required: false, schema: { type: 'string' } }];
      for (const content of Object.values<any>(add.requestBody.content)) content.schema.properties.comment = { type: 'string' };
      add.responses['418'] = { description: 'a teapot' };
      document.components.schemas.Record.properties.disabled = { type: 'boolean' };
      document.components.schemas.AuditEvent.properties.actor_email = { type: ['string', 'null'] };
    });
    expect(refused(after)).toEqual([]);
  });

  test('a path removed', () => {
    const after = changed((document) => delete document.paths['/api/record/list']);
    expect(refused(after)).toEqual([{ coordinate: '/api/record/list', message: 'path removed' }]);
  });

  test('an operation removed', () => {
    const after = changed((document) => delete document.paths['/api/record/delete/{id}'].delete);
    expect(refused(after)).toEqual([{ coordinate: 'DELETE /api/record/delete/{id}', message: 'operation removed' }]);
  });

  test("a field removed: from an answer's component, and from a request body", () => {
    const after = changed((document) => {
      const record = document.components.schemas.Record;
      delete record.properties.rdata;
      record.required = record.required.filter((field: string) => field !== 'rdata');
      for (const content of Object.values<any>(RECORD_ADD(document).requestBody.content)) delete content.schema.properties.ttl;
    });
    expect(refused(after)).toEqual(
      expect.arrayContaining([
        { coordinate: 'Record.rdata', message: 'field removed from the answer' },
        { coordinate: 'POST /api/record/add request.ttl', message: 'field no longer taken' },
      ]),
    );
    expect(refused(after)).toHaveLength(2);
  });

  test('an answer field that may be absent now', () => {
    const after = changed((document) => {
      document.components.schemas.Record.required = ['owner', 'rdata', 'zone', 'type', 'ttl'];
    });
    expect(refused(after)).toEqual([{ coordinate: 'Record.id', message: 'field may be absent now' }]);
  });

  test('an enum value removed from an input, and a new value an answer may hold', () => {
    const after = changed((document) => {
      const status = document.paths['/api/domain/changes/{zone}/requests'].get.parameters.find((p: any) => p.name === 'status');
      status.schema.enum = status.schema.enum.filter((value: string) => value !== 'REFUSED');
      document.components.schemas.AuditEvent.properties.actor_key_type.enum.push('oidc');
    });
    expect(refused(after)).toEqual(
      expect.arrayContaining([
        { coordinate: 'GET /api/domain/changes/{zone}/requests query status "REFUSED"', message: 'a value no longer taken' },
        { coordinate: 'AuditEvent.actor_key_type "oidc"', message: 'a value the answer may hold now' },
      ]),
    );
    expect(refused(after)).toHaveLength(2);
  });

  test('an input newly required: a body field, a new required parameter, an optional parameter made required', () => {
    const after = changed((document) => {
      const add = RECORD_ADD(document);
      for (const content of Object.values<any>(add.requestBody.content)) {
        content.schema.properties.comment = { type: 'string' };
        content.schema.required.push('comment');
      }
      add.parameters.push({ name: 'X-Reason', in: 'header', required: true, schema: { type: 'string' } });
      document.paths['/api/audit'].get.parameters.find((p: any) => p.name === 'kind').required = true;
    });
    expect(refused(after)).toEqual(
      expect.arrayContaining([
        { coordinate: 'POST /api/record/add request.comment', message: 'field required now' },
        { coordinate: 'POST /api/record/add header X-Reason', message: 'a new required input' },
        { coordinate: 'GET /api/audit query kind', message: 'input made required' },
      ]),
    );
    expect(refused(after)).toHaveLength(3);
  });

  test("a new success answer on an existing operation: a 202 beside the record, a type the answer's field may be now", () => {
    const after = changed((document) => {
      RECORD_ADD(document).responses['202'] = {
        description: 'a change request',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ChangeRequestAccepted' } } },
      };
      document.components.schemas.Record.properties.ttl = { type: ['string', 'integer'] };
    });
    // one finding a coordinate: the ttl's pattern no longer holding is the same field's widening
    expect(refused(after)).toEqual(
      expect.arrayContaining([
        { coordinate: 'POST /api/record/add 202', message: 'a new success answer' },
        { coordinate: 'Record.ttl', message: 'answer may be integer now' },
      ]),
    );
    expect(refused(after)).toHaveLength(2);
  });

  test('a success answer removed, and an input narrowed (a lower maximum)', () => {
    const after = changed((document) => {
      delete document.paths['/api/domain/import/{zone}'].post.responses['202'];
      for (const content of Object.values<any>(RECORD_ADD(document).requestBody.content)) content.schema.properties.ttl.maximum = 86400;
    });
    expect(refused(after)).toEqual(
      expect.arrayContaining([
        { coordinate: 'POST /api/record/add request.ttl', message: 'input at most 86400 now' },
        { coordinate: 'POST /api/domain/import/{zone} 202', message: 'success answer removed' },
      ]),
    );
    expect(refused(after)).toHaveLength(2);
  });

  test('a breaking change passes once the changelog names its coordinate as code under «Changes», and only that one', () => {
    const after = changed((document) => {
      delete document.paths['/api/record/list'];
      document.components.schemas.AuditEvent.properties.actor_key_type.enum.push('oidc');
    });
    const changelog = [
      '# openapi.json',
      'A path is named as code, as in `AuditEvent.actor_key_type "oidc"`: an example above the changes allows nothing.',
      '## Changes',
      'Removed `/api/record/list` (2026-11-29); AuditEvent.actor_key_type "oidc" named without backticks.',
    ].join('\n');
    expect(refused(after, changelog)).toEqual([
      { coordinate: 'AuditEvent.actor_key_type "oidc"', message: 'a value the answer may hold now' },
    ]);
  });
});
