import 'reflect-metadata';
import path from 'node:path';
import { getMetadataStorage as classValidatorRules, validate } from 'class-validator';
import { ArgumentValidationError, getMetadataStorage as typeGraphqlMetadata } from 'type-graphql';
import { checkArgument, checkInput, INPUT_VALIDATION } from '../../src/graphql/fast-path/check-input';
import { DomainsArgs, PageArgs } from '../../src/graphql/inputs/page.args';
import { RecordInput } from '../../src/graphql/inputs/record.input';
import { getSchema } from '../../src/graphql/schema';
import { variableTextProblems } from '../../src/graphql/text-input';

/** what class-validator itself says of a value, as type-graphql runs it on an argument */
async function classValidatorSays(value: object): Promise<string[]> {
  const errors = await validate(Object.assign(new RecordInput(), value), { ...INPUT_VALIDATION, skipMissingProperties: true });
  return errors.flatMap((error) => Object.keys(error.constraints ?? {}).map((rule) => `${error.property} ${rule}`));
}

/** what an argument check says: nothing, or the failing properties and rules of its ArgumentValidationError */
async function says(check: () => Promise<unknown>): Promise<string[]> {
  try {
    await check();
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentValidationError);
    return (error as ArgumentValidationError).extensions.validationErrors.flatMap((e) =>
      Object.keys(e.constraints ?? {}).map((rule) => `${e.property} ${rule}`),
    );
  }
}

function checkInputSays(value: object): Promise<string[]> {
  return says(() => checkInput(RecordInput, value as RecordInput));
}

/** checkInput answers as class-validator does, for values it accepts quickly and for those it hands over */
describe('checkInput', () => {
  const valid = { zone: 'example.com', owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 3600 };
  const pair = '\u{1F600}'; // one character, two UTF-16 units
  const cases: [string, object][] = [
    ['a valid record', valid],
    ['rdata null (optional)', { ...valid, rdata: null }],
    ['rdata missing', { zone: 'example.com', owner: 'www', type: 'A', ttl: 60 }],
    ['an empty owner', { ...valid, owner: '' }],
    ['an empty rdata', { ...valid, rdata: '' }],
    ['a type of 16 characters', { ...valid, type: 'T'.repeat(16) }],
    ['a type of 17 characters', { ...valid, type: 'T'.repeat(17) }],
    ['a zone of 1024 characters', { ...valid, zone: 'z'.repeat(1024) }],
    ['a zone of 1025 characters', { ...valid, zone: 'z'.repeat(1025) }],
    ['a type of 9 surrogate pairs (18 units, 9 characters)', { ...valid, type: pair.repeat(9) }],
    ['a type of 8 pairs and one more unit', { ...valid, type: pair.repeat(8) + 'x' }],
    ['an owner that is not text', { ...valid, owner: 42 }],
    ['whitespace only', { ...valid, owner: ' ' }],
  ];
  test.each(cases)('%s', async (_name, value) => {
    const expected = await classValidatorSays(value);
    expect(await checkInputSays(value)).toEqual(expected);
  });

  test('the cases cover acceptance and refusal, quick and handed over', async () => {
    const outcomes = await Promise.all(cases.map(([, value]) => classValidatorSays(value)));
    expect(outcomes.filter((o) => o.length === 0).length).toBeGreaterThan(3);
    expect(outcomes.filter((o) => o.length > 0).length).toBeGreaterThan(3);
    // class-validator counts characters: 9 pairs pass a limit of 16 though they are 18 UTF-16 units
    expect(await classValidatorSays({ ...valid, type: pair.repeat(9) })).toEqual([]);
  });
});

// type-graphql's own check of an argument, which the schema's validateFn stands in for (not among the package's
// exports: read from its file)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { validateArg } = require(path.join(__dirname, '../../node_modules/type-graphql/build/cjs/resolvers/validate-arg.js')) as {
  validateArg: (
    value: unknown,
    type: unknown,
    data: unknown,
    settings: unknown,
    argSettings: unknown,
    fn: unknown,
    argFn: unknown,
  ) => Promise<unknown>;
};

/** the schema's validateFn answers every argument as type-graphql's own validateArg does with the schema's setting */
describe('checkArgument', () => {
  const record = (value: object) => Object.assign(new RecordInput(), value);
  const page = (value: object) => Object.assign(new PageArgs(), value);
  const valid = { zone: 'example.com', owner: 'www', type: 'A', rdata: '192.0.2.1', ttl: 3600 };
  const cases: [string, unknown][] = [
    ['a valid input', record(valid)],
    ['an input that breaks a quick rule', record({ ...valid, owner: '' })],
    ['an input handed to class-validator', record({ ...valid, owner: 42 })],
    ['a list with its second item wrong', [record(valid), record({ ...valid, type: 'T'.repeat(17) }), record(valid)]],
    ['a list of valid inputs', [record(valid), record(valid)]],
    ['null', null],
    ['undefined', undefined],
    ['a scalar', 'text'],
    ['a plain object (a JSON scalar value)', { owner: '' }],
    // a page's `first`, between its @Min and @Max: accepted quickly, or handed to class-validator
    ...[1, 100, 1_000_000, 0, -1, 1_000_001, 1.5, Number.NaN, Infinity, null, '10'].map((first): [string, unknown] => [
      `a page of first ${String(first)}`,
      page({ first }),
    ]),
    // its cursor `after`, a @Matches: accepted quickly when it matches, or handed to class-validator
    ...['1', '1234567890123456', '12345678901234567', '', 'x1', '1\n', ' 1', 42, null].map((after): [string, unknown] => [
      `a page after ${JSON.stringify(after)}`,
      page({ first: 50, after }),
    ]),
    ['a zone list page (DomainsArgs)', Object.assign(new DomainsArgs(), { first: 50, after: '17', orderBy: 'name', userId: '3' })],
    ['a zone list page with a wrong cursor', Object.assign(new DomainsArgs(), { first: 50, after: 'z' })],
  ];
  test.each(cases)('%s', async (_name, value) => {
    const expected = await says(() => validateArg(value, Object, {}, INPUT_VALIDATION, undefined, undefined, undefined));
    expect(await says(() => checkArgument(value))).toEqual(expected);
  });

  test('the arguments declared `validate: false` have no rules: checkArgument, which type-graphql hands them too, passes them unread', async () => {
    await getSchema();
    const unvalidated = typeGraphqlMetadata().params.filter(
      (param) => (param.kind === 'arg' || param.kind === 'args') && param.validateSettings === false,
    );
    expect(unvalidated.length).toBeGreaterThan(3);
    for (const param of unvalidated) {
      const type = (param as { getType: () => unknown }).getType();
      const rules = typeof type === 'function' ? classValidatorRules().getTargetValidationMetadatas(type, '', false, false) : [];
      expect({ param: `${param.target.name}.${param.methodName}`, rules: rules.map((rule) => rule.propertyName) }).toEqual({
        param: `${param.target.name}.${param.methodName}`,
        rules: [],
      });
    }
  });
});

describe('variableTextProblems', () => {
  test('names the field of each text it refuses by its path: keys, list positions, nested lists', () => {
    const problems = variableTextProblems({
      zone: 'example.com',
      changes: [
        { kind: 'ADD', owner: 'www', ttl: 300, disabled: null },
        { kind: 'ADD', rdata: 'a\u0000b' },
      ],
      lists: [['fine', '\uD800']],
      nested: { deeper: { name: 'x\uDC00' } },
    });
    expect(problems.map((p) => [p.field, p.code])).toEqual([
      ['changes[1].rdata', 'INVALID_TEXT'],
      ['lists[0][1]', 'INVALID_TEXT'],
      ['nested.deeper.name', 'INVALID_TEXT'],
    ]);
    expect(problems[0].message).toBe('changes[1].rdata contains a NUL character (U+0000), which cannot be stored');
    expect(variableTextProblems({ changes: [{ owner: 'www', rdatas: ['192.0.2.1'] }], pair: '\uD83D\uDE00' })).toEqual([]);
  });
});
