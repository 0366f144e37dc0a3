/**
 * `openapi.json` is what REST clients are generated from (openapi-typescript, openapi-generator, …): a change
 * that breaks a call written against the old document breaks every client generated from it. These do:
 *
 * - a path or an operation removed;
 * - an input removed (a parameter, a body field, a media type the body came as) or narrowed (an enum value no
 *   longer taken, a type no longer taken, a lower maximum): a request that was good is refused;
 * - an input newly required (a new required parameter or body field, an optional one made required);
 * - a new success answer (a 2xx status an operation did not answer, or a media type it did not answer with) or
 *   a success answer's shape widened (a field removed or no longer always there, an enum value or a type it may
 *   now hold, a new branch of a oneOf): a generated client's types no longer say what comes back;
 * - a success answer removed.
 *
 * Adding a path, an operation, an optional input, an error answer or a field of an answer breaks nobody. A
 * breaking change is allowed only when the OpenAPI changelog (docs/openapi-changelog.md) names its coordinate as
 * code, as the GraphQL schema's changelog names `Type.field`; a reader finds there what changed and why.
 *
 * Coordinates: `/api/path` (a path), `POST /api/path` (an operation), `POST /api/path query name` (a
 * parameter), `POST /api/path request.field` (the body), `GET /api/path 200[].field` (a success answer: `[]`
 * an array's items), `Schema.field` (inside a component schema both documents name, reported once for every
 * operation that uses it), and an enum value after its field as JSON: `AuditEvent.actor_key_type "session"`.
 */
export interface RefusedOpenApiChange {
  coordinate: string;
  message: string;
}

/** the parts of an OpenAPI 3.1 document this reads (its schemas are JSON Schema 2020-12) */
interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  maximum?: number;
  minimum?: number;
  pattern?: string;
}
interface Content {
  content?: Record<string, { schema?: Schema }>;
}
interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: Content & { required?: boolean };
  responses?: Record<string, Content>;
}
type PathItem = { [method in (typeof METHODS)[number]]?: Operation } & { parameters?: Parameter[] };
export interface OpenApiDocument {
  paths?: Record<string, PathItem>;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
const COMPONENT = '#/components/schemas/';

/** a request's schema can only be narrowed without breaking nobody; an answer's only widened */
type Direction = 'request' | 'answer';

const isSuccess = (status: string) => /^2\d\d$/.test(status) || status === '2XX';
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

class Comparison {
  readonly found = new Map<string, string>();
  /** the component schemas compared already, per direction (a component is reported once) */
  private readonly compared = new Set<string>();

  constructor(
    private readonly before: OpenApiDocument,
    private readonly after: OpenApiDocument,
  ) {}

  private report(coordinate: string, message: string) {
    if (!this.found.has(coordinate)) this.found.set(coordinate, message);
  }

  paths() {
    for (const [path, item] of Object.entries(this.before.paths ?? {})) {
      const now = this.after.paths?.[path];
      if (!now) {
        this.report(path, 'path removed');
        continue;
      }
      for (const method of METHODS) {
        if (!item[method]) continue;
        const operation = `${method.toUpperCase()} ${path}`;
        if (!now[method]) {
          this.report(operation, 'operation removed');
          continue;
        }
        this.parameters(
          operation,
          [...(item.parameters ?? []), ...(item[method].parameters ?? [])],
          [...(now.parameters ?? []), ...(now[method].parameters ?? [])],
        );
        this.requestBody(operation, item[method].requestBody, now[method].requestBody);
        this.responses(operation, item[method].responses ?? {}, now[method].responses ?? {});
      }
    }
  }

  private parameters(operation: string, before: Parameter[], after: Parameter[]) {
    const key = (parameter: Parameter) => `${parameter.in} ${parameter.name}`;
    const now = new Map(after.map((parameter) => [key(parameter), parameter]));
    for (const parameter of before) {
      const coordinate = `${operation} ${key(parameter)}`;
      const kept = now.get(key(parameter));
      now.delete(key(parameter));
      if (!kept) this.report(coordinate, 'input removed');
      else {
        if (kept.required && !parameter.required) this.report(coordinate, 'input made required');
        this.schema(parameter.schema, kept.schema, 'request', coordinate);
      }
    }
    for (const [name, added] of now) if (added.required) this.report(`${operation} ${name}`, 'a new required input');
  }

  private requestBody(operation: string, before: Operation['requestBody'], after: Operation['requestBody']) {
    const coordinate = `${operation} request`;
    if (!before) {
      if (after?.required) this.report(coordinate, 'a new required input');
      return;
    }
    if (!after) return this.report(coordinate, 'input removed');
    if (after.required && !before.required) this.report(coordinate, 'input made required');
    for (const [mediaType, content] of Object.entries(before.content ?? {})) {
      const kept = after.content?.[mediaType];
      if (!kept) this.report(`${coordinate} ${mediaType}`, 'input media type removed');
      else this.schema(content.schema, kept.schema, 'request', coordinate);
    }
  }

  private responses(operation: string, before: Record<string, Content>, after: Record<string, Content>) {
    for (const status of Object.keys(after).filter(isSuccess))
      if (!before[status]) this.report(`${operation} ${status}`, 'a new success answer');
    for (const [status, answer] of Object.entries(before)) {
      if (!isSuccess(status)) continue;
      const coordinate = `${operation} ${status}`;
      const now = after[status];
      if (!now) {
        this.report(coordinate, 'success answer removed');
        continue;
      }
      for (const mediaType of Object.keys(now.content ?? {}))
        if (!answer.content?.[mediaType]) this.report(`${coordinate} ${mediaType}`, 'a new success answer media type');
      for (const [mediaType, content] of Object.entries(answer.content ?? {})) {
        const kept = now.content?.[mediaType];
        if (!kept) this.report(`${coordinate} ${mediaType}`, 'success answer media type removed');
        else this.schema(content.schema, kept.schema, 'answer', coordinate);
      }
    }
  }

  /** a schema with its references followed and an allOf's parts merged (properties and required) */
  private resolve(document: OpenApiDocument, schema: Schema | undefined, depth = 0): Schema {
    if (!schema || depth > 32) return {};
    if (schema.$ref?.startsWith(COMPONENT)) {
      const { $ref, ...rest } = schema;
      return { ...this.resolve(document, document.components?.schemas?.[$ref.slice(COMPONENT.length)], depth + 1), ...rest };
    }
    if (schema.allOf) {
      const { allOf, ...rest } = schema;
      const parts = [...allOf.map((part) => this.resolve(document, part, depth + 1)), rest];
      return {
        ...(Object.assign({}, ...parts) as Schema),
        properties: Object.assign({}, ...parts.map((part) => part.properties ?? {})) as Record<string, Schema>,
        required: [...new Set(parts.flatMap((part) => part.required ?? []))],
      };
    }
    return schema;
  }

  private schema(beforeSchema: Schema | undefined, afterSchema: Schema | undefined, direction: Direction, coordinate: string) {
    // the same component on both sides: compared once, under its own name
    const name = (schema: Schema | undefined) =>
      schema?.$ref?.startsWith(COMPONENT) && Object.keys(schema).length === 1 ? schema.$ref.slice(COMPONENT.length) : undefined;
    const component = name(beforeSchema);
    if (component !== undefined && component === name(afterSchema)) {
      if (this.compared.has(`${direction} ${component}`)) return;
      this.compared.add(`${direction} ${component}`);
      coordinate = component;
    }
    const before = this.resolve(this.before, beforeSchema);
    const after = this.resolve(this.after, afterSchema);
    // an answer may hold nothing it could not hold (`wide` is the new one); a request must take all it took
    const [narrow, wide] = direction === 'answer' ? [before, after] : [after, before];

    // the types and values: an answer may not hold one it could not; a request must still take each it took
    const typesOf = (schema: Schema): Set<string> | undefined => {
      if (schema.const !== undefined) return new Set([jsonType(schema.const)]);
      if (schema.enum) return new Set(schema.enum.map(jsonType));
      if (schema.type === undefined) return undefined;
      return new Set(Array.isArray(schema.type) ? schema.type : [schema.type]);
    };
    const narrowTypes = typesOf(narrow);
    const wideTypes = typesOf(wide);
    if (narrowTypes && !wideTypes)
      this.report(coordinate, direction === 'answer' ? 'answer of any type now' : 'input limited to a type now');
    if (narrowTypes && wideTypes)
      for (const type of wideTypes)
        if (!narrowTypes.has(type) && !(type === 'integer' && narrowTypes.has('number')))
          this.report(coordinate, direction === 'answer' ? `answer may be ${type} now` : `input no longer taken as ${type}`);
    const valuesOf = (schema: Schema): unknown[] | undefined => (schema.const !== undefined ? [schema.const] : schema.enum);
    const narrowValues = valuesOf(narrow);
    const wideValues = valuesOf(wide);
    if (narrowValues && !wideValues && wideTypes && [...wideTypes].every((type) => narrowTypes?.has(type)))
      this.report(coordinate, direction === 'answer' ? 'answer no longer limited to its values' : 'input limited to some values now');
    if (narrowValues && wideValues)
      for (const value of wideValues)
        if (!narrowValues.some((known) => same(known, value)))
          this.report(
            `${coordinate} ${JSON.stringify(value)}`,
            direction === 'answer' ? 'a value the answer may hold now' : 'a value no longer taken',
          );
    if (direction === 'request') {
      if (typeof after.maximum === 'number' && (typeof before.maximum !== 'number' || after.maximum < before.maximum))
        this.report(coordinate, `input at most ${after.maximum} now`);
      if (typeof after.minimum === 'number' && (typeof before.minimum !== 'number' || after.minimum > before.minimum))
        this.report(coordinate, `input at least ${after.minimum} now`);
    }
    if (after.pattern !== undefined && after.pattern !== before.pattern && direction === 'request')
      this.report(coordinate, `input must match ${after.pattern} now`);
    if (before.pattern !== undefined && after.pattern !== before.pattern && direction === 'answer')
      this.report(coordinate, `answer no longer matches ${before.pattern} always`);

    // an object's fields
    const beforeFields = before.properties ?? {};
    const afterFields = after.properties ?? {};
    const beforeRequired = new Set(before.required ?? []);
    const afterRequired = new Set(after.required ?? []);
    for (const [field, schema] of Object.entries(beforeFields)) {
      const at = `${coordinate}.${field}`;
      if (!(field in afterFields)) {
        this.report(at, direction === 'answer' ? 'field removed from the answer' : 'field no longer taken');
        continue;
      }
      if (direction === 'answer' && beforeRequired.has(field) && !afterRequired.has(field)) this.report(at, 'field may be absent now');
      this.schema(schema, afterFields[field], direction, at);
    }
    if (direction === 'request')
      for (const field of afterRequired) if (!beforeRequired.has(field)) this.report(`${coordinate}.${field}`, 'field required now');

    // an array's items, and the branches of a oneOf or anyOf
    if (before.items || after.items) this.schema(before.items, after.items, direction, `${coordinate}[]`);
    for (const keyword of ['oneOf', 'anyOf'] as const) {
      const [fewer, more] = direction === 'answer' ? [before[keyword], after[keyword]] : [after[keyword], before[keyword]];
      if (!fewer || !more) continue;
      for (const branch of more)
        if (!fewer.some((known) => same(known, branch)))
          this.report(coordinate, direction === 'answer' ? `a new ${keyword} branch of the answer` : `a ${keyword} branch no longer taken`);
    }
  }
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * the changelog's «Changes» section names a coordinate as code: `GET /api/audit 200[].actor_key_type` (the
 * examples above it allow nothing)
 */
function listed(changelog: string, coordinate: string): boolean {
  const section = changelog.indexOf('\n## Changes');
  return changelog.slice(section === -1 ? 0 : section).includes(`\`${coordinate}\``);
}

/** the breaking changes from `before` to `after` that `changelog` does not name */
export function refusedOpenApiChanges(before: OpenApiDocument, after: OpenApiDocument, changelog: string): RefusedOpenApiChange[] {
  const comparison = new Comparison(before, after);
  comparison.paths();
  return [...comparison.found]
    .filter(([coordinate]) => !listed(changelog, coordinate))
    .map(([coordinate, message]) => ({ coordinate, message }));
}
