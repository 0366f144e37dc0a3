import { DomainError } from '../../errors/catalogue';

/*
 * An ALIAS/ANAME with no resolver to flatten it (docs/templates-and-alias.md): the engine refuses it on every write
 * but a secondary zone's transfer, and the API says why such a record serves no address.
 */

/** why an ALIAS/ANAME is not flattened while ALIAS_RESOLVERS is empty */
export const aliasResolversUnsetReason = (type: string): string =>
  `ALIAS_RESOLVERS is not set: nothing flattens the ${type}, its owner serves no address`;

/**
 * an ALIAS/ANAME refused because ALIAS_RESOLVERS is empty: nothing could flatten it, so it would never be served;
 * `line`: the zone file's line it came from
 */
export function aliasResolversUnset(type: string, field: string, at?: string, line?: number): DomainError {
  const where = at ? ` (${type} at ${at})` : '';
  const message = `${line === undefined ? '' : `line ${line}: `}${field}: ${type} records need the ALIAS_RESOLVERS setting (the resolvers the service flattens them with); it is empty${where}`;
  return new DomainError('ALIAS_RESOLVERS_UNSET', message, [
    { field, code: 'ALIAS_RESOLVERS_UNSET', message, ...(line === undefined ? {} : { line }) },
  ]);
}
