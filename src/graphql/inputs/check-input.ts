import { validate } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';

/** how type-graphql checks an input object given as an argument (class-validator): the schema's setting (schema.ts) */
export const INPUT_VALIDATION = { forbidUnknownValues: false };

/**
 * An input object checked by its class's rules exactly as type-graphql checks an operation's argument
 * (`validateArg`: the schema's setting, missing properties skipped), for an edge that hands the input to its
 * service itself instead of running the operation (the REST layer's writes, src/rest/router.ts `call`). A
 * failure is type-graphql's own ArgumentValidationError, which formatError lists field by field, so the answer
 * is the operation's.
 */
export async function checkInput<T extends object>(type: new () => T, value: T): Promise<T> {
  const input = Object.assign(new type(), value);
  const errors = await validate(input, { ...INPUT_VALIDATION, skipMissingProperties: true });
  if (errors.length) throw new ArgumentValidationError(errors);
  return input;
}
