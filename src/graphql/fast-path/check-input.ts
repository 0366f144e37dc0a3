import { getMetadataStorage, validate, ValidationTypes } from 'class-validator';
import { ArgumentValidationError } from 'type-graphql';

/** how type-graphql checks an input object given as an argument (class-validator): the schema's setting (schema.ts) */
export const INPUT_VALIDATION = { forbidUnknownValues: false };

/** whether an input's values pass its class's rules for certain, by `quickAccept`; undefined: its rules are other */
type QuickAccept = (input: Record<string, unknown>) => boolean;

/**
 * A check derived from a class's rules that accepts only what class-validator accepts, for the rules an input
 * type of this schema mostly has: `@IsNotEmpty`, `@MaxLength`, `@IsOptional`, and a page's `@Min`, `@Max` and `@Matches`. A
 * value missing (undefined, null) passes, as type-graphql skips missing properties; a text passes `@MaxLength(n)`
 * when it has at most n UTF-16 units (class-validator counts a surrogate pair as one character, so never more); a
 * number passes `@Min(n)` at n or above and `@Max(n)` at n or below, and a text `@Matches(expression)` when the
 * expression finds a match in it, as class-validator's own. Whatever it does not
 * accept is decided by class-validator itself, and a class with any other rule always is: the answer is
 * class-validator's in every case, without its run for every valid write (its rule look-ups and constraint
 * objects were ~6 % of a REST record create's CPU, bench/FINDINGS.md).
 */
function quickAcceptOf(type: new () => object): QuickAccept | undefined {
  const rules: { property: string; accepts: (value: unknown) => boolean }[] = [];
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(type, '', false, false)) {
    if (rule.each || rule.always || rule.groups?.length) return undefined;
    if (rule.type === ValidationTypes.CONDITIONAL_VALIDATION && rule.name === 'isOptional') continue;
    if (rule.type !== ValidationTypes.CUSTOM_VALIDATION) return undefined;
    if (rule.name === 'isNotEmpty') rules.push({ property: rule.propertyName, accepts: (value) => value !== '' });
    else if (rule.name === 'maxLength' && typeof rule.constraints?.[0] === 'number') {
      const max = rule.constraints[0];
      rules.push({ property: rule.propertyName, accepts: (value) => typeof value === 'string' && value.length <= max });
    } else if ((rule.name === 'min' || rule.name === 'max') && typeof rule.constraints?.[0] === 'number') {
      // a page's `first`: class-validator's min and max accept a number on the bound's side of it, nothing else
      const bound = rule.constraints[0];
      rules.push({
        property: rule.propertyName,
        accepts:
          rule.name === 'min'
            ? (value) => typeof value === 'number' && value >= bound
            : (value) => typeof value === 'number' && value <= bound,
      });
    } else if (rule.name === 'matches' && rule.constraints?.[0] instanceof RegExp && rule.constraints[1] === undefined) {
      // a page's cursor: class-validator's matches takes a text that the expression finds in (String.match)
      const pattern = rule.constraints[0];
      rules.push({ property: rule.propertyName, accepts: (value) => typeof value === 'string' && value.match(pattern) !== null });
    } else return undefined;
  }
  return (input) =>
    rules.every(({ property, accepts }) => {
      const value = input[property];
      return value === undefined || value === null || accepts(value);
    });
}

const QUICK_ACCEPTS = new WeakMap<object, QuickAccept | undefined>();

/** An input object checked by its own class's rules (class-validator reads them from its constructor). */
async function checkObject(input: object): Promise<void> {
  const type = input.constructor as new () => object;
  if (!QUICK_ACCEPTS.has(type)) QUICK_ACCEPTS.set(type, quickAcceptOf(type));
  if (QUICK_ACCEPTS.get(type)?.(input as Record<string, unknown>)) return;
  const errors = await validate(input, { ...INPUT_VALIDATION, skipMissingProperties: true });
  if (errors.length) throw new ArgumentValidationError(errors);
}

/**
 * An input object checked by its class's rules exactly as type-graphql checks an operation's argument
 * (`validateArg`: the schema's setting, missing properties skipped), for an edge that hands the input to its
 * service itself instead of running the operation (the REST layer's writes, src/rest/router.ts `call`). A
 * failure is type-graphql's own ArgumentValidationError, which formatError lists field by field, so the answer
 * is the operation's.
 */
export async function checkInput<T extends object>(type: new () => T, value: T): Promise<T> {
  const input = Object.assign(new type(), value);
  await checkObject(input);
  return input;
}

/**
 * The schema's check of every operation's arguments (buildSchema's `validateFn`, schema.ts), with what
 * type-graphql's own `validateArg` decides for INPUT_VALIDATION: a missing or scalar value passes; an object,
 * or each object of a list, is checked by its class's rules, and the first that fails throws
 * ArgumentValidationError with its errors. Given to type-graphql as a function because its own path requires
 * class-validator again for every argument (an `await import`), and as another module loaded it first, Node
 * resolves its path anew each time: a module search per argument of every operation (bench/FINDINGS.md).
 * type-graphql hands this function the arguments declared `validate: false` as well: their classes have no
 * rules (test/unit/check-input.test.ts keeps it so), so they pass at once.
 */
export async function checkArgument(value: unknown): Promise<void> {
  if (value === null || typeof value !== 'object') return;
  if (!Array.isArray(value)) return checkObject(value);
  for (const item of value as unknown[]) if (item !== null && typeof item === 'object') await checkObject(item);
}
