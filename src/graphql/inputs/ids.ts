import { DomainError } from '../../errors/catalogue';

/** GraphQL IDs arrive as strings; ours are positive whole numbers below 2^53 (docs/decisions.md §1). */
export function parseId(value: string | number, field: string): number {
  const text = String(value).trim();
  const id = Number(text);
  if (!/^\d{1,16}$/.test(text) || !Number.isSafeInteger(id) || id < 1) {
    throw DomainError.invalid(field, `${field}: "${text}" is not a valid id (a positive whole number)`, 'INVALID_ID');
  }
  return id;
}

export function parseOptionalId(value: string | number | undefined | null, field: string): number | undefined {
  return value === undefined || value === null ? undefined : parseId(value, field);
}
