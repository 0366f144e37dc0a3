import { registerEnumType } from 'type-graphql';
import { listRecordTypes } from '../../dns/record-types';
import { DomainError } from '../../errors/catalogue';

/**
 * The `RecordType` enum: every type the DNS model has a file for (src/dns/record-types), so generated clients
 * get a union of literals. Types outside it (RFC 3597 `TYPEnnn`, which zone files may hold) stay possible
 * through the string fields (`Record.type`, `RecordInput.type`, the `type` filters).
 */
export const RecordTypeEnum: Record<string, string> = Object.fromEntries(listRecordTypes().map((t) => [t.type, t.type]));

registerEnumType(RecordTypeEnum, {
  name: 'RecordType',
  description:
    'The record types the DNS model knows (the `recordTypes` query lists their RDATA fields). RFC 3597 TYPEnnn types go through the String `type` fields.',
  valuesConfig: Object.fromEntries(listRecordTypes().map((t) => [t.type, { description: t.rfcs.join(', ') }])),
});

/** the enum value of a stored type, or null for an RFC 3597 generic type */
export function recordTypeOf(type: string): string | null {
  return Object.hasOwn(RecordTypeEnum, type) ? type : null;
}

/** a type filter given as `type` (String) and/or `recordType` (enum): the same type, or a 422 naming both */
export function typeFilter(type: string | null | undefined, recordType: string | null | undefined): string | undefined {
  const text = type?.toUpperCase() ?? undefined;
  const chosen = recordType ?? undefined;
  if (text !== undefined && chosen !== undefined && text !== chosen) {
    throw DomainError.invalid(
      'recordType',
      `recordType: ${chosen} and type: ${text} ask for different types; give one of them`,
      'CONFLICTING_TYPE_FILTERS',
    );
  }
  return chosen ?? text;
}
