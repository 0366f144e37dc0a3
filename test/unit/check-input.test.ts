import 'reflect-metadata';
import { validate } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';
import { checkInput, INPUT_VALIDATION } from '../../src/graphql/inputs/check-input';
import { RecordInput } from '../../src/graphql/inputs/record.input';

/** what class-validator itself says of a value, as type-graphql runs it on an argument */
async function classValidatorSays(value: object): Promise<string[]> {
  const errors = await validate(Object.assign(new RecordInput(), value), { ...INPUT_VALIDATION, skipMissingProperties: true });
  return errors.flatMap((error) => Object.keys(error.constraints ?? {}).map((rule) => `${error.property} ${rule}`));
}

async function checkInputSays(value: object): Promise<string[]> {
  try {
    await checkInput(RecordInput, value as RecordInput);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ArgumentValidationError);
    return (error as ArgumentValidationError).extensions.validationErrors.flatMap((e) =>
      Object.keys(e.constraints ?? {}).map((rule) => `${e.property} ${rule}`),
    );
  }
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
